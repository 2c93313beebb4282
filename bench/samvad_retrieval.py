"""The knowledge base's retrieval quality: recall@5 and MRR of dense, lexical and hybrid search
over the labelled questions in bench/samvad/questions.jsonl (half in a statute's own words,
half plain-language situations, each with the sections that answer it). Embeddings only: no
language model is run.

    uv run python -m bench.samvad_retrieval --out bench/results/samvad-retrieval

recall@k: the share of a question's answering sections among the top k provisions, averaged
over the questions; hit@k: the share of questions with at least one in the top k; MRR: the
mean of 1/rank of the first answering section (0 when none is in the top 20). Writes
<out>.json and <out>.md, and prints the table. The index is built first if the corpus changed;
its build time and size are reported.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from courtroom_chat.config import load_settings
from courtroom_chat.kb import EXPANSIONS, KnowledgeBase

ROOT = Path(__file__).resolve().parents[1]

QUESTIONS = ROOT / "bench" / "samvad" / "questions.jsonl"
METHODS = ("embedding", "bm25", "hybrid")
DEPTH = 20


def score(kb: KnowledgeBase, questions: list[dict], method: str, k: int, expand: str = "off") -> dict:
    return score_ranking(lambda q: [h.provision.key for h in kb.search(q["question"], k=DEPTH, method=method,
                                                                       expand=expand)], questions, k)


def score_ranking(rank, questions: list[dict], k: int) -> dict:
    """recall@k, hit@k and MRR of ``rank(question) -> provision keys, best first``."""
    rows = []
    for q in questions:
        hits = rank(q)
        answers = set(q["answers"])
        top = hits[:k]
        first = next((i for i, key in enumerate(hits, 1) if key in answers), None)
        rows.append({"id": q["id"], "kind": q["kind"], "recall": len(answers & set(top)) / len(answers),
                     "hit": bool(answers & set(top)), "rr": 1 / first if first else 0.0, "top": top})
    out = {}
    for kind in ("statute", "plain", "all"):
        chosen = [r for r in rows if kind == "all" or r["kind"] == kind]
        n = len(chosen)
        if not n:
            continue
        out[kind] = {"n": n, f"recall@{k}": round(sum(r["recall"] for r in chosen) / n, 3),
                     f"hit@{k}": round(sum(r["hit"] for r in chosen) / n, 3),
                     "mrr": round(sum(r["rr"] for r in chosen) / n, 3)}
    return {"summary": out, "rows": rows}


def dense_ranking(provisions: list, vectors, owners: list[int], query_vector) -> list[str]:
    """Provision keys by their best vector's cosine with the query (``owners[i]``: the index in
    ``provisions`` of row i of ``vectors``), the top DEPTH."""
    best: dict[int, float] = {}
    for score, owner in zip((vectors @ query_vector).tolist(), owners, strict=True):
        best[owner] = max(best.get(owner, -1.0), score)
    return [provisions[i].key for i, _ in sorted(best.items(), key=lambda p: -p[1])[:DEPTH]]


def ranking_table(results: dict[str, dict], k: int, heading: str) -> list[str]:
    """One row per ranking: recall@k on each half and the plain half's MRR."""
    lines = [f"| {heading} | statute-worded recall@{k} | plain-language recall@{k} | plain-language MRR |", "|---|---|---|---|"]
    for name, result in results.items():
        s = result["summary"]
        cell = lambda half, key, s=s: f"{s[half][key]:.3f}" if half in s else "–"  # noqa: E731
        lines.append(f"| {name} | {cell('statute', f'recall@{k}')} | {cell('plain', f'recall@{k}')} | {cell('plain', 'mrr')} |")
    return lines


def write_outputs(out: Path | None, text: str, payload: dict) -> None:
    """Print the Markdown; with ``out``, write <out>.md and <out>.json."""
    print(text)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".md").write_text(text, encoding="utf-8")
        out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="Write <out>.json and <out>.md")
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--questions", type=Path, nargs="+", default=[QUESTIONS],
                        help="labelled question files (JSON lines: id, kind statute|plain, question, answers)")
    parser.add_argument("--expand", nargs="+", choices=EXPANSIONS, default=["off"],
                        help="query expansions to compare (kb.expand_query): off, lexical, both")
    args = parser.parse_args()
    questions = [json.loads(line) for path in args.questions
                 for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kb = KnowledgeBase.from_settings(load_settings(args.config).kb)
    report = kb.build(progress=lambda d, n: print(f"embedded {d} of {n}", file=sys.stderr) if d == n or d % 1024 == 0 else None)
    results = {}
    for expand in args.expand:
        for method in METHODS:
            name = method if expand == "off" else f"{method}, expand {expand}"
            started = time.perf_counter()
            results[name] = score(kb, questions, method, args.k, expand)
            results[name]["seconds_per_query"] = round((time.perf_counter() - started) / len(questions), 4)
    k = args.k
    last = "hybrid" if args.expand[-1] == "off" else f"hybrid, expand {args.expand[-1]}"
    lines = [f"# Knowledge-base retrieval: recall@{k} and MRR ({len(questions)} questions)", "",
             f"Command: `uv run python -m bench.samvad_retrieval {' '.join(sys.argv[1:])}`  ",
             f"Questions: {', '.join(str(p.resolve().relative_to(ROOT) if p.resolve().is_relative_to(ROOT) else p) for p in args.questions)}  ",
             f"Index: {report.line()}  ",
             f"Machine: {platform.machine()}, {platform.python_version()}; embeddings all-MiniLM-L6-v2 int8 ONNX on the CPU",
             "", f"| method | half | n | recall@{k} | hit@{k} | MRR |", "|---|---|---|---|---|---|"]
    for name, result in results.items():
        for kind in ("statute", "plain", "all"):
            if kind not in result["summary"]:
                continue
            s = result["summary"][kind]
            lines.append(f"| {name} | {kind} | {s['n']} | {s[f'recall@{k}']:.3f} | {s[f'hit@{k}']:.3f} | {s['mrr']:.3f} |")
    lines += ["", f"Misses of the {last} search (answering sections not in its top {k}):", ""]
    for row in results[last]["rows"]:
        q = next(q for q in questions if q["id"] == row["id"])
        missing = sorted(set(q["answers"]) - set(row["top"]))
        if missing:
            lines.append(f"- {row['id']} ({row['kind']}): missed {', '.join(missing)}; got {', '.join(row['top'])}")
    text = "\n".join(lines) + "\n"
    payload = {"k": k, "questions": len(questions), "index": {
        "built": report.built, "seconds": report.seconds, "size_bytes": report.size_bytes, "provisions": report.provisions,
        "chunks": report.chunks, "store": report.store, "corpus_hash": report.corpus_hash},
        "results": {m: {"summary": r["summary"], "seconds_per_query": r["seconds_per_query"], "rows": r["rows"]}
                    for m, r in results.items()}}
    write_outputs(args.out, text, payload)


if __name__ == "__main__":
    main()
