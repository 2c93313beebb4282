"""What every ``courtroom`` command shares: consoles, one-line errors, and literal printing.

Nothing a user or a model wrote is ever read as Rich markup: a path holding ``[/draft]``,
a glob like ``logs/[ab]*.txt`` or an install hint like ``'.[local-1.5b]'`` prints as it is. Nor
does it reach the terminal as control codes: an escape sequence in a question, a log or a
model's reply (colours, a cursor move, a title change) is dropped from what is printed.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console


def console(stderr: bool = True) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, markup=False, emoji=False)


def printable(text: str) -> str:
    """``text`` without terminal control codes (escape sequences, C0 and C1 controls but newline
    and tab): what was stored is kept as it is, only what reaches the terminal is cleaned."""
    from ..case import without_controls

    return without_controls(text)


def say(text: str, style: str = "", *, stderr: bool = True, indent: int = 0, wrap: bool = True) -> None:
    """Print ``text`` literally, wrapped at the terminal's width (continuation lines indented);
    ``wrap=False`` keeps it one line (a line other programs read, such as a URL)."""
    from rich.text import Text

    out = console(stderr)
    body = Text(printable(text), style=style)
    if not wrap:
        out.print(body, soft_wrap=True)
    elif indent:
        from rich.padding import Padding

        out.print(Padding(body, (0, 0, 0, indent)))
    else:
        out.print(body)


def fail(message: str, code: int) -> None:
    from rich.text import Text

    console().print(Text.assemble(("error: ", "bold red"), printable(message)), soft_wrap=True)  # one line, never wrapped
    raise typer.Exit(code)


def interrupted(message: str, code: int = 1) -> None:
    """Ctrl-C: the one line saying what was kept, and nothing after it. The work abandoned (calls
    in flight, a second Ctrl-C during the clean-up) would otherwise report itself at exit as
    asyncio tracebacks and "never awaited" warnings, which read like a crash."""
    import logging
    import signal
    import sys
    import warnings

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a further Ctrl-C would kill the exit itself (status -2)
    sys.unraisablehook = lambda unraisable: None
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")
    fail(message, code)


def guarded(fn: Any) -> Any:
    """Turn a CourtroomError into its one-line message and exit code; a file the system refused
    (a folder where a file was meant, a name in a folder that does not exist) into one line
    naming it; and anything else into one line saying it is a bug, with the traceback only
    when ``COURTROOM_DEBUG`` is set."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..errors import CourtroomError

        try:
            return fn(*args, **kwargs)
        except CourtroomError as exc:
            fail(str(exc), exc.exit_code)
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except OSError as exc:
            if os.environ.get("COURTROOM_DEBUG"):
                raise
            fail(os_error_line(exc), 2)
        except Exception as exc:
            if os.environ.get("COURTROOM_DEBUG") or type(exc).__module__.startswith(("click", "typer")):
                raise
            fail(f"unexpected {type(exc).__name__} ({first_line(exc)}): a bug in courtroom-chat; run again with "
                 "COURTROOM_DEBUG=1 to see where, and report it", 1)

    return wrapper


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else "no message"


def os_error_line(exc: OSError) -> str:
    """One line for a file the system refused: which file, and why."""
    what = exc.strerror or first_line(exc)
    names = " → ".join(str(n) for n in (exc.filename, exc.filename2) if n is not None)
    return f"cannot use {names}: {what}; check the path" if names else f"{what}; check the paths given"
