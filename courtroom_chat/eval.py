"""``courtroom eval`` from Python, by the name the command has::

    from courtroom_chat.eval import evaluate
    ev = evaluate("iclr2017", baselines=["single", "majority"], limit=60)

The harness itself lives in :mod:`courtroom_chat.evaluation`; this module only names it.
"""

from .evaluation import evaluate, evaluate_async

__all__ = ["evaluate", "evaluate_async"]
