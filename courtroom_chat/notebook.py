"""The notebook interface: ``from courtroom_chat.notebook import Courtroom``.

A thin re-export of ``courtroom_chat.frontends.notebook``; importing it loads ipywidgets.
"""

from __future__ import annotations

from .frontends.notebook import Courtroom
from .frontends.notebook_view import TrialView

__all__ = ["Courtroom", "TrialView"]
