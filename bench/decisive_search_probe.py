"""Probe: can a small model find the deciding sentence when asked for it alone, and decide from
the two sides' strongest passages?

Three short calls a case, none of them the court's:

- search (one per side): the evidence's quotable passages, numbered (the passages a constrained
  advocate may quote), and "which ONE is the strongest reason to answer Yes / No? Look first for
  a rule, policy or law, a required check, or a problem shown resolved"; the reply is a number,
  held to the list by the schema;
- weigh: the question and the two passages found, "does either settle it?", answered yes / no;
- single: the plain call the evaluation's ``single`` baseline makes, for comparison.

    uv run python bench/decisive_search_probe.py --model qwen2.5-coder-1.5b [--cases heldout] [--limit N]

Prints the deciding-sentence hit rate per side, the weigh call's and the single call's accuracy
each way, and writes the rows to --out. A probe for the design, not a procedure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Literal

from decisive_fact import HERE, SETS, meta, pct, quotes_it
from pydantic import BaseModel

from courtroom_chat.backends import BackendPool
from courtroom_chat.backends.base import ModelRequest, sampling_seed, stable_seed
from courtroom_chat.case import Case, read_document
from courtroom_chat.config import ModelSpec, Settings
from courtroom_chat.evaluation.methods import AnswerReply, Baselines, ask
from courtroom_chat.evidence import quote_choices
from courtroom_chat.plain import SYSTEM

SEARCH = """Question: {question}

The evidence, one passage per line, numbered:
{passages}

Which ONE passage is the strongest reason to answer {side} to the question? Look first for a
passage that settles it: {settles}. Reply with JSON: {{"passage": its number}}."""
SETTLES = {
    "YES": "a worry or blocker shown to be resolved (fixed, re-tested, approved, cleared, waived), "
           "a required check or approval that passed, or a rule that requires going ahead",
    "NO": "a rule, policy, contract or law that going ahead would break, a required check or "
          "approval that failed or is missing, or a problem that is still unresolved",
}
WEIGH = """Question: {question}

The strongest passage for YES: "{yes}"
The strongest passage for NO: "{no}"

One of these passages may settle the question: a rule, policy or law, or a required check, that
rules an answer out, or a problem shown to be resolved. A settled fact outweighs tone, praise or
worry. Answer the question. Reply with JSON: {{"reasoning": one sentence, "decision": "yes" or "no"}}."""


class Pick(BaseModel):
    passage: int


class Weighed(BaseModel):
    reasoning: str = ""
    decision: Literal["yes", "no"]


def request(agent: str, prompt: str, schema: dict, name: str, seed: int, max_tokens: int = 200) -> ModelRequest:
    return ModelRequest(agent=agent, role="juror", system=SYSTEM, prefix="", prompt=prompt, schema=schema,
                        schema_name=name, temperature=0.2, max_tokens=max_tokens, seed=sampling_seed(seed))


async def probe(settings: Settings, spec: ModelSpec, cases: list[dict], facts: dict, out: Path) -> list[dict]:
    pool = BackendPool(settings)
    backend = pool.get(spec)
    baselines = Baselines(settings, pool, procedure="decision")
    done = {r["item"]: r for r in map(json.loads, out.read_text().splitlines())} if out.exists() else {}
    rows = []
    for c in cases:
        if c["id"] in done:
            rows.append(done[c["id"]])
            continue
        started = time.perf_counter()
        docs = [read_document(HERE / p) for p in c["context"]]
        case = Case(question=c["question"], context=docs)
        choices = quote_choices(docs, question=c["question"])
        listed = "\n".join(f"{i}. {text}" for i, text in enumerate(choices, 1))
        schema = {"type": "object", "properties": {"passage": {"type": "integer", "enum": list(range(1, len(choices) + 1))}},
                  "required": ["passage"], "additionalProperties": False}
        picks = {}
        for side in ("YES", "NO"):
            prompt = SEARCH.format(question=c["question"], passages=listed, side=side, settles=SETTLES[side])
            value, _ = await ask(backend, request(f"search-{side}", prompt, schema, "Pick", stable_seed(c["id"], side)), Pick)
            picks[side] = choices[value.passage - 1] if value and 1 <= value.passage <= len(choices) else ""
        weigh_schema = Weighed.model_json_schema()
        value, _ = await ask(backend, request("weigh", WEIGH.format(question=c["question"], yes=picks["YES"], no=picks["NO"]),
                                              weigh_schema, "Weighed", stable_seed(c["id"], "weigh"), 300), Weighed)
        weighed = value.decision if value else None
        single_req = baselines.request("single", case, 1, settings.procedure_params("decision").judge_temperature, 0)
        value, _ = await ask(backend, single_req, AnswerReply)
        single = value.decision if value else None
        deciding = facts[c["id"]]["deciding"]
        favoured = "YES" if c["answer"] == "yes" else "NO"
        row = {"item": c["id"], "gold": c["answer"], "shape": facts[c["id"]]["shape"],
               "hit_favoured": quotes_it(picks[favoured], deciding),
               "hit_other": quotes_it(picks["NO" if favoured == "YES" else "YES"], deciding),
               "picks": picks, "weigh": weighed, "single": single, "passages": len(choices),
               "seconds": round(time.perf_counter() - started, 1)}
        rows.append(row)
        with out.open("a") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{c['id']}: gold {c['answer']} weigh {weighed} single {single} hit {row['hit_favoured']} "
              f"({row['seconds']} s)", flush=True)
    await pool.aclose()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--cases", default="first", choices=sorted(SETS))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=None, help="rows file (resumed when it exists)")
    args = parser.parse_args()
    spec = ModelSpec.parse(args.model if ":" in args.model or args.model == "scripted" else f"local:{args.model}")
    settings = Settings().with_backend(str(spec))
    cases = [json.loads(line) for line in SETS[args.cases].read_text().splitlines() if line.strip()][: args.limit]
    out = Path(args.out or f"/tmp/decisive-search-{args.cases}-{spec.model or spec.backend}.jsonl")
    rows = asyncio.run(probe(settings, spec, cases, meta(), out))
    print(f"\n## Search and weigh probe ({args.cases} set, {len(rows)} cases): {spec}, {time.strftime('%Y-%m-%d')}\n")
    print("| | Yes cases | No cases |")
    print("|---|---|---|")
    for label, key in (("search: the favoured side's pick is the deciding sentence", "hit_favoured"),
                       ("search: the other side's pick is the deciding sentence", "hit_other")):
        cells = [pct(sum(r[key] for r in rows if r["gold"] == g), sum(r["gold"] == g for r in rows)) for g in ("yes", "no")]
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    for label, key in (("weigh: right", "weigh"), ("single: right", "single")):
        cells = [pct(sum(r[key] == g for r in rows if r["gold"] == g), sum(r["gold"] == g for r in rows)) for g in ("yes", "no")]
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    print(f"\nSeconds per case (four calls): {sum(r['seconds'] for r in rows) / max(1, len(rows)):.1f}. Rows: {out}")


if __name__ == "__main__":
    main()
