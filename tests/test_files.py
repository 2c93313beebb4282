"""No file half written and no store readable by others (issue 83, items 4 and 5).

A full disk is made real with RLIMIT_FSIZE in a child process: every write past the limit fails
with EFBIG, as one on a full disk fails with ENOSPC, and nothing else of the machine is touched."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.RLIM_INFINITY))
sys.argv = sys.argv[1:]
{body}
"""


def limited(limit: int, body: str, *args: str, env: dict | None = None, cwd: Path | None = None):
    return subprocess.run([sys.executable, "-c", LIMITED.format(body=body), str(limit), *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})}, cwd=cwd)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_write_atomic_on_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "verdict.json"
    target.write_text('{"answer": "the previous verdict"}\n')
    body = ("from courtroom_chat.files import write_atomic\n"
            "from courtroom_chat.errors import InputError\n"
            "try:\n    write_atomic(sys.argv[1], 'x' * 50000)\nexcept InputError as exc:\n    print(exc)\n")
    done = limited(4000, body, str(target))
    assert done.returncode == 0, done.stderr
    assert f"cannot write {target} (File too large): {target} was left as it was" in done.stdout
    assert target.read_text() == '{"answer": "the previous verdict"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verdict.json"]


def test_courtroom_run_on_a_full_disk_says_what_was_and_was_not_saved(tmp_path):
    """--force no longer destroys the previous file before the failure, the store leaves no
    .run-*.json behind, and the user is told that neither the run nor the output was written."""
    runs, out = tmp_path / "runs", tmp_path / "verdict.json"
    out.write_text("the previous verdict\n")
    evidence = tmp_path / "notes.md"
    evidence.write_text("All 1,204 tests pass and two reviewers approved the change.\n")
    body = "from courtroom_chat.frontends.cli import main\nmain()\n"
    done = limited(2000, body, "run", "Should I merge PR #12?", str(evidence), "--backend", "scripted",
                   "-o", str(out), "--force", env={"COURTROOM_RUNS_DIR": str(runs), "COLUMNS": "300"}, cwd=tmp_path)
    text = " ".join((done.stdout + done.stderr).split())
    assert done.returncode != 0 and "Traceback" not in text, text
    assert out.read_text() == "the previous verdict\n"
    assert "was left as it was" in text and "the run is not saved either" in text
    assert not list(runs.glob(".*")) and not list(tmp_path.glob(".verdict.json.*"))


def test_a_complete_run_whose_store_fails_shows_its_verdict_and_says_it_was_not_saved(tmp_path):
    runs = tmp_path / "runs"
    evidence = tmp_path / "notes.md"
    evidence.write_text("All 1,204 tests pass and two reviewers approved the change.\n")
    body = "from courtroom_chat.frontends.cli import main\nmain()\n"
    done = limited(8000, body, "run", "Should I merge PR #12?", str(evidence), "--backend", "scripted",
                   env={"COURTROOM_RUNS_DIR": str(runs), "COLUMNS": "300"}, cwd=tmp_path)
    text = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1 and "Traceback" not in text, text
    assert "How sure" in text and "the verdict above was not saved: cannot write the run record" in text
    assert "partial" not in text


def test_the_run_store_and_its_index_are_readable_by_their_user_alone(tmp_path):
    from courtroom_chat.store import RunStore

    store = RunStore(tmp_path / "runs").writable()
    with store._index():
        pass
    assert mode(tmp_path / "runs") == 0o700
    assert mode(tmp_path / "runs" / "index.sqlite") == 0o600


def test_the_chat_database_and_its_wal_files_are_private(tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from courtroom_chat.frontends.chat_data import database_url

    url = database_url()
    path = Path(url.removeprefix("sqlite+aiosqlite:///"))
    assert path.name == "chat.sqlite" and mode(path) == 0o600 and mode(path.parent) == 0o700
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    wal = [p for p in path.parent.iterdir() if p.name.startswith("chat.sqlite-")]
    assert wal and all(mode(p) == 0o600 for p in wal), [(p.name, oct(mode(p))) for p in wal]
    conn.close()
