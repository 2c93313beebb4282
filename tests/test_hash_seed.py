"""The same case and seed give the same prompts and the same verdict in every Python process.

Python salts the hash of every string per process (PYTHONHASHSEED), so anything that follows the
iteration order of a set of strings (or of a dict built from one) changes between two runs of the
same seed: an exhibit list, a peer order, a tie broken by whichever comes first. Such a defect
passes every in-process test and shows up only as a re-run that does not repeat (the knowledge
base's approximate search did this once; bench/results/samvad-retrieval-exact-2026-11-29/). Each
procedure's demo case is tried here, with its checks, in two processes with different hash salts,
and every prompt and every outcome must match.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CASES, PROCEDURE_DATA, ROOT, needs_shared

# procedure: the demo case and the checks it takes (the classification court has no demo case of
# its own; it is asked the decision court's, as the contract test asks it)
RUNS = {
    "decision": ["code-commit.json", "--mirror", "--fragility"],
    "classification": ["code-commit.json", "--procedure", "classification", "--fragility"],
    "criminal": ["criminal-burglary.json"],
    "supreme": ["burglary.json", "--fragility"],
    "samvad": ["samvad-theft.json", "--mirror", "--fragility"],
}

RUN_ID = re.compile(r"\b\d{8}-\d{6}-[0-9a-f]{6}\b")
CLI = "import sys; from courtroom_chat.frontends.cli import main; sys.argv[0] = 'courtroom'; main()"


def run(args: list[str], runs: Path, salt: str) -> dict:
    """Run the CLI in a fresh process with this hash salt; every stored run's prompts, outputs and
    outcome, and an evaluation's rows."""
    env = {**os.environ, "PYTHONHASHSEED": salt, "COURTROOM_RUNS_DIR": str(runs)}
    done = subprocess.run([sys.executable, "-c", CLI, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(p.read_text()) for p in runs.glob("*.json")]
    assert records, "no run was stored"
    # in the order of their content, not of when they started: an evaluation runs trials side by side
    return {"runs": sorted(({"prompts": sorted((c["agent"], c["stage"], c["attempt"], json.dumps(c["messages"]))
                                               for c in r["calls"]),
                             "outputs": scrub(r["outputs"]), "outcome": scrub(r["outcome"])} for r in records),
                           key=lambda r: json.dumps(r, sort_keys=True)),
            "rows": sorted((scrub(json.loads(line)) for path in runs.glob("evals/*/results.jsonl")
                            for line in path.read_text().splitlines() if line.strip()),
                           key=lambda r: (r["item"], r["method"], r["framing"]))}


def scrub(value):
    """A record without what differs by design between two runs: run ids and measured times."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in ("response_seconds", "seconds", "finished_at")}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return RUN_ID.sub("RUN", value) if isinstance(value, str) else value


def test_every_procedure_is_tried():
    from courtroom_chat.procedures import available

    assert {info.name for info in available()} == set(RUNS)


def same(args: list[str], tmp_path: Path) -> dict:
    first, second = (run(args, tmp_path / salt, salt) for salt in ("1", "2"))
    assert len(first["runs"]) == len(second["runs"])
    for a, b in zip(first["runs"], second["runs"], strict=True):
        assert a["prompts"] == b["prompts"]
        assert a["outputs"] == b["outputs"]
        assert a["outcome"] == b["outcome"]
    assert first["rows"] == second["rows"]
    return first


@pytest.mark.parametrize("name", [pytest.param(n, marks=[needs_shared(*PROCEDURE_DATA[n])] if n in PROCEDURE_DATA else [])
                                  for n in RUNS])
def test_a_trial_repeats_under_every_hash_salt(name, tmp_path):
    case, *checks = RUNS[name]
    same(["run", str(CASES / case), *checks, "--backend", "scripted", "--seed", "0"], tmp_path)


@needs_shared("decisions", "madr_adrs.json")
def test_an_evaluation_with_every_check_repeats_under_every_hash_salt(tmp_path):
    """The sample, both framings, the fragility check, the shuffled court and the baseline."""
    first = same(["eval", "adr", "--limit", "3", "--backend", "scripted", "--baseline", "single", "--mirror",
                  "--fragility", "--order-control"], tmp_path)
    rows = {(r["method"], r["framing"]) for r in first["rows"]}
    assert rows == {(m, f) for m in ("court", "single", "court-shuffled-order") for f in ("asked", "mirror")}
    assert len(first["rows"]) == 18
    assert any("fragility" in r["details"] for r in first["rows"] if r["method"] == "court")


@needs_shared("benchmarks", "rte")
def test_a_classification_evaluation_with_precedents_repeats_under_every_hash_salt(tmp_path):
    """Similar-case retrieval picks the same precedents; sequential judges, the check, the control."""
    config = tmp_path / "config.toml"
    config.write_text('[procedures.classification]\nprecedents = 1\nmode = "sequential"\n')
    first = same(["eval", "rte", "--procedure", "classification", "--limit", "3", "--backend", "scripted",
                  "--baseline", "single", "--fragility", "--order-control", "--config", str(config)], tmp_path)
    assert len(first["rows"]) == 9
    judged = [p for run_ in first["runs"] for p in run_["prompts"] if p[0].startswith("judge")]
    assert judged and all("PRECEDENTS:" in p[3] for p in judged)
