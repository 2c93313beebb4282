"""The evaluation's summary (JSON) and its Markdown report, from the finished result rows.

Per method: accuracy with a 95% Wilson interval (undecided and failed items count wrong), the
confusion matrix, each label's predicted rate against its true rate, the undecided share, and
cost, calls, tokens and seconds per item. The court against each baseline, item by item: the
items it fixed and broke, with McNemar's exact test. Calibration of every named confidence
(Brier score, a 10-bin reliability table). With ``--mirror``: how often the answers to a
question and to its negation agree, and how often a method said "No" (or "Yes") to both. For
a procedure that deliberates in rounds: the switches per round, correct → wrong and back. On
a yes / no set, the per-call signal: how often the baselines' calls said Yes on the gold-Yes and
on the gold-No items, and the accuracy such calls are expected to reach; a model that says Yes
as often either way cannot be told from chance by any method here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..cost import dollars
from ..procedures.deliberation import ORDER_P, order_driven, order_kept
from . import stats
from .datasets import NO, YES, Dataset
from .methods import shot_split

UNDECIDED = "undecided"


def method_summary(dataset: Dataset, rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    right = sum(bool(r["correct"]) for r in rows)
    low, high = stats.wilson(right, n)
    confusion = {gold: {label: 0 for label in (*dataset.labels, UNDECIDED)} for gold in dataset.labels}
    for r in rows:
        confusion.setdefault(r["gold"], {})
        key = r["predicted"] if r["predicted"] is not None else UNDECIDED
        confusion[r["gold"]][key] = confusion[r["gold"]].get(key, 0) + 1
    predicted = Counter(r["predicted"] for r in rows)
    true = Counter(r["gold"] for r in rows)
    rates = {label: {"predicted": predicted[label] / n if n else None, "true": true[label] / n if n else None}
             for label in dataset.labels}
    status = Counter(r["status"] for r in rows)
    costs = [r["cost_usd"] for r in rows]
    known = [c for c in costs if c is not None]

    def per_item(field: str) -> float | None:
        return sum(r[field] for r in rows) / n if n else None

    return {
        "n": n, "correct": right, "accuracy": right / n if n else None, "ci95": [low, high],
        "confusion": confusion, "label_rates": rates,
        "yes_rate": rates.get(YES, {}).get("predicted"), "true_yes_rate": rates.get(YES, {}).get("true"),
        "undecided": status["undecided"], "failed": status["failed"],
        "undecided_share": (status["undecided"] + status["failed"]) / n if n else None,
        "cost_usd": sum(known), "cost_known": len(known) == len(costs),
        "cost_per_item": sum(known) / len(known) if known else None,
        "calls_per_item": per_item("calls"), "input_tokens_per_item": per_item("input_tokens"),
        "output_tokens_per_item": per_item("output_tokens"), "seconds_per_item": per_item("seconds"),
        "calibration": calibration(rows),
    }


def calibration(rows: list[dict[str, Any]], bins: int = 10) -> dict[str, dict[str, Any]]:
    """Per named confidence: how well it predicts being right (decided items that state it)."""
    names = sorted({name for r in rows for name in (r.get("confidences") or {})})
    out = {}
    for name in names:
        pairs = [(float(r["confidences"][name]), bool(r["correct"])) for r in rows
                 if r["predicted"] is not None and r.get("confidences", {}).get(name) is not None]
        confidences, outcomes = [p[0] for p in pairs], [p[1] for p in pairs]
        table = stats.reliability(confidences, outcomes, bins)
        out[name] = {"n": len(pairs), "brier": stats.brier(confidences, outcomes),
                     "ece": stats.expected_calibration_error(table),
                     "mean_confidence": sum(confidences) / len(pairs) if pairs else None,
                     "accuracy": sum(outcomes) / len(pairs) if pairs else None, "reliability": table}
    return out


def compare(court: list[dict[str, Any]], baseline: list[dict[str, Any]]) -> dict[str, Any]:
    """Item by item on the items both answered: what the court fixed and broke, McNemar's exact p."""
    theirs = {r["item"]: bool(r["correct"]) for r in baseline}
    pairs = [(bool(r["correct"]), theirs[r["item"]]) for r in court if r["item"] in theirs]
    fixed = [r["item"] for r in court if r["item"] in theirs and r["correct"] and not theirs[r["item"]]]
    broken = [r["item"] for r in court if r["item"] in theirs and not r["correct"] and theirs[r["item"]]]
    return {
        "n": len(pairs), "fixed": len(fixed), "broken": len(broken),
        "both_right": sum(a and b for a, b in pairs), "both_wrong": sum(not a and not b for a, b in pairs),
        "mcnemar_p": stats.mcnemar_exact(len(fixed), len(broken)), "fixed_items": fixed, "broken_items": broken,
    }


def mirror_counts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Answers to a question and to its negation, per item: they agree when the words differ
    (Yes to "accept?" and No to "reject?"). "No to both" is what a model leaning No does, and a
    plain agreement rate would hide it."""
    asked = {r["item"]: r for r in rows if r["framing"] == "asked"}
    mirrored = {r["item"]: r for r in rows if r["framing"] == "mirror"}
    pairs = [(asked[i]["predicted"], mirrored[i]["predicted"]) for i in asked if i in mirrored]
    n = len(pairs)
    counts = {
        "agree": sum(a is not None and b is not None and a != b for a, b in pairs),
        "no_to_both": sum(a == NO and b == NO for a, b in pairs),
        "yes_to_both": sum(a == YES and b == YES for a, b in pairs),
        "undecided": sum(a is None or b is None for a, b in pairs),
    }
    mirror_rows = [mirrored[i] for i in asked if i in mirrored]
    return {"pairs": n, **counts, **{f"{k}_share": (v / n if n else None) for k, v in counts.items()},
            "mirror_accuracy": sum(bool(r["correct"]) for r in mirror_rows) / n if n else None}


def call_answer(text: str) -> str | None:
    """The yes / no one plain call gave (its reply read as the baselines read it), else None."""
    from ..replies import parse_reply
    from .methods import AnswerReply

    value, _ = parse_reply(text, AnswerReply)
    return value.decision if value is not None else None


def row_answers(row: dict[str, Any]) -> list[str | None]:
    """The yes / no of each call a row stored: a baseline's calls, or a court's plain jurors."""
    details = row.get("details") or {}
    if "juror_answers" in details:
        return list(details["juror_answers"])
    return [call_answer(c.get("text", "")) for c in details.get("calls", [])]


def per_call_signal(rows: list[dict[str, Any]], answers: Any = None) -> dict[str, Any] | None:
    """Does the model see anything in this set? Of every plain call the baselines made (one
    call, the majority's five: the same prompt as a plain juror's), the share answering Yes
    on the gold-Yes items and on the gold-No items, with Wilson intervals, and the accuracy one
    call and a majority of five are expected to reach if each call is an independent draw at
    those rates. Close rates mean no way of asking this model can be told from chance on this
    set. ``answers(row)`` gives a row's call answers (default: its stored baseline calls).
    None when no row of a yes / no set holds such calls."""
    answers = answers or row_answers
    counts = {YES: [0, 0], NO: [0, 0]}  # gold -> [calls answered, answered yes]
    for r in rows:
        if r.get("framing", "asked") != "asked" or r["gold"] not in counts:
            continue
        for said in answers(r):
            if said in (YES, NO):
                counts[r["gold"]][0] += 1
                counts[r["gold"]][1] += said == YES
    if not counts[YES][0] or not counts[NO][0]:
        return None
    rate = {gold: y / n for gold, (n, y) in counts.items()}
    golds = [r["gold"] for r in {r["item"]: r for r in rows if r.get("framing", "asked") == "asked"}.values()]
    share = sum(g == YES for g in golds) / len(golds)
    return {
        "calls": {gold: n for gold, (n, _) in counts.items()},
        "yes_on_yes": rate[YES], "yes_on_yes_ci95": list(stats.wilson(counts[YES][1], counts[YES][0])),
        "yes_on_no": rate[NO], "yes_on_no_ci95": list(stats.wilson(counts[NO][1], counts[NO][0])),
        "gap": rate[YES] - rate[NO], "true_yes_share": share,
        "expected_single": share * rate[YES] + (1 - share) * (1 - rate[NO]),
        "expected_majority": share * stats.majority_yes(rate[YES]) + (1 - share) * (1 - stats.majority_yes(rate[NO])),
    }


def fragility_counts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Of the trials decided again without their most-cited evidence: how many verdicts held,
    how many turned, how many could not be checked; how often the ones that held were right; and
    how many held on a trial whose votes followed the order of the labels (``deliberation.order_kept``:
    the check keeps each member's order, so such a hold says little of the evidence)."""
    found = [(r, (r.get("details") or {}).get("fragility")) for r in rows if (r.get("details") or {}).get("fragility")]
    held = [r for r, f in found if f.get("held") is True]
    turned = [r for r, f in found if f.get("held") is False]
    checked = len(held) + len(turned)
    by_order = sum(order_kept(f, (r.get("details") or {}).get("order")) for r, f in found)
    return {"trials": len(found), "held": len(held), "turned": len(turned), "not_run": len(found) - checked,
            "held_order_driven": by_order,
            "hold_rate": len(held) / checked if checked else None,
            "accuracy_held": sum(bool(r["correct"]) for r in held) / len(held) if held else None,
            "accuracy_turned": sum(bool(r["correct"]) for r in turned) / len(turned) if turned else None}


def order_counts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The order check over the trials that ran it (members reading the labels in shuffled orders):
    the votes cast for the label listed first to the voter, against the share chance gives, and
    the trials whose votes followed the order (p < ORDER_P) with how often those were right."""
    found = [(r, o) for r in rows if (o := (r.get("details") or {}).get("order"))]
    driven = [r for r, o in found if order_driven(o)]
    rest = [r for r, o in found if not order_driven(o)]
    votes = sum(o["voters"] for _, o in found)
    return {"trials": len(found), "votes": votes, "followed": sum(o["followed"] for _, o in found),
            "chance": sum(o["chance"] * o["voters"] for _, o in found) / votes if votes else None,
            "driven": len(driven), "accuracy_driven": sum(bool(r["correct"]) for r in driven) / len(driven) if driven else None,
            "accuracy_rest": sum(bool(r["correct"]) for r in rest) / len(rest) if rest else None}


def switches(rows: list[dict[str, Any]]) -> dict[int, dict[str, int]]:
    """Per round of a procedure that deliberates in rounds: how many agents switched from the
    gold answer to the other (correct → wrong) and back (wrong → correct), toward and away from
    the earlier majority. Empty when no row recorded rounds."""
    out: dict[int, dict[str, int]] = {}
    for r in rows:
        for held in ((r.get("details") or {}).get("conformity") or {}).get("rounds", []):
            row = out.setdefault(int(held["round"]), {"switches": 0, "correct_to_wrong": 0, "wrong_to_correct": 0,
                                                      "toward_majority": 0, "away_from_majority": 0})
            for move in held.get("moves", []):
                row["switches"] += 1
                row["correct_to_wrong"] += move.get("from_side") == r["gold"] != move.get("to_side")
                row["wrong_to_correct"] += move.get("to_side") == r["gold"] != move.get("from_side")
                row["toward_majority" if move.get("direction") == "toward the majority" else "away_from_majority"] += 1
    return dict(sorted(out.items()))


def early_stops(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Trials that ended their rounds early (``stop_when_stable``), the rounds not held and the
    tokens that saved; empty when none did."""
    held = [c for r in rows if (c := (r.get("details") or {}).get("conformity") or {}).get("rounds_skipped")]
    if not held:
        return {}
    return {"trials": len(held), "of": len(rows), "rounds_skipped": sum(int(c["rounds_skipped"]) for c in held),
            "tokens_saved": sum(int(c.get("tokens_saved") or 0) for c in held)}


STRUCTURES = {"single": "single (one call)", "majority": "multiple (majority of five calls)",
              "court": "the court", "court-parallel": "the court in parallel", "court-sequential": "the court in sequence"}


def structure(base: str, bases: Any) -> str:
    """A row of the few-shot table: the verdict's court is named by its mode where the other
    mode's bench beside it says which that is."""
    if base == "court" and "court-sequential" in bases:
        return STRUCTURES["court-parallel"]
    if base == "court" and "court-parallel" in bases:
        return STRUCTURES["court-sequential"]
    return STRUCTURES[base]


def shots_table(methods: list[str], results: dict[str, dict[str, Any]], own: int | None) -> dict[str, dict[int, Any]]:
    """The few-shot table of an evaluation that ran benches and baselines at other numbers of
    precedents (``court-0-shot``, ``single-2-shot``): per structure, its accuracy at each
    number, the verdict's own number (``own``) for the methods named without one. Empty when
    none ran at another number."""
    if own is None or all(shot_split(m)[1] is None for m in methods):
        return {}
    table: dict[str, dict[int, Any]] = {}
    for m in methods:
        base, k = shot_split(m)
        k = own if k is None else k
        if base in STRUCTURES:
            r = results[m]
            table.setdefault(base, {})[k] = {"method": m, "correct": r["correct"], "n": r["n"],
                                             "accuracy": r["accuracy"], "ci95": r["ci95"]}
    return {base: dict(sorted(cells.items())) for base, cells in table.items() if len(cells) > 1}


def summarize(dataset: Dataset, methods: list[str], rows: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    asked = [r for r in rows if r["framing"] == "asked"]
    by_method = {m: [r for r in asked if r["method"] == m] for m in methods}
    summary: dict[str, Any] = {
        **meta, "dataset": dataset.name, "labels": list(dataset.labels), "methods": methods,
        "items": len({r["item"] for r in asked}),
        "results": {m: method_summary(dataset, by_method[m]) for m in methods},
        "comparisons": {b: compare(by_method["court"], by_method[b]) for b in methods
                        if "court" in methods and b != "court"},
        "mirror": {m: mirror_counts([r for r in rows if r["method"] == m]) for m in methods
                   if any(r["framing"] == "mirror" and r["method"] == m for r in rows)},
        "fragility": {m: fragility_counts(by_method[m]) for m in methods
                      if any((r.get("details") or {}).get("fragility") for r in by_method[m])},
        "rounds": {m: found for m in methods if (found := switches(by_method[m]))},
        "stopped_early": {m: found for m in methods if (found := early_stops(by_method[m]))},
        "order": {m: order_counts(by_method[m]) for m in methods
                  if any((r.get("details") or {}).get("order") for r in by_method[m])},
        "signal": per_call_signal([r for r in asked if r["method"] in ("single", "majority")]) if dataset.yes_no else None,
        "extra": dataset.extra_metrics(rows),
        "shots": {},
        "reused": {m: {"trials": sum(1 for r in by_method[m] if (r.get("details") or {}).get("reused_calls")),
                         "calls": sum((r.get("details") or {}).get("reused_calls", 0) for r in by_method[m]),
                         "of": sum(r.get("calls") or 0 for r in by_method[m])}
                     for m in methods if any((r.get("details") or {}).get("reused_calls") for r in by_method[m])},
        "rows": [{k: r.get(k) for k in ("item", "method", "framing", "gold", "predicted", "correct", "status",
                                        "confidences", "run_id", "error", "cost_usd", "calls", "seconds")} for r in rows],
    }
    summary["shots"] = shots_table(methods, summary["results"], meta.get("precedents"))
    return summary


# ---------------------------------------------------------------------- Markdown


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _answer(row: dict[str, Any] | None) -> str:
    if row is None:
        return ""
    said = row["predicted"] or ("failed" if row["status"] == "failed" else UNDECIDED)
    return f"{said} {'✓' if row['correct'] else '✗'}"


def markdown(summary: dict[str, Any]) -> str:
    methods, results = summary["methods"], summary["results"]
    out = [f"# Evaluation {summary['eval_id']}", ""]
    true_yes = next((r["true_yes_rate"] for r in results.values() if r["n"]), None)
    out.append(f"Dataset **{summary['dataset']}**, {summary['items']} items · procedure {summary.get('procedure') or '–'} · "
               f"models {summary.get('model_text', '')} · seed {summary.get('seed')}")
    out += ["", "Undecided and failed answers count as wrong. Intervals are 95% Wilson intervals.", ""]
    if summary.get("reuse"):
        used = "; ".join(f"{m}: {r['calls']} of {r['of']} calls in {r['trials']} trials"
                         for m, r in (summary.get("reused") or {}).items()) or "no call matched"
        out += [f"Court trials started from evaluation `{summary['reuse']}`'s: each request made there in the same "
                f"words got that trial's reply ({used}); the rest were asked afresh.", ""]
    out.append(f"| method | accuracy | 95% interval | yes-rate (true {_pct(true_yes)}) | undecided | cost / item "
               "| calls / item | tokens / item | seconds / item |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for m in methods:
        r = results[m]
        tokens = None if r["input_tokens_per_item"] is None else r["input_tokens_per_item"] + r["output_tokens_per_item"]
        cost = dollars(r["cost_per_item"]) + ("" if r["cost_known"] else " (some unknown)")
        out.append(f"| {m} | {r['correct']}/{r['n']} = {_pct(r['accuracy'])} | {_pct(r['ci95'][0])}–{_pct(r['ci95'][1])} "
                   f"| {_pct(r['yes_rate'])} | {r['undecided'] + r['failed']} ({_pct(r['undecided_share'])}) | {cost} "
                   f"| {_num(r['calls_per_item'])} | {_num(tokens, 0)} | {_num(r['seconds_per_item'])} |")
    if summary.get("shots"):
        ks = sorted({k for cells in summary["shots"].values() for k in cells})
        out += _section("Few-shot table: each structure at each number of precedents",
                        "The benches beside the verdict and the baselines at other numbers of precedents ran on the "
                        "same items (the benches on the same hearing and arguments), so a column compares structures "
                        "and a row compares numbers of precedents, item for item.",
                        ["structure", *(f"{k} precedent{'s' if k != 1 else ''}" for k in ks)],
                        [[structure(base, summary["shots"]), *(f"{c['correct']}/{c['n']} = {_pct(c['accuracy'])} "
                                              f"({_pct(c['ci95'][0])}–{_pct(c['ci95'][1])})" if (c := cells.get(k)) else "–"
                                              for k in ks)] for base, cells in summary["shots"].items()])
    if summary["comparisons"]:
        out += ["", "## The court against each baseline (and each control or other way it was run), item by item", "",
                "| baseline | items | court fixed | court broke | both right | both wrong | McNemar exact p |",
                "|---|---|---|---|---|---|---|"]
        for b, c in summary["comparisons"].items():
            out.append(f"| {b} | {c['n']} | {c['fixed']} | {c['broken']} | {c['both_right']} | {c['both_wrong']} "
                       f"| {c['mcnemar_p']:.3g} |")
    if summary["mirror"]:
        out += _section("Mirror: the negated question, sides swapped",
                        "Agree: the two answers differ in word (Yes to one, No to the other), as they should.",
                        ["method", "pairs", "agree", "No to both", "Yes to both", "undecided", "accuracy on the mirror"],
                        [[m, c["pairs"], f"{c['agree']} ({_pct(c['agree_share'])})",
                          f"{c['no_to_both']} ({_pct(c['no_to_both_share'])})",
                          f"{c['yes_to_both']} ({_pct(c['yes_to_both_share'])})", c["undecided"],
                          _pct(c["mirror_accuracy"])] for m, c in summary["mirror"].items()])
    if summary.get("fragility"):
        out += _section("Fragility: decided again without the most-cited evidence",
                        "Held: the second decision agrees with the first. A verdict that turns rests on that one piece.",
                        ["method", "trials", "held", "turned", "not run", "hold rate", "accuracy where it held",
                         "where it turned", "held on order-driven trials"],
                        [[m, c["trials"], c["held"], c["turned"], c["not_run"], _pct(c["hold_rate"]),
                          _pct(c["accuracy_held"]), _pct(c["accuracy_turned"]), c["held_order_driven"]]
                         for m, c in summary["fragility"].items()])
    if summary.get("order"):
        out += _section("Order check: did the votes follow the order the labels were listed in?",
                        "Each member read the labels in its own seeded order, so a vote for the label listed first "
                        "to it happens by chance at the share shown. A trial is order-driven when its votes followed "
                        f"the order more than chance allows (p < {ORDER_P}).",
                        ["method", "trials", "votes for the first-listed label", "by chance", "order-driven trials",
                         "accuracy of those", "of the rest"],
                        [[m, c["trials"], f"{c['followed']} of {c['votes']} ({_pct(c['followed'] / c['votes'] if c['votes'] else None)})",
                          _pct(c["chance"]), c["driven"], _pct(c["accuracy_driven"]), _pct(c["accuracy_rest"])]
                         for m, c in summary["order"].items()])
    if summary.get("rounds"):
        out += _section("Between rounds: do the rounds help?",
                        "Switches of position per round, scored against the gold answer and the earlier majority.",
                        ["method", "round", "switches", "correct → wrong", "wrong → correct", "toward the majority",
                         "away"],
                        [[m, n, c["switches"], c["correct_to_wrong"], c["wrong_to_correct"], c["toward_majority"],
                          c["away_from_majority"]] for m, rounds in summary["rounds"].items() for n, c in rounds.items()])
    if summary.get("stopped_early"):
        out += _section("Rounds stopped early",
                        "Trials whose rounds ended once positions stopped changing (stop_when_stable), the rounds "
                        "not held and about how many tokens that saved (each round not held counted as the last one held).",
                        ["method", "trials stopped early", "rounds not held", "tokens saved"],
                        [[m, f"{c['trials']} of {c['of']}", c["rounds_skipped"], f"{c['tokens_saved']:,}"]
                         for m, c in summary["stopped_early"].items()])
    if summary.get("signal"):
        g = summary["signal"]
        out += _section("Per-call signal: does the model see anything in this set?",
                        "Every plain call the baselines made (the same prompt a plain juror reads), by gold answer. "
                        "If Yes comes as often on the No items as on the Yes items, no way of asking this model "
                        "(one call, a vote, a court of such jurors) is expected to beat chance here.",
                        ["calls on", "answered Yes", "95% interval", "calls"],
                        [["gold-Yes items", _pct(g["yes_on_yes"]), f"{_pct(g['yes_on_yes_ci95'][0])}–{_pct(g['yes_on_yes_ci95'][1])}",
                          g["calls"][YES]],
                         ["gold-No items", _pct(g["yes_on_no"]), f"{_pct(g['yes_on_no_ci95'][0])}–{_pct(g['yes_on_no_ci95'][1])}",
                          g["calls"][NO]]])
        out += ["", f"Gap {g['gap']:+.0%}. Expected accuracy if each call is an independent draw at these rates: "
                    f"one call {_pct(g['expected_single'])}, a majority of five {_pct(g['expected_majority'])}."]
    out += ["", "## Confusion (rows: gold, columns: predicted)", ""]
    for m in methods:
        out += [f"**{m}**", "", *confusion_table(list(summary["labels"]), results[m]["confusion"]), ""]
    calibrated = [(m, name, c) for m in methods for name, c in results[m]["calibration"].items()]
    if calibrated:
        out += ["## Calibration of each confidence", "",
                "Brier: mean squared gap between the confidence and being right (0 is perfect; always 0.5 scores 0.25).",
                "", "| method | confidence | items | mean confidence | accuracy | Brier | ECE |", "|---|---|---|---|---|---|---|"]
        for m, name, c in calibrated:
            out.append(f"| {m} | {name} | {c['n']} | {_num(c['mean_confidence'], 2)} | {_pct(c['accuracy'])} "
                       f"| {_num(c['brier'], 3)} | {_num(c['ece'], 3)} |")
        out += ["", "Reliability (bins with items): confidence range → items, mean confidence, observed accuracy.", ""]
        for m, name, c in calibrated:
            cells = [f"{b['low']:.1f}–{b['high']:.1f}: {b['n']}, {b['confidence']:.2f}, {b['observed']:.0%}"
                     for b in c["reliability"] if b["n"]]
            if cells:
                out.append(f"- {m} · {name}: " + "; ".join(cells))
        out.append("")
    extra = summary.get("extra") or {}
    if extra.get("markdown"):
        out += ["## Dataset metrics", "", extra["markdown"], ""]
    elif extra:
        out += ["## Dataset metrics", ""] + [f"- {k}: {v}" for k, v in extra.items()] + [""]
    out += items_table(summary)
    return "\n".join(out).rstrip() + "\n"


FULL_CONFUSION = 8  # a label set this small is shown whole; a larger one only where it occurs


def confusion_table(labels: list[str], confusion: dict[str, dict[str, int]]) -> list[str]:
    """The confusion matrix as Markdown. Every count appears: a predicted label outside the
    dataset's label set (a charge the model named in its own words) gets a column of its own. A
    label set larger than ``FULL_CONFUSION`` (the charges of a judgment dataset) shows only the
    labels that occur in these items, and says so."""
    occurring = {gold for gold, counts in confusion.items() if any(counts.values())}
    occurring |= {label for counts in confusion.values() for label, n in counts.items() if n}
    shown = labels if len(labels) <= FULL_CONFUSION else [label for label in labels if label in occurring]
    extra = list(dict.fromkeys(label for counts in confusion.values() for label, n in counts.items()
                               if n and label not in labels and label != UNDECIDED))
    columns = [*shown, *extra, UNDECIDED]
    rows = [*shown, *(gold for gold in confusion if gold not in labels and gold in occurring)]
    out = []
    if len(shown) < len(labels):
        out += [f"Only the {len(shown)} of the dataset's {len(labels)} labels that occur in these items are shown.", ""]
    if extra:
        out += [f"Predicted but not among the dataset's labels: {', '.join(extra)}.", ""]
    out += ["| gold | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for gold in rows:
        counts = confusion.get(gold, {})
        out.append(f"| {gold} | " + " | ".join(str(counts.get(label, 0)) for label in columns) + " |")
    return out


def _section(title: str, intro: str, columns: list[str], rows: list[list[Any]]) -> list[str]:
    """A titled Markdown table with a line of explanation."""
    return (["", f"## {title}", "", intro, "", "| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]
            + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows])


def items_table(summary: dict[str, Any]) -> list[str]:
    methods = summary["methods"]
    mirrored = bool(summary["mirror"])
    index = {(r["item"], r["method"], r["framing"]): r for r in summary["rows"]}
    items = list(dict.fromkeys(r["item"] for r in summary["rows"]))
    head = ["item", "gold", *methods]
    if mirrored:
        head += [f"{m} (mirror)" for m in summary["mirror"]]
    if "court" in methods:
        head.append("court run")
    out = ["## Items", "", "Open a court run with `courtroom show RUN_ID`.", "",
           "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for item in items:
        any_row = next(r for r in summary["rows"] if r["item"] == item)
        gold = any_row["gold"] if any_row["framing"] == "asked" else {YES: NO, NO: YES}.get(any_row["gold"])
        cells = [item, gold or ""] + [_answer(index.get((item, m, "asked"))) for m in methods]
        if mirrored:
            cells += [_answer(index.get((item, m, "mirror"))) for m in summary["mirror"]]
        if "court" in methods:
            run = index.get((item, "court", "asked"))
            cells.append(f"`{run['run_id']}`" if run and run.get("run_id") else "")
        out.append("| " + " | ".join(cells) + " |")
    return out
