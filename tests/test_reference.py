"""docs/configuration.md is generated from the code (courtroom_chat/reference.py): a setting
added, removed or changed without regenerating the page fails here, saying how to regenerate it."""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import BaseModel, Field

from courtroom_chat import reference
from courtroom_chat.config import Settings
from courtroom_chat.procedures import parameters_model

PAGE = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_docs_configuration_is_the_generated_page():
    written, generated = PAGE.read_text(encoding="utf-8"), reference.page()
    if written != generated:
        diff = "".join(list(difflib.unified_diff(written.splitlines(True), generated.splitlines(True),
                                                 "docs/configuration.md", "generated"))[:40])
        raise AssertionError(f"docs/configuration.md is out of date; regenerate it with\n    {reference.COMMAND}\n"
                             f"and commit it with the change.\n{diff}")


def test_the_page_names_every_section_and_every_procedure_setting():
    page = reference.page()
    for section in Settings.model_fields:
        assert f"## [{section}]" in page or section == "procedures"
    for name in reference.builtin_procedures():
        assert f"## [procedures.{name}]" in page
        for key in parameters_model(name).model_fields:
            assert f"| `{key}` |" in page
        assert (PAGE.parent / "procedures" / f"{name}.md").is_file()  # the page each table links to


class _Sample(BaseModel):
    plain: int = 1
    # read above the field,
    # over two lines
    noted: int = Field(2, ge=0)  # and beside it
    described: str = Field("x", description="its own description")  # not this comment


def test_a_field_without_a_description_takes_the_comments_beside_it_in_the_source():
    assert reference.source_comments(_Sample) == {
        "plain": "", "noted": "read above the field, over two lines and beside it", "described": "not this comment"}
    rows = reference.field_table(_Sample)
    assert rows[2:] == ["| `plain` | int | `1` | — |",
                        "| `noted` | int, ≥ 0 | `2` | read above the field, over two lines and beside it |",
                        '| `described` | str | `"x"` | its own description |']
