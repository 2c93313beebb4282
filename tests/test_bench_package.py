"""bench/ is a package of standing benches with one entry point (issue 85, item 2): each listed
bench is a module run as ``python -m bench NAME`` or ``python -m bench.NAME``, the benches import
each other as ``bench.<module>``, and none puts a folder on ``sys.path``."""

from __future__ import annotations

import ast
import gzip
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"


def test_every_listed_bench_is_a_module_with_a_main():
    from bench.__main__ import BENCHES

    for name in BENCHES:
        tree = ast.parse((BENCH / f"{name}.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), name
        assert any(isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) for node in tree.body), name


@pytest.mark.parametrize("path", sorted(BENCH.glob("*.py")), ids=lambda p: p.name)
def test_no_bench_puts_a_folder_on_sys_path(path):
    assert "sys.path" not in path.read_text(encoding="utf-8")


def names() -> list[str]:
    from bench.__main__ import BENCHES

    return sorted({*BENCHES, "params", "stored"})


@pytest.mark.parametrize("name", names())
def test_each_bench_and_helper_imports_as_a_module_of_the_package(name):
    module = importlib.import_module(f"bench.{name}")
    assert module.__name__ == f"bench.{name}" and module.__doc__


def test_the_entry_point_lists_the_benches_and_runs_one_with_its_arguments():
    listed = subprocess.run([sys.executable, "-m", "bench"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert listed.returncode == 0, listed.stderr
    for name in ("evidence_following", "decisive_fact", "injection", "supreme", "samvad", "local_trial",
                 "batched_decode", "cli_startup", "scripted_trial", "text_defects"):
        assert f"\n  {name} " in listed.stdout
    helped = subprocess.run([sys.executable, "-m", "bench", "rows_before_after", "--help"], capture_output=True,
                            text=True, timeout=60, cwd=ROOT)
    assert helped.returncode == 0 and "Before and after, item by item" in helped.stdout
    unknown = subprocess.run([sys.executable, "-m", "bench", "no_such_bench"], capture_output=True, text=True,
                             timeout=60, cwd=ROOT)
    assert unknown.returncode != 0 and unknown.stderr.strip() == "no bench named 'no_such_bench'; `python -m bench` lists them"


def test_a_results_file_kept_gzipped_is_read_by_its_plain_name(tmp_path):
    """bench/results/ keeps row files over 100 KB as .gz; the commands recorded beside them name
    results.jsonl, and the readers still read it."""
    from bench.stored import kept, read_rows

    rows = [{"item": "a", "method": "court"}, {"item": "b", "method": "single"}]
    with gzip.open(tmp_path / "results.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert kept(tmp_path / "results.jsonl") == tmp_path / "results.jsonl.gz"
    assert read_rows(tmp_path / "results.jsonl") == rows == read_rows(tmp_path / "results.jsonl.gz")
    (tmp_path / "results.jsonl").write_text(json.dumps(rows[0]) + "\n")  # a plain file wins
    assert read_rows(tmp_path / "results.jsonl") == rows[:1]


def test_no_raw_row_file_over_100_kb_is_kept_uncompressed_in_the_results():
    tracked = subprocess.run(["git", "ls-files", "bench/results"], capture_output=True, text=True, cwd=ROOT).stdout
    big = [p for p in tracked.splitlines() if p.endswith((".jsonl", ".csv")) and (ROOT / p).is_file()
           and (ROOT / p).stat().st_size > 100_000]
    assert not big, big
