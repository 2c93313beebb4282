"""The README is a front door that stays true (issue 85, item 1): short, free of run logs, its
first trial's output what the command prints, the files it names present, and every link in it
and in docs/ pointing at a page and a heading that exist."""

from __future__ import annotations

import re
import shlex

import pytest
from typer.testing import CliRunner

from courtroom_chat.frontends.cli import app
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of a Markdown text, as (language, body)."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)


def flat(text: str) -> str:
    """Text with the terminal's wrapping, the quote bars and the bold marks taken out."""
    return " ".join(text.replace("▌", " ").replace("**", "").split())


def test_the_readme_stays_a_front_door():
    lines = README.splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into docs/ (at most 250)"
    dates = re.findall(r"\b20\d\d-\d\d-\d\d\b", README)
    hashes = [w for w in re.findall(r"\b[0-9a-f]{7,40}\b", README) if re.search(r"\d", w) and re.search(r"[a-f]", w)]
    assert not dates and not hashes, f"README.md names dates or commits {dates + hashes}: run logs go to docs/measured.md"


def test_the_first_trial_prints_what_the_readme_shows(runs_dir):
    found = [(i, body) for i, (lang, body) in enumerate(blocks(README)) if "--backend scripted" in body]
    assert found, "README.md shows no scripted first trial"
    index, command = found[0]
    shown = blocks(README)[index + 1][1]
    args = shlex.split(command.split("#")[0])
    assert args[:3] == ["uv", "run", "courtroom"]
    result = CliRunner().invoke(app, args[3:])
    assert result.exit_code == 0, result.output
    printed = flat(result.stderr + "\n" + result.stdout)
    for line in shown.splitlines():
        for part in (flat(p) for p in line.split("…")):
            if len(part) > 3:
                assert part in printed, f"README.md's first trial shows {part!r}, which the command no longer prints"


def test_the_cases_the_readme_names_exist():
    named = set(re.findall(r"\b(?:cases|notebooks|bench)/[\w./-]+\.(?:json|jsonl|ipynb)\b", README))
    assert named
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert not missing, f"README.md names files a clone does not have: {missing}"


def _slug(heading: str) -> str:
    """The anchor the forge gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    out: set[str] = set()
    for heading in re.findall(r"^#{1,6}\s+(.+)$", text, flags=re.M):
        slug, n = _slug(heading), 1
        while slug in out:
            slug, n = f"{_slug(heading)}-{n}", n + 1
        out.add(slug)
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_reaches_a_page_and_a_heading_that_exist(page):
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    broken = []
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link} (no such file)")
        elif anchor and target.is_file() and anchor not in _anchors(target.read_text(encoding="utf-8")):
            broken.append(f"{link} (no such heading)")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"
