"""Text defects in stored trials: words cut short, words run together, fields that stop
mid-sentence, and the repairs they cost. Reads the court runs of one or more evaluations.

    python -m bench.text_defects RESULTS.jsonl [RESULTS.jsonl ...] --runs-dir RUNS [--runs-dir RUNS ...]

For every model call's reply (each JSON string value in it):
- **cut words**: a word followed by punctuation, a closing quote or the end of the text, that
  is no whole word of the call's prompt, where the same two words before it and a longer word
  it starts occur earlier in the prompt or the reply ("by using the disent." where the
  evidence says "by using the disentangled"): the text stopped where it would have repeated
  words it had read. Cuts elsewhere are not counted.
- **run-together words**: a run of 18 or more letters that is no word of the prompt
  ("conclude,basedontheirexpectations,thatth").
- **words joined by a stop**: two lowercase words with a full stop and no space between them,
  no word of the prompt ("available inthe.input."): what a grammar's word or length bound
  leaves when a model that has not finished is allowed no more spaces (counted apart from the
  run-together words, so figures from before this row stay comparable).
- **repeated 8-word runs**: eight words in a row that the same reply already wrote (counted
  once for each extra occurrence, across the reply's fields): a model repeating itself, which
  the anti-repetition sampler (DRY) fights, and which it can only refuse by changing how the
  words are tokenised (dropping the spaces: "natural languageprocessing").
- **stopped mid-sentence**: the prose fields the court checks so (case statement, harm analysis,
  counter-argument, harm dispute, reasoning, rationale) that a reply left without a sentence
  end, before the code shortens them. (Until 2026-11-25 this counted the court's flags, which
  were the same fields; since then a field with a whole sentence to end at is shortened, not
  flagged for a repair.)
- **stopped at the token limit**: replies cut by max_tokens (a model looping ends there).
- **repairs**: calls made again after a reply could not be used.

Figures only. Several result files are read as one set (a run resumed on another machine).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from bench.stored import read_rows
from courtroom_chat.replies import extract_json, unfinished
from courtroom_chat.store import RunStore

WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
ENDING = re.compile(r"([A-Za-z]{3,})(?=[.,;:!?\"]|$)")
RUN_TOGETHER = re.compile(r"[A-Za-z]{18,}")
JOINED = re.compile(r"\b[a-z]{2,}\.[a-z]{2,}\b")


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


PROSE = {"case_statement", "harm_analysis", "counter_argument", "harm_dispute", "reasoning", "rationale"}


def stopped(value) -> int:
    """The checked prose fields of a parsed reply that stop mid-sentence."""
    return sum(unfinished(v) for k, v in value.items() if k in PROSE and isinstance(v, str)) if isinstance(value, dict) else 0


def repeats(texts: list[str], n: int = 8) -> int:
    """Eight-word runs of a reply that the reply already wrote (each extra occurrence once)."""
    seen: set[tuple[str, ...]] = set()
    extra = 0
    for text in texts:
        words = [w.lower() for w in WORD.findall(text)]
        for i in range(len(words) - n + 1):
            gram = tuple(words[i:i + n])
            extra += gram in seen
            seen.add(gram)
    return extra


def defects(prompt: str, reply: str) -> tuple[list[str], list[str], list[str], int, int]:
    """(cut words, run-together words, words joined by a stop, repeated 8-word runs, fields
    stopped mid-sentence) in one reply."""
    try:
        value = extract_json(reply)
        texts = strings(value)
    except ValueError:
        value, texts = None, [reply]
    said = {w.lower() for w in WORD.findall(prompt)}
    cut, glued, joined = [], [], []
    for text in texts:
        for match in ENDING.finditer(text):
            before = WORD.findall(text[:match.start()])[-2:]
            if len(before) < 2 or match.group(1).lower() in said:
                continue
            # the same two words and the start of a longer word, earlier in the prompt or the reply
            repeat = re.compile(r"\b" + r"\W+".join(map(re.escape, before)) + r"\W+" + re.escape(match.group(1)) + "[A-Za-z]",
                                re.IGNORECASE)
            if repeat.search(prompt) or repeat.search(text[:match.start()]):
                cut.append(f"{' '.join(before)} {match.group(1)}")
        glued += [w for w in RUN_TOGETHER.findall(text) if w.lower() not in said]
        joined += [w for w in JOINED.findall(text) if w not in prompt]
    return cut, glued, joined, repeats(texts), stopped(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--runs-dir", action="append", type=Path, required=True, help="runs folders (repeatable)")
    parser.add_argument("--examples", type=int, default=8)
    args = parser.parse_args()
    stores = [RunStore(d) for d in args.runs_dir]
    counts: Counter = Counter()
    examples: list[str] = []
    seconds = []
    for path in args.results:
        for row in read_rows(path):
            if not row["method"].startswith("court") or not row.get("run_id"):
                continue
            record = next((r for r in (s.find(row["run_id"]) for s in stores) if r is not None), None)
            if record is None:
                counts["runs not found"] += 1
                continue
            counts["trials"] += 1
            counts["right"] += row.get("predicted") == row.get("gold")
            seconds.append(row.get("seconds") or 0)
            for call in record.calls:
                counts["calls"] += 1
                counts["repairs"] += call.attempt > 1
                counts["stopped at the token limit"] += call.finish_reason == "length"
                prompt = "\n".join(m["content"] for m in call.messages if m.get("role") != "assistant")
                cut, glued, joined, repeated, unended = defects(prompt, call.response or "")
                counts["repeated 8-word runs"] += repeated
                counts["stopped mid-sentence"] += unended
                counts["cut words"] += len(cut)
                counts["run-together words"] += len(glued)
                counts["words joined by a stop"] += len(joined)
                counts["output tokens"] += (call.usage.output_tokens if call.usage else 0) or 0
                for w in cut + glued + joined:
                    if len(examples) < args.examples:
                        examples.append(f"{call.agent}: {w}")
    print("| measure | count |\n|---|---|")
    for key in ("trials", "right", "calls", "repairs", "stopped at the token limit", "stopped mid-sentence", "cut words",
                "run-together words", "words joined by a stop", "repeated 8-word runs", "output tokens", "runs not found"):
        print(f"| {key} | {counts[key]} |")
    if seconds:
        print(f"| seconds per trial (mean) | {sum(seconds) / len(seconds):.0f} |")
    if examples:
        print("\nExamples: " + "; ".join(examples))


if __name__ == "__main__":
    main()
