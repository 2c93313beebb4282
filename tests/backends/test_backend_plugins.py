"""A backend a plugin adds is named in config like a built-in one: ``backends.register`` at run
time, or an installed package's entry point under ``courtroom_chat.backends``, read the first time
a config names a backend not registered. An unknown backend is one line naming the known ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from courtroom_chat import backends
from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.config import ModelSpec, Settings, load_settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import ConfigError
from tests.conftest import CASES

OPENED: list[str] = []


class Echo(ScriptedBackend):
    """A toy backend: the scripted replies under a name of its own, each opening counted."""

    name = "echo"

    def __init__(self, spec=None, settings=None):  # noqa: ANN001 - the factory's (spec, settings)
        super().__init__(spec, settings)
        OPENED.append(str(spec))


@pytest.fixture
def echo():
    backends.register("echo", Echo)
    OPENED.clear()
    yield
    backends.unregister("echo")


async def test_a_registered_backend_is_named_in_config_and_runs_a_trial(echo, tmp_path, runs_dir):
    config = tmp_path / "config.toml"
    config.write_text('[models]\ndefault = "echo:small"\njudge = "echo"\n', encoding="utf-8")
    settings = load_settings(config)
    assert str(settings.model_for("juror")) == "echo:small" and str(settings.model_for("judge")) == "echo"
    from courtroom_chat.case import load_case

    record = await Trial(load_case(CASES / "code-commit.json"), settings).run()
    assert record.status == "complete" and record.outcome is not None
    assert set(record.models.values()) == {"echo:small", "echo"} and sorted(OPENED) == ["echo", "echo:small"]
    assert not record.outcome.demo  # a demo is the scripted backend's alone
    assert str(Settings().with_backend("echo:big").model_for("judge")) == "echo:big"


def test_an_unknown_backend_is_one_line_naming_the_known_ones(echo, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[models]\njudge = "ecco:small"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_settings(config)
    assert str(err.value) == (f"{config}: [models] judge: unknown backend 'ecco' in 'ecco:small'; use one of local, "
                              "anthropic, ollama, openai, scripted, echo (for example 'anthropic:claude-sonnet-4-6')")


def install_package(site: Path, monkeypatch, name: str, point: str) -> None:
    """A distribution as pip leaves it in ``site`` (on sys.path): its metadata, with one backend
    entry point; the backends read the group again, and are as they were afterwards."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{backends.ENTRY_POINT_GROUP}]\n{point}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(backends, "_discovered", False)
    monkeypatch.setattr(backends, "_FACTORIES", dict(backends._FACTORIES))


def test_an_installed_packages_backend_is_found_by_its_entry_point_and_imported_when_used(tmp_path, monkeypatch):
    install_package(tmp_path, monkeypatch, "courtroom_echo", "far = toy_far_backend:Far")
    (tmp_path / "toy_far_backend.py").write_text(
        "from courtroom_chat.backends.scripted import ScriptedBackend\n\n\n"
        "class Far(ScriptedBackend):\n    name = 'far'\n", encoding="utf-8")
    monkeypatch.delitem(sys.modules, "toy_far_backend", raising=False)
    settings = Settings().with_backend("far:model-1")
    assert "far" in backends.known() and "toy_far_backend" not in sys.modules  # named, not imported
    opened = backends.open_backend(settings.model_for("judge"), settings)
    assert type(opened).__name__ == "Far" and "toy_far_backend" in sys.modules
    assert ModelSpec.parse("far").resolved(settings) == ModelSpec(backend="far")  # no [far] section: as written
    sys.modules.pop("toy_far_backend")


def test_a_backend_plugin_does_not_replace_a_built_in_one(tmp_path, monkeypatch):
    install_package(tmp_path, monkeypatch, "courtroom_impostor", "scripted = nowhere:Nothing")
    assert backends.known("nosuch") == ["local", "anthropic", "ollama", "openai", "scripted"]
    assert isinstance(backends.open_backend(ModelSpec(backend="scripted"), Settings()), ScriptedBackend)


def test_the_built_in_backends_come_first_as_config_lists_them():
    from courtroom_chat.config import BACKENDS

    assert tuple(backends.known()[:len(BACKENDS)]) == BACKENDS
