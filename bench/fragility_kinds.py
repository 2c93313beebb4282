"""What the decision court's verdicts rested on, read from an evaluation's stored trials: for each
court trial run with ``--fragility``, the exhibit the check withheld (the one the majority's votes
cite most), the section of the evidence it was quoted from (the nearest Markdown heading above
it), whether it names the option the question asks about or only another one, and whether the
verdict held without it. Then the hold rate in all, by gold answer, by whether the verdict was
right, and by the withheld exhibit's kind.

    python -m bench.fragility_kinds EVAL_FOLDER [EVAL_FOLDER ...] --runs-dir RUNS

An exhibit's kind: **the option's own line** (a line of a list of options naming the option asked
about: it states no fact), **another option's line** (a line of that list naming a rival: nothing
for or against the option asked), **a question** (one sentence, asking), **a reference** (a link with under
three words beside it, numbers aside), or **another passage** (anything else). Only the last can
state a fact. On 2026-11-25 all five verdicts that turned on the first 12 ADR questions rested
on the option's own line; since cde447e such a line is not offered to the advocates. Figures only.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from courtroom_chat.evaluation.runner import court_runs
from courtroom_chat.records import RunRecord
from courtroom_chat.store import RunStore

HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*\S)\s*$")
LISTED = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|<https?://[^>]*>|https?://\S+")


def asked_option(question: str) -> str:
    """The quoted option of "Should we choose "X"?", else the question itself."""
    found = re.search(r'"([^"]+)"', question)
    return (found.group(1) if found else question).strip().lower()


def stated(quote: str) -> str:
    """"a question" (one sentence, asking), "a reference" (a link, and under three words beside it
    that are not numbers), else "another passage": neither of the first two states a fact."""
    text, links = LINK.subn(lambda m: m.group(1) or " ", quote)
    if links and len([w for w in re.findall(r"\w+", text) if not w.isdigit()]) < 3:
        return "a reference"
    body = quote.strip()
    if body.endswith("?") and not re.search(r"[.!;]\s", body[:-1]):
        return "a question"
    return "another passage"


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def withheld(record: RunRecord, check: dict[str, Any]) -> Any:
    """The exhibit (the record's own, typed) the fragility ``check`` withheld, if it names one."""
    number = re.fullmatch(r"exhibit (\d+)", str(check.get("removed", "")))
    exhibits = [*(record.prosecution.exhibits if record.prosecution else []),
                *(record.defense.exhibits if record.defense else [])]
    return next((e for e in exhibits if number and e.number == int(number.group(1))), None)


def kind_of(record: RunRecord, exhibit: Any) -> tuple[str, str]:
    """(section heading, kind) of a withheld exhibit; see the module's text."""
    location = exhibit.location
    document = next((d for d in record.case.context if location and d.name == location.document), None)
    if document is None:
        return "?", "another passage"
    lines = document.text.splitlines()
    start = location.line_start - 1
    section = next((m.group(1) for line in reversed(lines[: start + 1]) if (m := HEADING.match(line))), "(before any heading)")
    quoted = lines[start] if start < len(lines) else ""
    if not LISTED.match(quoted) or "option" not in section.lower():
        return section, stated(exhibit.source_quote)
    option = words(asked_option(record.case.question))
    own = words(LISTED.sub("", quoted))[: len(option)] == option  # the line begins with the option's words
    return section, "the option's own line" if own else "another option's line"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("evals", nargs="+", type=Path, help="evaluation folders (evals/<id>) holding results.jsonl")
    parser.add_argument("--runs-dir", required=True, type=Path)
    args = parser.parse_args()
    store = RunStore(args.runs_dir)
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    print("| arm | item | gold | verdict | right | withheld | section | kind | split without it | held |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for folder in args.evals:
        found, missing = court_runs(folder / "results.jsonl", store)
        last = {(row["item"], row["method"], row.get("framing", "asked")): (row, record) for row, record in found}
        for (item, arm, framing), (row, record) in last.items():
            check = ((record.outcome.data if record.outcome else {}) or {}).get("fragility") or {}
            if framing != "asked" or check.get("held") is None:
                continue
            exhibit = withheld(record, check)
            section, kind = kind_of(record, exhibit) if exhibit else ("?", "?")
            right = row["predicted"] == row["gold"]
            held = bool(check["held"])
            for name in ("all", f"gold: {row['gold']}", f"verdict: {'right' if right else 'wrong'}", f"kind: {kind}"):
                tally = counts[arm][name]
                tally[0] += held
                tally[1] += 1
                tally[2] += right
            quote = exhibit.source_quote if exhibit else ""
            quote = quote if len(quote) <= 60 else quote[:57] + "..."
            print(f"| {arm} | {item} | {row['gold']} | {row['predicted']} | {'yes' if right else 'no'} | "
                  f"{check.get('removed')}: {quote!r} | {section} | {kind} | {check.get('split', '')} | "
                  f"{'held' if held else 'turned'} |")
        if missing:
            print(f"\n{folder.name}: {missing} court rows whose runs are not in {args.runs_dir}")
    for arm, tallies in counts.items():
        print(f"\n{arm}: held / trials, and verdicts right")
        for name in sorted(tallies, key=lambda n: (n.split(":")[0] != "all", n)):
            held, n, right = tallies[name]
            print(f"  {name}: held {held}/{n} ({held / n:.0%}), right {right}/{n}")


if __name__ == "__main__":
    main()
