"""Shared test setup: every test runs isolated from the user's home, config and environment."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# No timing decides a test here (the machines are shared and noisy): Hypothesis's 200 ms
# deadline per example failed a property test under load, so it is off for every test.
hypothesis_settings.register_profile("courtroom", deadline=None)
hypothesis_settings.load_profile("courtroom")

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
SHARED_DATA = ROOT.parent / "shared" / "data"


def needs_shared(*parts: str) -> pytest.MarkDecorator:
    """Skip, saying which file is missing, where the shared data sets are not beside the project
    (they are read in place from ``../shared/data``, never copied in)."""
    path = SHARED_DATA.joinpath(*parts)
    return pytest.mark.skipif(not path.exists(), reason=f"needs the shared data at {path}, which is absent")


# Procedures whose runs read the shared data by default: samvad's knowledge base is the Indian
# statutes in ../shared/data/india_law.
PROCEDURE_DATA = {"samvad": ("india_law",)}


# Every folder of the user's the package reads or writes, each pointed into the session's temporary
# folder: the cache (the knowledge base's index, $COURTROOM_CACHE_DIR/kb, and the retriever's
# vectors, .../embeddings), the models folder, and the XDG homes that platformdirs resolves the
# rest from (config.toml, chat-users.toml, chat.sqlite, the chat's app root, runs).
USER_DIRS = {"COURTROOM_CACHE_DIR": "cache", "COURTROOM_MODELS_DIR": "models", "XDG_CACHE_HOME": "xdg-cache",
             "XDG_DATA_HOME": "xdg-data", "XDG_CONFIG_HOME": "xdg-config", "XDG_STATE_HOME": "xdg-state"}


@pytest.fixture(scope="session", autouse=True)
def user_dirs(tmp_path_factory):
    """The user's folders, pointed into this session's temporary folder before any fixture of a
    module's or the session's scope reads them (a module's knowledge base resolves its store when
    it is made) and for the child processes tests start. One per session, not per test: the
    shipped statutes' index is built once into this cache and every later test reads it. The
    embedded model's weights are not reused from the user's folder here; the real-model tests
    name theirs with $COURTROOM_TEST_MODELS_DIR.

    The statutes' index takes minutes to build: $COURTROOM_TEST_CACHE_DIR names a cache kept
    between sessions instead, a folder of the tester's own, never the user's cache."""
    dirs = {name: tmp_path_factory.mktemp(slug) for name, slug in USER_DIRS.items()}
    kept = os.environ.get("COURTROOM_TEST_CACHE_DIR", "").strip()
    if kept:
        from platformdirs import user_cache_dir

        dirs["COURTROOM_CACHE_DIR"] = Path(kept).expanduser().resolve()
        if dirs["COURTROOM_CACHE_DIR"].is_relative_to(Path(user_cache_dir("courtroom-chat")).resolve()):
            pytest.exit(f"$COURTROOM_TEST_CACHE_DIR is the user's own cache ({kept}); name another folder",
                        returncode=pytest.ExitCode.USAGE_ERROR)
    with pytest.MonkeyPatch.context() as patch:
        for name, path in dirs.items():
            patch.setenv(name, str(path))
        patch.delenv("DATABASE_URL", raising=False)  # the chat's database, else the user's own
        yield dirs


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch):
    """Runs go to a temporary store, config and data to a fresh folder each; no config file or
    backend override leaks in."""
    runs = tmp_path_factory.mktemp("runs")
    monkeypatch.setenv("COURTROOM_RUNS_DIR", str(runs))
    for name in ("COURTROOM_CONFIG", "COURTROOM_BACKEND", "COURTROOM_SCRIPTED_LATENCY_MS", "OLLAMA_HOST",
                 "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
    yield runs


@pytest.fixture
def runs_dir(isolated):
    return isolated


@pytest.fixture
def scripted_settings():
    from courtroom_chat.config import Settings

    return Settings().with_backend("scripted")


def motion_jury(settings):
    """Jurors who weigh the motion and vote in its words (``jury_asks = "motion"``), where what
    such a juror is told and how its vote is read can be checked; the default juror is plain,
    asked exactly what the single-call baseline is asked."""
    return settings.with_params("decision", {"jury_asks": "motion"})


def sigint_default() -> None:
    """``preexec_fn`` of a child a test sends Ctrl-C: a shell's background job (``pytest … &``)
    ignores SIGINT and its children inherit that, so the child gets the default back, as a
    terminal's foreground command has it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def staggered(delay: Callable[[str], float], **options):
    """A scripted backend whose replies finish in another order than they were asked, as a real
    backend's may: each call waits ``delay(agent)`` seconds first."""
    from courtroom_chat.backends.scripted import ScriptedBackend

    class Staggered(ScriptedBackend):
        async def complete(self, request, on_text=None):
            await asyncio.sleep(delay(request.agent))
            return await super().complete(request, on_text)

    return Staggered(**options)
