"""Does the anti-repetition (DRY) sampler stop the embedded model from restating its evidence?

    python bench/dry_copy_probe.py [--model qwen2.5-coder-0.5b] [--setting 0.8,-1 --setting 0.8,128 ...]

The court decodes every role under llama.cpp's DRY sampler (``[local] dry_multiplier``, look-back
``dry_last_n``). DRY penalises a token that would extend a run of tokens already seen, and with
the look-back over the whole context (the default, -1) the evidence in the prompt counts as seen.
A role that restates a fact of the evidence in its own words is then pushed off the evidence's
wording after ``dry_allowed_length`` tokens: a word is cut, or glued to the next one in another
tokenisation ("available inthe.input."). This probe asks the model, at temperature 0, to copy one
sentence of its prompt, about 300 tokens back, into three JSON fields, and prints what it wrote
under each setting, with how many of the sentence's words each field kept. It is a probe of the mechanism, not of the
court: the court's figures come from ``bench/text_defects.py`` over stored trials.

Settings are ``MULTIPLIER,LAST_N``; an empty list runs the default, 128 and DRY off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtroom_chat.backends.base import ModelRequest  # noqa: E402
from courtroom_chat.backends.local import LocalBackend  # noqa: E402
from courtroom_chat.config import ModelSpec, load_settings  # noqa: E402

SENTENCE = "The lack of a clear justification for parameter sharing could lead to suboptimal performance."
FIELDS = ("a", "b", "c")
# Between the sentence and the reply, as evidence stands far back in a trial's prompt: about
# 300 tokens, so a look-back of 128 no longer reaches the sentence.
FILLER = " ".join(f"Note {i}: the meeting on day {i} covered the schedule, the budget and the staffing plan "
                  f"for the quarter, and nobody raised a new question." for i in range(1, 13))


def kept(text: str, sentence: str = SENTENCE) -> int:
    """How many of the sentence's words the field reproduces from its start, in order."""
    n = 0
    for got, want in zip(text.split(), sentence.split(), strict=False):
        if got != want:
            break
        n += 1
    return n


async def probe(model: str, multiplier: float, last_n: int, threads: int = 0) -> dict[str, str]:
    settings = load_settings(None).with_overrides(
        {"local": {"dry_multiplier": multiplier, "dry_last_n": last_n, "threads": threads}})
    backend = LocalBackend(ModelSpec(backend="local", model=model), settings)
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in FIELDS}, "required": list(FIELDS)}
    request = ModelRequest(agent="probe", role="probe", system="Reply with JSON.", prefix="",
                           prompt=f'Sentence: "{SENTENCE}"\n\n{FILLER}\n\nCopy the sentence above, word for word, '
                                  'into each of the fields a, b and c.',
                           schema=schema, schema_name="Copy", max_tokens=120, temperature=0.0)
    reply = await backend.complete(request)
    return json.loads(reply.text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--setting", action="append", default=[], metavar="MULTIPLIER,LAST_N")
    parser.add_argument("--threads", type=int, default=0,
                        help="llama.cpp threads (0: one per core); 1 beside another model process, whose threads "
                             "would otherwise fight these for the cores and slow both many times over")
    args = parser.parse_args()
    settings = [tuple(s.split(",")) for s in args.setting] or [("0.8", "-1"), ("0.8", "128"), ("0", "-1")]
    words = len(SENTENCE.split())
    print(f"model {args.model}; the sentence has {words} words\n")
    print("| dry_multiplier | dry_last_n | words kept (a, b, c) | field a |\n|---|---|---|---|")
    for multiplier, last_n in settings:
        fields = asyncio.run(probe(args.model, float(multiplier), int(last_n), args.threads))
        counts = ", ".join(str(kept(fields.get(k, ""))) for k in FIELDS)
        print(f"| {multiplier} | {last_n} | {counts} | {fields.get('a', '')!r} |")


if __name__ == "__main__":
    main()
