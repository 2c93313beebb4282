from __future__ import annotations

import json

import pytest

from courtroom_chat.case import document_from_bytes, load_case, new_case, pasted_document
from courtroom_chat.config import Limits
from courtroom_chat.errors import CaseError
from tests.conftest import CASES
from tests.pdfs import make_pdf


def write_case(tmp_path, data, name="case.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_example_cases_load_with_paths_relative_to_the_case_file(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # relative to the case file, not the working directory
    case = load_case(CASES / "code-commit.json")
    assert [d.name for d in case.context] == ["code-commit/pr-214.md", "code-commit/pr-214.diff", "code-commit/test-log.txt"]
    assert [d.kind for d in case.context] == ["markdown", "diff", "text"]
    essay = load_case(CASES / "essay-publish.json")
    pdf = essay.context[2]
    assert pdf.kind == "pdf" and pdf.pages == 1
    assert "Every statistic from outside the company links to its original source." in pdf.text


def test_directory_and_glob_expand_to_their_files(tmp_path):
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("alpha")
    (tmp_path / "docs" / "sub" / "b.txt").write_text("beta")
    (tmp_path / "docs" / ".hidden").write_text("secret")
    (tmp_path / "notes-1.md").write_text("one")
    (tmp_path / "notes-2.md").write_text("two")
    case = load_case(write_case(tmp_path, {"question": "Q?", "context": ["docs", "notes-*.md"]}))
    assert [d.name for d in case.context] == ["docs/a.md", "docs/sub/b.txt", "notes-1.md", "notes-2.md"]


def test_question_and_context_flags_build_a_case_without_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text("print('hi')\n")
    case = load_case(question="Ship it?", context=["x.py"])
    assert case.question == "Ship it?" and case.context[0].kind == "code"


def test_inline_documents_and_filed_exhibits(tmp_path):
    case = load_case(write_case(tmp_path, {
        "question": "Q?",
        "context": [{"name": "memo.txt", "text": "The memo says yes."}],
        "evidence": [{"source_quote": "The memo says yes.", "harm": "We lose a week."}],
    }))
    assert case.context[0].name == "memo.txt"
    assert case.evidence[0].source_quote == "The memo says yes."


def test_context_keeps_the_order_written_with_documents_in_place(tmp_path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    case = load_case(write_case(tmp_path, {"question": "Q?", "context": ["a.md", {"name": "b.txt", "text": "B."}, "a.md"]}))
    assert [d.name for d in case.context] == ["a.md", "b.txt", "a.md"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "malformed JSON at line 1"),
        (json.dumps([1, 2]), "must hold a JSON object"),
        (json.dumps({"context": []}), "missing 'question'"),
        (json.dumps({"question": "   "}), "the question is empty"),
        (json.dumps({"question": 42}), "'question' must be text"),
        (json.dumps({"question": "Q?", "contexts": []}), "unknown field(s) contexts"),
        (json.dumps({"question": "Q?", "context": ["missing.md"]}), "evidence file not found: missing.md"),
        (json.dumps({"question": "Q?", "context": ["*.nothing"]}), "no files match '*.nothing'"),
        (json.dumps({"question": "Q?", "evidence": [{"harm": "x"}]}), "evidence #1: source_quote: Field required"),
        (json.dumps({"question": "Q?", "context": [{"name": "m.txt", "text": ""}]}), "context entry 1 (m.txt) is empty"),
        (json.dumps({"question": "Q?", "context": ["a.md", None]}), "context entry 2 is null; give a file path"),
        (json.dumps({"question": "Q?", "context": [{"name": "m.txt", "body": "x"}]}), "context entry 1: unknown field body"),
        (json.dumps({"question": "Q?", "context": ["The PR fixes the crash."]}), "context entry 1 is not a file"),
        (json.dumps({"question": "Q?", "context": ["notes from the review.md"]}), "evidence file not found: notes from the review.md"),
    ],
)
def test_bad_case_files_get_one_line_errors(tmp_path, content, message):
    with pytest.raises(CaseError) as err:
        load_case(write_case(tmp_path, content))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_binary_non_utf8_and_oversized_files_are_refused_by_name():
    with pytest.raises(CaseError, match=r"photo.png looks like a binary file"):
        document_from_bytes("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    with pytest.raises(CaseError, match=r"notes.txt is not UTF-8 text .*iconv"):
        document_from_bytes("notes.txt", "caf\u00e9 ".encode("utf-8")[:-2] + b"\x81\x8d\x8f\x90")
    with pytest.raises(CaseError, match=r"big.txt is 3.0 MB, over the 2.0 MB limit"):
        document_from_bytes("big.txt", b"a" * 3_000_000, Limits(max_file_bytes=2_000_000))
    with pytest.raises(CaseError, match="empty.md is empty"):
        document_from_bytes("empty.md", b"  \n")


def test_windows_1252_text_is_decoded_and_recorded():
    doc = document_from_bytes("memo.txt", "Caf\u00e9 \u201cquotes\u201d".encode("cp1252"))
    assert doc.text == "Caf\u00e9 \u201cquotes\u201d" and doc.encoding == "cp1252"


def test_utf16_and_crlf_are_normalised():
    doc = document_from_bytes("w.txt", "line one\r\nline two\r\n".encode("utf-16"))
    assert doc.text == "line one\nline two\n" and doc.encoding == "utf-16"


def test_pdf_text_is_extracted_and_bad_pdfs_are_named():
    doc = document_from_bytes("report.pdf", make_pdf([["First page line."], ["Second page line."]]))
    assert doc.pages == 2 and "First page line." in doc.text and "Second page line." in doc.text
    with pytest.raises(CaseError, match="scan.pdf: no text could be extracted"):
        document_from_bytes("scan.pdf", make_pdf([[]]))
    with pytest.raises(CaseError, match="broken.pdf is not a readable PDF"):
        document_from_bytes("broken.pdf", b"%PDF-1.4\nthis is not a pdf")


def test_encrypted_pdf_is_refused():
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(make_pdf([["secret"]]))).pages:
        writer.add_page(page)
    writer.encrypt("pw")
    buf = io.BytesIO()
    writer.write(buf)
    with pytest.raises(CaseError, match="locked.pdf is an encrypted PDF"):
        document_from_bytes("locked.pdf", buf.getvalue())


def test_too_many_files_is_refused(tmp_path):
    for i in range(4):
        (tmp_path / f"f{i}.txt").write_text("x")
    with pytest.raises(CaseError, match="4 evidence files is over the limit of 3"):
        load_case(write_case(tmp_path, {"question": "Q?", "context": ["f*.txt"]}), limits=Limits(max_files=3))


def test_new_case_and_pasted_text():
    with pytest.raises(CaseError, match="the question is empty"):
        new_case("  ", [])
    case = new_case("Go?", [pasted_document("pasted words\r\nmore", 1)])
    assert case.context[0].name == "pasted-1.txt" and case.context[0].text == "pasted words\nmore"


def test_documents_written_in_place_count_against_the_limit_and_paths_with_brackets_read(tmp_path):
    """Issue 83: documents written in place escaped max_files; a path holding '[' that exists was
    read as a glob ("no files match"); a case nested 100,000 deep was a RecursionError."""
    inline = [{"name": f"memo-{i}.txt", "text": "The tests pass."} for i in range(3)]
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(CaseError, match="4 evidence documents is over the limit of 3"):
        load_case(write_case(tmp_path, {"question": "Q?", "context": [*inline, "f.txt"]}), limits=Limits(max_files=3))
    odd = tmp_path / "we[ird]"
    odd.mkdir()
    (odd / "log[1].txt").write_text("The tests pass.")
    case = load_case(write_case(tmp_path, {"question": "Q?", "context": ["we[ird]/log[1].txt"]}))
    assert [d.text for d in case.context] == ["The tests pass."]
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CaseError, match="nested too deeply to be a case file"):
        load_case(deep)
