"""``courtroom eval DATASET``: measure a procedure against baselines on labelled decisions.

Registered in ``cli.py`` with ``app.command("eval")(eval_command)``. A thin front end: it
parses options, shows the progress bar and prints the report; ``evaluation.evaluate`` does
the work. Exit codes as for ``courtroom run``: 0 done, 1 interrupted or failed, 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

import typer


def eval_command(
    dataset: str = typer.Argument(..., help="iclr2017, adr, or a .jsonl file of {question, context, answer} lines."),
    procedure: str = typer.Option("decision", "--procedure", "-p", help="The procedure to measure (none: baselines only)."),
    baseline: list[str] = typer.Option(["single"], "--baseline", help="single or majority; repeat for both (none: the court alone)."),
    limit: int | None = typer.Option(None, "--limit", "-n", help="Only the first N items (a balanced sample for iclr2017)."),
    seed: int = typer.Option(0, "--seed", help="Seeds the sample and every item's and method's own seed."),
    workers: int = typer.Option(1, "--workers", "-w", help="Items run concurrently."),
    backend: str | None = typer.Option(None, "--backend", "-b", help="Every role and baseline on one backend: local, scripted, anthropic[:model], ollama[:model], openai[:model]."),
    mirror: bool = typer.Option(False, "--mirror", help="Also ask each negated question, sides swapped, and report agreement."),
    batch: bool = typer.Option(False, "--batch", help="Send the baselines as one batch at half price: Anthropic's Message Batches API "
                               "(--backend anthropic) or OpenAI's Batch API (--backend openai on OpenAI's own base URL)."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Run again the items that failed last time."),
    fragility: bool = typer.Option(False, "--fragility", help="Each trial also decides again without its most-cited evidence; report the share that hold."),
    order_control: bool = typer.Option(False, "--order-control", help="Also run the court in the other order: with each juror's answers in its own seeded order (court-shuffled-order) when the court lists them in one order, as by default, else in one fixed order (court-fixed-order); compares yes-rate and accuracy."),
    reuse: str | None = typer.Option(None, "--reuse", help="The id of an earlier evaluation (same dataset, procedure, seed and models) whose court trials each trial here starts from: a request made in the same words gets that trial's reply, so two configurations of a court with rounds share round 1."),
    report_only: bool = typer.Option(False, "--report-only", help="Write the report of the results this same command stored again, from its results.jsonl; runs nothing (unfinished items are left out and counted)."),
    config: Path | None = typer.Option(None, "--config", help="config.toml to use."),
    runs_dir: str | None = typer.Option(None, "--runs-dir", help="Where runs are stored; the evaluation goes to its evals/ folder."),
) -> None:
    """Measure a procedure against single-call and majority-vote baselines on decisions with known outcomes."""
    from rich.console import Console
    from rich.markdown import Markdown

    from ..errors import CourtroomError, InputError
    from ..evaluation.harness import evaluate
    from ..stopping import Stopped
    from .terminal import fail, interrupted

    try:
        result = evaluate(dataset, procedure=procedure, baselines=baseline, limit=limit, seed=seed, workers=workers,
                          backend=backend, mirror=mirror, batch=batch, retry_failed=retry_failed, fragility=fragility,
                          order_control=order_control, reuse=reuse, report_only=report_only, config=config,
                          runs_dir=runs_dir, progress=not report_only)
    except KeyboardInterrupt as exc:
        how = f"stopped by {exc}" if isinstance(exc, Stopped) else "interrupted"
        interrupted(f"{how}; every finished item is kept: run the same command to resume", getattr(exc, "exit_code", 1))
    except CourtroomError as exc:
        fail(str(exc), exc.exit_code if isinstance(exc, InputError) else 1)
    console = Console(highlight=False, soft_wrap=True)
    headline = result.markdown.split("\n## Items", 1)[0]
    console.print(Markdown(headline))
    err = Console(stderr=True, highlight=False)
    if report_only and result.unfinished:
        err.print(f"nothing was run: {result.unfinished} item{'s' if result.unfinished != 1 else ''} not finished "
                  "left out; run the command without --report-only to finish them")
    err.print(f"report: {result.report}" if result.report else f"no item finished, so no report was written in {result.folder}")


def calibration_command(
    runs_dir: str | None = typer.Option(None, "--runs-dir", help="Where runs are stored."),
    config: Path | None = typer.Option(None, "--config", help="config.toml to use."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON instead of a table."),
) -> None:
    """How well each confidence predicted your own outcomes: Brier score and reliability.

    Read from the verdicts you rated with `courtroom feedback` or the chat's thumbs."""
    import json

    from rich.console import Console
    from rich.markdown import Markdown

    from ..config import load_settings
    from ..errors import CourtroomError, InputError
    from ..evaluation import report
    from ..evaluation.feedback import calibration_markdown, feedback_rows
    from ..store import RunStore, checked_runs_dir
    from .terminal import fail, say

    try:
        settings = load_settings(config)
        store = RunStore.default(checked_runs_dir(runs_dir) or settings.runs.dir)
        unread: list[str] = []
        rows = feedback_rows(store.existing(), unread=unread) if runs_dir or store.root.is_dir() else []
    except CourtroomError as exc:
        fail(str(exc), exc.exit_code if isinstance(exc, InputError) else 1)
    if unread:  # on stderr, so --json stays JSON
        say(f"note: {len(unread)} rated run{'s' if len(unread) > 1 else ''} left out, unreadable: {unread[0]}"
            + (f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""))
    if as_json:
        print(json.dumps({"rated": len(rows), "right": sum(r["correct"] for r in rows),
                          "calibration": report.calibration(rows)}, indent=2))
        return
    Console(highlight=False, soft_wrap=True).print(Markdown(calibration_markdown(rows, str(store.root))))


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("eval")(eval_command)
app.command("calibration")(calibration_command)

if __name__ == "__main__":  # pragma: no cover
    app()
