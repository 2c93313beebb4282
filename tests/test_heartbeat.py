"""The sign of life while a model works (issue 86, item 1): which agents are working, for how
long, how many tokens so far and at what speed; redrawn in place on a terminal, a line now and
then in a log; off the screen before any other line. A fake clock, so no test waits."""

from __future__ import annotations

import io

from courtroom_chat.events import AgentFinished, AgentRetry, AgentStarted, TextDelta
from courtroom_chat.frontends.heartbeat import Heartbeat


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def started(agent: str) -> AgentStarted:
    return AgentStarted(stage="jury", agent=agent, role="juror", title=agent)


def test_the_line_names_each_working_agent_its_time_tokens_and_speed():
    clock = Clock()
    beat = Heartbeat(io.StringIO(), clock=clock)
    assert beat.line() == "⏳ 0:00 · between stages"
    beat.saw(started("prosecutor"))
    clock.now += 4
    assert beat.line() == "⏳ 0:04 · prosecutor 4 s, reading the case"
    beat.saw(TextDelta(agent="prosecutor", text="x" * 360))  # ≈100 tokens
    clock.now += 6
    beat.saw(started("juror-2"))
    assert beat.line() == "⏳ 0:10 · prosecutor 10 s, ≈100 tokens (10.0/s) · juror-2 0 s, reading the case"
    beat.saw(AgentRetry(agent="prosecutor", problems=["the quote is not in the evidence"]))
    clock.now += 65
    assert beat.line().startswith("⏳ 1:15 · prosecutor 65 s, reading the case")  # the new attempt's own time
    beat.saw(AgentFinished(stage="prosecution", agent="prosecutor", output={}))
    beat.saw(AgentFinished(stage="jury", agent="juror-2", output={}))
    assert beat.line() == "⏳ 1:15 · between stages"


def test_on_a_terminal_the_line_is_redrawn_in_place_and_cleared_before_other_output():
    screen = Terminal()
    beat = Heartbeat(screen, clock=Clock())
    assert beat.live and beat.every == 1.0
    beat.saw(started("judge"))
    beat.beat()
    beat.beat()
    assert screen.getvalue().count("\r\x1b[K⏳") == 2 and "\n" not in screen.getvalue()
    beat.clear()
    assert screen.getvalue().endswith("\r\x1b[K") and not beat.shown


def test_in_a_log_a_line_now_and_then():
    log = io.StringIO()
    beat = Heartbeat(log, clock=Clock())
    assert not beat.live and beat.every == 30.0
    beat.saw(started("judge"))
    beat.beat()
    assert log.getvalue() == "⏳ 0:00 · judge 0 s, reading the case\n"
    beat.clear()
    assert log.getvalue().count("\n") == 1  # nothing to take back in a log


def test_the_thread_stops_and_leaves_nothing_on_screen():
    screen = Terminal()
    beat = Heartbeat(screen, every=0.01, clock=Clock())
    beat.start()
    beat.stop()
    assert not beat._thread.is_alive() and not beat.shown


def test_the_cli_says_why_an_agent_is_asked_again_and_clears_the_line_first(capsys):
    from courtroom_chat.frontends.cli import Progress

    screen = Terminal()
    progress = Progress(verbose=False, heartbeat=Heartbeat(screen, clock=Clock()))
    progress(started("judge"))
    progress.heartbeat.beat()
    progress(AgentRetry(agent="judge", problems=['"confidence" is a field of its own, not an action', "too short"]))
    said = " ".join(capsys.readouterr().err.split())
    assert 'judge: asked again, because "confidence" is a field of its own, not an action (and 1 more)' in said
    assert screen.getvalue().endswith("\r\x1b[K")  # the live line was taken off first
    progress.close()
