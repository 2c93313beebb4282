"""The sentence's metrics over an evaluation's rows: term MAE in months with a 95% bootstrap
interval, fine MAE, probation agreement, cost per trial, and the published methods' and a
constant's term MAE on exactly the same items."""

from __future__ import annotations

import random
from typing import Any


def mae_ci(errors: list[float], seed: int = 0, resamples: int = 2000) -> tuple[float | None, float | None, float | None]:
    """The mean absolute error and its 95% percentile bootstrap interval (seeded: the same rows
    give the same interval)."""
    if not errors:
        return None, None, None
    rng = random.Random(seed)
    n = len(errors)
    means = sorted(sum(rng.choice(errors) for _ in range(n)) / n for _ in range(resamples))
    return sum(errors) / n, means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


def row_judgment(row: dict[str, Any]) -> dict[str, Any] | None:
    return ((row.get("details") or {}).get("data") or {}).get("judgment")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def sentence_metrics(rows: list[dict[str, Any]], meta: dict[str, dict[str, Any]],
                     published: dict[str, dict[str, dict[str, Any]]], constant: float) -> dict[str, Any]:
    asked = [r for r in rows if r["framing"] == "asked"]
    methods = list(dict.fromkeys(r["method"] for r in asked))
    items = list(dict.fromkeys(r["item"] for r in asked))
    out: dict[str, Any] = {"methods": {}, "anchors": {}}
    for method in methods:
        mine = [r for r in asked if r["method"] == method]
        terms, fines, probation, turns = [], [], [], []
        for r in mine:
            gold, j = meta[r["item"]], row_judgment(r)
            if j is None:
                continue
            if gold["term"] is not None and not j.get("special"):
                terms.append(abs(j["term_months"] - gold["term"]))
            fines.append(abs(j["fine"] - gold["fine"]))
            probation.append((j["probation_months"] > 0) == (gold["probation"] > 0))
            turns.append(((r.get("details") or {}).get("data") or {}).get("turns"))
        mae, low, high = mae_ci(terms)
        n = len(mine)
        out["methods"][method] = {
            "n": n, "charge_accuracy": sum(bool(r["correct"]) for r in mine) / n if n else None,
            "judged": len(fines), "term_n": len(terms), "term_mae": mae, "term_mae_ci95": [low, high],
            "fine_mae": sum(fines) / len(fines) if fines else None,
            "probation_agreement": sum(probation) / len(probation) if probation else None,
            "turns_per_trial": (sum(t for t in turns if t) / len([t for t in turns if t])) if any(turns) else None,
            "calls_per_item": sum(r["calls"] for r in mine) / n if n else None,
            "tokens_per_item": sum(r["input_tokens"] + r["output_tokens"] for r in mine) / n if n else None,
            "seconds_per_item": sum(r["seconds"] for r in mine) / n if n else None,
        }
    cases = [meta[i]["case"] for i in items]
    golds = [meta[i]["term"] for i in items]
    anchors = {f"constant {constant:g} months": [abs(constant - g) for g in golds if g is not None]}
    for name, predictions in published.items():
        errors = []
        for case, gold in zip(cases, golds, strict=True):
            predicted = _number((predictions.get(case) or {}).get("term"))
            if gold is not None and predicted is not None:
                errors.append(abs(predicted - gold))
        anchors[name] = errors
    for name, errors in anchors.items():
        mae, low, high = mae_ci(errors)
        out["anchors"][name] = {"term_n": len(errors), "term_mae": mae, "term_mae_ci95": [low, high]}
    out["markdown"] = markdown(out, len(items))
    return out


def _f(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def markdown(metrics: dict[str, Any], items: int) -> str:
    lines = [f"Over {items} items. Term MAE in months over the items whose gold term is a number of months "
             "(life and death sentences left out); 95% bootstrap intervals.", "",
             "| method | charge accuracy | term MAE | 95% interval | term items | fine MAE | probation agrees "
             "| turns / trial | calls / item | tokens / item | seconds / item |", "|---" * 11 + "|"]
    for m, r in metrics["methods"].items():
        acc = "–" if r["charge_accuracy"] is None else f"{r['charge_accuracy']:.0%}"
        agree = "–" if r["probation_agreement"] is None else f"{r['probation_agreement']:.0%}"
        lines.append(f"| {m} | {acc} | {_f(r['term_mae'])} | {_f(r['term_mae_ci95'][0])}–{_f(r['term_mae_ci95'][1])} "
                     f"| {r['term_n']} | {_f(r['fine_mae'], 0)} | {agree} | {_f(r['turns_per_trial'])} "
                     f"| {_f(r['calls_per_item'])} | {_f(r['tokens_per_item'], 0)} | {_f(r['seconds_per_item'])} |")
    lines += ["", "Published anchors on exactly these items (their shipped predictions; no charges shipped):", "",
              "| method | term MAE | 95% interval | term items |", "|---|---|---|---|"]
    for name, a in metrics["anchors"].items():
        lines.append(f"| {name} | {_f(a['term_mae'])} | {_f(a['term_mae_ci95'][0])}–{_f(a['term_mae_ci95'][1])} "
                     f"| {a['term_n']} |")
    return "\n".join(lines)
