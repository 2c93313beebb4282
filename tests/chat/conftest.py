"""Fixtures for the chat: Chainlit sessions without a browser, and the real server with one.

Chainlit reads ``CHAINLIT_APP_ROOT`` when it is first imported and writes into that folder
(``.files``, translations), so it is pointed at a temporary copy of the app root before
anything imports it.
"""

from __future__ import annotations

import asyncio
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from unittest.mock import AsyncMock, Mock

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP_ROOT = Path(tempfile.mkdtemp(prefix="courtroom-chat-approot-"))
(APP_ROOT / ".chainlit").mkdir()
shutil.copyfile(ROOT / ".chainlit" / "config.toml", APP_ROOT / ".chainlit" / "config.toml")
shutil.copyfile(ROOT / "chainlit.md", APP_ROOT / "chainlit.md")
os.environ["CHAINLIT_APP_ROOT"] = str(APP_ROOT)
os.environ.pop("DATABASE_URL", None)
os.environ["COURTROOM_CHAT_USERS"] = str(APP_ROOT / "no-users.toml")  # the handlers import with no login

OUTPUT = ROOT / "tests" / "output"
CASES = ROOT / "cases"


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    shutil.rmtree(APP_ROOT, ignore_errors=True)


# ---------------------------------------------------------------- a rendered chat, from emits


class UI:
    """What the browser would show, rebuilt from a mocked session's ``emit`` calls."""

    def __init__(self, session: Mock):
        self.session = session

    @property
    def calls(self) -> list[tuple[str, Any]]:
        return [(c.args[0], c.args[1]) for c in self.session.emit.call_args_list]

    @property
    def items(self) -> dict[str, dict[str, Any]]:
        """Steps and messages by id, with streamed tokens applied, in first-seen order."""
        out: dict[str, dict[str, Any]] = {}
        for name, data in self.calls:
            if name in ("new_message", "update_message", "stream_start"):
                out[data["id"]] = {**out.get(data["id"], {}), **data}
            elif name == "stream_token" and data["id"] in out:
                out[data["id"]]["output"] = out[data["id"]].get("output", "") + data["token"]
        return out

    def steps(self) -> list[dict[str, Any]]:
        return [s for s in self.items.values() if s["type"] == "tool"]

    def step(self, name: str) -> dict[str, Any]:
        found = [s for s in self.steps() if s["name"] == name]
        assert len(found) == 1, f"{len(found)} steps named {name!r}; steps: {[s['name'] for s in self.steps()]}"
        return found[0]

    def children(self, parent: dict[str, Any]) -> list[dict[str, Any]]:
        return [s for s in self.steps() if s.get("parentId") == parent["id"]]

    def messages(self) -> list[dict[str, Any]]:
        """The court's messages: verdicts (assistant messages, which Chainlit gives thumbs) and
        notices (system messages)."""
        return [m for m in self.items.values() if m["type"] in ("assistant_message", "system_message")]

    def scorable(self) -> list[dict[str, Any]]:
        """The messages Chainlit may put feedback buttons on."""
        return [m for m in self.items.values() if m["type"] == "assistant_message"]

    def texts(self) -> list[str]:
        return [m["output"] for m in self.messages()]

    def errors(self) -> list[str]:
        return [m["output"] for m in self.messages() if m.get("isError")]

    def verdicts(self) -> list[dict[str, Any]]:
        return [m for m in self.messages() if (m.get("metadata") or {}).get("kind") == "verdict"]

    def actions(self) -> list[dict[str, Any]]:
        return [data for name, data in self.calls if name == "action"]

    def elements(self) -> list[dict[str, Any]]:
        return [data for name, data in self.calls if name == "element"]

    def updates_of(self, step_id: str) -> list[dict[str, Any]]:
        return [data for name, data in self.calls if name == "update_message" and data["id"] == step_id]


class ChatDriver:
    """Drives the chat's handlers as Chainlit would, one mocked websocket session at a time."""

    def __init__(self, module: Any):
        self.module = module

    def session(self, user: str | None = None) -> Mock:
        from chainlit.session import WebsocketSession
        from chainlit.user import PersistedUser

        session = Mock(spec=WebsocketSession)
        session.id = str(uuid.uuid4())
        session.thread_id = str(uuid.uuid4())
        session.user = (PersistedUser(id=str(uuid.uuid4()), identifier=user, createdAt="2026-01-01T00:00:00Z")
                        if user else None)
        session.user_env = {}
        session.chat_settings = {}
        session.chat_profile = None
        session.client_type = "webapp"
        session.has_first_interaction = True
        session.files = {}
        session.files_spec = {}
        session.current_task = None
        session.emit = AsyncMock()
        session.emit_call = AsyncMock(return_value=None)
        session.to_persistable = Mock(return_value={})
        return session

    @asynccontextmanager
    async def context(self, session: Mock):
        """Run the enclosed code as that session's Chainlit task; yields what its browser shows."""
        from chainlit.context import ChainlitContext, context_var

        token = context_var.set(ChainlitContext(session))
        try:
            yield UI(session)
        finally:
            context_var.reset(token)

    def upload(self, name: str, path: Path | None = None, data: bytes | None = None, mime: str = "text/plain") -> Any:
        """A file element as Chainlit builds it from an upload (its bytes on disk)."""
        import chainlit as cl

        if path is None:
            path = APP_ROOT / ".files" / f"{uuid.uuid4()}-{name}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data or b"")
        return cl.File(name=name, path=str(path), mime=mime)

    async def send(self, text: str, files: list[Any] | None = None) -> None:
        import chainlit as cl

        await self.module.on_message(cl.Message(content=text, author="User", type="user_message",
                                                elements=files or []))

    @staticmethod
    async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                await asyncio.sleep(0.01)


@pytest.fixture
def chat(monkeypatch, court_config):
    """The chat handlers on the scripted backend, with Chainlit's persistence off (no data layer)."""
    import chainlit.data as cl_data
    from chainlit.user_session import user_sessions

    from courtroom_chat.frontends import chat as module

    monkeypatch.setattr(cl_data, "_data_layer", None)
    monkeypatch.setattr(cl_data, "_data_layer_initialized", True)
    yield ChatDriver(module)
    user_sessions.clear()


@pytest.fixture
def court_config(tmp_path, monkeypatch):
    """Write a config.toml for the chat (``COURTROOM_CONFIG``); returns a function taking TOML text."""

    def write(text: str = "") -> Path:
        path = tmp_path / "config.toml"
        path.write_text('[models]\nprosecutor = "scripted"\ndefense = "scripted"\njury = "scripted"\n'
                        'judge = "scripted"\n' + text, encoding="utf-8")
        monkeypatch.setenv("COURTROOM_CONFIG", str(path))
        return path

    write()
    return write


SCRIPTED = "courtroom_chat.backends.scripted:ScriptedBackend"


@pytest.fixture
def backend_factory():
    """Put a backend in place of the scripted one, through the plugin registry."""
    from courtroom_chat import backends

    def use(factory: Any) -> None:
        backends.register("scripted", factory)

    yield use
    backends.register("scripted", SCRIPTED)


@pytest.fixture
def priced_backend(backend_factory):
    """The scripted backend, priced as Claude Sonnet: trials cost real (estimated) dollars."""
    from courtroom_chat.backends.scripted import ScriptedBackend

    class PricedScripted(ScriptedBackend):
        price_provider = "anthropic"

    def factory(spec: Any, settings: Any) -> ScriptedBackend:
        backend = PricedScripted(spec, settings)
        backend.model = "claude-sonnet-4-6"
        return backend

    backend_factory(factory)
    return factory


# ---------------------------------------------------------------- the real server and a browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
APP_FILE = ROOT / "courtroom_chat" / "frontends" / "chat_app.py"
USER, PASSWORD = "alice", "correct horse 9"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ChatServer:
    """``chainlit run`` on the chat app, on a free loopback port, with its own app root,
    database, runs dir and users, every role on the scripted backend."""

    def __init__(self, root: Path, latency_ms: int, database_url: str | None = None):
        from courtroom_chat.frontends.chat_users import ChatUsers

        self.root = root
        (root / ".chainlit").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / ".chainlit" / "config.toml", root / ".chainlit" / "config.toml")
        shutil.copyfile(ROOT / "chainlit.md", root / "chainlit.md")
        users = ChatUsers(root / "users.toml")
        users.add(USER, PASSWORD)
        users.save()
        self.runs = root / "runs"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("COURTROOM_", "CHAINLIT_"))},
            "CHAINLIT_APP_ROOT": str(root), "DATABASE_URL": database_url or f"sqlite:///{root / 'chat.sqlite'}",
            "COURTROOM_RUNS_DIR": str(self.runs), "COURTROOM_BACKEND": "scripted",
            "COURTROOM_SCRIPTED_LATENCY_MS": str(latency_ms), "COURTROOM_CHAT_USERS": str(users.path),
        }
        self.process: Any = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 240.0) -> None:
        import subprocess
        import sys
        import time
        import urllib.request

        self.port = free_port()
        self.log = open(self.root / f"server-{self.port}.log", "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chainlit", "run", str(APP_FILE), "--headless", "--host", "127.0.0.1",
             "--port", str(self.port)], cwd=self.root, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the chat server exited: {(self.root / f'server-{self.port}.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/auth/config", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"the chat server did not start within {timeout:.0f} s")

    def stop(self) -> None:
        import subprocess

        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def runs_saved(self) -> list[Any]:
        from courtroom_chat.store import RunStore

        store = RunStore(self.runs)
        return [store.load(r["run_id"]) for r in store.list()] if self.runs.exists() else []


@pytest.fixture(name="free_port")
def free_port_fixture() -> Any:
    return free_port


@pytest.fixture(scope="session")
def chat_login() -> tuple[str, str]:
    """The user and password the test server accepts."""
    return USER, PASSWORD


def require_chromium(path: Path = CHROMIUM) -> Path:
    """Debian's Chromium. Missing: a failure when COURTROOM_REQUIRE_BROWSER=1 (CI), else a skip."""
    if not path.exists():
        reason = f"{path} is missing; install it with `apt-get install -y chromium`"
        if os.environ.get("COURTROOM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (COURTROOM_REQUIRE_BROWSER=1) but {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def chromium() -> Path:
    return require_chromium()


@pytest.fixture(name="require_chromium")
def require_chromium_fixture() -> Any:
    return require_chromium


@pytest.fixture(scope="module")
def chat_server(tmp_path_factory, request):
    """The server for one test module; the module's ``CHAT_LATENCY_MS`` sets the model latency and
    ``CHAT_DATABASE = "postgresql"`` keeps the history on a real PostgreSQL server instead of SQLite."""
    database = getattr(request.module, "CHAT_DATABASE", "sqlite")
    url = request.getfixturevalue("postgres").url if database == "postgresql" else None
    server = ChatServer(tmp_path_factory.mktemp("chat-server"), getattr(request.module, "CHAT_LATENCY_MS", 1200), url)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def loopback_only(outside: list[str]) -> Any:
    """A route handler that lets loopback requests through and records, then aborts, every
    request that would leave the machine (fonts, CDNs): the page must make none."""
    from urllib.parse import urlparse

    def route_(route: Any) -> None:
        url = urlparse(route.request.url)
        if url.scheme in ("data", "blob") or url.hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    return route_


class ChatPage:
    """A logged-in chat tab: ask a question with files, find steps, keep a screenshot."""

    def __init__(self, browser: Any, server: ChatServer):
        self.server = server
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.outside: list[str] = []  # requests the page tried to send off this machine
        self.context.route("**/*", loopback_only(self.outside))
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)
        self.page.goto(server.url + "/")
        self.page.wait_for_url("**/login")
        self.page.fill("#email", USER)
        self.page.fill("#password", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_selector("#upload-button")  # before the websocket connects, uploads are dropped

    def ask(self, question: str, files: list[Path] = ()) -> None:
        if files:
            self.page.set_input_files("#upload-button-input", [str(f) for f in files])
            for f in files:
                self.page.locator("#attachments").get_by_text(f.name).wait_for()
        # Typed key by key: Chainlit 2.12's input is a content-editable box whose state follows key
        # events, and a programmatic fill left it empty.
        self.page.click("#chat-input")
        self.page.keyboard.type(question)
        self.page.click("#chat-submit")

    def step(self, name: str) -> Any:
        """The first step of that name (a stage comes before an agent named like it: "Defense")."""
        return self.page.locator(f'[id="step-{name}"]').first

    def ask_and_wait(self, question: str, files: list[Path]) -> None:
        """Ask, wait for the verdict's footer, and give the background writes to the history time."""
        self.ask(question, files)
        self.page.get_by_text("This session:").wait_for(timeout=60_000)
        self.page.wait_for_timeout(1500)

    def resume(self, question: str, stages: tuple[str, ...]) -> None:
        """Open the thread of ``question`` from the history; every stage and the footer come back."""
        import re

        self.page.locator("#thread-history").get_by_text(question).click()
        self.page.wait_for_url(re.compile("/thread/"))
        for name in stages:
            self.step(name).wait_for()
        self.page.get_by_text("This session:").wait_for()

    def screenshot(self, name: str) -> None:
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(OUTPUT / f"{name}.png"))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def open_chat(browser, chat_server, request):
    """Open logged-in chat tabs; each gets a screenshot under tests/output/ when the test ends."""
    opened: list[ChatPage] = []

    def open_() -> ChatPage:
        tab = ChatPage(browser, chat_server)
        opened.append(tab)
        return tab

    yield open_
    for i, tab in enumerate(opened):
        try:
            tab.screenshot(request.node.name + (f"-{i}" if i else ""))
        finally:
            tab.close()
    outside = [url for tab in opened for url in tab.outside]
    assert not outside, f"the chat page asked for {len(outside)} resources off this machine: {outside}"

LOG = Path(__file__).resolve().parents[2] / "cases" / "code-commit" / "test-log.txt"
QUESTION = "Should I merge PR #214 now?"


def stored_records(runs_dir: Path) -> list[Any]:
    """Every run record in a store, newest first."""
    from courtroom_chat.store import RunStore

    store = RunStore(runs_dir)
    return [store.load(r["run_id"]) for r in store.list()]


# ---------------------------------------------------------------- a throwaway PostgreSQL server
# Debian's ``postgresql`` package (``.ci/run`` installs it) puts the server under
# ``/usr/lib/postgresql/<version>/bin``. The server refuses to run as root, so as root it runs as the
# package's ``postgres`` user in a data folder that user owns. Trust authentication, loopback only,
# no fsync: a test database, gone when the test module ends.


def server_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


def require_postgres() -> Path:
    """The server's bin folder. Missing: a failure when COURTROOM_REQUIRE_POSTGRES=1 (CI), else a skip."""
    where = server_bin()
    if where is None:
        reason = "PostgreSQL's server is not installed; install it with `apt-get install -y postgresql`"
        if os.environ.get("COURTROOM_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL tests required (COURTROOM_REQUIRE_POSTGRES=1) but {reason}")
        pytest.skip(reason)
    return where


class Postgres:
    def __init__(self, bin_dir: Path, port: int):
        self.bin = bin_dir
        self.port = port
        self.dir = Path(tempfile.mkdtemp(prefix="courtroom-pg-"))
        self.user: str | None = None
        if os.geteuid() == 0:  # postgres will not run as root
            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"postgresql://court@127.0.0.1:{self.port}/chat"

    def _run(self, *args: str) -> None:
        done = subprocess.run([str(self.bin / args[0]), *args[1:]], user=self.user, capture_output=True, text=True,
                              cwd=self.dir)
        if done.returncode:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")

    def start(self, timeout: float = 240.0) -> None:
        data = self.dir / "data"
        if not data.exists():
            self._run("initdb", "-D", str(data), "-U", "court", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.log = open(self.dir / "server.log", "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(data), "-p", str(self.port), "-c", "listen_addresses=127.0.0.1",
             "-c", f"unix_socket_directories={self.dir}", "-c", "fsync=off"],
            user=self.user, cwd=self.dir, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited: {(self.dir / 'server.log').read_text(errors='replace')[-2000:]}")
            ready = subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                                   capture_output=True)
            if ready.returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"postgres did not accept connections within {timeout:.0f} s")
        if not (self.dir / "created").exists():
            self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "court", "chat")
            (self.dir / "created").touch()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # a "smart" shutdown: waits for sessions, then checkpoints
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "log", None):
            self.log.close()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres():
    """A real PostgreSQL server on a free loopback port for one test module (see postgres.py)."""
    server = Postgres(require_postgres(), free_port())
    server.start()
    yield server
    server.remove()
