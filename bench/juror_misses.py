"""Where a juror's vote against the evidence comes from: its reasoning, or only its answer.

    python bench/juror_misses.py RESULTS.jsonl [...] --runs-dir RUNS [--runs-dir RUNS2]

For every juror vote of the stored court trials that goes against the gold answer, whether its
own reasoning, read by the rule the court uses (``rules.argues_against``), argues in the
juror's own voice for the gold side: if it does, the answer contradicts a right reasoning (a
mapping error a reader could mend); if not, the reasoning itself went the wrong way (a reading
error no answer format mends). Prints each such vote with its reasoning's last sentence, then
the counts. Figures only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stored import arguments, court_trials  # noqa: E402

from courtroom_chat.motion import action_verb  # noqa: E402
from courtroom_chat.procedures.decision.rules import argues_against  # noqa: E402

SIDE = {"guilty": "yes", "not_guilty": "no"}
DECISION = {"guilty": "act", "not_guilty": "do not act"}


def main() -> None:
    paths, stores = arguments(__doc__)
    votes = misses = stated = 0
    print("| case (gold) | juror | answer | its reasoning argues for the gold side | last sentence |")
    print("|---|---|---|---|---|")
    for path in paths:
        for row, record in court_trials(path, stores):
            if record.jury is None:
                continue
            verb = action_verb(record.case.question)
            for juror in record.jury.jurors:
                if juror.status != "voted":
                    continue
                votes += 1
                if SIDE.get(juror.vote) == row["gold"]:
                    continue
                misses += 1
                reasoning = juror.reasoning or ""
                found = bool(argues_against(reasoning, verb, DECISION[juror.vote]))
                stated += found
                last = re.split(r"(?<=[.!?])\s+", reasoning.strip())[-1][:140].replace("|", "/")
                print(f"| {row['item']} ({row['gold']}) | juror {juror.number} | {SIDE.get(juror.vote)} | "
                      f"{'yes' if found else 'no'} | {last} |")
    print()
    print(f"- juror votes {votes}; against the gold answer {misses}; of those, reasoning that argues for the gold "
          f"side in the juror's own voice {stated} (the answer alone went wrong), reasoning that does not "
          f"{misses - stated} (the reading went wrong)")


if __name__ == "__main__":
    main()
