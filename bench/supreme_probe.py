"""Which part of a supreme-court juror's prompt turns clear No cases into "guilty"? One juror
call per case, variant and temperature, on the clear cases, against the plain call the
baselines make (figures only; each variant differs from "court" in one thing):

- ``court``: the juror as the court asks it (burden, facts for and against, reasoning, verdict);
- ``yesno``: the same, the verdict asked as "yes" / "no" to the question above;
- ``no-burden``: the same without the burden-of-proof paragraph;
- ``no-first``: the same with the two verdicts listed no first (not guilty / not liable);
- ``plain``: the plain call of the single-call baseline (its own system prompt and fields);
- ``justice``: a justice's round-1 opinion as the court asks it (seats 1, 5 and 9 in turn, the two
  verdicts in one order and then the other), and beside it ``reread``: a second call that reads only
  that opinion's analysis and says which verdict it supports (does the 1.5B's analysis follow the
  evidence where its verdict does not?);
- ``blind``: the same justice asked for its key facts and analysis only, no verdict or confidence
  (the two verdicts are named only in the burden paragraph), its vote the reading of that analysis;
- ``findings``: the same justice, its analysis replaced by a finding on each element the party
  with the burden must prove ("proved" / "not proved", with the witness or exhibit it rests on),
  and the verdict bound to them (the samvad adjudicators' design); scored both as written and as
  its findings decide (every element proved: guilty / liable), the latter as ``findings+rule``.

    python bench/supreme_probe.py bench/supreme/clear.jsonl --items nandakumar-burglary whitlock-theft \
        --backend local:qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtroom_chat import plain  # noqa: E402
from courtroom_chat.backends import BackendPool  # noqa: E402
from courtroom_chat.backends.base import ModelRequest  # noqa: E402
from courtroom_chat.config import Settings  # noqa: E402
from courtroom_chat.evaluation.datasets import JsonlDataset  # noqa: E402
from courtroom_chat.procedures import get  # noqa: E402
from courtroom_chat.procedures.supreme.rules import STANDARDS  # noqa: E402
from courtroom_chat.procedures.supreme.transcript import case_type  # noqa: E402
from courtroom_chat.procedures.supreme.wire import JurorReply  # noqa: E402
from courtroom_chat.replies import refine_schema  # noqa: E402

VARIANTS = ("court", "yesno", "no-burden", "no-first", "plain", "justice", "blind", "findings")
READ = ("justice", "blind")  # variants whose analysis is read back
SEATED = ("justice", "blind", "findings")  # a justice's round-1 opinion, seats 1, 5, 9 and both orders
FINDINGS_LINE = ('- "elements": each element {party} must prove, in order, one object each: "element" (what must be '
                 'proved, in a short sentence), "evidence" (the witness or exhibit that bears on it), "finding" '
                 '("proved" or "not proved", under the burden above).')
FINDINGS_VERDICT = '- "verdict": exactly "{first}" or "{second}": "{yes}" only if every element is "proved"; if any is "not proved", "{no}".'

def justice_request(case, procedure, temperature: float, k: int, blind: bool = False,
                    findings: bool = False) -> tuple[ModelRequest, dict[str, str], list[str]]:
    """Justice seat 1, 5 or 9 (by ``k``), round 1, the verdicts in one order (even ``k``) or the other;
    ``blind``: no verdict or confidence asked (the order is then the reading's only); ``findings``:
    a finding on each element instead of the analysis, the verdict bound to them."""
    from courtroom_chat.procedures.supreme import Parameters
    from courtroom_chat.procedures.supreme.wire import OpinionReply
    standard = STANDARDS[case_type(case, "civil")[0]]
    params = Parameters()
    seat = (1, 5, 9)[k % 3]
    order = [standard.yes, standard.no] if k % 2 == 0 else [standard.no, standard.yes]
    prompt = procedure.render("justice", burden=procedure.burden(standard), yes=standard.yes, no=standard.no,
                              first=order[0], second=order[1], party=standard.party,
                              claim="charge" if standard.type == "criminal" else "claim", seat=seat,
                              size=params.justices, philosophy=procedure.philosophy(params.seat(seat)[0])).lstrip()
    schema = procedure.opinion_schema(order, OpinionReply)
    if findings:
        lines = []
        for line in prompt.splitlines():
            if line.startswith('- "evidence_analysis":'):
                line = FINDINGS_LINE.format(party=standard.party)
            elif line.startswith('- "verdict":'):
                line = FINDINGS_VERDICT.format(first=order[0], second=order[1], yes=standard.yes, no=standard.no)
            lines.append(line)
        prompt = "\n".join(lines)
        properties = schema["properties"]
        element = {"type": "object", "properties": {"element": {"type": "string", "maxLength": 200},
                                                    "evidence": {"type": "string", "maxLength": 200},
                                                    "finding": {"type": "string", "enum": ["proved", "not proved"]}},
                   "required": ["element", "evidence", "finding"], "additionalProperties": False}
        schema["properties"] = {"key_facts": properties["key_facts"],
                                "elements": {"type": "array", "items": element, "minItems": 1, "maxItems": 5},
                                "verdict": properties["verdict"], "confidence": properties["confidence"]}
        schema["required"] = ["key_facts", "elements", "verdict", "confidence"]
    if blind:
        prompt = "\n".join(line for line in prompt.splitlines()
                           if not line.startswith(('- "verdict":', '- "confidence":')))
        for field in ("verdict", "confidence"):
            schema["properties"].pop(field)
            schema["required"] = [f for f in schema.get("required", []) if f != field]
    return (ModelRequest(agent="probe", role="justice", system=procedure.system_prompt(case),
                         prefix=procedure.case_block(case), prompt=prompt, schema=schema, schema_name="OpinionReply",
                         temperature=temperature, max_tokens=700),
            {standard.yes: "yes", standard.no: "no"}, order)


def reread_request(case, procedure, analysis: str, order: list[str]) -> ModelRequest:
    """The court's own reading of an analysis (``verdict_from = "analysis"``), as it asks it."""
    standard = STANDARDS[case_type(case, "civil")[0]]
    schema = {"type": "object", "properties": {"finding": {"type": "string", "maxLength": 400},
                                               "verdict": {"type": "string", "enum": order}},
              "required": ["finding", "verdict"], "additionalProperties": False}
    return ModelRequest(agent="reread", role="justice", system=procedure.render("reread_system"), prefix="",
                        prompt=procedure.render("reread", question=case.question, burden=procedure.burden(standard),
                                                analysis=analysis, first=order[0], second=order[1]),
                        schema=schema, schema_name="RereadReply", temperature=0.0, max_tokens=250)


def request(variant: str, case, procedure, temperature: float) -> tuple[ModelRequest, dict[str, str]]:
    """The request, and how its answer maps to yes / no."""
    standard = STANDARDS[case_type(case, "civil")[0]]
    prefix = procedure.case_block(case)
    if variant == "plain":
        return (ModelRequest(agent="probe", role="juror", system=plain.SYSTEM, prefix=prefix, prompt=plain.prompt(),
                             schema=plain.schema(), schema_name="AnswerReply", temperature=temperature, max_tokens=500),
                {"yes": "yes", "no": "no"})
    order = [standard.no, standard.yes] if variant == "no-first" else [standard.yes, standard.no]
    values = {"yes": standard.yes, "no": standard.no, "first": order[0], "second": order[1], "number": 1, "size": 12,
              "party": standard.party, "claim": "charge" if standard.type == "criminal" else "claim",
              "burden": "" if variant == "no-burden" else procedure.burden(standard)}
    prompt = procedure.render("juror", **values).lstrip()
    schema = refine_schema(JurorReply, {"verdict": {"enum": order}, "facts_for": {"maxItems": 4},
                                        "facts_against": {"maxItems": 4}, "reasoning": {"maxLength": 900}})
    mapping = {standard.yes: "yes", standard.no: "no"}
    if variant == "yesno":
        prompt = prompt.replace(f'- "verdict": exactly "{order[0]}" or "{order[1]}".',
                                '- "verdict": exactly "yes" or "no", the answer to the QUESTION BEFORE THE COURT.')
        schema["properties"]["verdict"]["enum"] = ["yes", "no"]
        mapping = {"yes": "yes", "no": "no"}
    return (ModelRequest(agent="probe", role="juror", system=procedure.system_prompt(case), prefix=prefix, prompt=prompt,
                         schema=schema, schema_name="JurorReply", temperature=temperature, max_tokens=700), mapping)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--items", nargs="*", default=None)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--temperatures", nargs="*", type=float, default=[0.3, 0.7, 1.0])
    parser.add_argument("--backend", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--out", type=Path, default=None, help="JSON lines, one per call")
    args = parser.parse_args()
    settings = Settings().with_backend(args.backend)
    pool = BackendPool(settings)
    backend = pool.get(settings.model_for("jury"))
    procedure = get("supreme")
    items = [i for i in JsonlDataset(args.dataset).items() if not args.items or i.id in args.items]
    tally: Counter = Counter()
    out = args.out.open("a") if args.out else None
    try:
        for item in items:
            case = procedure.prepare(item.case)
            for variant in args.variants:
                for k, t in enumerate(args.temperatures * (2 if variant in SEATED else 1)):
                    if variant in SEATED:
                        req, mapping, order = justice_request(case, procedure, t, k, blind=variant == "blind",
                                                              findings=variant == "findings")
                    else:
                        req, mapping = request(variant, case, procedure, t)
                    started = time.perf_counter()
                    reply = await backend.complete(req)
                    try:
                        data = json.loads(reply.text)
                        said = data.get("verdict", data.get("decision"))
                    except ValueError:
                        data, said = {}, None
                    answer = mapping.get(said) if isinstance(said, str) else None
                    tally[(variant, item.gold, answer)] += 1
                    line = {"item": item.id, "gold": item.gold, "variant": variant, "temperature": t, "said": said,
                            "answer": answer, "seconds": round(time.perf_counter() - started, 1), "reply": data}
                    if variant == "findings":
                        line["order"] = order
                        found = [e.get("finding") for e in data.get("elements", []) if isinstance(e, dict)]
                        line["rule"] = ("yes" if found and all(f == "proved" for f in found) else "no") if found else None
                        tally[("findings+rule", item.gold, line["rule"])] += 1
                    if variant in READ:
                        line["order"] = order
                        reread = await backend.complete(reread_request(case, procedure, data.get("evidence_analysis", ""), order))
                        try:
                            again = json.loads(reread.text)
                        except ValueError:
                            again = {}
                        line["reread"] = mapping.get(again.get("verdict")) if isinstance(again.get("verdict"), str) else None
                        line["reread_reply"] = again
                        tally[(f"{variant}+reread", item.gold, line["reread"])] += 1
                    print(json.dumps({k: v for k, v in line.items() if k not in ("reply", "reread_reply")}), flush=True)
                    if out:
                        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    finally:
        if out:
            out.close()
        await pool.aclose()
    print("\nvariant      gold  follows evidence")
    extra = [f"{v}+reread" for v in args.variants if v in READ] + (["findings+rule"] if "findings" in args.variants else [])
    for variant in [*args.variants, *extra]:
        for gold in ("yes", "no"):
            n = sum(v for (va, g, _), v in tally.items() if va == variant and g == gold)
            right = tally[(variant, gold, gold)]
            if n:
                print(f"{variant:12} {gold:4}  {right}/{n}")


if __name__ == "__main__":
    asyncio.run(main())
