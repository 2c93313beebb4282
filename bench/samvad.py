"""The retrieval-grounded bench over its example cases: the published per-run metrics, verdict
consistency over repeated runs, and the retrieval ablation (judge and counsels with the
knowledge base, then without it), as SAMVAD's table reports.

    # the embedded model (slow: 5 cases x 2 arms x R runs, ~20 calls each):
    uv run python -m bench.samvad --backend local --repeat 3 --retrieval both --out bench/results/samvad-local
    # the plumbing only, in seconds:
    uv run python -m bench.samvad --backend scripted --repeat 2 --retrieval both

Each run gets its own seed (``--seed`` + run number), so repeated runs differ where the model
samples. Reported per arm: verdicts and their consistency (the share of runs with each case's
modal verdict), rounds, final agreement, participation, meaningful statements per
adjudicator, argument grounding (share of the case's keywords in the statements), citations
made and verified, and model response times (mean, median, min, max over every call).

With ``--out``, each run's row is also appended to ``<out>.rows.jsonl`` as it ends, and runs
already there (same backend, case, seed and arm) are not run again: the same command resumes
after a stop, so the ablation's thirty trials can be gathered over several sessions. With
``--runs-dir RUNS`` each trial is also stored there (its row names it under ``run``), so
``courtroom show RUN`` shows what each adjudicator read and said.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from courtroom_chat.case import load_case
from courtroom_chat.config import load_settings
from courtroom_chat.engine import Trial
from courtroom_chat.store import RunStore

ROOT = Path(__file__).resolve().parents[1]


async def one(path: Path, settings, seed: int, store: RunStore | None = None) -> dict:
    record = await Trial(load_case(path), settings, store=store, seed=seed).run()
    named = {"run": record.run_id} if store else {}  # the stored trial, to read back
    if record.outcome is None:
        return {"case": path.stem, "seed": seed, **named, "error": record.error or record.status}
    doc = record.outputs["bench"]
    return {"case": path.stem, "seed": seed, **named, **doc["metrics"], "seconds": [c.seconds for c in record.calls if c.seconds],
            "changed": doc["conformity"]["changed"]}


def summary(rows: list[dict]) -> dict:
    done = [r for r in rows if "error" not in r]
    by_case: dict[str, list[str]] = {}
    for r in done:
        by_case.setdefault(r["case"], []).append(r["verdict"])
    consistency = {c: round(Counter(v).most_common(1)[0][1] / len(v), 3) for c, v in by_case.items()}
    mean = lambda key: round(statistics.fmean(r[key] for r in done), 3) if done else 0.0  # noqa: E731
    seconds = [s for r in done for s in r["seconds"]]
    return {
        "runs": len(rows), "failed": len(rows) - len(done), "verdicts": {c: dict(Counter(v)) for c, v in by_case.items()},
        "consistency": consistency,
        "consistency_mean": round(statistics.fmean(consistency.values()), 3) if consistency else 0.0,
        "rounds": mean("rounds"), "agreement": mean("agreement"), "participation": mean("participation"),
        "meaningful_per_adjudicator": mean("meaningful_per_adjudicator"), "grounding": mean("grounding"), "counsel_grounding": mean("counsel_grounding"),
        "hung": sum(1 for r in done if r["verdict"] == "hung"),
        "citations_made": sum(r["citations"]["made"] for r in done),
        "citations_verified": sum(r["citations"]["verified"] for r in done),
        "response_seconds": {"mean": round(statistics.fmean(seconds), 3), "median": round(statistics.median(seconds), 3),
                             "min": round(min(seconds), 3), "max": round(max(seconds), 3)} if seconds else {},
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="scripted", help="scripted, local, local:qwen2.5-coder-0.5b, anthropic, …")
    parser.add_argument("--repeat", "-R", type=int, default=1, help="Runs per case and arm (verdict consistency)")
    parser.add_argument("--retrieval", choices=["on", "off", "both"], default="both")
    parser.add_argument("--cases", nargs="*", type=Path, default=sorted((ROOT / "cases").glob("samvad-*.json")))
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None, help="Write <out>.json and <out>.md")
    parser.add_argument("--runs-dir", type=Path, default=None,
                        help="store each trial here, to read what the bench was told and said (courtroom show RUN)")
    args = parser.parse_args()
    base = load_settings(args.config).with_backend(args.backend)
    store = RunStore(args.runs_dir) if args.runs_dir else None
    arms = {"on": [True], "off": [False], "both": [True, False]}[args.retrieval]
    report = {"backend": args.backend, "repeat": args.repeat, "cases": [p.stem for p in args.cases], "arms": {}}
    log = args.out.with_suffix(".rows.jsonl") if args.out else None
    done = {}
    if log and log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if row and row.get("backend") == args.backend:
                done[(row["case"], row["seed"], row["retrieval"])] = row
        print(f"{len(done)} runs already in {log}", file=sys.stderr)
    for retrieval in arms:
        settings = base.with_params("samvad", {"retrieval": retrieval})
        rows = []
        for path in args.cases:
            for r in range(args.repeat):
                row = done.get((path.stem, args.seed + r, retrieval))
                kept = row is not None
                if row is None:
                    row = {**await one(path, settings, args.seed + r, store), "retrieval": retrieval, "backend": args.backend}
                    if log:
                        log.parent.mkdir(parents=True, exist_ok=True)
                        with log.open("a", encoding="utf-8") as f:
                            f.write(json.dumps(row) + "\n")
                rows.append(row)
                print(f"retrieval {'on' if retrieval else 'off'} · {path.stem} · run {r + 1}: "
                      f"{row.get('verdict', row.get('error'))}{' (kept from an earlier run)' if kept else ''}", file=sys.stderr)
        report["arms"]["retrieval on" if retrieval else "retrieval off"] = {"summary": summary(rows), "runs": rows}
    lines = [f"# Retrieval-grounded bench: {args.backend}, {len(args.cases)} cases x {args.repeat} runs", "",
             f"Command: `uv run python {' '.join(sys.argv)}`", "",
             "| arm | runs | hung | consistency | rounds | agreement | participation | meaningful/adj. | grounding (counsels) | "
             "citations verified | response s (mean/median/min/max) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for arm, data in report["arms"].items():
        s = data["summary"]
        t = s["response_seconds"] or {"mean": 0, "median": 0, "min": 0, "max": 0}
        lines.append(f"| {arm} | {s['runs']} ({s['failed']} failed) | {s['hung']} | {s['consistency_mean']:.2f} | "
                     f"{s['rounds']:.2f} | {s['agreement']:.2f} | {s['participation']:.2f} | "
                     f"{s['meaningful_per_adjudicator']:.2f} | {s['grounding']:.2f} ({s['counsel_grounding']:.2f}) | {s['citations_verified']}/"
                     f"{s['citations_made']} | {t['mean']:.2f}/{t['median']:.2f}/{t['min']:.2f}/{t['max']:.2f} |")
    lines += ["", "Verdicts by case:", ""]
    for arm, data in report["arms"].items():
        for case, counts in data["summary"]["verdicts"].items():
            lines.append(f"- {arm} · {case}: {counts} (consistency {data['summary']['consistency'][case]:.2f})")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        args.out.with_suffix(".md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
