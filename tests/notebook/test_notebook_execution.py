"""Every notebook in notebooks/ runs headless with nbclient, and is committed without outputs."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_helpers import NOTEBOOKS

from tests.conftest import needs_shared

BOOKS = sorted(NOTEBOOKS.glob("*.ipynb"))
EXPECTED = {  # text each notebook must show once run: proof it did what it says
    "quickstart.ipynb": ["complete · ", "judge's confidence", "Exhibit 1: ✅ verified at essay-publish/"],
    "explore_runs.ipynb": ["failed, as scripted: scripted failure for judge: the model server went away",
                           "10 runs stored in", "evidence_confidence", "image/png"],
    "dry_run_prompts.ipynb": ["anthropic:claude-sonnet-4-6", "+++ juror-5 (motion)", "estimated cost (USD)",
                              "tokens in"],
    "evaluate.ipynb": ["court", "single"],  # the evaluation notebook (its own tests are in tests/evaluation)
}


def test_every_notebook_is_covered():
    assert [b.name for b in BOOKS] == sorted(EXPECTED)


@pytest.mark.parametrize("path", BOOKS, ids=[b.stem for b in BOOKS])
def test_committed_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: strip the outputs"


def _texts(book: nbformat.NotebookNode) -> str:
    parts = []
    for cell in book.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{output.get('ename')}: {output.get('evalue')}"
            if output.get("name") == "stderr":
                continue
            parts.append(output.get("text", ""))
            for mime, data in output.get("data", {}).items():
                parts.append(mime)
                if mime.startswith("text/") or mime.endswith("json"):
                    parts.append(data if isinstance(data, str) else str(data))
    return "\n".join(parts)


# evaluate.ipynb scores the shared ADR decisions, read in place beside the project
READS_SHARED = {"evaluate.ipynb": needs_shared("decisions", "madr_adrs.json")}


@pytest.mark.parametrize("path", [pytest.param(b, marks=[READS_SHARED[b.name]] if b.name in READS_SHARED else [])
                                  for b in BOOKS], ids=[b.stem for b in BOOKS])
def test_notebook_runs_headless(path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws inline, as for a person
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(book, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    text = _texts(book)
    for expected in EXPECTED[path.name]:
        assert expected in text, f"{path.name} did not show {expected!r}"
    assert "Traceback" not in text
