"""What every procedure that deliberates in rounds shares: how members moved between rounds
(conformity: who changed, toward or away from the earlier majority), when to stop early
(positions stopped changing), and peers named by letter in each member's own seeded order
(so no one reads a seat number or a fixed order). The supreme court's conference and the
retrieval-grounded bench both use them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from math import comb
from string import ascii_uppercase
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..court import Court

V = TypeVar("V")


def shuffles(court: Court, setting: str, given: bool | None = None) -> bool:
    """Whether members read in shuffled orders: ``given`` when given (a bench that sits beside the
    verdict's and reads the other way), else the procedure's ``setting`` (off when it has none)."""
    return bool(getattr(court.params, setting, False)) if given is None else given


def label_order(court: Court, labels: list[str], agent: str, *, fixed_tail: int = 0,
                shuffle: bool | None = None) -> list[str]:
    """The labels in the order ``agent`` reads them: as given, or (the procedure's
    ``shuffle_labels``, or ``shuffle`` when given) in its own order fixed by the run's seed; the
    last ``fixed_tail`` labels (an "undecided") stay last. The order control of issue 21, shared
    by every procedure whose members vote. Each order is kept in the run's ``orders`` output as
    it is first given."""
    if not shuffles(court, "shuffle_labels", shuffle):
        return list(labels)
    head, tail = list(labels[:len(labels) - fixed_tail]), list(labels[len(labels) - fixed_tail:])
    court.rng(agent, "labels").shuffle(head)
    court.record.outputs.setdefault("orders", {}).setdefault(agent, {}).setdefault("labels", head + tail)
    return head + tail


def argument_order(court: Court, sides: list[str], agent: str, *, shuffle: bool | None = None) -> list[str]:
    """The arguments (by side) in the order ``agent`` reads them: as given, or (the procedure's
    ``shuffle_arguments``, or ``shuffle`` when given) in its own order fixed by the run's seed,
    so no side is always heard first. Kept in the run's ``orders`` output beside the labels' order."""
    if not shuffles(court, "shuffle_arguments", shuffle):
        return list(sides)
    order = list(sides)
    court.rng(agent, "arguments").shuffle(order)
    court.record.outputs.setdefault("orders", {}).setdefault(agent, {}).setdefault("arguments", order)
    return order


def held_both(first: str, other: str, default: str) -> tuple[str, bool]:
    """A member's vote when asked twice, the labels listed one way and then the other: the
    label it gave both times, or ``default`` (the label of the side without the burden) when
    it gave whichever label came first, or whichever came second; and whether it held. A small
    model mostly writes the label listed first (the supreme court's justices on the 1.5B, the
    No cases' verdicts, 15 of 16: ``bench/results/supreme-findings-probe-1.5b-2026-11-27``),
    so a label that does not survive the swap says nothing about the evidence (the position
    swap of LLM-as-judge evaluations, where a judgement that flips counts as a tie)."""
    return (first, True) if first == other else (default, False)


STOPWORDS = set(
    "the a an and or of to in on for is are was were be been it this that with as at by from we i you "
    "they not no yes should would could will can do does did now our your their its has have had but if "
    "so than then there these those which who what when why how all any more most very just".split()
)


def key_terms(text: str) -> set[str]:
    """Content words, cut to their first four letters so 'merge' meets 'merged' and 'merging'."""
    return {w[:4] for w in re.findall(r"[a-z][a-z0-9]{3,}", text.lower()) if w not in STOPWORDS}


def cited_most(candidates: dict[Any, str], majority: Sequence[str], everyone: Sequence[str],
               named: Callable[[str], set[Any]] = lambda text: set(), *, apart: str | None = None) -> Any:
    """Which evidence carried the verdict, for a fragility check: the candidate (key: its text)
    the majority's reasons cite most; everyone's reasons break ties and stand in when the
    majority cites none; the first candidate when nobody cites any. A reason cites a candidate
    by name (``named``: the keys a text names, "exhibit 2") or by stating its fact: at least half
    the candidate's key terms, and two or more, among the reason's.

    With ``apart`` (the question), for candidates that restate one another's facts, as a trial's
    witnesses do, a fact is stated by the terms its candidate alone has: not another candidate's,
    nor the question's, which every reason uses; a reason cites the candidate(s) whose own terms
    it holds most of, two or more. Half of all the terms favours a short candidate whose few words
    every reason uses: on whitlock (the 1.5B, 2026-12-01) it picked the defendant's two answers,
    "No, I did not pay for it" and "Yes, that is me", where three of the four reasons of the
    majority state the store manager's testimony (the video, her face at the exit, the tills)."""
    words = {key: key_terms(text) for key, text in candidates.items()}
    if apart is not None:
        common = key_terms(apart)
        words = {key: w - common - set().union(*(u for k, u in words.items() if k != key)) for key, w in words.items()}

    def stated(said: set[str]) -> set[Any]:
        if apart is None:
            return {key for key, w in words.items() if w and len(w & said) >= max(2, len(w) / 2)}
        shared = {key: len(w & said) for key, w in words.items()}
        top = max(shared.values(), default=0)
        return {key for key, n in shared.items() if n == top and n >= 2}

    def counts(texts: Sequence[str]) -> dict[Any, int]:
        out = dict.fromkeys(candidates, 0)
        for text in texts:
            cited = {key for key in named(text) if key in out} | stated(key_terms(text))
            for key in cited:
                out[key] += 1
        return out

    most, all_ = counts(majority), counts(everyone)
    order = list(candidates)
    return max(order, key=lambda key: (most[key], all_[key], -order.index(key)))


ORDER_P = 0.05  # below it, votes that follow each member's own order of the labels are not put down to chance


def order_check(court: Court, votes: dict[str, str], shuffled: list[str], who: str, *,
                shuffle: bool | None = None) -> dict[str, Any] | None:
    """Did the votes follow the order each member read the labels in? With ``shuffle_labels`` each
    member's order is drawn from the seed, independently of the case, so a member who weighs the
    evidence picks the label listed first to it with chance 1 / len(shuffled), whatever the
    verdict. ``followed`` of ``voters`` did; ``p`` is the chance of at least that many if the
    order played no part (one-sided binomial). A small ``p`` says the verdict came from the order
    the labels were listed in, not from the case: on the 1.5B, 9 of 9 justices on two clear cases
    (p = 0.002). None without shuffled orders (``shuffle_labels``, or ``shuffle`` when given; or
    with no member's vote among ``shuffled``)."""
    if not shuffles(court, "shuffle_labels", shuffle):
        return None
    orders = court.record.outputs.get("orders") or {}
    pairs = [(orders[a]["labels"][0], v) for a, v in votes.items() if a in orders and v in shuffled]
    if not pairs:
        return None
    n, k, chance = len(pairs), sum(first == v for first, v in pairs), 1 / len(shuffled)
    p = sum(comb(n, i) * chance ** i * (1 - chance) ** (n - i) for i in range(k, n + 1))
    return {"followed": k, "voters": n, "chance": round(chance, 3), "p": round(p, 4), "who": who}


def order_driven(order: dict[str, Any] | None) -> bool:
    """Did the order check (``order_check``) find the votes followed each member's order of the
    labels more than chance allows? False when it did not run."""
    return bool(order) and order["p"] < ORDER_P


def order_kept(fragility: dict[str, Any] | None, order: dict[str, Any] | None) -> bool:
    """A fragility check that held on a trial whose votes followed the order of the labels: the
    check decides again with the same seed, so each member reads the labels in the same order as
    before, and votes that followed that order hold whatever evidence is withheld (the supreme
    court on the 1.5B, 2026-12-01: 9 of 9 justices voted the verdict listed first to them, with and
    without the most-cited witness)."""
    return bool(fragility and fragility.get("held") is True and order_driven(order))


def order_data(court: Court, votes: dict[str, str], shuffled: list[str], who: str) -> dict[str, Any]:
    """``{"order": …}`` for an outcome's data when the check ran, else nothing."""
    order = order_check(court, votes, shuffled, who)
    return {"order": order} if order else {}


def quoted_choices(labels: list[str]) -> str:
    """"a", "b" or "c": the labels as a prompt lists them."""
    quoted = [f'"{label}"' for label in labels]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def letter(n: int) -> str:
    """Member A, B, … Z, AA, AB: peers are named by letter, never by seat."""
    return ascii_uppercase[n] if n < 26 else ascii_uppercase[n // 26 - 1] + ascii_uppercase[n % 26]


def seated(entries: dict[str, V]) -> dict[str, V]:
    """A round's entries in seat order (member-1, member-2, … member-10), whatever order their
    replies finished in, so that what is built from their order depends on the run's seed alone."""
    def seat(name: str) -> tuple[str, int]:
        head, _, n = name.rpartition("-")
        return (head, int(n)) if n.isdigit() else (name, 0)
    return dict(sorted(entries.items(), key=lambda kv: seat(kv[0])))


def peers(court: Court, me: str, previous: dict[str, Any], round_: int, title: str) -> list[tuple[str, Any]]:
    """The other members' entries of the previous round, each under ``title`` and a letter,
    in an order of ``me``'s own fixed by the run's seed (shuffled from seat order, not from the
    order the replies finished in)."""
    others = [k for k in seated(previous) if k != me]
    court.rng(me, f"peers@{round_}").shuffle(others)
    return _lettered(others, previous, title)


def shared_peers(court: Court, me: str, previous: dict[str, Any], round_: int, title: str) -> tuple[list[tuple[str, Any]], str]:
    """Every member's entry of the previous round, ``me``'s own among them, under letters in one
    order the run's seed fixes for the whole round; and the letter of ``me``'s own. Every member
    reads the same list, so a prompt that puts it before anything member-specific shares its
    prefix, and a local model reads it once instead of once per member."""
    order = list(seated(previous))
    court.rng("bench", f"peers@{round_}").shuffle(order)
    named = _lettered(order, previous, title)
    return named, (named[order.index(me)][0] if me in order else "")


def _lettered(order: list[str], previous: dict[str, Any], title: str) -> list[tuple[str, Any]]:
    return [(f"{title} {letter(i)}", previous[k]) for i, k in enumerate(order)]


def conformity(before: dict[str, str], after: dict[str, str], previous_majority: str,
               side: Callable[[str], str], *, who: str = "member") -> dict[str, Any]:
    """Who changed between two rounds, and whether toward or away from ``previous_majority``
    (the earlier round's majority position); ``side`` names a position's side."""
    moves = []
    for name, label in seated(after).items():
        old = before.get(name)
        if old is None or old == label:
            continue
        moves.append({who: name, "from": old, "to": label, "from_side": side(old), "to_side": side(label),
                      "direction": "toward the majority" if label == previous_majority else "away from the majority"})
    toward = sum(1 for m in moves if m["direction"] == "toward the majority")
    return {"previous_majority": previous_majority, "changed": len(moves), "toward": toward,
            "away": len(moves) - toward, "moves": moves}


SEQUENCE = "judge in sequence"  # conformity's unit for a bench in sequence (a round is a judge's place)


def sequence_conformity(alone: list[dict[str, Any]] | None, in_turn: list[dict[str, Any]],
                        stopped: dict[str, int]) -> dict[str, Any]:
    """How a bench in sequence moved, as the rounds of the other procedures are counted: from
    the second judge on, whether judge n's label differs from the one the same seat chose alone
    (``alone``: the bench in parallel beside it, which shares judge 1 and reads the same hearing,
    arguments and precedents), toward the label of the judge before it (the earlier majority a
    judge in sequence reads) or away. No ``alone`` (no compare_modes): no rounds are counted, as
    nothing says what a judge would have chosen alone; an early stop is still reported."""
    rounds = []
    for n in range(2, len(in_turn) + 1):
        if alone is None or len(alone) < n:
            break
        seat = f"judge {n}"
        moved = conformity({seat: alone[n - 1]["label"]}, {seat: in_turn[n - 1]["label"]}, in_turn[n - 2]["label"],
                           str, who="judge")
        rounds.append({"round": n, **moved})
    return {"unit": SEQUENCE, "rounds": rounds, "changed": sum(r["changed"] for r in rounds),
            "toward": sum(r["toward"] for r in rounds), "away": sum(r["away"] for r in rounds),
            "rounds_skipped": stopped.get("rounds_skipped", 0), "tokens_saved": stopped.get("tokens_saved", 0)}


def sequence_moved(conf: dict[str, Any]) -> str:
    """What the judges in sequence did with the judge before them, in words (``sequence_conformity``)."""
    changed, toward = conf["changed"], conf["toward"]
    if not changed:
        return "no judge changed from the label it chose alone after reading the judge before it"
    return (f"{changed} judge{'s' if changed != 1 else ''} changed from the label {'they' if changed != 1 else 'it'} "
            f"chose alone after reading the judge before ({toward} to that judge's label, {changed - toward} away)")


def stop_reason(round_: int, left: int, votes: dict[str, str], moves: list[dict[str, Any]]) -> str:
    """Why deliberation may end before its last round ("" when it should go on): the first
    round was unanimous, or no one changed position in the last one."""
    if not left:
        return ""
    if round_ == 1 and len(set(votes.values())) == 1:
        return "unanimous"
    if moves and moves[-1]["changed"] == 0:
        return "stable"
    return ""


def tokens_since(court: Court, start: int) -> int:
    """The tokens (read and written) of the trial's calls from the ``start``-th on: what a round
    cost, so a round not held is counted as that many tokens saved."""
    return sum(c.usage.prompt_tokens + c.usage.output_tokens for c in court.record.calls[start:])


__all__ = ["conformity", "letter", "peers", "sequence_conformity", "sequence_moved", "shared_peers", "stop_reason",
           "tokens_since"]
