"""What Chainlit's page shows, adjusted for the court: nothing fetched off this machine, and
step titles as the court names them.

Offline.

Chainlit's page links the Inter font from fonts.googleapis.com and KaTeX's stylesheet from
cdn.jsdelivr.net. Offline, both requests fail (and each is a request to a third party). The app
uses the browser's own sans-serif font and has LaTeX off (``latex = false`` in the Chainlit
config), so neither is needed: the page template is served without them.

Step titles. Chainlit titles a finished step "Used <name>" and a running one "Using <name>",
words for tool calls; a court's stages and agents read "Prosecution" and "Juror 1 · do not act".
"""

from __future__ import annotations

import re
from typing import Any

OUTSIDE = re.compile(
    r"""<link\b[^>]*\bhref=["']https?://[^"']*["'][^>]*/?>""",  # preconnects, the font, KaTeX's CSS
    re.IGNORECASE | re.DOTALL,
)


def local_only(html: str) -> str:
    """The page without links that would make the browser fetch from another host."""
    return OUTSIDE.sub("", html)


STATUS = {"using": "", "used": ""}  # the step's own name is its title


def court_words(translation: dict[str, Any]) -> dict[str, Any]:
    """Chainlit's translation with the step-status words ("Using", "Used") removed."""
    chat = translation.get("chat")
    if isinstance(chat, dict) and isinstance(chat.get("messages"), dict):
        messages = chat["messages"]
        if isinstance(messages.get("status"), dict):
            messages["status"] = {**messages["status"], **STATUS}
    return translation


def install() -> None:
    """Serve Chainlit's page template through ``local_only`` and its translations through
    ``court_words`` (once per process)."""
    import chainlit.server as server
    from chainlit.config import ChainlitConfig

    original: Any = server.get_html_template
    if getattr(original, "courtroom_local_only", False):
        return

    def template(*args: Any, **kwargs: Any) -> str:
        return local_only(original(*args, **kwargs))

    template.courtroom_local_only = True  # type: ignore[attr-defined]
    server.get_html_template = template
    translate = ChainlitConfig.load_translation
    ChainlitConfig.load_translation = lambda self, language: court_words(translate(self, language))  # type: ignore[method-assign]
