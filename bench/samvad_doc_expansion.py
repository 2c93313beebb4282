"""Document expansion for plain-language questions (issue 16's recall goal), on one statute book.

The model reads each section of the statute and writes one or two everyday situations it is
about ("someone takes a phone left on a bench"); each situation is embedded beside the
section's own chunks, and a question is matched against both. Asking the model to name the
law from a situation failed on the 1.5B (samvad_query_probe, docs/measured-probes.md): it does
not know the Indian statutes. Here it only has to restate the text in front of it.

    python -m bench.samvad_doc_expansion --source ipc --model local:qwen2.5-coder-1.5b \
        --cache RUNS/situations-ipc-1.5b.json --out bench/results/samvad-doc-expansion

Only the labelled questions whose every answer is in the chosen source are scored, against
that source's sections alone, so sections with and without situations never compete. Dense
ranking (MiniLM cosine, each section at its best chunk) with and without the situations, and
the knowledge base's hybrid search over the same source. The model's situations are cached
(keyed by section and model), so a run can be stopped and resumed; on the 1.5B a section takes
about 5 s (575 IPC sections: about 50 minutes). Figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, Field

from bench.samvad_retrieval import DEPTH, QUESTIONS, dense_ranking, ranking_table, score_ranking, write_outputs
from courtroom_chat.backends import open_backend
from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.config import ModelSpec, load_settings
from courtroom_chat.kb import KnowledgeBase, chunk, default_corpus
from courtroom_chat.procedures.base import parse_reply
from courtroom_chat.retrieval import default_embedder

SYSTEM = "You explain laws in plain everyday words."
ASK = """A section of a law:

{heading}
{text}

Describe, in plain everyday words a non-lawyer would use, one or two typical situations this section is about (what someone did, or what a person can ask for). No legal terms, no section numbers. One or two short sentences.
Reply with only JSON: {{"situations": "..."}}"""


def reciprocal_rank(*rankings: list[str], c: int = 60) -> list[str]:
    """Reciprocal rank fusion (Cormack et al. 2009): each key scores the sum of 1 / (c + rank)."""
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            score[key] = score.get(key, 0.0) + 1 / (c + rank)
    return sorted(score, key=lambda key: -score[key])[:DEPTH]


class Situations(BaseModel):
    situations: str = Field(min_length=5)


async def write_situations(model: str, provisions: list, cache: Path, retry_empty: bool = False,
                           max_tokens: int = 90) -> dict[str, str]:
    done: dict[str, str] = json.loads(cache.read_text()) if cache.is_file() else {}
    todo = [p for p in provisions if p.key not in done or (retry_empty and not done[p.key])]
    if not todo:
        return done
    settings = load_settings(None)
    backend = open_backend(ModelSpec.parse(model).resolved(settings), settings)
    started = time.perf_counter()
    try:
        for n, p in enumerate(todo, 1):
            reply = await backend.complete(ModelRequest(
                agent="explainer", role="explainer", system=SYSTEM, prefix="",
                prompt=ASK.format(heading=p.heading, text=p.text[:1200]), schema=Situations.model_json_schema(),
                schema_name="situations", temperature=0.0, max_tokens=max_tokens))
            value, _ = parse_reply(reply.text, Situations)
            done[p.key] = value.situations if value else ""
            if n % 25 == 0 or n == len(todo):
                cache.write_text(json.dumps(done, indent=0))
                print(f"{n}/{len(todo)} sections, {time.perf_counter() - started:.0f} s: {p.key}: {done[p.key][:100]}",
                      file=sys.stderr)
    finally:
        cache.write_text(json.dumps(done, indent=0))
        await backend.aclose()
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default="ipc", help="a statute file of the corpus: ipc, crpc, iea, cpc, constitution_of_india")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--cache", type=Path, required=True, help="a JSON file for the model's situations (resumable)")
    parser.add_argument("--out", type=Path, default=None, help="write <out>.json and <out>.md")
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--retry-empty", action="store_true",
                        help="write again the situations the cache holds empty (a reply cut at the token limit)")
    parser.add_argument("--max-tokens", type=int, default=90, help="the model's budget for one section's situations")
    parser.add_argument("--questions", type=Path, nargs="+", default=[QUESTIONS],
                        help="labelled question files, each scored on its own")
    args = parser.parse_args()
    import numpy as np

    corpus = Path(load_settings(None).kb.corpus or default_corpus())
    path = corpus / f"{args.source}.json"
    if not path.is_file():
        sys.exit(f"no statute file {path}; --source names one of {', '.join(p.stem for p in corpus.glob('*.json'))}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        (folder / path.name).symlink_to(path)  # read in place
        kb = KnowledgeBase([folder], path=Path(tmp) / "store")
        kb.build()
        provisions = kb.provisions
        keys = {p.key for p in provisions}
        questions = [{**q, "file": f.name} for f in args.questions
                     for q in (json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line.strip())
                     if set(q["answers"]) <= keys]
        if not questions:
            sys.exit(f"no labelled question is answered by {args.source} alone")
        hybrid = {q["id"]: [h.provision.key for h in kb.search(q["question"], DEPTH)] for q in questions}
    situations = asyncio.run(write_situations(args.model, provisions, args.cache, args.retry_empty, args.max_tokens))
    embedder = default_embedder()
    texts, owners = [], []
    for i, p in enumerate(provisions):
        for c in chunk(p, kb.chunk_chars):
            texts.append(c.text)
            owners.append(i)
    plain = [(i, f"{p.heading}: {situations[p.key]}") for i, p in enumerate(provisions) if situations.get(p.key)]
    vectors = np.array(embedder.embed(texts))
    extra = np.array(embedder.embed([t for _, t in plain]))
    asked = np.array(embedder.embed([q["question"] for q in questions]))
    both, both_owners = np.vstack([vectors, extra]), owners + [i for i, _ in plain]
    rankings = {
        "hybrid search (as shipped)": hybrid,
        "dense, sections' text": {q["id"]: dense_ranking(provisions, vectors, owners, asked[n]) for n, q in enumerate(questions)},
        "dense, text + situations": {q["id"]: dense_ranking(provisions, both, both_owners, asked[n]) for n, q in enumerate(questions)},
    }
    rankings["hybrid and text + situations, fused by rank"] = {
        q["id"]: reciprocal_rank(hybrid[q["id"]], rankings["dense, text + situations"][q["id"]]) for q in questions}
    files = list(dict.fromkeys(q["file"] for q in questions))
    results = {f"{name} ({file})" if len(files) > 1 else name:
               score_ranking(lambda q, r=r: r[q["id"]], [q for q in questions if q["file"] == file], args.k)
               for file in files for name, r in rankings.items()}
    k = args.k
    lines = [f"# Document expansion on {args.source}: recall@{k} of the questions it answers alone", "",
             f"Command: `python -m bench.samvad_doc_expansion {' '.join(sys.argv[1:])}`  ",
             f"Date: {time.strftime('%Y-%m-%d')}; {len(provisions)} sections, {len(plain)} with situations; "
             f"{sum(q['kind'] == 'plain' for q in questions)} plain-language and {sum(q['kind'] == 'statute' for q in questions)} "
             "statute-worded questions", ""] + ranking_table(results, k, "ranking")
    write_outputs(args.out, "\n".join(lines) + "\n", {"source": args.source, "model": args.model, "situations": situations,
                                                    "results": results})


if __name__ == "__main__":
    main()
