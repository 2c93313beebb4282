"""The court in a Jupyter notebook: ``Courtroom()`` is a form, a live trial and its verdict.

    from courtroom_chat.notebook import Courtroom
    court = Courtroom("cases/essay-publish.json", backend="scripted")
    court                        # the form; press Run
    court.result                 # the RunRecord once the run ends
    Courtroom.show(run_id)       # any stored run, drawn again from its events

The run is an asyncio task on the kernel's own loop, so the kernel stays free while the
court sits (``await court.task`` waits for it). Stop cancels the task; the engine saves the
partial record. Errors are shown in the widget as one line, never as a traceback.
"""

from __future__ import annotations

import asyncio
import html
import logging
import os
import re
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import panel
from ..case import ACCEPTED_SUFFIXES, Case, Document, document_from_bytes, load_case, new_case, pasted_document
from ..config import Settings, load_settings
from ..engine import Trial
from ..errors import CaseError, CourtroomError
from ..procedures import asking, available
from ..procedures import get as get_procedure
from ..store import RunStore
from .notebook_view import TrialView

if TYPE_CHECKING:
    from ..backends import Backend
    from ..records import RunRecord

log = logging.getLogger(__name__)

PRESETS = (
    ("config", "As configured"),
    ("local", "Local: the embedded model, offline"),
    ("scripted", "Scripted: no model, instant (demos, tests)"),
    ("anthropic", "Anthropic: Claude (needs ANTHROPIC_API_KEY)"),
    ("ollama", "Ollama: a model on your Ollama server"),
    ("custom", "A model per role…"),
)
MODEL_SUGGESTIONS = ("local", "scripted", "anthropic:claude-sonnet-4-6", "anthropic:claude-haiku-4-5",
                     "ollama:llama3.2")
_FULL = widgets.Layout(width="100%")
_STYLE = {"description_width": "120px"}


def _open_store(store: RunStore | str | os.PathLike[str] | bool | None, settings: Settings | None = None) -> RunStore | None:
    if isinstance(store, RunStore):
        return store
    if store is True or store is None:
        return RunStore.default((settings or load_settings()).runs.dir)
    if store is False:
        return None
    return RunStore(store).existing()  # a mistyped folder is one line, not a new empty folder


class Courtroom(widgets.VBox):
    """The court as a widget: question, evidence and settings, Run and Stop, the trial."""

    def __init__(
        self,
        case: Case | str | os.PathLike[str] | None = None,
        settings: Settings | str | os.PathLike[str] | None = None,
        *,
        backend: str | None = None,
        dry_run: bool = False,
        store: RunStore | str | os.PathLike[str] | bool = True,
        backends: dict[str, Backend] | None = None,
        procedure: str | None = None,
    ):
        problems: list[str] = []
        if settings is not None and not isinstance(settings, (Settings, str, os.PathLike)):
            problems.append(f"settings must be a Settings or the path of a config.toml; got a {type(settings).__name__} "
                            "(using the config in effect)")
            settings = None
        if not isinstance(settings, Settings):
            try:
                settings = load_settings(settings)  # the config in effect, or the config.toml named
            except CourtroomError as exc:
                problems.append(f"{exc} (using the built-in defaults)")
                settings = Settings()
        self.base_settings = settings
        if not isinstance(store, (bool, RunStore, str, os.PathLike)):
            problems.append(f"store must be a folder for the runs, a RunStore, True or False; got a {type(store).__name__} "
                            "(using the default folder)")
            store = True
        self.store = store if isinstance(store, (bool, RunStore)) else RunStore(store)
        self.backends = backends
        self.role_models: dict[str, widgets.Combobox] = {}  # built with the procedure's widgets
        self._edited: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}  # a procedure's form, kept when switching away
        self.result: RunRecord | None = None
        self.error: BaseException | None = None
        self.task: asyncio.Task[None] | None = None
        self.trial: Trial | None = None
        self.documents: dict[str, Document] = {}  # by name: the case's files, then uploads
        self._filed: list[Any] = []  # exhibits filed with the case
        self._case: Case | None = None  # the case given: its procedure's inputs go with the form's question
        question = ""
        if case is not None and not isinstance(case, (Case, str, os.PathLike)):
            problems.append(f"Courtroom's first argument is the case: a Case, or the path of a case .json; got a "
                            f"{type(case).__name__} (pass settings as settings=…)")
            case = None
        if case is not None:
            try:
                loaded = case if isinstance(case, Case) else load_case(case, limits=settings.limits)
            except CourtroomError as exc:
                problems.append(str(exc))
            else:
                question, self._filed, self._case = loaded.question, list(loaded.evidence), loaded
                self.documents = {d.name: d for d in loaded.context}
        names = [info.name for info in available()]
        if procedure is None:  # the procedure the case file names (a criminal case, a transcript), else the decision court
            procedure = self._case.procedure if self._case is not None and self._case.procedure else "decision"
        if procedure not in names:
            problems.append(f"unknown procedure '{procedure}'; use one of {', '.join(names)} (the decision court is shown)")
            procedure = "decision"
        self.procedure = procedure

        self.question = widgets.Textarea(value=question, rows=2, layout=_FULL, description="Question", style=_STYLE)
        self.asking = widgets.HTML()  # what to type for the chosen procedure
        self.upload = widgets.FileUpload(multiple=True, accept=",".join(ACCEPTED_SUFFIXES), description="Add files")
        self.clear_button = widgets.Button(description="Clear files", icon="trash")
        self.pasted = widgets.Textarea(rows=3, layout=_FULL, description="Pasted text", style=_STYLE,
                                       placeholder="Paste text to use as evidence (optional)")
        self.evidence = widgets.HTML()
        self._build_settings(settings, backend, dry_run)
        self.run_button = widgets.Button(description="Run", button_style="primary", icon="gavel")
        self.stop_button = widgets.Button(description="Stop", icon="stop", disabled=True)
        self.message = widgets.HTML()
        self.view = TrialView()
        self.view.preview(get_procedure(self.procedure).stages)
        self._show_asking()
        self.accordion, self.progress, self.verdict = self.view.accordion, self.view.progress, self.view.verdict

        self.upload.observe(self._on_upload, names="value")
        self.clear_button.on_click(self._on_clear)
        self.run_button.on_click(self._on_run)
        self.stop_button.on_click(self._on_stop)
        super().__init__(children=[
            widgets.HTML("<b>⚖ Courtroom</b>: put a question on trial over your evidence."),
            self.asking,
            self.question,
            widgets.HBox([self.upload, self.clear_button]),
            self.evidence,
            self.pasted,
            self.settings_box,
            widgets.HBox([self.run_button, self.stop_button]),
            self.message,
            self.view,
        ])
        self._show_evidence()
        if problems:
            self._say("\n".join(problems), error=True)

    # ------------------------------------------------------------------ the form

    def _build_settings(self, settings: Settings, backend: str | None, dry_run: bool) -> None:
        self.procedure_choice = widgets.Dropdown(options=[(info.title, info.name) for info in available()],
                                                 value=self.procedure, description="Procedure", style=_STYLE,
                                                 layout=widgets.Layout(width="560px"))
        label = dict(PRESETS)
        preset = "config" if backend is None else backend if backend in label else "custom"
        self.preset = widgets.Dropdown(options=[(label[k], k) for k, _ in PRESETS], value=preset, description="Models",
                                       style=_STYLE, layout=widgets.Layout(width="560px"))
        self._custom_backend = backend if preset == "custom" else None
        self.role_box = widgets.VBox()
        self.params_box = widgets.VBox()
        self.budget = widgets.BoundedFloatText(value=settings.budget.max_usd, min=0.0, max=10_000.0, step=0.1,
                                               description="Budget (USD)", style=_STYLE,
                                               tooltip="stop before a stage would pass this; 0 means no cap")
        self.dry_run = widgets.Checkbox(value=dry_run, description="Dry run: show every prompt, call no model",
                                        indent=False)
        self.mirror = widgets.Checkbox(value=False, indent=False, description="Mirror check: also try the negated "
                                       "question with the sides swapped (a second trial)")
        self.fragility = widgets.Checkbox(value=False, indent=False, description="Fragility check: decide again "
                                          "without the evidence the verdict rests on most")
        self.preset.observe(self._on_preset, names="value")
        self.procedure_choice.observe(self._on_procedure, names="value")
        self._procedure_widgets(settings)
        box = widgets.VBox([self.procedure_choice, self.preset, self.role_box, self.params_box, self.budget,
                            self.dry_run, self.mirror, self.fragility])
        self.settings_box = widgets.Accordion(children=[box], titles=("Settings",), selected_index=None)

    def _procedure_widgets(self, settings: Settings) -> None:
        """A model box per role of the chosen procedure, and its Parameters (panel.fields)."""
        proc = get_procedure(self.procedure)
        edited_params, edited_models = self._edited.get(self.procedure, ({}, {}))
        configured = {str(settings.model_for(r.name, self.procedure)) for r in proc.roles}
        chosen = self.preset.value  # new options reset a Dropdown to its first one: keep the choice
        self.preset.options = [(f"{dict(PRESETS)['config']} ({', '.join(sorted(configured))})" if k == "config"
                                else dict(PRESETS)[k], k) for k, _ in PRESETS]
        self.preset.value = chosen
        self.role_models = {
            role.name: widgets.Combobox(value=edited_models.get(role.name)
                                        or self._custom_backend or str(settings.model_for(role.name, self.procedure)),
                                        options=MODEL_SUGGESTIONS, ensure_option=False, description=role.title,
                                        style=_STYLE, layout=widgets.Layout(width="560px"))
            for role in proc.roles
        }
        self.role_box.children = list(self.role_models.values())
        self.role_box.layout.display = None if self.preset.value == "custom" else "none"
        self.params: dict[str, widgets.Widget] = {}
        self._fields = {f.key: f for f in panel.fields(settings.procedure_params(self.procedure))}
        for f in self._fields.values():
            common = {"description": f.key.replace("_", " "), "style": _STYLE, "tooltip": f.label,
                      "layout": widgets.Layout(width="560px")}
            if f.kind == "switch":
                box: widgets.Widget = widgets.Checkbox(value=bool(f.initial), indent=False,
                                                       description=f.label)
            elif f.kind == "select":
                box = widgets.Dropdown(options=list(f.choices), value=str(f.initial), **common)
            elif f.kind == "slider" and f.integer:
                box = widgets.IntSlider(value=int(f.initial), min=int(f.low), max=int(f.high), **common)
            elif f.kind == "slider":
                box = widgets.FloatSlider(value=float(f.initial), min=f.low, max=f.high, step=f.step, **common)
            else:
                box = widgets.Text(value=str(f.initial), **common)
            if f.key in edited_params:
                box.value = edited_params[f.key]
            self.params[f.key] = box
        self.params_box.children = list(self.params.values())

    def _on_procedure(self, change: dict[str, Any]) -> None:
        if change["new"] == self.procedure:  # put back while a trial runs (below)
            return
        if self.running:  # the running trial's stages stay on show; its procedure stays chosen
            self.procedure_choice.value = change["old"]
            self._say("A trial is running: stop it or let it finish before choosing another procedure.", error=True)
            return
        # what was edited stays with its procedure: switching away and back does not lose it
        self._edited[change["old"]] = ({k: box.value for k, box in self.params.items()},
                                       {r: box.value for r, box in self.role_models.items()})
        self.procedure = change["new"]
        self._procedure_widgets(self.base_settings)
        self.view.preview(get_procedure(self.procedure).stages)
        self._show_asking()

    def _show_asking(self) -> None:
        """The chosen procedure's own words on what to type (``procedures.asking``), its Markdown
        emphasis as HTML; its first quoted example is the question box's placeholder."""
        asks = asking(self.procedure)
        text = html.escape(asks, quote=False)
        text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
        text = re.sub(r"\*(.+?)\*", r"<i>\1</i>", text)
        self.asking.value = f"<small>{text}</small>"
        example = re.search(r"\u201c([^\u201d]+)\u201d", asks)
        self.question.placeholder = f"e.g. {example.group(1)}" if example else ""

    def _on_preset(self, change: dict[str, Any]) -> None:
        if change["new"] == "custom":
            try:
                current = self._model_settings(change["old"])
            except CourtroomError:
                current = self.base_settings
            for role, box in self.role_models.items():
                box.value = str(current.model_for(role, self.procedure))
        self.role_box.layout.display = None if change["new"] == "custom" else "none"

    def _model_settings(self, preset: str) -> Settings:
        settings = self.base_settings
        if preset == "custom":
            return settings.with_models(self.procedure, {r: box.value.strip() for r, box in self.role_models.items()})
        if preset != "config":
            return settings.with_backend(preset)
        return settings

    def form_settings(self) -> Settings:
        """The settings the form describes (a ``ConfigError`` if they do not validate)."""
        values = {key: panel.coerce(self._fields[key], box.value) for key, box in self.params.items()}
        settings = self._model_settings(self.preset.value).with_overrides({"budget": {"max_usd": float(self.budget.value)}})
        return settings.with_params(self.procedure, values)

    # ------------------------------------------------------------------ evidence

    def _on_upload(self, change: dict[str, Any]) -> None:
        errors, replaced = [], []
        for item in change["new"]:
            name = str(item["name"])
            try:
                document = document_from_bytes(name, bytes(item["content"]), self.base_settings.limits)
            except CaseError as exc:
                errors.append(str(exc))
                continue
            if name in self.documents:  # the same name again: the newer file is the evidence, said so
                replaced.append(name)
            self.documents[name] = document
        self._show_evidence()
        if errors:
            self._say("\n".join(errors), error=True)
        else:
            self._say(f"{', '.join(replaced)}: replaced by the file uploaded under the same name." if replaced else "")

    def _on_clear(self, _button: Any = None) -> None:
        self.documents.clear()
        self.upload.value = ()
        self._show_evidence()

    def _show_evidence(self) -> None:
        if not self.documents:
            self.evidence.value = "<i>No files attached: the court argues the question alone, or on pasted text.</i>"
            return
        items = ", ".join(f"{html.escape(d.name)} ({d.kind}, {d.lines} lines)" for d in self.documents.values())
        self.evidence.value = f"<b>Evidence:</b> {items}"

    def form_case(self, settings: Settings | None = None) -> Case:
        """The case the form describes (a ``CaseError`` with a one-line message if it is unusable)."""
        limits = (settings or self.base_settings).limits
        documents = list(self.documents.values())
        if self.pasted.value.strip():
            documents.append(pasted_document(self.pasted.value, 1, limits))
        if len(documents) > limits.max_files:
            raise CaseError(f"{len(documents)} evidence files is over the limit of {limits.max_files}; "
                            "remove some or raise [limits] max_files in config.toml")
        case = new_case(self.question.value, documents, self._filed)
        if self._case is not None:  # the case file's procedure, inputs and source stay with the edited form
            case = self._case.model_copy(update={"question": case.question, "context": case.context, "evidence": case.evidence})
        return case

    # ------------------------------------------------------------------ running

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def _on_run(self, _button: Any = None) -> None:
        if self.running:
            return
        self._say("")
        try:
            settings = self.form_settings()
            trial = Trial(self.form_case(settings), settings, procedure=self.procedure, store=self.store,
                          backends=self.backends, dry_run=bool(self.dry_run.value), mirror=bool(self.mirror.value),
                          fragility=bool(self.fragility.value))
        except CourtroomError as exc:
            self._say(str(exc), error=True)
            return
        except Exception as exc:  # a bug: one line here, the traceback in the log, and it is raised
            log.error("building the trial failed", exc_info=True)
            self.error = exc
            self._say(f"internal error: {exc!r}", error=True)
            raise
        self.trial, self.result, self.error = trial, None, None
        self._set_running(True)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a plain script: no loop to share, so the run blocks until its end
            asyncio.run(self._run(trial))
            return
        self.task = loop.create_task(self._run(trial))
        self.task.add_done_callback(self._settled)

    def _settled(self, task: asyncio.Task[None]) -> None:
        """The task is over: Run comes back whatever happened, and nothing escapes as a traceback."""
        self._set_running(False)
        if task.cancelled():  # stopped before the task took its first step: no trial ran
            self._say("Stopped before the trial began; nothing was run or saved.")
        elif task.exception() is not None:  # a bug, already shown and logged by _run
            self.error = task.exception()

    def _on_stop(self, _button: Any = None) -> None:
        if self.running and self.task is not None:
            self.stop_button.disabled = True
            self._say("Stopping…")
            self.task.cancel()

    async def _run(self, trial: Trial) -> None:
        saved = f" (partial record saved as run {trial.run_id})" if trial.store is not None else ""
        try:
            async for event in trial.events():
                self.view.handle(event)
        except asyncio.CancelledError:  # Stop: the engine has saved the partial record
            done = ", ".join(trial.record.stages_completed) or "none"
            self._say(f"Stopped before the verdict; stages completed: {done}{saved}.")
        except CourtroomError as exc:
            self.error = exc
            self._say(f"{exc}{saved}", error=True)
        except Exception as exc:  # a bug: one line here, the traceback in the log, and the task fails with it
            log.error("the run failed", exc_info=True)
            self.error = exc
            self._say(f"internal error: {exc!r}{saved}", error=True)
            raise
        else:
            if trial.store is not None:
                self._say(f"Run {trial.run_id} saved; <code>.result</code> holds its record.", markup=True)
        finally:
            self.result = trial.record
            self.view.result = trial.record
            self.view.close_from(trial.record)
            self._set_running(False)

    def _set_running(self, running: bool) -> None:
        self.run_button.disabled = running
        self.procedure_choice.disabled = running
        self.stop_button.disabled = not running

    def _say(self, text: str, *, error: bool = False, markup: bool = False) -> None:
        body = text if markup else html.escape(text).replace("\n", "<br>")
        if not text:
            self.message.value = ""
        elif error:
            self.message.value = f'<div style="color: #b00020; white-space: normal"><b>Error:</b> {body}</div>'
        else:
            self.message.value = f'<div style="white-space: normal">{body}</div>'

    @property
    def message_text(self) -> str:
        """The message line as plain text (what a person reads)."""
        return html.unescape(re.sub(r"<[^>]+>", "", self.message.value.replace("<br>", "\n")))

    # ------------------------------------------------------------------ stored runs

    @staticmethod
    def show(run: str | RunRecord, store: RunStore | str | os.PathLike[str] | None = None) -> TrialView:
        """Draw a stored run (an id, a unique prefix of one, or a RunRecord) from its events."""
        from ..records import RunRecord

        view = TrialView()
        try:
            record = run if isinstance(run, RunRecord) else _open_store(store).load(str(run))  # type: ignore[union-attr]
            view.replay(record)
        except CourtroomError as exc:  # no such run, or its file damaged
            view.error = exc
            view.show_error(str(exc))
        return view
