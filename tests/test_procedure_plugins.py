"""A procedure in another installed package reaches every front end through the entry-point
group ``courtroom_chat.procedures``, with no change to this package; a broken plugin is left out
with one line and never stops the built-in procedures."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom_chat import procedures
from courtroom_chat.frontends.cli import app


def install_package(site: Path, name: str, points: dict[str, str]) -> None:
    """A distribution as pip leaves it in site-packages: only its metadata, the code it names
    being importable already (the toy procedure of the tests)."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    lines = "\n".join(f"{key} = {value}" for key, value in points.items())
    (info / "entry_points.txt").write_text(f"[{procedures.ENTRY_POINT_GROUP}]\n{lines}\n", encoding="utf-8")


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A fresh site folder on sys.path, and discovery run again over it; afterwards the registry is
    as it was (the toy unregistered, the problems list emptied)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(procedures, "_discovered", False)
    monkeypatch.setattr(procedures, "PLUGIN_PROBLEMS", [])
    yield tmp_path
    procedures.unregister("justices")


def test_an_installed_plugin_is_offered_by_the_cli_like_a_built_in_one(site, runs_dir):
    install_package(site, "courtroom-justices", {"justices": "tests.toy_procedure:ThreeJustices"})
    names = [info.name for info in procedures.available()]
    assert names[:5] == ["decision", "classification", "criminal", "supreme", "samvad"] and "justices" in names
    assert procedures.get("justices").title == "Three justices" and procedures.PLUGIN_PROBLEMS == []
    listed = CliRunner().invoke(app, ["procedures"])
    assert listed.exit_code == 0 and "justices: Three justices" in listed.stdout
    assert "from the installed package courtroom-justices" in listed.stdout  # where it came from, for the built-ins nothing
    assert listed.stdout.count("from the installed package") == 1 and procedures.available()[0].origin == ""
    dry = CliRunner().invoke(app, ["run", "-p", "justices", "-b", "scripted", "--dry-run", "-q", "Should we affirm?"])
    assert dry.exit_code == 0 and "Dry run" in dry.stdout, dry.output


def test_a_broken_or_misnamed_plugin_is_one_line_and_the_rest_still_work(site, caplog):
    install_package(site, "courtroom-broken", {"broken": "no_such_module_anywhere:Court",
                                               "notaprocedure": "tests.toy_procedure:Opinion",
                                               "other": "tests.toy_procedure:ThreeJustices",
                                               "decision": "tests.toy_procedure:INFO"})
    with caplog.at_level(logging.WARNING):
        names = [info.name for info in procedures.available()]
    assert "justices" not in names and "broken" not in names and "other" not in names
    assert procedures.get("decision").title == "Decision court"  # a plugin does not replace a built-in
    problems = procedures.PLUGIN_PROBLEMS
    assert len(problems) == 4 and all("\n" not in p and "courtroom-broken" in p for p in problems)
    assert any("'broken'" in p and "could not be loaded: ModuleNotFoundError" in p for p in problems)
    assert any("'notaprocedure'" in p and "not a Procedure subclass or a ProcedureInfo" in p for p in problems)
    assert any("named 'other' but its procedure is named 'justices'" in p for p in problems)
    assert any("'decision'" in p and "named 'decision' but its procedure is named 'justices'" in p for p in problems)
    assert [r.getMessage() for r in caplog.records if r.name == procedures.__name__] == problems
    listed = CliRunner().invoke(app, ["procedures"])
    assert listed.exit_code == 0 and "decision: Decision court" in listed.stdout and "Traceback" not in listed.output


def test_a_plugin_that_would_replace_a_registered_procedure_is_left_out(site):
    from courtroom_chat.procedures.decision import DecisionCourt

    class Impostor(DecisionCourt):
        pass

    install_package(site, "courtroom-impostor", {"decision": "tests.test_procedure_plugins:IMPOSTOR"})
    globals()["IMPOSTOR"] = procedures.ProcedureInfo("decision", "Impostor", "", Impostor)
    try:
        procedures.available()
        assert procedures.get("decision").__class__ is DecisionCourt
        assert procedures.PLUGIN_PROBLEMS == [
            "procedure plugin 'decision' (tests.test_procedure_plugins:IMPOSTOR, from courtroom-impostor) would "
            "replace the registered procedure 'decision' (Decision court); left out"]
    finally:
        globals().pop("IMPOSTOR")


def test_a_plugin_that_also_registers_itself_on_import_is_no_problem(site):
    from tests import toy_procedure

    install_package(site, "courtroom-justices", {"justices": "tests.toy_procedure:ThreeJustices"})
    for target in (toy_procedure.ThreeJustices, "tests.toy_procedure:ThreeJustices"):  # as its import might register it
        procedures._REGISTRY["justices"] = procedures.ProcedureInfo("justices", "Three justices", "", target)
        procedures.discover()
        assert procedures.PLUGIN_PROBLEMS == [] and procedures._REGISTRY["justices"].target is target


# ---------------------------------------------------------------- a module put in the procedures folder


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A second folder of the procedures package: a module written here is one put in
    courtroom_chat/procedures/, without writing into the source tree; discovery runs again, and
    afterwards the registry and the imported modules are as they were."""
    monkeypatch.setattr(procedures, "__path__", [*procedures.__path__, str(tmp_path)])
    monkeypatch.setattr(procedures, "_discovered", False)
    monkeypatch.setattr(procedures, "PLUGIN_PROBLEMS", [])
    before = set(procedures._REGISTRY)
    yield tmp_path
    for name in set(procedures._REGISTRY) - before:
        procedures.unregister(name)
    for module in [m for m in sys.modules if m.startswith("courtroom_chat.procedures.toy_")]:
        del sys.modules[module]


def test_a_module_put_in_the_procedures_folder_is_found_with_no_registry_edit(folder, runs_dir):
    (folder / "toy_bench.py").write_text(
        "from tests.toy_procedure import ThreeJustices\n\n\n"
        "class TwoJustices(ThreeJustices):\n"
        "    name, title, description = 'twojustices', 'Two justices', 'Two justices hold.'\n", encoding="utf-8")
    (folder / "toy_package").mkdir()
    (folder / "toy_package" / "__init__.py").write_text(
        "from courtroom_chat.procedures import ProcedureInfo\n\n"
        "INFO = ProcedureInfo('packaged', 'Packaged justices', 'In a package.', 'tests.toy_procedure:ThreeJustices',\n"
        "                     'State the **docket**.')\n", encoding="utf-8")
    (folder / "toy_helper.py").write_text("def helper():\n    return 1\n", encoding="utf-8")  # no procedure: skipped
    (folder / "toy_broken.py").write_text("import no_such_module_anywhere\n", encoding="utf-8")
    names = [info.name for info in procedures.available()]
    assert names[:5] == ["decision", "classification", "criminal", "supreme", "samvad"]
    assert {"twojustices", "packaged"} <= set(names) and "toy_helper" not in names
    assert procedures.get("twojustices").title == "Two justices" and procedures.asking("packaged") == "State the **docket**."
    assert procedures.PLUGIN_PROBLEMS == [
        "procedure module 'toy_broken' (in the procedures folder) could not be imported: ModuleNotFoundError: "
        "No module named 'no_such_module_anywhere'; fix or remove it"]
    listed = CliRunner().invoke(app, ["procedures"])
    assert listed.exit_code == 0 and "twojustices: Two justices" in listed.stdout and "packaged: Packaged" in listed.stdout
    ran = CliRunner().invoke(app, ["run", "-p", "twojustices", "-b", "scripted", "-q", "Should we affirm?"])
    assert ran.exit_code == 0 and "Decided by" in ran.stdout, ran.output


def test_a_module_in_the_folder_does_not_replace_a_built_in_and_built_ins_load_only_when_used(folder):
    (folder / "toy_impostor.py").write_text(
        "from tests.toy_procedure import ThreeJustices\n\n\n"
        "class Impostor(ThreeJustices):\n"
        "    name = 'decision'\n", encoding="utf-8")
    procedures.available()
    assert procedures.get("decision").title == "Decision court"
    assert procedures.PLUGIN_PROBLEMS == ["procedure module 'toy_impostor' (in the procedures folder) would replace "
                                          "the registered procedure 'decision' (Decision court); left out"]
    listing = ("import sys; from courtroom_chat import procedures; procedures.available(); "
               "print(sorted(m for m in sys.modules if m.startswith('courtroom_chat.procedures.')))")
    done = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['courtroom_chat.procedures.base', 'courtroom_chat.procedures.deliberation']"
