"""What Chainlit's page shows, adjusted for the court: nothing fetched off this machine, and
step titles as the court names them.

Offline.

Chainlit's page links the Inter font from fonts.googleapis.com and KaTeX's stylesheet from
cdn.jsdelivr.net. Offline, both requests fail (and each is a request to a third party). The app
uses the browser's own sans-serif font and has LaTeX off (``latex = false`` in the Chainlit
config), so neither is needed: the page template is served without them.

Headers. Every response says nosniff, is never framed by another site, and sends no referrer
(issue 83: the chat served none of these).

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

HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}


class SecurityHeaders:
    """ASGI middleware adding ``HEADERS`` to every HTTP response (those the app set stay)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items() if k.lower().encode() not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


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
    try:
        server.app.add_middleware(SecurityHeaders)
    except RuntimeError:  # the app already serves (a test process that started it before): keep it as it is
        pass
    translate = ChainlitConfig.load_translation
    ChainlitConfig.load_translation = lambda self, language: court_words(translate(self, language))  # type: ignore[method-assign]
