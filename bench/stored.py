"""The decision court's stored trials of an evaluation, for the benches that read them again
(``bench.rationale_grounding``, ``bench.juror_consistency``, ``bench.hearing_coverage``):
RESULTS.jsonl files and the runs folders their trials are stored in. And an evaluation's rows
as every reader of them opens them: plain, or gzipped as bench/results/ keeps its large ones."""

from __future__ import annotations

import argparse
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from courtroom_chat.records import RunRecord
from courtroom_chat.store import RunStore


def kept(path: Path) -> Path:
    """``path``, or ``path.gz`` when only that is there: bench/results/ keeps row files over 100 KB
    gzipped, so a command that names ``results.jsonl`` there still reads it."""
    gz = path.with_name(path.name + ".gz")
    return gz if not path.exists() and gz.exists() else path


def read_text(path: Path) -> str:
    """A row file's text, gunzipped if it is kept as ``.gz``."""
    path = kept(Path(path))
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return f.read()
    return path.read_text(encoding="utf-8")


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of an evaluation's results.jsonl (or of its ``.gz``), blank lines left out."""
    return [json.loads(line) for line in read_text(path).splitlines() if line.strip()]


def arguments(doc: str | None) -> tuple[list[Path], list[RunStore]]:
    """``RESULTS.jsonl [...] --runs-dir RUNS [--runs-dir RUNS2]``: the results files and the stores."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--runs-dir", action="append", required=True)
    args = parser.parse_args()
    return args.results, [RunStore(Path(d)) for d in args.runs_dir]


def court_trials(path: Path, stores: list[RunStore]) -> Iterator[tuple[dict[str, Any], RunRecord]]:
    """Each court row of one results file (the question as asked, not its mirror) with its stored run."""
    for row in read_rows(path):
        if row.get("method") != "court" or not row.get("run_id") or row.get("framing") == "mirror":
            continue
        record = next((found for s in stores if (found := s.find(row["run_id"])) is not None), None)
        if record is not None:
            yield row, record
