"""``courtroom chat``: start the Chainlit chat, and manage who may log in to it.

Nothing heavy is imported here at module level (no Chainlit), so ``courtroom --help``
stays fast; Chainlit is imported when the server starts.

The app root (where Chainlit reads ``.chainlit/config.toml`` and ``chainlit.md`` and writes
uploads) is ``--app-root``, else ``$CHAINLIT_APP_ROOT``, else the source checkout when run
from one, else a folder in the user data dir seeded with the packaged copies.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import typer

from ..errors import InputError
from .terminal import guarded, say

chat_app = typer.Typer(help="The chat: ask a question, attach evidence, watch the trial in the browser.",
                       invoke_without_command=True)

HERE = Path(__file__).resolve().parent
APP_FILE = HERE / "chat_app.py"
ASSETS = HERE / "chat_assets"
CHECKOUT = HERE.parents[1]
SEEDS = {Path(".chainlit/config.toml"): "config.toml", Path("chainlit.md"): "chainlit.md"}


def _say(text: str, stderr: bool = True) -> None:
    say(text, stderr=stderr, wrap=False)


def _is_app_root(path: Path) -> bool:
    return all((path / name).is_file() for name in SEEDS)


def app_root(explicit: Path | None = None) -> Path:
    """The Chainlit app root, with the config and welcome page in place (missing ones copied)."""
    chosen = explicit or (Path(os.environ["CHAINLIT_APP_ROOT"]) if os.environ.get("CHAINLIT_APP_ROOT") else None)
    if chosen is None:
        if _is_app_root(CHECKOUT):
            return CHECKOUT
        from platformdirs import user_data_dir

        chosen = Path(user_data_dir("courtroom-chat")) / "chat"
    chosen = chosen.expanduser().resolve()
    for target, packaged in SEEDS.items():
        dest = chosen / target
        if not dest.is_file():
            source = CHECKOUT / target if (CHECKOUT / target).is_file() else ASSETS / packaged
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
    return chosen


def loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


@chat_app.callback()
@guarded
def serve(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port to listen on."),
    headless: bool = typer.Option(False, "--headless", help="Do not open a browser."),
    app_root_dir: Path | None = typer.Option(None, "--app-root", help="Chainlit app root (config, uploads)."),
    open_server: bool = typer.Option(False, "--open", help="Serve a non-loopback address with no login (anyone "
                                     "who reaches it runs trials on this server's models and budget)."),
) -> None:
    """Start the chat server (http://HOST:PORT)."""
    if ctx.invoked_subcommand is not None:
        return
    from ..config import load_settings
    from .chat_users import ChatUsers

    load_settings()  # a broken config.toml is reported here, in one line
    users = ChatUsers.load()
    if not users.enabled and not loopback(host) and not open_server:
        raise InputError(f"--host {host} with no login would let anyone who reaches it run trials on this server; "
                         "add a user first (`courtroom chat add-user NAME`), or pass --open to serve it open anyway")
    root = app_root(app_root_dir)
    os.environ["CHAINLIT_APP_ROOT"] = str(root)
    if users.enabled:
        os.environ.setdefault("CHAINLIT_AUTH_SECRET", users.secret)
    login = (f"login for {len(users.hashes)} user(s)" if users.enabled
             else "no login, so no thread history (add a user with `courtroom chat add-user NAME`)")
    _say(f"courtroom chat on http://{host}:{port} · app root {root} · {login}")
    from chainlit.cli import cli  # imported late: Chainlit reads CHAINLIT_APP_ROOT on import

    args = ["run", str(APP_FILE), "--host", host, "--port", str(port)] + (["--headless"] if headless else [])
    cli.main(args=args, prog_name="courtroom chat", standalone_mode=True)


@chat_app.command("add-user")
@guarded
def add_user(
    name: str = typer.Argument(..., help="The login name."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from stdin."),
) -> None:
    """Allow NAME to log in (stores a scrypt hash, never the password). Login is on once a user exists."""
    from .chat_users import ChatUsers

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    users = ChatUsers.load()
    existed = name in users.hashes
    users.add(name, password)
    path = users.save()
    _say(f"{'updated' if existed else 'added'} user '{name}' in {path}", stderr=False)
