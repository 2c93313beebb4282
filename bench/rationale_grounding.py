"""Does the judge's rationale rest on the evidence? Reads the decision court's stored trials of one
or more evaluations and prints, per trial and in all:

- **names a deciding fact**: the rationale restates one of the case's deciding facts
  (``bench/evidence_following/facts.json``): half the fact's key terms, and two or more, appear
  in it (a restatement counts; it need not quote);
- **words not in the evidence**: the share of the rationale's key terms (content words, cut to
  four letters as the court's checks cut them) found in neither the evidence, the question, nor
  the trial's own words (jury, exhibit, majority); a rationale that
  writes "significant financial losses … loss of loans or other sources of funding" about a
  vendor renewal whose evidence speaks of uptime, lost exports and a price rise scores high.

    python -m bench.rationale_grounding RESULTS.jsonl [RESULTS.jsonl ...] --runs-dir RUNS [--runs-dir RUNS ...]

Figures only; a rough lexical measure (a paraphrase with other words counts against it), for
comparing the same cases before and after a change, not for judging one rationale.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.stored import arguments, court_trials
from courtroom_chat.procedures.deliberation import key_terms

ROOT = Path(__file__).resolve().parents[1]

FACTS = json.loads((ROOT / "bench" / "evidence_following" / "facts.json").read_text())
# The court's own words and the verdict's framing, which no evidence holds.
TRIAL = key_terms("""prosecution prosecution's defense defense's jury jury's juror jurors judge court exhibit exhibits
evidence shows shown clear clearly decide decides decided decision voted votes vote majority argument arguments
strong stronger presents rationale therefore given based indicates suggests significant potential risk act acting
action actions motion proceed ready""")


def names_fact(rationale: str, facts: list[str]) -> bool:
    """At least half the fact's key terms, and two or more (as a reason cites a fact for the
    fragility check), are in the rationale."""
    said = key_terms(rationale)
    return any(terms and len(terms & said) >= max(2, len(terms) / 2) for terms in map(key_terms, facts))


def unsupported(rationale: str, sources: str) -> tuple[float, list[str]]:
    """The share of the rationale's key terms found in neither the sources nor the trial's own words."""
    terms = key_terms(rationale) - TRIAL
    missing = terms - key_terms(sources)
    words = [w for w in dict.fromkeys(rationale.lower().split()) if key_terms(w) & missing]  # as written, for the table
    return (len(missing) / len(terms) if terms else 0.0), [w.strip(".,;:()\"'") for w in words]


def main() -> None:
    paths, stores = arguments(__doc__)
    print("| item | verdict right | names a deciding fact | words not in the evidence | examples |")
    print("|---|---|---|---|---|")
    named = total = 0
    shares: list[float] = []
    for row, record in (trial for path in paths for trial in court_trials(path, stores)):
        if record.verdict is None:
            continue
        rationale = record.verdict.rationale or ""
        sources = " ".join([record.case.question, *(d.text for d in record.case.context)])
        share, missing = unsupported(rationale, sources)
        hit = names_fact(rationale, FACTS.get(row["item"], []))
        total += 1
        named += hit
        shares.append(share)
        print(f"| {row['item']} | {'yes' if row['predicted'] == row['gold'] else 'no'} | {'yes' if hit else 'no'} | "
              f"{share:.0%} | {', '.join(dict.fromkeys(missing[:6]))} |")
    if total:
        print(f"\n{total} rationales: {named} name a deciding fact; words not in the evidence {sum(shares) / total:.0%} "
              f"on average, {sum(s > 0.3 for s in shares)} above 30%")


if __name__ == "__main__":
    main()
