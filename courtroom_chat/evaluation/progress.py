"""A rich progress bar for an evaluation: items done, accuracy so far per method, time left."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .runner import Plan, Reporter

if TYPE_CHECKING:
    from rich.console import Console


def accuracy_text(accuracy: dict[str, tuple[int, int]]) -> str:
    return " · ".join(f"{m} {right / n:.0%} ({right}/{n})" for m, (right, n) in accuracy.items() if n)


class RichReporter(Reporter):
    def __init__(self, console: Console | None = None):
        from rich.console import Console

        self.console = console or Console(stderr=True, highlight=False)
        self.progress: Any = None
        self.task: Any = None

    def start(self, plan: Plan, done_items: int, folder: Path) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        methods = ", ".join(plan.methods) + (" + mirror" if plan.mirror else "")
        self.console.print(f"[bold]eval {plan.dataset.name}[/]: {len(plan.items)} items · {methods} · "
                           f"seed {plan.seed} · results in {folder}")
        if done_items:
            self.console.print(f"[dim]{done_items} items already finished; resuming[/]")
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("items"),
            TimeRemainingColumn(), TextColumn("left  {task.fields[accuracy]}"),
            console=self.console, transient=False,
        )
        self.task = self.progress.add_task("eval", total=len(plan.items), completed=done_items, accuracy="")
        self.progress.start()

    def note(self, text: str) -> None:
        from rich.markup import escape

        self.console.print(f"[yellow]note:[/] {escape(text)}")

    def unit_done(self, row: dict[str, Any], done_items: int, accuracy: dict[str, tuple[int, int]]) -> None:
        if row["status"] == "failed":
            from rich.markup import escape

            self.progress.console.print(f"[red]✗[/] {row['item']} · {row['method']} ({row['framing']}) failed: "
                                        f"{escape(row['error'])}", highlight=False)
        self.progress.update(self.task, completed=done_items, accuracy=accuracy_text(accuracy))

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
