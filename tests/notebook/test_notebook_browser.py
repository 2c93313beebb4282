"""One real-browser check: the widget in JupyterLab, in Debian's Chromium, driven by Playwright.

Open a notebook, run its cell, press Run (scripted backend, with latency), run another cell while
the court sits (the kernel stays free), and see the verdict. The screenshot is saved under
tests/output/. Without Chromium or JupyterLab the test skips, unless COURTROOM_REQUIRE_BROWSER=1
(CI), where it fails.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from notebook_helpers import ESSAY, OUTPUT

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LATENCY_MS = 1500  # per model call: the trial takes several seconds, time to run another cell


def _unavailable(reason: str) -> None:
    if os.environ.get("COURTROOM_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (COURTROOM_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_notebook(path: Path) -> None:
    book = new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    book.cells = [
        new_code_cell(f"from courtroom_chat.notebook import Courtroom\n"
                      f"court = Courtroom({str(ESSAY)!r}, backend='scripted')\ncourt"),
        new_code_cell("print('kernel free while the court sits:', court.running)"),
    ]
    nbformat.write(book, path)


@pytest.fixture
def jupyterlab(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab server on a free loopback port, isolated config; yields the notebook's URL."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing; install it with `apt-get install -y chromium`")
    for module, extra in (("playwright", "playwright"), ("jupyterlab", "jupyterlab")):
        try:
            __import__(module)
        except ImportError:
            _unavailable(f"the '{module}' package is missing; pip install {extra}")
    root, token, port = tmp_path / "lab", secrets.token_hex(16), _free_port()
    root.mkdir()
    _write_notebook(root / "court.ipynb")
    settings = tmp_path / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false",
                                                                           "checkForUpdates": False}))
    env = {**os.environ, "COURTROOM_SCRIPTED_LATENCY_MS": str(LATENCY_MS),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter-runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab-settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "lab-workspaces")}
    log = (tmp_path / "jupyterlab.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--LabApp.news_url=", "--LabServerApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start; see {tmp_path / 'jupyterlab.log'}")
            time.sleep(0.3)
        yield f"{base}/lab/tree/court.ipynb?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _loopback_only(route, request) -> None:  # noqa: ANN001 - playwright's Route and Request
    url = urlparse(request.url)
    if url.scheme in ("data", "blob") or url.hostname in ("127.0.0.1", "localhost"):
        route.continue_()
    else:
        route.abort()


def _run_cell(page, index: int) -> None:  # noqa: ANN001
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_the_widget_in_jupyterlab(jupyterlab: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    OUTPUT.mkdir(parents=True, exist_ok=True)
    shot = OUTPUT / "notebook-widget.png"  # the verdict; a second one shows the exhibits
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.route("**/*", _loopback_only)
            page.goto(jupyterlab)
            page.locator(".jp-Notebook .jp-CodeCell").first.wait_for(timeout=90_000)
            expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=90_000)  # kernel ready

            _run_cell(page, 0)
            widget = page.locator(".jp-OutputArea-output").first
            run = widget.locator("button.jupyter-button", has_text=re.compile(r"^\s*Run\s*$"))
            expect(run).to_be_visible(timeout=60_000)
            expect(widget.locator("textarea").first).to_have_value(re.compile("^Should I publish my essay"))
            run.click()
            expect(run).to_be_disabled(timeout=10_000)

            _run_cell(page, 1)  # the kernel answers while the trial runs
            free = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-OutputArea-output")
            expect(free).to_have_text(re.compile("kernel free while the court sits: True"), timeout=15_000)

            verdict = widget.locator(".courtroom-md h2", has_text=re.compile(r"^(Yes|No): .*publish (my|your) essay"))
            expect(verdict).to_be_visible(timeout=60_000)
            expect(widget.get_by_text(re.compile(r"Confidence: jury vote share \d+%"))).to_be_visible()
            expect(widget.get_by_text(re.compile(r"How sure:"))).to_be_visible()
            expect(widget.get_by_text(re.compile(r"^Jury · \d–\d$"))).to_be_visible()
            expect(run).to_be_enabled()
            verdict.scroll_into_view_if_needed()
            page.screenshot(path=str(shot))
            prosecution = widget.locator(".jupyter-widget-Collapse-header", has_text="Prosecution")
            prosecution.click()  # open the exhibits: each with its mark and location
            expect(widget.get_by_text("Exhibit 1 · ✅ verified")).to_be_visible()
            expect(widget.get_by_text(re.compile(r"Verified at essay-publish/draft\.md:\d+"))).to_be_visible()
            prosecution.scroll_into_view_if_needed()
            page.screenshot(path=str(OUTPUT / "notebook-widget-exhibits.png"))
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000
