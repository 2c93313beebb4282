"""``courtroom chat`` starts the server in a ready app root; chat profiles follow the procedures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from courtroom_chat.frontends.chat_cli import app_root
from courtroom_chat.frontends.chat_users import ChatUsers
from courtroom_chat.procedures import available

ROOT = Path(__file__).resolve().parents[2]


def test_an_app_root_is_seeded_with_the_config_and_welcome_page_once(tmp_path):
    root = app_root(tmp_path / "chat")
    assert (root / ".chainlit" / "config.toml").read_text() == (ROOT / ".chainlit" / "config.toml").read_text()
    assert (root / "chainlit.md").read_text() == (ROOT / "chainlit.md").read_text()
    (root / "chainlit.md").write_text("# Our own welcome\n")
    assert (app_root(root) / "chainlit.md").read_text() == "# Our own welcome\n", "a customised page is kept"


def test_the_packaged_copies_match_the_checkout():
    assets = ROOT / "courtroom_chat" / "frontends" / "chat_assets"
    assert (assets / "config.toml").read_bytes() == (ROOT / ".chainlit" / "config.toml").read_bytes()
    assert (assets / "chainlit.md").read_bytes() == (ROOT / "chainlit.md").read_bytes()


def test_config_lists_the_accepted_types_and_limits():
    import tomllib

    upload = tomllib.loads((ROOT / ".chainlit" / "config.toml").read_text())["features"]["spontaneous_file_upload"]
    accept = upload["accept"]
    assert "*/*" not in accept and "application/pdf" in accept and "application/json" in accept
    assert accept["text/*"] == [] and ".diff" in accept["application/octet-stream"]
    assert upload["max_files"] == 10 and upload["max_size_mb"] == 2


def test_courtroom_chat_serves_the_app_with_login(tmp_path, free_port):
    users = ChatUsers(tmp_path / "users.toml")
    users.add("alice", "correct horse 9")
    users.save()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHAINLIT_")}
    env.update(COURTROOM_CHAT_USERS=str(users.path), COURTROOM_BACKEND="scripted",
               DATABASE_URL=f"sqlite:///{tmp_path / 'chat.sqlite'}")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", "from courtroom_chat.frontends.cli import main; main()", "chat", "--headless",
         "--port", str(port), "--app-root", str(tmp_path / "root")],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, config = time.monotonic() + 90, None
        while config is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/auth/config", timeout=2) as response:
                    config, headers = json.load(response), response.headers
            except OSError:
                time.sleep(0.3)
        assert config is not None, server.stdout.read() if server.poll() is not None else "no answer"
        assert config["passwordAuth"] is True and config["requireLogin"] is True
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "no-referrer" and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert (tmp_path / "root" / ".chainlit" / "config.toml").is_file()
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=20)
    assert f"courtroom chat on http://127.0.0.1:{port} · app root {tmp_path / 'root'} · login for 1 user(s)" in output


async def test_chat_profiles_are_the_procedures(chat):
    profiles = await chat.module.profiles()
    assert [p.name for p in profiles] == [info.title for info in available()]
    assert profiles[0].default and profiles[0].markdown_description == available()[0].description
    session = chat.session()
    session.chat_profile = available()[0].title
    async with chat.context(session):
        assert chat.module._procedure() == available()[0].name


def test_a_missing_chromium_fails_in_ci_and_skips_elsewhere(require_chromium, tmp_path, monkeypatch):
    import pytest

    missing = tmp_path / "chromium"
    monkeypatch.setenv("COURTROOM_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="COURTROOM_REQUIRE_BROWSER=1"):
        require_chromium(missing)
    monkeypatch.delenv("COURTROOM_REQUIRE_BROWSER")
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        require_chromium(missing)


def test_a_server_on_a_non_loopback_address_with_no_login_is_refused_in_one_line(tmp_path):
    """`courtroom chat --host 0.0.0.0` with no users would let anyone who reaches it run trials on
    this server's models: refused, naming how to add a user and the --open override. Refused before
    Chainlit is imported, so nothing listens."""
    from typer.testing import CliRunner

    from courtroom_chat.frontends.chat_cli import loopback
    from courtroom_chat.frontends.cli import app

    env = {"COURTROOM_CHAT_USERS": str(tmp_path / "no-users.toml"), "COURTROOM_BACKEND": "scripted"}
    for host in ("0.0.0.0", "192.0.2.7", "::", "chat.example"):
        result = CliRunner().invoke(app, ["chat", "--host", host, "--headless", "--app-root", str(tmp_path / "root")],
                                    env=env)
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert f"--host {host} with no login would let anyone who reaches it run trials" in text
        assert "courtroom chat add-user NAME" in text and "--open" in text and "Traceback" not in text
    assert all(loopback(h) for h in ("127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost"))
    assert not any(loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.com"))
