from __future__ import annotations

import tomllib

import pytest

from courtroom_chat.config import ModelSpec, Settings, load_settings, write_config
from courtroom_chat.errors import ConfigError
from tests.conftest import ROOT


def test_shipped_config_equals_the_defaults():
    assert load_settings(ROOT / "config.toml") == Settings()
    assert str(Settings().model_for("juror")) == "local:qwen2.5-coder-1.5b"


def test_config_init_writes_a_loadable_file_and_refuses_to_overwrite(tmp_path):
    path = write_config(tmp_path / "c.toml")
    assert tomllib.loads(path.read_text())["procedures"]["decision"]["jury_size"] == 5
    assert load_settings(path) == Settings()
    with pytest.raises(ConfigError, match="already exists; pass --force"):
        write_config(path)
    write_config(path, force=True)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[procedures.decision]\njury_sise = 5\n", "unknown key 'jury_sise' in [procedures.decision]"),
        ("[paramters]\njury_size = 5\n", "unknown section [paramters]"),
        ('[procedures.decision]\njury_size = "five"\n',
         "[procedures.decision] jury_size: Input should be a valid integer (got 'five')"),
        # every procedure's table takes its own types only: `judges = true` was one judge, "yes" a flag
        ("[procedures.classification]\njudges = true\n",
         "[procedures.classification] judges: Input should be a valid integer (got True)"),
        ('[procedures.classification]\nprecedents = "2"\n',
         "[procedures.classification] precedents: Input should be a valid integer (got '2')"),
        ('[procedures.criminal]\nhost = "no"\n', "[procedures.criminal] host: Input should be a valid boolean (got 'no')"),
        ("[procedures.decision]\njury_size = 3\njury_threshold = 4\n", "jury_threshold (4) is larger than jury_size (3)"),
        ("[procedures.decision]\njuror_temperature_min = 1.5\njuror_temperature_max = 0.5\n",
         "juror_temperature_min is larger"),
        ("[procedures.decison]\njury_size = 5\n", "[procedures.decison] names no procedure; available: decision"),
        ('[models]\njudge = "gpt:4"\n', "unknown backend 'gpt'"),
        ('[models]\nbailiff = "local"\n', "[models] unknown role 'bailiff'; known roles: default,"),
        # A config of the first release: [parameters]/[validation] were the decision court's.
        ("[parameters]\njury_sise = 5\n", "unknown key 'jury_sise' in [parameters] (an earlier release's section, now "
                                         "[procedures.decision])"),
        ("[validation]\nfoo = 1\n", "unknown key 'foo' in [validation]"),
        ("[budget]\nmax_usd = -1\n", "[budget] max_usd: Input should be greater than or equal to 0"),
        ("[parameters\n", "not valid TOML"),
    ],
)
def test_bad_config_names_the_key_and_the_file(tmp_path, toml, message):
    path = tmp_path / "bad.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_settings(path)
    assert message in str(err.value)
    assert str(path) in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_config_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "nope.toml")


def test_environment_backend_overrides_every_role(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COURTROOM_BACKEND", "anthropic")
    settings = load_settings()
    assert {str(settings.model_for(r)) for r in ("prosecutor", "defense", "juror", "judge")} == {"anthropic:claude-sonnet-4-6"}
    monkeypatch.setenv("COURTROOM_BACKEND", "bogus")
    with pytest.raises(ConfigError, match="COURTROOM_BACKEND: .*unknown backend 'bogus'"):
        load_settings()


def test_config_found_in_working_directory_and_env(monkeypatch, tmp_path):
    (tmp_path / "config.toml").write_text("[procedures.decision]\njury_size = 7\njury_threshold = 4\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings().procedure_params("decision").jury_size == 7
    other = tmp_path / "other.toml"
    other.write_text("[parameters]\njury_size = 3\njury_threshold = 2\n")  # the first release's layout still loads
    monkeypatch.setenv("COURTROOM_CONFIG", str(other))
    assert load_settings().procedure_params("decision").jury_size == 3


def test_juror_temperatures_spread_from_min_to_max():
    assert Settings().procedure_params("decision").juror_temperatures() == [0.2, 0.35, 0.5, 0.65, 0.8]
    one = Settings().with_params("decision", {"jury_size": 1, "jury_threshold": 1})
    assert one.procedure_params("decision").juror_temperatures() == [0.5]


def test_models_default_and_per_role_with_the_jury_alias():
    s = Settings().with_overrides({"models": {"default": "scripted", "jury": "ollama", "judge": "anthropic"}})
    assert str(s.model_for("prosecutor")) == "scripted"
    assert str(s.model_for("juror")) == "ollama:llama3.2"  # "jury" names the juror role
    assert str(s.model_for("judge")) == "anthropic:claude-sonnet-4-6"


def test_model_spec_parsing_and_defaults():
    s = Settings()
    assert str(ModelSpec.parse("ollama").resolved(s)) == "ollama:llama3.2"
    assert str(ModelSpec.parse("local:/models/x.gguf")) == "local:/models/x.gguf"
    assert str(ModelSpec.parse("scripted").resolved(s)) == "scripted"


def test_ollama_host_comes_from_config_or_environment(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://10.0.0.5:11434")
    assert Settings().ollama.resolved_host() == "http://10.0.0.5:11434"
    configured = Settings().with_overrides({"ollama": {"host": "http://gpu-box:11434"}})
    assert configured.ollama.resolved_host() == "http://gpu-box:11434"


@pytest.mark.parametrize("host", ["not a url", "http://", "ftp://box:11434", "localhost:99999", "box:0"])
def test_an_ollama_host_that_is_no_address_is_one_line_in_config_and_environment(monkeypatch, tmp_path, host):
    path = tmp_path / "config.toml"
    path.write_text(f'[ollama]\nhost = "{host}"\n')
    with pytest.raises(ConfigError, match=r"\[ollama\] host: not an Ollama address; give host:port or http://host:port"):
        load_settings(path)
    monkeypatch.setenv("OLLAMA_HOST", host)
    with pytest.raises(ConfigError, match=rf"^\$OLLAMA_HOST '{host}': not an Ollama address"):
        Settings().ollama.resolved_host()


@pytest.mark.parametrize("host", ["localhost:11434", "127.0.0.1", "http://[::1]:11434", "https://gpu-box/ollama"])
def test_ollama_addresses_as_its_own_client_takes_them(monkeypatch, host):
    monkeypatch.setenv("OLLAMA_HOST", host)
    assert Settings().ollama.resolved_host() == host
    assert Settings().with_overrides({"ollama": {"host": host}}).ollama.resolved_host() == host


async def test_a_bad_ollama_host_from_the_environment_starts_no_trial(monkeypatch, tmp_path):
    from courtroom_chat.case import load_case
    from courtroom_chat.engine import Trial
    from courtroom_chat.store import RunStore
    from tests.conftest import CASES

    monkeypatch.setenv("OLLAMA_HOST", "x y")
    store = RunStore(tmp_path)
    with pytest.raises(ConfigError, match="OLLAMA_HOST"):
        await Trial(load_case(CASES / "code-commit.json"), Settings().with_backend("ollama"), store=store).run()
    assert not list(tmp_path.glob("*.json"))
