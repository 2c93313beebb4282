"""The chat page links nothing outside this machine (Chainlit's template links Google Fonts and
a KaTeX stylesheet on a CDN)."""

from __future__ import annotations

import re

from courtroom_chat.frontends import chat_page


def test_the_served_page_links_nothing_off_the_machine(tmp_path, monkeypatch):
    import chainlit.server as server

    import courtroom_chat.frontends.chat  # noqa: F401  (installs the filter)

    html = server.get_html_template("")
    assert "fonts.googleapis.com" not in html and "cdn.jsdelivr.net" not in html and "fonts.gstatic.com" not in html
    fetched = re.findall(r"""<(?:link|script)\b[^>]*\b(?:href|src)=["'](https?://[^"']+)""", html)
    assert fetched == []
    assert "/assets/index-" in html  # the app's own bundle is still there


def test_the_filter_keeps_local_links_and_drops_remote_ones():
    html = ('<link rel="preconnect" href="https://fonts.googleapis.com" />\n'
            '<link\n      href="https://fonts.googleapis.com/css2?family=Inter" rel="stylesheet"\n    />\n'
            '<link rel="stylesheet" crossorigin href="/assets/index.css">\n'
            '<meta property="og:image" content="https://example.org/x.png">')
    out = chat_page.local_only(html)
    assert "googleapis" not in out and 'href="/assets/index.css"' in out and "og:image" in out


def test_steps_are_titled_by_their_names_alone():
    """Chainlit says "Used Prosecution"; the court's steps read "Prosecution"."""
    from chainlit.config import config

    import courtroom_chat.frontends.chat  # noqa: F401  (installs the translation)

    status = config.load_translation("en-US")["chat"]["messages"]["status"]
    assert status["used"] == "" and status["using"] == ""
