"""notebooks/evaluate.ipynb runs headless on the scripted backend and draws its three plots."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "evaluate.ipynb"


def test_committed_without_outputs():
    book = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(book)
    assert all(c.outputs == [] and c.execution_count is None for c in book.cells if c.cell_type == "code")


def test_runs_headless_and_plots(shared_data, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws inline, as for a person
    book = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(book, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    texts, images = [], 0
    for cell in book.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{output.get('ename')}: {output.get('evalue')}"
            texts.append(output.get("text", ""))
            data = output.get("data", {})
            images += "image/png" in data
            texts += [v for k, v in data.items() if k.startswith("text/") and isinstance(v, str)]
    text = "\n".join(texts)
    assert "38 items, evaluation adr-decision-seed0-" in text
    assert "'court':" in text and "'single':" in text and "'majority':" in text
    assert "McNemar exact p" in text and "conf_vote_share" in text
    assert images == 3
