"""Replay a stored samvad trial's round-1 adjudicator prompts with variants of the leaning field."""
import asyncio, json, sys, time
sys.path.insert(0, "/work/main")
from courtroom_chat.backends import BackendPool
from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.config import ModelSpec, load_settings

TAIL = "Reply with JSON with these fields, in this order:"
VARIANTS = {
    "current": ('- "justification": at least 15 words: for each element of the charge, the evidence items (P1, D2…) that prove it or leave it unproved, the law (name the section), and the strongest point against your conclusion.\n- "leaning": exactly "guilty", "not guilty" or "undecided": the one your justification supports.\n',
                "leaning", ["guilty", "not guilty", "undecided"]),
    "proved": ('- "justification": at least 15 words: for each element of the charge, the evidence items (P1, D2…) that prove it or leave it unproved, the law (name the section), and the strongest point against your conclusion.\n- "charge": exactly "proved", "not proved" or "undecided": has the evidence proved the charge beyond reasonable doubt?\n',
               "charge", ["proved", "not proved", "undecided"]),
    "question": ('- "justification": at least 15 words: for each element of the charge, the evidence items (P1, D2…) that prove it or leave it unproved, the law (name the section), and the strongest point against your conclusion.\n- "answer": exactly "yes", "no" or "unsure": does the evidence prove beyond reasonable doubt that the accused committed the offence charged?\n',
                 "answer", ["yes", "no", "unsure"]),
    "doubt": ('- "justification": at least 15 words: for each element of the charge, the evidence items (P1, D2…) that prove it or leave it unproved, the law (name the section), and the strongest point against your conclusion.\n- "reasonable_doubt": exactly "yes", "no" or "unsure": does a reasonable doubt remain that the accused committed the offence charged?\n',
              "reasonable_doubt", ["yes", "no", "unsure"]),
}

async def main(path, variants, reps):
    d = json.load(open(path))
    calls = [c for c in d["calls"] if c["role"] == "adjudicator" and c["attempt"] == 1][:5]
    pool = BackendPool(load_settings(env=False))
    backend = pool.get(ModelSpec.parse("local:qwen2.5-coder-1.5b"))
    try:
        for v in variants:
            text, field, enum = VARIANTS[v]
            got = []
            reqs = []
            for c in calls:
                sys_msg, user = c["messages"][0]["content"], c["messages"][1]["content"]
                user = user[: user.index(TAIL) + len(TAIL)] + "\n" + text
                if CUT == "noargs":
                    a, b = user.index("THE JUDGE'S INSTRUCTIONS:"), user.index("THE OTHER ADJUDICATORS'")
                    user = user[:a] + user[b:]
                if CUT == "evidence-last":
                    ev = user[user.index("PROSECUTION EVIDENCE:"): user.index("YOU ARE ADJUDICATOR")].strip()
                    k = user.index("Decide on the evidence items")
                    user = user[:k] + "THE EVIDENCE AGAIN (what the case file states; nothing else is a fact):\n" + ev + "\n\n" + user[k:]
                schema = {"type": "object", "properties": {"justification": {"type": "string", "maxLength": 1200},
                          field: {"type": "string", "enum": enum}}, "required": ["justification", field]}
                reqs.append(ModelRequest(agent=c["agent"], role="adjudicator", system=sys_msg, prefix="", prompt=user,
                                       schema=schema, schema_name="Statement", temperature=c["temperature"], max_tokens=450))
            for r in range(reps):
                t = time.time()
                if CONC:
                    reps_ = await asyncio.gather(*(backend.complete(q) for q in reqs))
                else:
                    reps_ = [await backend.complete(q) for q in reqs]
                for q, rep in zip(reqs, reps_):
                    out = json.loads(rep.text)
                    got.append(out[field])
                    print(v, q.agent, r, out[field], rep.usage, "|", out["justification"][:120].replace("\n", " "), flush=True)
                print("batch", f"{time.time()-t:.0f}s", flush=True)
            print("==", v, {e: got.count(e) for e in enum}, flush=True)
    finally:
        await pool.aclose()

CONC = len(sys.argv) > 4 and sys.argv[4] == "conc"
CUT = sys.argv[5] if len(sys.argv) > 5 else ""
asyncio.run(main(sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])))
