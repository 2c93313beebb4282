"""Run records on disk: one JSON file per run plus an SQLite index for listing.

Where: ``--runs-dir``, else ``[runs] dir`` in config, else ``$COURTROOM_RUNS_DIR``, else the
user data dir (``platformdirs``; on Linux ``~/.local/share/courtroom-chat/runs``).

The index schema is migrated by number (``PRAGMA user_version``), so older stores open.
Before anything is written, strings that look like API keys are replaced by ``[redacted]``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .case import unstorable
from .errors import InputError
from .files import private_dir, private_file, write_atomic
from .records import Feedback, RunRecord

MIGRATIONS = [
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        started_at TEXT NOT NULL,
        procedure TEXT NOT NULL,
        status TEXT NOT NULL,
        question TEXT NOT NULL,
        decision TEXT,
        answer TEXT,
        confidence REAL,
        evidence_confidence REAL,
        guilty INTEGER,
        not_guilty INTEGER,
        abstain INTEGER,
        seated INTEGER,
        cost_usd REAL,
        duration_ms INTEGER,
        models TEXT,
        feedback TEXT,
        path TEXT NOT NULL,
        owner TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX runs_started ON runs(started_at);
    """,
    # 2: procedure-neutral columns; guilty/not_guilty/abstain stay for runs of the decision court.
    """
    ALTER TABLE runs ADD COLUMN decided_by TEXT;
    ALTER TABLE runs ADD COLUMN polarity TEXT;
    ALTER TABLE runs ADD COLUMN split TEXT;
    ALTER TABLE runs ADD COLUMN backends TEXT;
    ALTER TABLE runs ADD COLUMN summary TEXT;
    """,
]

_INDEXED = ("run_id", "procedure", "status", "question", "decision", "polarity", "answer", "decided_by", "confidence",
            "evidence_confidence", "split", "cost_usd", "duration_ms", "feedback")

# Anthropic's keys (sk-ant-…), OpenAI's and OpenRouter's (sk-proj-…, sk-or-v1-…), and an x-api-key header.
_KEY_PATTERNS = [re.compile(r"sk-(?:ant-[A-Za-z0-9_\-]{8,}|[A-Za-z0-9_\-]{20,})"),
                 re.compile(r"(?i)(x-api-key['\"]?\s*[:=]\s*['\"]?)([^'\"\s,}\\]+)")]


def masked(secret: str) -> str:
    """A secret's mask, of the secret's own length: a key redacted inside an evidence document
    keeps every offset after it (an exhibit's "characters 80-131" still points at its quote)."""
    n = len(secret)
    return "[redacted]".ljust(n, "*")[: max(n, 1)] if n >= 10 else "*" * n


def redact(text: str) -> str:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENROUTER_API_KEY"):
        value = os.environ.get(name)
        if value and len(value) >= 8:
            text = text.replace(value, masked(value))
    text = _KEY_PATTERNS[0].sub(lambda m: masked(m.group(0)), text)
    return _KEY_PATTERNS[1].sub(lambda m: m.group(1) + masked(m.group(2)), text)


def new_run_id() -> str:
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def default_runs_dir(configured: str = "") -> Path:
    """The runs folder: configured ([runs] dir), else $COURTROOM_RUNS_DIR, else the user's data
    folder. A blank setting is no setting (not a folder named "   ")."""
    if configured and configured.strip():
        return Path(configured).expanduser()
    env = os.environ.get("COURTROOM_RUNS_DIR")
    if env and env.strip():
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("courtroom-chat")) / "runs"



def checked_runs_dir(value: str | Path | None) -> str | Path | None:
    """``--runs-dir`` as given, or None when left out; an empty one (``--runs-dir ""``, which a
    path would read as the current folder) is refused."""
    if value is not None and not str(value).strip():
        raise InputError('--runs-dir is empty; give the folder for run records, or leave --runs-dir out for the default')
    return value


# What a person may type for "the verdict turned out right / wrong" ("yes" is left out: it reads as the verdict's Yes)
_RATINGS = {"right": "up", "correct": "up", "good": "up", "+1": "up", "👍": "up", "thumbs-up": "up",
            "wrong": "down", "incorrect": "down", "bad": "down", "-1": "down", "👎": "down", "thumbs-down": "down"}

class RunStore:
    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)
        self._ready = False

    @classmethod
    def default(cls, configured: str = "") -> RunStore:
        return cls(default_runs_dir(configured))

    def existing(self) -> RunStore:
        """This store, for reading: a folder that does not exist is one line (a mistyped
        --runs-dir), not a new empty folder with an index in it."""
        if not self.root.is_dir():
            raise InputError(f"no runs folder {self.root}: check --runs-dir (or [runs] dir in the config); "
                             "`courtroom runs` lists the runs of the default folder")
        return self

    def writable(self) -> RunStore:
        """This store, for writing: a folder that cannot be made or written is one line before any
        model is called (not a whole trial played and then lost)."""
        self._mkdir()
        if not os.access(self.root, os.W_OK):
            raise InputError(f"the runs directory {self.root} is not writable; choose a writable folder "
                             "(--runs-dir, [runs] dir in config.toml, or store=… in the notebook)")
        return self

    # ------------------------------------------------------------------ index

    def _mkdir(self) -> None:
        try:
            private_dir(self.root)
        except OSError as exc:
            raise InputError(f"cannot create the runs directory {self.root} ({exc.strerror}); choose a writable "
                             "folder (--runs-dir, [runs] dir in config.toml, or store=… in the notebook)") from None

    @contextmanager
    def _index(self) -> Iterator[sqlite3.Connection]:
        """The index, open (migrated, and listing every run file in the folder). A damaged
        index is one line saying what to do: the run files are the record, the index only lists
        them, so moving it aside loses nothing but the chat's owners of runs."""
        self._mkdir()
        index = self.root / "index.sqlite"
        try:
            private_file(index)  # its WAL and journal take its mode: the index lists every run's question
            with closing(sqlite3.connect(index, timeout=15)) as conn:
                conn.row_factory = sqlite3.Row
                if not self._ready:
                    version = conn.execute("PRAGMA user_version").fetchone()[0]
                    for number, sql in enumerate(MIGRATIONS[version:], version + 1):
                        with conn:
                            conn.executescript(sql)
                            conn.execute(f"PRAGMA user_version = {number}")
                    self._index_files(conn)
                    self._ready = True
                yield conn
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
                raise InputError(f"the runs index {index} is damaged ({exc}); move it aside (mv {index} "
                                 f"{index}.damaged): the run files are kept, and the next command lists them again") from None
            raise InputError(f"the runs index {index} could not be used ({exc}); if another courtroom command is "
                             "writing to it, try again when it has finished") from None

    def _index_files(self, conn: sqlite3.Connection) -> None:
        """Every run file the index does not list yet, listed: all of them for a new index over a
        folder that already holds runs (an index moved aside, or an empty file in its place), and
        the files copied into the folder since (a run brought from another machine). A damaged file
        is left out, as `show` would refuse it."""
        listed = {r[0] for r in conn.execute("SELECT path FROM runs")}
        for path in sorted(self.root.glob("*.json")):
            if path.name in listed or path.name.startswith("."):
                continue
            try:
                record = RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if path.name == f"{record.run_id}.json":
                self._put(conn, record, path, "", replace=False)  # a row another process wrote meanwhile stays

    @staticmethod
    def _put(conn: sqlite3.Connection, record: RunRecord, path: Path, owner: str, *, replace: bool = True) -> None:
        summary = record.summary()
        votes = summary["votes"]
        row = {k: summary[k] for k in _INDEXED} | {
            "started_at": record.started_at.isoformat(),
            "models": json.dumps(record.models),
            "backends": ",".join(summary["backends"]),
            "summary": json.dumps(summary, default=str, ensure_ascii=False),
            "guilty": votes.get("act"), "not_guilty": votes.get("do not act"), "abstain": votes.get("abstain"),
            "seated": sum(votes.values()) if votes else None,
            "path": path.name,
            "owner": owner,
        }
        with conn:
            cols = ", ".join(row)
            marks = ", ".join(f":{k}" for k in row)
            conn.execute(f"INSERT OR {'REPLACE' if replace else 'IGNORE'} INTO runs ({cols}) VALUES ({marks})", row)

    def path_for(self, run_id: str) -> Path:
        return self.root / f"{run_id}.json"

    def save(self, record: RunRecord, *, owner: str = "") -> Path:
        """Write the record (atomically), then its index row: the run is kept on disk even
        when the index cannot take it."""
        path = self.path_for(record.run_id)
        text = redact(record.model_dump_json(indent=1))
        self._mkdir()
        write_atomic(path, text, what=f"the run record {record.run_id}", private=True)
        try:
            with self._index() as conn:
                self._put(conn, record, path, owner)
        except InputError as exc:
            raise InputError(f"{exc}; this run is saved as {path}") from None
        return path

    def resolve(self, run_id: str) -> str:
        """A full run id from a unique prefix of it."""
        if unstorable(run_id):  # bytes that are not UTF-8 name no run (and sqlite cannot take them)
            raise InputError(f"no run {run_id.encode('utf-8', 'replace').decode()!r} in {self.root}; list them with `courtroom runs`")
        with self._index() as conn:
            rows = conn.execute("SELECT run_id FROM runs WHERE substr(run_id, 1, ?) = ? ORDER BY run_id",
                                (len(run_id), run_id)).fetchall()  # a prefix as typed: no wildcards
        ids = [r["run_id"] for r in rows]
        if run_id in ids:
            return run_id
        if not ids:
            raise InputError(f"no run '{run_id}' in {self.root}; list them with `courtroom runs`")
        if len(ids) > 1:
            raise InputError(f"'{run_id}' matches {len(ids)} runs ({', '.join(ids[:3])}…); give more of the id")
        return ids[0]

    def load(self, run_id: str) -> RunRecord:
        """The run with this id, or a unique prefix of it."""
        return self.read(self.resolve(run_id))

    def find(self, run_id: str) -> RunRecord | None:
        """The run with exactly this id, or None when this folder holds no file for it (an
        evaluation's results carried over from another machine point at runs kept there)."""
        return self.read(run_id) if self.path_for(run_id).is_file() else None

    def read(self, full: str) -> RunRecord:
        """The run with exactly this id, as listed by the index (no prefix lookup)."""
        path = self.path_for(full)
        try:
            return RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"run {full} is indexed but its file {path} is missing") from None
        except ValueError as exc:
            raise InputError(f"run file {path} is damaged ({str(exc).splitlines()[0]})") from None

    def list(self, limit: int = 50, *, owner: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT * FROM runs"
        args: list[Any] = []
        if owner is not None:
            query += " WHERE owner = ?"
            args.append(owner)
        query += " ORDER BY started_at DESC, run_id DESC LIMIT ?"
        args.append(limit)
        with self._index() as conn:
            return [dict(r) for r in conn.execute(query, args).fetchall()]

    def with_feedback(self, *, owner: str | None = None) -> list[str]:
        """The ids of the runs whose outcome a person rated (``courtroom feedback``, the chat's thumbs)."""
        query = "SELECT run_id FROM runs WHERE feedback IS NOT NULL AND feedback != ''"
        args: list[Any] = []
        if owner is not None:
            query += " AND owner = ?"
            args.append(owner)
        with self._index() as conn:
            return [r["run_id"] for r in conn.execute(query + " ORDER BY started_at", args).fetchall()]

    def set_feedback(self, run_id: str, rating: str, comment: str | None = None) -> RunRecord:
        """Rate a run's verdict; with no comment, one given before is kept (a rating changed from
        down to up does not erase why)."""
        rating = _RATINGS.get(rating.strip().lower(), rating)
        if rating not in ("up", "down"):
            raise InputError(f"feedback must be 'up' or 'down' (the verdict turned out right or wrong), got {rating!r}")
        if comment is not None and unstorable(comment):
            raise InputError("the comment holds bytes that are not UTF-8 text; type it again")
        record = self.load(run_id)
        if record.status != "complete" or record.outcome is None:
            how = {"failed": "failed", "stopped": "was stopped by its budget"}.get(record.status, "did not finish")
            raise InputError(f"run {record.run_id} {how} and has no verdict to rate; "
                             "rate a run that reached one (`courtroom runs` lists them)")
        if comment is None:
            comment = record.feedback.comment if record.feedback is not None else ""
        record.feedback = Feedback(rating=rating, comment=comment)  # type: ignore[arg-type]
        with self._index() as conn:
            owner_row = conn.execute("SELECT owner FROM runs WHERE run_id = ?", (record.run_id,)).fetchone()
        self.save(record, owner=owner_row["owner"] if owner_row else "")
        return record
