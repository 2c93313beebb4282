"""The chat page asks for nothing outside this machine.

Chainlit's page links the Inter font from fonts.googleapis.com and KaTeX's stylesheet from
cdn.jsdelivr.net. Offline, both requests fail (and each is a request to a third party). The app
uses the browser's own sans-serif font and has LaTeX off (``latex = false`` in the Chainlit
config), so neither is needed: the page template is served without them.
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


def install() -> None:
    """Serve Chainlit's page template through ``local_only`` (once per process)."""
    import chainlit.server as server

    original: Any = server.get_html_template
    if getattr(original, "courtroom_local_only", False):
        return

    def template(*args: Any, **kwargs: Any) -> str:
        return local_only(original(*args, **kwargs))

    template.courtroom_local_only = True  # type: ignore[attr-defined]
    server.get_html_template = template
