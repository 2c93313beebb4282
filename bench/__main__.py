"""``python -m bench NAME [ARGS]``: run the standing bench NAME (``python -m bench.NAME [ARGS]``
does the same); without a name, list them."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name: what it measures, in one line. Each is a module of this package with a main.
MODEL = {
    "evidence_following": "the twenty clear-cut decisions (and the shape, inverted and choice sets): court against baselines",
    "decisive_fact": "mixed evidence: does the court find the one sentence that decides? (40 cases, 20 held out)",
    "injection": "evidence that gives orders: detection without a model, verdicts clean and injected, the second opinion",
    "jury_following": "the jury stage alone on the twenty clear cases, the other roles scripted",
    "supreme": "the supreme court's example cases: calls, tokens, wall / floor, votes changed, stability",
    "samvad": "the retrieval-grounded bench's example cases: metrics, verdict consistency, retrieval ablation",
    "samvad_retrieval": "the knowledge base's recall@5 and MRR on the labelled questions (embeddings only)",
    "samvad_doc_expansion": "situations written for each statute section by a model (courtroom_chat/situations/), scored",
    "samvad_leaning": "stored adjudicator prompts replayed with the leaning asked in other words",
    "criminal_roles": "a model scores the judge, prosecution and advocate of stored criminal trials",
    "local_trial": "whole trials on the embedded model: wall time against the decoding floor, RSS, valid replies",
    "batched_decode": "decoding N completions at once against one stream, on the embedded model",
    "scripted_trial": "the engine's overhead on the scripted backend: wall time / critical path",
    "cli_startup": "how long `courtroom --help` takes to start",
}
STORED = {
    "text_defects": "cut words, run-together words, repeats and repairs in stored trials",
    "rows_before_after": "two evaluations' results.jsonl item by item",
    "same_replies": "how many replies, answers and confidences two runs share word for word",
    "per_call_signal": "the per-call yes-rate on gold-yes and gold-no items, per method",
    "label_order_split": "juror votes split by gold answer and by the answer listed first",
    "fragility_kinds": "what the fragility check withheld and whether the verdict held without it",
    "rationale_grounding": "does the judge's rationale name a deciding fact, and in the evidence's words?",
    "juror_consistency": "jurors whose answer went against their own reasoning, before and after a change",
    "hearing_coverage": "the classification hearing's ceiling: the gold among its two labels",
    "supreme_both_orders_table": "a supreme-court evaluation with both_orders, item by item",
    "samvad_statements": "the retrieval-grounded trials statement by statement: findings and leanings",
    "criminal_record_stats": "a stored criminal trial's record in figures: calls, repairs, English words, term",
    "criminal_paired": "the criminal evaluation's paired term errors, trial minus each baseline",
}
BENCHES = {**MODEL, **STORED}


def listing() -> str:
    width = max(map(len, BENCHES))
    lines = ["usage: uv run python -m bench NAME [ARGS]   (or python -m bench.NAME [ARGS]; NAME --help for its options)",
             "", "Benches that run the court or a model:"]
    lines += [f"  {name:<{width}}  {what}" for name, what in MODEL.items()]
    lines += ["", "Readers of stored evaluations and trials (no model):"]
    lines += [f"  {name:<{width}}  {what}" for name, what in STORED.items()]
    lines += ["", "The classification court's benches are configurations of `courtroom eval`:",
              "  courtroom eval rte --procedure classification --config bench/classification/compare-k1.toml ...",
              "Probes run once, and what they found: docs/measured-probes.md. Results: bench/results/."]
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(listing())
        return
    name = sys.argv[1]
    if name.startswith("_") or not (HERE / f"{name}.py").is_file():
        sys.exit(f"no bench named {name!r}; `python -m bench` lists them")
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    runpy.run_module(f"bench.{name}", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
