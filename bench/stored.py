"""The decision court's stored trials of an evaluation, for the benches that read them again
(``bench.rationale_grounding``, ``bench.juror_consistency``, ``bench.hearing_coverage``):
RESULTS.jsonl files and the runs folders their trials are stored in."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from courtroom_chat.records import RunRecord
from courtroom_chat.store import RunStore


def arguments(doc: str | None) -> tuple[list[Path], list[RunStore]]:
    """``RESULTS.jsonl [...] --runs-dir RUNS [--runs-dir RUNS2]``: the results files and the stores."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--runs-dir", action="append", required=True)
    args = parser.parse_args()
    return args.results, [RunStore(Path(d)) for d in args.runs_dir]


def court_trials(path: Path, stores: list[RunStore]) -> Iterator[tuple[dict[str, Any], RunRecord]]:
    """Each court row of one results file (the question as asked, not its mirror) with its stored run."""
    for line in path.read_text().splitlines():
        row = json.loads(line) if line.strip() else {}
        if row.get("method") != "court" or not row.get("run_id") or row.get("framing") == "mirror":
            continue
        record = next((found for s in stores if (found := s.find(row["run_id"])) is not None), None)
        if record is not None:
            yield row, record
