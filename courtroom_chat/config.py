"""config.toml -> frozen ``Settings``.

Where settings come from, later ones winning:
  1. the defaults below (they equal the shipped top-level ``config.toml``);
  2. a config file: ``--config FILE``, else ``$COURTROOM_CONFIG``, else ``./config.toml``,
     else the user config dir (``courtroom config path`` prints it);
  3. environment: ``COURTROOM_BACKEND`` sets every role's model at once;
  4. explicit overrides from a front end (CLI flags, chat settings, widget).

Unknown keys and wrong types are ``ConfigError``s naming the key and the file.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import ConfigError

BACKENDS = ("local", "anthropic", "ollama", "openai", "scripted")  # built in; a plugin registers more (backends.known)
DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"  # measured to follow the evidence best (README)


class ModelSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    backend: str  # a registered backend's name (``backends.known``): the built-in ones, or a plugin's
    model: str = ""

    @classmethod
    def parse(cls, text: str, *, where: str = "model") -> ModelSpec:
        from .backends import known

        backend, _, model = text.strip().partition(":")
        if not backend or backend not in known(backend):
            raise ConfigError(
                f"{where}: unknown backend '{backend}' in '{text}'; "
                f"use one of {', '.join(known())} (for example 'anthropic:claude-sonnet-4-6')"
            )
        return cls(backend=backend, model=model)

    def resolved(self, settings: Settings) -> ModelSpec:
        """With the model of the backend's own section ([anthropic] model) where none is named; a
        backend with no section (scripted, a plugin's) is taken as written."""
        section = getattr(settings, self.backend, None) if self.backend in BACKENDS else None
        if self.model or not isinstance(getattr(section, "model", None), str):
            return self
        return ModelSpec(backend=self.backend, model=section.model)

    def __str__(self) -> str:
        return f"{self.backend}:{self.model}" if self.model else self.backend


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Throttle(_Section):
    """Applied by the runtime to every procedure and backend."""

    # Model requests at once to one backend; None: the backend's own bound (its profile: the
    # embedded model's decoding slots, an API server's room for a whole jury at once); 0: no limit.
    max_concurrency: int | None = Field(None, ge=0, le=64)
    # Between the starts of two requests to one backend; None: the backend's own (200 ms to a
    # hosted API with rate limits, none to the embedded model, an Ollama host, an OpenAI-compatible
    # server that batches, or the scripted backend); 0: no delay.
    delay_ms: int | None = Field(None, ge=0, le=60_000)


class Budget(_Section):
    max_usd: float = Field(1.0, ge=0.0)  # 0 disables the cap


class Limits(_Section):
    max_file_bytes: int = Field(2_000_000, ge=1)
    max_files: int = Field(50, ge=1)


class AnthropicSettings(_Section):
    model: str = "claude-sonnet-4-6"
    timeout: float = Field(120.0, gt=0)
    max_retries: int = Field(2, ge=0, le=10)
    max_tokens: int = Field(2048, ge=64)


class OpenAISettings(_Section):
    """Any OpenAI-compatible server: OpenAI, vLLM, llama.cpp's server, LM Studio, OpenRouter."""

    model: str = "gpt-4.1-mini"
    base_url: str = ""  # empty: OpenAI's API; e.g. http://127.0.0.1:8080/v1 (llama.cpp's server, LM Studio)
    api_key_env: str = "OPENAI_API_KEY"  # the environment variable that holds the key (never stored)
    timeout: float = Field(120.0, gt=0)
    max_retries: int = Field(2, ge=0, le=10)
    # How the reply's JSON schema is sent: "json_schema" (response_format with the schema; vLLM and
    # llama.cpp's server decode under it), "json_object", or "none" for a server that takes neither.
    structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    grammar: bool = False  # true where the server enforces the schema as a grammar (vLLM, llama.cpp's server)
    context_window: int = Field(128_000, ge=512)
    price_per_mtok: list[float] = Field(default_factory=list)  # [input, output] $ per million tokens; [] known or $0

    @field_validator("base_url")
    @classmethod
    def _a_url(cls, value: str) -> str:
        from urllib.parse import urlsplit

        text = value.strip()
        if text and (urlsplit(text).scheme not in ("http", "https") or not urlsplit(text).hostname):
            raise ValueError("not a server address; give http[s]://host[:port]/v1, or leave it empty for OpenAI's API")
        return text

    @field_validator("price_per_mtok")
    @classmethod
    def _two_prices(cls, value: list[float]) -> list[float]:
        if value and (len(value) != 2 or min(value) < 0):
            raise ValueError("give two prices, [input, output] in dollars per million tokens, or [] for none")
        return value


class OllamaSettings(_Section):
    host: str = ""  # empty: $OLLAMA_HOST, else http://127.0.0.1:11434
    model: str = "llama3.2"
    timeout: float = Field(300.0, gt=0)
    num_ctx: int = Field(8192, ge=512)

    @field_validator("host")
    @classmethod
    def _a_host(cls, value: str) -> str:
        return ollama_host(value) if value.strip() else ""

    def resolved_host(self) -> str:
        if self.host:
            return self.host
        env = os.environ.get("OLLAMA_HOST", "").strip()
        if env:
            from .errors import ConfigError

            try:
                return ollama_host(env)
            except ValueError as exc:
                raise ConfigError(f"$OLLAMA_HOST {env!r}: {exc}") from None
        return "http://127.0.0.1:11434"


def ollama_host(value: str) -> str:
    """An Ollama server address as Ollama's own client takes it (``host``, ``host:port`` or
    ``http[s]://host[:port][/path]``), checked before any call: a value that is no address is
    one line here rather than "Ollama is not running at not a url" or a traceback later."""
    from urllib.parse import urlsplit

    text = value.strip()
    parts = urlsplit(text if "://" in text else f"http://{text}")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or " " in text or port == -1 or port == 0:
        raise ValueError("not an Ollama address; give host:port or http://host:port (default http://127.0.0.1:11434)")
    return text


# The DRY look-back the embedded runtime (xllamacpp's llama.cpp server) uses when none is sent.
RUNTIME_DRY_LAST_N = 64


class LocalSettings(_Section):
    model: str = "qwen2.5-coder-1.5b"
    n_ctx: int = Field(8192, ge=512)
    threads: int = Field(0, ge=0)  # 0: one per core
    parallel: int = Field(1, ge=1, le=16)  # decoding slots shared by concurrent calls
    # With more than one slot: host memory (MiB) for llama.cpp's prompt cache, from which a slot
    # restores the shared case prefix another slot already read instead of reading it again.
    cache_ram_mib: int = Field(8192, ge=0, le=65536)  # llama.cpp's own default; 0 turns it off
    kv_unified: bool = False  # one KV buffer shared by the slots (llama.cpp --kv-unified)
    # How far back, in tokens, the DRY sampler looks for a run of tokens being repeated
    # (llama.cpp's dry_penalty_last_n; 0 off). 64 is the embedded runtime's own default, which
    # every release decoded with: the reply's last 64 tokens and the prompt's tail, not the
    # evidence further back (bench/dry_copy_probe.py). A larger value also penalises restating
    # evidence read earlier. -1, this setting's old name for "the runtime's default", reads as 64.
    dry_last_n: int = Field(64, ge=-1)
    # How hard DRY penalises a repeat (llama.cpp's dry_multiplier; 0 turns DRY off) and the
    # longest run of tokens it lets repeat unpenalised (dry_allowed_length).
    dry_multiplier: float = Field(0.8, ge=0)
    dry_allowed_length: int = Field(3, ge=1)

    @field_validator("dry_last_n")
    @classmethod
    def _runtime_default(cls, value: int) -> int:
        return RUNTIME_DRY_LAST_N if value == -1 else value


class ScriptedSettings(_Section):
    script: str = ""  # path to a JSON script; empty: replies derived from the case
    latency_ms: int = Field(0, ge=0)  # $COURTROOM_SCRIPTED_LATENCY_MS wins when set


class RunsSettings(_Section):
    dir: str = ""  # empty: the user data dir


class KBSettings(_Section):
    """The legal knowledge base (courtroom_chat/kb.py): its corpus, its vector store, its search."""

    corpus: str = ""  # a folder of statute JSON files; empty: $COURTROOM_KB_CORPUS, else ../shared/data/india_law
    user_corpus: str = ""  # a folder of your own text, Markdown, PDF or JSON files, added to the corpus
    store: Literal["embedded", "server"] = "embedded"  # embedded: Chroma's persistent client; server: `chroma run`
    path: str = ""  # the embedded store's folder; empty: the user cache dir's kb/
    host: str = "127.0.0.1"  # the server store
    port: int = Field(8000, ge=1, le=65535)
    method: Literal["embedding", "bm25", "hybrid"] = "hybrid"
    # add the statutes' terms for a query's everyday words (courtroom_chat/legal_terms.toml): off,
    # to the lexical search, or to both searches
    expand: Literal["off", "lexical", "both"] = "off"
    # everyday situations indexed beside the provisions they are about (courtroom_chat/situations/):
    # "auto" the files shipped for the bundled corpus, "off" none, or a JSON file of key -> text.
    # Off until the bench's verdicts are measured with them (they change what its judge retrieves).
    situations: str = "off"
    chunk_chars: int = Field(900, ge=200, le=4000)  # a chunk's text, its heading included


class InjectionSettings(_Section):
    # A model's second opinion on evidence that gives orders (screening.py), beside the
    # deterministic scan that always runs. auto: on where the screener's model is Claude.
    second_opinion: Literal["auto", "on", "off"] = "auto"
    chunk_chars: int = Field(6000, ge=500, le=200_000)  # one screener call per piece of a document


class ChatSettings(_Section):
    """What a chat user may choose in the settings panel; the operator's config bounds it."""

    # Model specs ("backend:model") a chat user may pick for any role, besides those [models]
    # names and the scripted demo. A chat user never types a model or a path.
    models: list[str] = Field(default_factory=list)

    @field_validator("models")
    @classmethod
    def _specs(cls, value: list[str]) -> list[str]:
        for text in value:
            ModelSpec.parse(text, where="[chat] models")
        return value


class Settings(_Section):
    """Every setting of a trial. Frozen: derive a changed copy with ``with_overrides``."""

    # A role's model: ``judge = "anthropic"``; a procedure's own table, ``[models.<procedure>]``,
    # names its roles' (and its ``default``) before these (``model_for``).
    models: dict[str, str | dict[str, str]] = Field(default_factory=lambda: {"default": DEFAULT_MODEL})
    procedures: dict[str, dict[str, Any]] = Field(default_factory=lambda: _procedure_defaults({}))
    budget: Budget = Budget()
    throttle: Throttle = Throttle()
    limits: Limits = Limits()
    anthropic: AnthropicSettings = AnthropicSettings()
    ollama: OllamaSettings = OllamaSettings()
    openai: OpenAISettings = OpenAISettings()
    local: LocalSettings = LocalSettings()
    scripted: ScriptedSettings = ScriptedSettings()
    runs: RunsSettings = RunsSettings()
    kb: KBSettings = KBSettings()
    injection: InjectionSettings = InjectionSettings()
    chat: ChatSettings = ChatSettings()

    @model_validator(mode="before")
    @classmethod
    def _fill(cls, data: Any) -> Any:
        """Every registered procedure's table, its keys filled in with their defaults."""
        if isinstance(data, dict) and isinstance(data.get("procedures", {}), dict):
            data = {**data, "procedures": _procedure_defaults(data.get("procedures", {}))}
        return data

    @model_validator(mode="after")
    def _declared(self) -> Settings:
        """Every [models] key names a declared role (or ``default``) and a known backend; every
        [procedures.<name>] table is that procedure's ``Parameters``."""
        from .procedures import available, known_roles, parameters_model, procedure_roles

        roles = known_roles()
        registered = {info.name for info in available()}
        for key, value in self.models.items():
            if isinstance(value, dict):
                if key not in registered:
                    continue  # a procedure registered once (a plugin since removed): refused only in a config file
                own = procedure_roles(key)
                for role, spec in value.items():
                    if role not in own:
                        raise ValueError(f"[models.{key}] unknown role '{role}'; the {key} procedure's roles: "
                                         f"{', '.join(sorted(own))}")
                    ModelSpec.parse(spec, where=f"[models.{key}] {role}")
                continue
            if key != "default" and key not in roles:
                raise ValueError(f"[models] unknown role '{key}'; known roles: default, {', '.join(sorted(roles))}"
                                 + (f" (a table [models.{key}] names that procedure's roles)" if key in registered else ""))
            ModelSpec.parse(value, where=f"[models] {key}")
        for name, values in self.procedures.items():
            if name not in registered:
                continue  # a procedure registered once (a plugin since removed): refused only in a config file
            try:
                parameters_model(name).model_validate(values)
            except ValidationError as exc:
                err = exc.errors()[0]
                key = ".".join(str(p) for p in err["loc"])
                if err["type"] == "extra_forbidden":
                    known = ", ".join(parameters_model(name).model_fields)
                    raise ValueError(f"unknown key '{key}' in [procedures.{name}]; known keys: {known}") from None
                shown = f" (got {err['input']!r})" if "input" in err and not isinstance(err["input"], dict) else ""
                msg = err["msg"].removeprefix("Value error, ")
                raise ValueError(f"[procedures.{name}] {key}: {msg}{shown}".replace("] : ", "]: ")) from None
        return self

    def model_for(self, role: str, procedure: str = "") -> ModelSpec:
        """The resolved model of ``procedure``'s ``role``, the first set of: [models.<procedure>]
        role (or an alias of it); [models] role, where that procedure reads the plain keys
        (``procedures.reads_plain_keys``: the built-in ones do, a plugin's ``judge`` does not);
        [models.<procedure>] default; [models] default. No ``procedure``: the first registered one
        that declares the role (the decision court's judge for "judge")."""
        from .procedures import declared_by, reads_plain_keys, role_keys

        procedure = procedure or declared_by(role)
        keys = role_keys(role, procedure)
        own = self.models.get(procedure) if procedure else None
        tables = [(f"[models.{procedure}]", own)] if isinstance(own, dict) else []
        if reads_plain_keys(procedure, keys):
            tables.append(("[models]", self.models))
        for where, table in tables:
            for key in keys:
                if isinstance(table.get(key), str):
                    return ModelSpec.parse(table[key], where=f"{where} {key}").resolved(self)
        where, table = tables[0] if tables and "default" in tables[0][1] else ("[models]", self.models)
        return ModelSpec.parse(table.get("default", DEFAULT_MODEL), where=f"{where} default").resolved(self)

    def model_specs(self) -> list[str]:
        """Every model [models] names, in its plain keys and its procedures' tables."""
        return [spec for value in self.models.values() for spec in (value.values() if isinstance(value, dict) else [value])]

    def with_models(self, procedure: str, models: dict[str, str]) -> Settings:
        """A copy with ``models`` (role: spec) set in [models.<procedure>], where they name that
        procedure's roles only (the chat's and notebook's model choices)."""
        own = self.models.get(procedure)
        return self.with_overrides({"models": {**self.models, procedure: {**(own if isinstance(own, dict) else {}),
                                                                          **models}}})

    def procedure_params(self, name: str) -> Any:
        """The [procedures.<name>] table as the procedure's ``Parameters`` (defaults filled in)."""
        from .procedures import parameters_model

        return parameters_model(name).model_validate(self.procedures.get(name, {}))

    def with_overrides(self, overrides: dict[str, dict[str, Any]]) -> Settings:
        """A copy with ``{section: {key: value}}`` applied and validated again."""
        data = self.model_dump()
        for section, values in overrides.items():
            if section not in data:
                raise ConfigError(f"unknown config section [{section}]")
            data[section] = {**data[section], **values}
        if "models" in overrides and "default" not in overrides["models"]:
            data["models"].setdefault("default", DEFAULT_MODEL)
        return _validate(data, "settings")

    def with_backend(self, backend: str) -> Settings:
        """Every role on one backend (``scripted``, ``local``, ``anthropic:claude-…``)."""
        ModelSpec.parse(backend, where="backend")
        data = self.model_dump()
        data["models"] = {"default": backend}
        return _validate(data, "settings")

    def with_params(self, procedure: str, values: dict[str, Any]) -> Settings:
        """A copy with [procedures.<procedure>] keys changed (chat and notebook settings panels)."""
        data = self.model_dump()
        data["procedures"] = {**data["procedures"], procedure: {**data["procedures"].get(procedure, {}), **values}}
        return _validate(data, "settings")


def _procedure_defaults(given: dict[str, Any]) -> dict[str, Any]:
    from .procedures import available, parameters_model

    out = {}
    for info in available():
        defaults = parameters_model(info.name)().model_dump()
        table = given.get(info.name, {})
        out[info.name] = {**defaults, **table} if isinstance(table, dict) else table
    out.update({k: v for k, v in given.items() if k not in out})
    return out


LEGACY_SECTIONS = ("parameters", "validation")  # before procedures had tables of their own


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A config of an earlier release: [parameters] and [validation] were the decision court's."""
    legacy = {k: data[k] for k in LEGACY_SECTIONS if isinstance(data.get(k), dict)}
    if not legacy:
        return data
    data = {k: v for k, v in data.items() if k not in LEGACY_SECTIONS}
    procedures = dict(data.get("procedures") or {})
    merged = {**legacy.get("parameters", {}), **legacy.get("validation", {})}
    procedures["decision"] = {**merged, **procedures.get("decision", {})}
    data["procedures"] = procedures
    return data


def _validate(data: dict[str, Any], source: str, *, file: bool = False) -> Settings:
    legacy = [(section, key) for section in LEGACY_SECTIONS if isinstance(data.get(section), dict) for key in data[section]]
    if legacy:  # named in the section the person wrote, not the one it is read into
        from .procedures import parameters_model

        known = parameters_model("decision").model_fields
        for section, key in legacy:
            if key not in known:
                raise ConfigError(f"{source}: unknown key '{key}' in [{section}] (an earlier release's section, now "
                                  f"[procedures.decision]); known keys: {', '.join(known)}")
    data = upgrade(data)
    if file:  # a table of a procedure not registered here: refused in a file, kept in a stored run's settings
        from .procedures import available

        names = [info.name for info in available()]
        for section in ("procedures", "models"):
            tables = data.get(section) if isinstance(data.get(section), dict) else {}
            for name, value in tables.items():
                if (section == "procedures" or isinstance(value, dict)) and name not in names:
                    raise ConfigError(f"{source}: [{section}.{name}] names no procedure; available: {', '.join(names)}")
    if isinstance(data.get("models"), dict) and data["models"] and "default" not in data["models"]:
        data = {**data, "models": {"default": DEFAULT_MODEL, **data["models"]}}
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, source)) from None
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def _describe(exc: ValidationError, source: str) -> str:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    where = f"[{loc[0]}] {'.'.join(loc[1:])}".strip() if loc else "(top level)"
    if not loc:  # a rule across sections ([models] roles, [procedures.<name>] tables)
        return f"{source}: {err['msg'].removeprefix('Value error, ')}"
    if err["type"] == "extra_forbidden":
        if len(loc) == 1:
            return f"{source}: unknown section [{loc[0]}]; known sections: {', '.join(Settings.model_fields)}"
        section = Settings.model_fields[loc[0]].annotation
        known = ", ".join(section.model_fields) if isinstance(section, type) else ""
        return f"{source}: unknown key '{loc[-1]}' in [{loc[0]}]; known keys: {known}"
    value = err.get("input")
    shown = f" (got {value!r})" if not isinstance(value, dict) else ""
    msg = err["msg"].removeprefix("Value error, ")
    return f"{source}: {where}: {msg}{shown}"


def user_config_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("courtroom-chat")) / "config.toml"


def find_config(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The config file in effect, or None for the built-in defaults."""
    if explicit:
        path = Path(explicit)
        if path.is_dir():
            raise ConfigError(f"config {path} is a folder; give the .toml file (e.g. {path / 'config.toml'})")
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}; create one with `courtroom config init {path}`")
        return path
    env = os.environ.get("COURTROOM_CONFIG")
    if env:
        return find_config(env)
    for candidate in (Path.cwd() / "config.toml", user_config_path()):
        if candidate.is_file():
            return candidate
    return None


def load_settings(path: str | os.PathLike[str] | None = None, *, env: bool = True) -> Settings:
    """Settings from the config file in effect plus ``COURTROOM_BACKEND``."""
    found = find_config(path)
    data: dict[str, Any] = {}
    if found is not None:
        try:
            data = tomllib.loads(found.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{found}: not valid TOML ({exc}); fix the file or rewrite it with `courtroom config init`") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{found}: cannot be read ({exc})") from None
    settings = _validate(data, str(found) if found else "defaults", file=True)
    backend = os.environ.get("COURTROOM_BACKEND", "").strip() if env else ""
    if backend:
        try:
            settings = settings.with_backend(backend)
        except ConfigError as exc:
            raise ConfigError(f"COURTROOM_BACKEND: {exc}") from None
    return settings


def write_config(path: str | os.PathLike[str], settings: Settings | None = None, *, force: bool = False) -> Path:
    """Write ``settings`` (default: the defaults) as TOML with tomli-w."""
    import tomli_w

    if not str(path).strip():
        raise ConfigError("no path given for the config file; give one such as config.toml")
    target = Path(path)
    if target.is_dir():
        raise ConfigError(f"{target} is a folder; give the path of a file in it, such as {target / 'config.toml'}")
    if target.exists() and not force:
        raise ConfigError(f"{target} already exists; pass --force to overwrite it")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # the user config's folder may not exist yet
        target.write_text(tomli_w.dumps((settings or Settings()).model_dump(exclude_none=True)), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {target} ({exc.strerror or exc}); give a path in a folder you can write") from None
    return target
