"""Can plain-language questions reach the statutes? Three ways to lift the knowledge base's
recall@5 on the plain-language half of bench/samvad/questions.jsonl (issue 16's goal: 0.9;
the hybrid search alone scores 0.375), each scored beside the plain hybrid search:

- **titles**: a second dense index over the provisions' titles alone ("Punishment for theft"),
  fused with the hybrid ranking by reciprocal rank. No language model.
- **terms**: a language model names the offence, right or rule a question raises, in a
  statute's words; the search reads the question and those terms together.
- **passage**: the model writes the provision it expects in a statute's style ("Whoever ..."),
  and the search reads the question and that passage together (hypothetical-document search).

    python bench/samvad_query_probe.py --model local:qwen2.5-coder-1.5b --out bench/results/samvad-query-probe

Every model reply is printed and kept in <out>.json, so the reading can be checked. Figures
only: nothing passes or fails. A way of asking that helps here is not yet shown to help on
questions the prompt was not tried on: the 40 questions were written with the knowledge base.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from pydantic import BaseModel, Field

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from samvad_retrieval import DEPTH, QUESTIONS, dense_ranking, ranking_table, score_ranking, write_outputs  # noqa: E402

from courtroom_chat.backends import open_backend  # noqa: E402
from courtroom_chat.backends.base import ModelRequest  # noqa: E402
from courtroom_chat.config import ModelSpec, load_settings  # noqa: E402
from courtroom_chat.kb import KnowledgeBase  # noqa: E402
from courtroom_chat.procedures.base import parse_reply  # noqa: E402
from courtroom_chat.retrieval import default_embedder  # noqa: E402

SYSTEM = "You are a legal research assistant for Indian law (IPC, CrPC, Evidence Act, CPC, Constitution)."
ASK = {
    "terms": ("What would a lawyer look up? Name the offence, the right, or the rule of procedure or evidence that "
              "this situation raises, each in the formal words a statute would use for it. Give 1 to 4 short phrases, "
              "most likely first. Name only what fits this situation. Do not give section numbers."),
    "passage": ("Write the provision of Indian law that applies to it, in the style of a statute (for an offence, a "
                "sentence starting \"Whoever\"; for a right or a rule, the rule itself), in one or two sentences. "
                "Then give the offence's or the rule's short name."),
}


class Terms(BaseModel):
    terms: list[str] = Field(min_length=1, max_length=6)


def rrf(rankings: list[list[str]], k: int = 60) -> list[str]:
    """Reciprocal-rank fusion of several rankings of provision keys."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + 1 / (k + rank)
    return [key for key, _ in sorted(scores.items(), key=lambda p: -p[1])]


async def expansions(model: str, questions: list[dict], way: str) -> dict[str, list[str]]:
    settings = load_settings(None)
    backend = open_backend(ModelSpec.parse(model).resolved(settings), settings)
    out: dict[str, list[str]] = {}
    try:
        for q in questions:
            prompt = (f"A person describes a situation or asks a question in plain words:\n\n{q['question']}\n\n"
                      f"{ASK[way]}\nReply with only JSON: {{\"terms\": [\"...\", \"...\"]}}")
            started = time.perf_counter()
            reply = await backend.complete(ModelRequest(
                agent="expander", role="expander", system=SYSTEM, prefix="", prompt=prompt,
                schema=Terms.model_json_schema(), schema_name="terms", temperature=0.0, max_tokens=200))
            value, _ = parse_reply(reply.text, Terms)
            out[q["id"]] = value.terms if value else []
            print(f"{way} {q['id']} {time.perf_counter() - started:.1f}s {out[q['id']]}", file=sys.stderr)
    finally:
        await backend.aclose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b", help="the model for terms and passages")
    parser.add_argument("--no-model", action="store_true", help="only the titles index (no language model)")
    parser.add_argument("--out", type=Path, default=None, help="write <out>.json and <out>.md")
    parser.add_argument("-k", type=int, default=5)
    args = parser.parse_args()
    questions = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    kb = KnowledgeBase.from_settings(load_settings(None).kb)
    kb.build()
    provisions = kb.provisions
    embedder = default_embedder()
    import numpy as np

    titles = np.array(embedder.embed([p.title or p.heading for p in provisions]))
    asked = np.array(embedder.embed([q["question"] for q in questions]))
    hybrid = {q["id"]: [h.provision.key for h in kb.search(q["question"], DEPTH)] for q in questions}
    owners = list(range(len(provisions)))
    by_title = {q["id"]: dense_ranking(provisions, titles, owners, asked[i]) for i, q in enumerate(questions)}
    rankings = {"hybrid (as shipped)": hybrid, "titles fused with hybrid": {
        i: rrf([hybrid[i], by_title[i]]) for i in hybrid}}
    replies: dict[str, dict[str, list[str]]] = {}
    if not args.no_model:
        for way in ASK:
            replies[way] = asyncio.run(expansions(args.model, questions, way))
            rankings[f"question + model's {way}"] = {
                q["id"]: [h.provision.key for h in kb.search(f"{q['question']}. {'; '.join(replies[way][q['id']])}", DEPTH)]
                for q in questions}
    results = {name: score_ranking(lambda q, r=ranking: r[q["id"]], questions, args.k) for name, ranking in rankings.items()}
    k = args.k
    lines = [f"# Plain-language questions and the statutes: recall@{k} ({len(questions)} questions)", "",
             f"Command: `python bench/samvad_query_probe.py --model {args.model}"
             f"{' --no-model' if args.no_model else ''}{' --out ' + str(args.out) if args.out else ''}`  ",
             f"Date: {time.strftime('%Y-%m-%d')}; embeddings all-MiniLM-L6-v2 int8 ONNX; greedy decoding", ""] + ranking_table(results, k, "way")
    write_outputs(args.out, "\n".join(lines) + "\n", {"model": None if args.no_model else args.model, "replies": replies,
                                                    "results": {n: r["summary"] for n, r in results.items()}})


if __name__ == "__main__":
    main()
