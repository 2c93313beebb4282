"""The contract every registered procedure keeps, and a toy one registered by the test itself.

Each runs on the scripted backend with no script, dry-runs every role, replays to Markdown
holding every finished agent's output, stores and reloads, and renders through the CLI.
The chat and notebook halves of the contract are in tests/chat and tests/notebook.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import Case
from courtroom_chat.config import Settings, load_settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import CaseError, ConfigError
from courtroom_chat.events import parse_events
from courtroom_chat.frontends.cli import app
from courtroom_chat.procedures import ProcedureInfo, get, register, unregister
from courtroom_chat.procedures.base import Procedure, Role
from courtroom_chat.render import replay
from courtroom_chat.store import RunStore
from tests import toy_procedure
from tests.conftest import CASES


@pytest.fixture(autouse=True)
def toy():
    toy_procedure.install()
    yield
    toy_procedure.uninstall()


def procedures() -> list[str]:
    return toy_procedure.every_procedure("name")


def a_case(procedure: str) -> Case:
    from courtroom_chat.case import load_case

    case = load_case(CASES / "code-commit.json")
    if get(procedure).tries:  # a court of law refuses "Should I merge …?": a question about the same evidence
        case = case.model_copy(update={"question": "Is the author of PR #214 liable for the checkout failures?"})
    return case.model_copy(update={"procedure": procedure})


@pytest.mark.parametrize("name", procedures())
async def test_runs_with_no_script_stores_replays_and_exports(name, tmp_path):
    settings = Settings().with_backend("scripted")
    store = RunStore(tmp_path)
    events = []
    record = await Trial(a_case(name), settings, store=store).run(events.append)
    assert record.status == "complete" and record.outcome is not None and record.outcome.answer
    assert record.outcome.demo and "(demo)" in replay(parse_events(record.events))  # every front end's text
    assert set(record.models) == {r.name for r in get(name).roles}
    finished = [e for e in events if e.type == "agent_finished"]
    assert finished and all(e.markdown and e.title for e in finished)
    text = replay(parse_events(store.load(record.run_id).events))
    for e in finished:
        assert e.markdown.splitlines()[0] in text, e.agent
    assert record.outcome.answer in text
    json.dumps(record.to_result(), default=str)  # the -o output serialises
    assert store.list()[0]["answer"] == record.outcome.answer


class OpenAIDouble(ScriptedBackend):
    """The openai backend's scripted double: the scripted replies, under the openai backend's
    traits (its name, no grammar, a self-hosted server's $0)."""

    name = "openai"
    constrained_decoding = False
    price_provider = None


@pytest.mark.parametrize("name", procedures())
async def test_runs_on_the_openai_backends_scripted_double(name):
    settings = Settings().with_backend("openai:qwen2.5").with_overrides({"openai": {"base_url": "http://127.0.0.1:9/v1"}})
    double = OpenAIDouble()
    record = await Trial(a_case(name), settings, store=None, backends={"openai:qwen2.5": double}).run()
    assert record.status == "complete" and record.outcome is not None and record.outcome.answer
    assert set(record.models.values()) == {"openai:qwen2.5"} and double.calls
    assert not record.outcome.demo  # only the scripted backend's verdicts are demos


@pytest.mark.parametrize("name", procedures())
async def test_dry_run_plans_every_role(name):
    events = []
    await Trial(a_case(name), Settings().with_backend("scripted"), store=None, dry_run=True).run(events.append)
    planned = {e.role for e in events if e.type == "prompt_planned"}
    assert planned == {r.name for r in get(name).roles}


@pytest.mark.parametrize("name", procedures())
def test_the_cli_runs_and_shows_it(name, runs_dir):
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(CASES / "code-commit.json"), "-b", "scripted", "--procedure", name,
                                 "-q", a_case(name).question])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "Decided by" in result.stdout
    [row] = RunStore(runs_dir).list()
    shown = runner.invoke(app, ["show", row["run_id"], "-f", "markdown"])
    assert shown.exit_code == 0 and row["answer"] in shown.stdout


async def test_the_toy_runs_in_rounds_and_its_script_keys_are_checked():
    events = []
    settings = Settings().with_backend("scripted")
    record = await Trial(a_case("justices"), settings, store=None).run(events.append)
    assert [e.round for e in events if e.type == "stage_started"] == [1, 2]
    assert "justice-3@2" in record.outputs
    script = {"justice-2": {"reasoning": "The lower court erred.", "holding": "reverse"}}
    backend = ScriptedBackend(script=script)
    record = await Trial(a_case("justices"), settings, store=None, backends={"scripted": backend}).run()
    assert record.outputs["justice-2@1"]["holding"] == "reverse"
    bad = ScriptedBackend(script={"juror": {"vote": "act"}})
    with pytest.raises(ConfigError, match="unknown role 'juror' in the script for the justices procedure"):
        await Trial(a_case("justices"), settings, store=None, backends={"scripted": bad}).run()


def test_the_toy_has_a_config_table_and_models_key():
    settings = Settings().with_overrides({"models": {"justices": {"justice": "ollama"}}})
    assert str(settings.model_for("justice", "justices")) == "ollama:llama3.2"
    assert str(settings.model_for("justice", "supreme")) == str(Settings().model_for("justice", "supreme"))
    assert settings.procedure_params("justices").justices == 3
    assert Settings().with_params("justices", {"justices": 5}).procedure_params("justices").justices == 5
    with pytest.raises(ConfigError, match=r"\[procedures.justices\] justices"):
        Settings().with_params("justices", {"justices": 12})


# ---------------------------------------------------------------- case inputs it does not read


@pytest.mark.parametrize("name", procedures())
def test_an_input_it_does_not_read_is_refused_in_one_line_naming_those_it_reads(name):
    backend = ScriptedBackend()
    case = a_case(name).model_copy(update={"inputs": {"lables": "joy, anger"}})
    for dry_run in (True, False):
        with pytest.raises(CaseError) as err:
            Trial(case, Settings().with_backend("scripted"), store=None, backends={"scripted": backend}, dry_run=dry_run)
        message = str(err.value)
        reads = get(name).inputs
        assert "\n" not in message and f"the {name} procedure does not read the case input lables;" in message
        assert (f"it reads {', '.join(reads)};" if reads else "it reads no case inputs;") in message
        assert "check the spelling, or drop it" in message
    assert backend.calls == []


@pytest.mark.parametrize(("file", "owner", "keys"), [
    ("criminal-burglary.json", "criminal", "account, debate_focus, defendant, defense_evidence, indictment, plea, "
                                           "prosecution_evidence"),
    ("samvad-theft.json", "samvad", "accused, case_id, charges, defense_evidence, keywords, law, prosecution_evidence, "
                                    "summary, title"),
])
def test_another_procedures_case_is_refused_naming_the_procedure_that_reads_it(file, owner, keys, runs_dir):
    for extra in ([], ["--dry-run"]):
        result = CliRunner().invoke(app, ["run", str(CASES / file), "-b", "scripted", "-p", "decision", *extra])
        assert result.exit_code == 2 and "Traceback" not in result.output
        [line] = [x for x in result.output.splitlines() if x.startswith("error:")]
        assert line == (f"error: {CASES / file}: the decision procedure does not read the case inputs {keys}; it reads "
                        f"no case inputs; this looks like a {owner} case: run it with --procedure {owner}")
        assert "EVIDENCE" not in result.output  # no prompt planned, none sent
    assert RunStore(runs_dir).list() == []


def test_a_misspelt_input_beside_another_procedures_names_both(runs_dir):
    result = CliRunner().invoke(app, ["run", str(CASES / "code-commit.json"), "-b", "scripted", "-p", "classification",
                                      "-i", "lables=joy,anger", "-i", "indictment=theft"])
    assert result.exit_code == 2 and RunStore(runs_dir).list() == []
    assert ("does not read the case inputs indictment, lables; it reads labels, pool, pool_seed; indictment is read by "
            "--procedure criminal; check the spelling of the rest") in result.output


def test_every_shipped_case_is_taken_by_its_own_procedure():
    from courtroom_chat.case import load_case

    files = sorted(CASES.glob("*.json"))
    assert len(files) >= 10
    for file in files:
        case = load_case(file)
        trial = Trial(case, Settings().with_backend("scripted"), store=None, dry_run=True)
        assert set(trial.record.case.inputs) <= set(trial.procedure.inputs) | set(trial.record.case.derived_inputs)


# ---------------------------------------------------------------- what a toy written from the docs found


async def test_a_checked_item_in_a_round_shows_in_that_rounds_section():
    from courtroom_chat.render import Presenter

    events = []
    await Trial(a_case("justices"), Settings().with_backend("scripted"), store=None).run(events.append)
    assert [(e.stage, e.round) for e in events if e.type == "item_checked"] == [("bench", 1), ("bench", 2)]
    stored = [e.model_dump() for e in events]
    before = [{k: v for k, v in e.items() if not (e["type"] == "item_checked" and k == "round")} for e in stored]
    for run in (stored, before):  # a run stored before items carried their round reads the same
        presenter = Presenter()
        for e in parse_events(run):
            presenter.apply(e)
        items = {key: [i.title for i in view.items] for key, view in presenter.stages.items()}
        assert items == {"bench": [], "bench#1": ["Precedent of round 1 · ✅ found"],
                         "bench#2": ["Precedent of round 2 · ✅ found"]}
        text = replay(parse_events(run))
        assert text.index("## Bench · round 1") < text.index("### Precedent of round 1") \
            < text.index("## Bench · round 2") < text.index("### Precedent of round 2")


class Unplanned(toy_procedure.ThreeJustices):
    """The toy as a plugin written without the optional hooks: no ``plan`` (``fragility`` the toy never had)."""

    name = "unplanned"
    plan = Procedure.plan


class Presided(toy_procedure.ThreeJustices):
    """The toy with a presiding judge, a role named as the decision court's is, and a bailiff, a
    role no built-in procedure has (its justices are named as the supreme court's are)."""

    name = "presided"
    roles = (*toy_procedure.ThreeJustices.roles, Role("judge", "Presiding judge", toy_procedure.Opinion),
             Role("bailiff", "Bailiff", toy_procedure.Opinion))


@pytest.fixture
def variants():
    """The toy's variants, registered as a plugin is."""
    for variant in (Unplanned, Presided):
        register(ProcedureInfo(variant.name, f"{variant.name.capitalize()} justices", "", variant))
    yield
    for variant in (Unplanned, Presided):
        unregister(variant.name)


def test_a_dry_run_of_a_procedure_without_a_plan_says_so_in_one_line(variants, runs_dir):
    assert not get("unplanned").defines("plan") and get("justices").defines("plan")
    result = CliRunner().invoke(app, ["run", "-p", "unplanned", "-b", "scripted", "--dry-run", "-q", "Should we affirm?"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "unexpected" not in result.output and "a bug" not in result.output
    [line] = [x for x in result.output.splitlines() if x.strip()]
    assert line == ("error: the unplanned procedure has no plan to show: it defines no plan(), so a dry run cannot "
                    "list its prompts; run it without the dry run (the scripted backend calls no model)")
    ran = CliRunner().invoke(app, ["run", "-p", "unplanned", "-b", "scripted", "-q", "Should we affirm?"])
    assert ran.exit_code == 0 and "Decided by" in ran.stdout, ran.output


async def test_fragility_is_a_declared_optional_hook():
    assert Procedure.fragility.__doc__ and await Procedure.fragility(get("justices"), None) is None
    assert get("decision").defines("fragility") and not get("justices").defines("fragility")
    events = []
    record = await Trial(a_case("justices"), Settings().with_backend("scripted"), store=None, fragility=True).run(
        events.append)
    assert record.outcome.data["fragility"] == {"held": None, "summary": "not available for the three justices"}
    assert [e.state for e in events if e.type == "stage_finished" and e.stage == "fragility"] == ["not run"]


def test_a_plugins_role_reads_its_own_models_table_not_a_built_in_courts_key(variants, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[models]\ndefault = "scripted"\njudge = "anthropic:claude-opus-4-1"\nbailiff = "ollama"\n'
                      'justice = "ollama:qwen3"\n', encoding="utf-8")
    settings = load_settings(config)
    assert str(settings.model_for("judge", "decision")) == "anthropic:claude-opus-4-1"  # as configs have written it
    assert str(settings.model_for("judge")) == "anthropic:claude-opus-4-1"
    assert str(settings.model_for("judge", "presided")) == "scripted"  # not the decision court's judge
    assert str(settings.model_for("justice", "presided")) == "scripted"  # nor the supreme court's justices'
    assert str(settings.model_for("justice", "supreme")) == "ollama:qwen3"
    assert str(settings.model_for("bailiff", "presided")) == "ollama:llama3.2"  # a name no built-in role has
    config.write_text(config.read_text() + '\n[models.presided]\njudge = "ollama:qwen3"\ndefault = "ollama:gemma3"\n',
                      encoding="utf-8")
    settings = load_settings(config)
    assert str(settings.model_for("judge", "presided")) == "ollama:qwen3"
    assert str(settings.model_for("justice", "presided")) == "ollama:gemma3"  # its table's default
    assert str(settings.model_for("bailiff", "presided")) == "ollama:llama3.2"  # the plain key before the table's default
    assert str(settings.model_for("judge", "decision")) == "anthropic:claude-opus-4-1"
    assert str(settings.model_for("jury", "decision")) == "scripted"  # another procedure's table's default is not this one's
    doubles = {spec: ScriptedBackend() for spec in ("ollama:qwen3", "ollama:gemma3", "ollama:llama3.2")}
    trial = Trial(a_case("presided"), settings, store=None, backends=doubles)
    assert trial.record.models == {"justice": "ollama:gemma3", "judge": "ollama:qwen3", "bailiff": "ollama:llama3.2"}
    assert settings.with_models("decision", {"judge": "scripted"}).model_for("judge", "decision").backend == "scripted"
    assert settings.with_models("decision", {"judge": "scripted"}).model_for("judge", "presided").model == "qwen3"


@pytest.mark.parametrize(("table", "message"), [
    ('[models.presided]\njury = "ollama"\n', "[models.presided] unknown role 'jury'; the presided procedure's roles: "
                                             "bailiff, default, judge, justice"),
    ('[models.nosuch]\njudge = "ollama"\n', "[models.nosuch] names no procedure; available: decision, "),
    ('[models.presided]\njudge = "nosuch:model"\n', "[models.presided] judge: unknown backend 'nosuch'"),
])
def test_a_models_table_is_checked_like_the_plain_keys(variants, tmp_path, table, message):
    config = tmp_path / "config.toml"
    config.write_text(table, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_settings(config)
    assert message in str(err.value) and "\n" not in str(err.value)
