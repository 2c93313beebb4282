"""The Chainlit chat: handlers that gather a case and render the trial's events.

Start it with ``courtroom chat`` (or ``chainlit run courtroom_chat/frontends/chat_app.py``).
Importing this module registers the handlers; it opens no client, backend or database:
those are made per session and per trial. It reads the chat users file, because password
login is switched on only when users are configured.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine
from contextlib import aclosing
from typing import Any

import chainlit as cl
from chainlit.config import config as chainlit_config
from chainlit.data import get_data_layer

from ..case import Case, new_case
from ..config import Settings, load_settings
from ..engine import Trial
from ..errors import BudgetExceeded, CourtroomError
from ..procedures import DEFAULT_ASK, asking, available
from ..procedures import get as get_procedure
from ..store import RunStore
from . import chat_page
from .chat_data import ChatDataLayer
from .chat_inputs import Evidence, apply_values, checks, pasted, read_uploads, settings_values, split_message, widgets
from .chat_users import ChatUsers, LoginGuard
from .chat_view import SessionCosts, TrialView, verdict_actions

log = logging.getLogger("courtroom_chat.chat")
chat_page.install()  # no web fonts or CDN on the page; steps titled without "Used"
AUTHOR = "Court"
SETTINGS = ("The ⚙️ settings choose the models and the budget, or a dry run that only shows the prompts. "
            "The readme explains what a verdict means.")


def welcome(procedure: str) -> str:
    """The first message of a chat: what to type in this profile, then what the settings do."""
    return (f"{asking(procedure)} Attach files with 📎; text pasted under the question's first line is "
            f"evidence too.\n\n{SETTINGS}")


class ChatState:
    """What one chat session holds between messages (never shared between sessions)."""

    def __init__(self) -> None:
        self.pending = Evidence()  # evidence waiting for its question
        self.costs = SessionCosts()


def _state() -> ChatState:
    state = cl.user_session.get("court")
    if not isinstance(state, ChatState):
        state = ChatState()
        cl.user_session.set("court", state)
    return state


def _owner() -> str:
    user = cl.context.session.user
    return user.identifier if user else ""


def _store(settings: Settings) -> RunStore:
    return RunStore.default(settings.runs.dir)


def _base_settings() -> Settings:
    return load_settings()


def _chat_settings(base: Settings | None = None) -> tuple[Settings, bool]:
    """The settings of the next trial: config.toml (``base``, when the caller already read it)
    plus this session's panel, and dry run."""
    values = dict(cl.context.session.chat_settings or {})
    return apply_values(base or _base_settings(), values, _procedure()), bool(values.get("dry_run"))


def _checks() -> dict[str, bool]:
    """The panel's mirror and fragility switches, for the next trial."""
    return checks(dict(cl.context.session.chat_settings or {}))


def _procedure() -> str:
    profile = cl.context.session.chat_profile
    for info in available():
        if profile in (info.title, info.name):
            return info.name
    return available()[0].name


def _runs() -> list[str]:
    return list(cl.user_session.get("run_ids") or [])


def _notice(message: Any) -> Any:
    """A message that is not a verdict: Chainlit puts its thumbs on the last assistant message
    of each exchange, and feedback belongs on verdicts only."""
    message.type = "system_message"
    return message


async def _say(text: str, *, error: bool = False) -> None:
    if error:
        await _notice(cl.ErrorMessage(content=text, author=AUTHOR)).send()
    else:
        await _notice(cl.Message(content=text, author=AUTHOR)).send()


# ---------------------------------------------------------------- the trial


_running: set[asyncio.Task[Any]] = set()  # the tasks running a trial now, stopped cleanly at shutdown


@cl.on_app_shutdown
async def stop_trials() -> None:
    """The server is stopping (SIGTERM, SIGINT): stop every trial as the Stop button does, so each
    saves its partial record, and wait for them (issue 83: stopping the server mid-trial left an
    empty runs folder while the thread showed the jurors' steps)."""
    tasks = [t for t in _running if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=15)


async def run_trial(case: Case, *, dry_run: bool | None = None, base: Settings | None = None) -> TrialView | None:
    """Run one trial and render it; every failure becomes a message, never a verdict."""
    task = asyncio.current_task()
    if task is not None:
        _running.add(task)
        task.add_done_callback(_running.discard)
    state = _state()
    try:
        settings, dry = _chat_settings(base)
        trial = Trial(case, settings, procedure=_procedure(), dry_run=dry if dry_run is None else dry_run,
                      owner=_owner(), **_checks())
    except CourtroomError as exc:
        await _say(f"**The trial could not start:** {exc}", error=True)
        return None
    view = TrialView(state.costs, AUTHOR)
    saved = f"The partial record was saved as run `{trial.run_id}`." if trial.store else ""
    try:
        async with aclosing(trial.events()) as events:
            async for event in events:
                await view.show(event)
    except asyncio.CancelledError:
        await view.close_open("stopped")
        done = view.stage_titles(trial.record.stages_completed)
        await _say(f"⏹ **Trial stopped** before the verdict. Stages finished: {done}. {saved}")
        raise
    except BudgetExceeded as exc:
        await view.close_open("budget stop")
        cap = (base or _base_settings()).budget.max_usd
        more = (f"Raise the budget cap in the chat settings (up to ${cap:g}, the operator's limit) to go on"
                if cap and settings.budget.max_usd < cap else
                "Raise the budget cap in the chat settings to go on" if not cap else
                "This is the operator's limit: ask them to raise [budget] max_usd, or choose a cheaper model")
        await _say(f"💸 **Budget stop:** {exc}. {more}. {saved}", error=True)
    except CourtroomError as exc:
        await view.close_open("failed")
        done = view.stage_titles(trial.record.stages_completed)
        await _say(f"**The trial failed:** {exc}\n\nStages finished: {done}. {saved}", error=True)
    except Exception as exc:  # a bug in the engine: log it, show one line
        log.exception("trial %s failed", trial.run_id)
        await view.close_open("failed")
        await _say(f"**The trial failed with an internal error** ({type(exc).__name__}); details are in the "
                   f"server log. {saved}", error=True)
    finally:
        await _remember(trial, view)
    return view


async def _remember(trial: Trial, view: TrialView) -> None:
    """Keep the run (and its verdict message) with the thread, so actions, feedback and a
    resumed thread find it."""
    if trial.store is not None:
        cl.user_session.set("run_ids", [*_runs(), trial.run_id])
    if view.verdict_message is not None:
        verdicts = dict(cl.user_session.get("verdicts") or {})
        verdicts[view.verdict_message.id] = trial.run_id
        cl.user_session.set("verdicts", verdicts)
    session = cl.context.session
    data_layer = get_data_layer()
    if data_layer is not None and session.has_first_interaction:
        try:
            await data_layer.update_thread(thread_id=session.thread_id, metadata=session.to_persistable())
        except Exception:  # persistence must not break the chat
            log.exception("could not save the thread's metadata")


async def _in_task(work: Coroutine[Any, Any, Any]) -> None:
    """Run ``work`` as the session's current task, so the stop button cancels it."""
    session, emitter = cl.context.session, cl.context.emitter
    running = session.current_task
    if running is not None and not running.done():
        work.close()
        await _say("A trial is already running here; wait for it or stop it first.", error=True)
        return

    async def body() -> None:
        await emitter.task_start()
        try:
            await work
        except asyncio.CancelledError:
            pass
        finally:
            await emitter.task_end()

    session.current_task = asyncio.create_task(body())


# ---------------------------------------------------------------- gathering a case


async def _refuse(rejected: list[str]) -> None:
    """One message naming every file that is not evidence, each with its reason."""
    if rejected:
        await _say("**Not accepted as evidence:**\n" + "\n".join(f"- {r}" for r in rejected), error=True)


async def _ask_for_evidence(question: str, limits: Any) -> Evidence | None:
    """None: the person did not answer. An empty Evidence: proceed on the question alone."""
    upload = chainlit_config.features.spontaneous_file_upload
    reply = await _notice(cl.AskActionMessage(
        content=f"**{question}**\n\nNo evidence is attached. The court argues best over evidence: files, "
                "or text pasted under the question.",
        actions=[cl.Action(name="attach", payload={}, label="📎 Attach evidence"),
                 cl.Action(name="proceed", payload={}, label="Proceed on the question alone")],
        author=AUTHOR, timeout=600,
    )).send()
    if reply is None:
        return None
    if reply.get("name") != "attach":
        return Evidence()
    files = await _notice(cl.AskFileMessage(
        content="Attach the evidence files.", accept=upload.accept if upload and upload.accept else ["text/plain"],
        max_files=upload.max_files if upload and upload.max_files else 10,
        max_size_mb=upload.max_size_mb if upload and upload.max_size_mb else 2, author=AUTHOR, timeout=600,
    )).send()
    if not files:
        return None
    return read_uploads([(f.name, f.path) for f in files], limits)


async def _settings_panel(kept: dict[str, Any] | None = None) -> Settings:
    """Send the settings panel of the chat profile's procedure (config.toml read once); a broken
    config is named in one line and the built-in defaults apply."""
    procedure = _procedure()
    try:
        base = _base_settings()
    except CourtroomError as exc:
        await _say(f"**The configuration has a problem:** {exc}. Built-in defaults apply.", error=True)
        base = Settings()
    values = {**settings_values(base, procedure), **(kept or {})}
    await cl.ChatSettings(widgets(values, procedure, base)).send()
    return base


@cl.on_chat_start
async def start() -> None:
    cl.user_session.set("court", ChatState())
    await _settings_panel()
    await _say(welcome(_procedure()))


@cl.on_message
async def on_message(message: cl.Message) -> None:
    state = _state()
    try:
        base = _base_settings()  # config.toml is read once per message
        limits = base.limits
    except CourtroomError as exc:
        await _say(f"**The configuration has a problem:** {exc}", error=True)
        return
    question, text = split_message(message.content)
    uploads = [(el.name, el.path) for el in message.elements or [] if getattr(el, "path", None)]
    evidence = read_uploads(uploads, limits, already=len(state.pending.documents),
                            taken={d.name for d in state.pending.documents})
    evidence.extend(pasted(text, len(state.pending.documents) + len(evidence.documents) + 1, limits))
    await _refuse(evidence.rejected)
    state.pending.documents += evidence.documents
    what = "the yes/no question" if asking(_procedure()) == DEFAULT_ASK else "the question"
    if question is None:
        if state.pending.documents:
            names = ", ".join(d.name for d in state.pending.documents)
            await _say(f"Evidence received: {names}. Now ask {what} the court should decide.")
        elif not evidence.rejected:  # a message of spaces only
            await _say(f"The message is empty: ask {what} the court should decide, and attach the evidence.")
        return
    if why := get_procedure(_procedure()).question_problem(question):  # "hi", "What is this?": before asking for evidence
        kept = f" Your evidence ({', '.join(d.name for d in state.pending.documents)}) stays attached." if state.pending.documents else ""
        await _say(f"{why[0].upper()}{why[1:]}.{kept}", error=True)
        return
    if not state.pending.documents:
        more = await _ask_for_evidence(question, limits)
        if more is None:
            await _say("No evidence arrived, so no trial yet. Ask again with files attached, or choose to "
                       "proceed on the question alone.")
            return
        await _refuse(more.rejected)
        if more.rejected and not more.documents:  # every file refused: no trial on the question alone unasked
            await _say("None of those files could be used, so no trial yet. Ask again with other files, or choose "
                       "to proceed on the question alone.")
            return
        state.pending.documents += more.documents
    try:
        case = new_case(question, state.pending.documents)
    except CourtroomError as exc:
        await _say(str(exc), error=True)
        return
    attached, state.pending = state.pending, Evidence()
    if await run_trial(case, base=base) is None and attached.documents:  # it could not start: nothing is lost
        state.pending.documents[:0] = attached.documents
        names = ", ".join(d.name for d in attached.documents)
        await _say(f"Your evidence ({names}) is still attached: ask again and it goes with the question.")


# ---------------------------------------------------------------- settings, profiles, resume


@cl.on_settings_update
async def settings_update(values: dict[str, Any]) -> None:
    try:
        settings = apply_values(_base_settings(), values, _procedure())
    except CourtroomError as exc:
        await _say(f"**These settings cannot be used:** {exc}. The next trial will fail until this is fixed.",
                   error=True)
        return
    mode = "dry run (no model is called)" if values.get("dry_run") else "trial"
    roles = get_procedure(_procedure()).roles
    models = ", ".join(f"{role.name} `{settings.model_for(role.name, _procedure())}`" for role in roles)
    await _say(f"Settings saved. Next {mode}: {models}.")


@cl.set_chat_profiles
async def profiles(user: Any = None, language: Any = None) -> list[cl.ChatProfile]:
    return [cl.ChatProfile(name=info.title, markdown_description=info.description, default=i == 0)
            for i, info in enumerate(available())]


@cl.on_chat_resume
async def resume(thread: dict[str, Any]) -> None:
    state = ChatState()
    cl.user_session.set("court", state)
    base = await _settings_panel(cl.context.session.chat_settings)
    store = _store(base)
    for run_id in _runs():
        try:
            record = store.load(run_id)
        except CourtroomError:
            continue
        state.costs.add(record.cost_by_role(), record.cost_usd)
    for message_id, run_id in (cl.user_session.get("verdicts") or {}).items():
        for action in verdict_actions(run_id):
            await action.send(for_id=message_id)


# ---------------------------------------------------------------- actions and feedback


async def _own_record(payload: dict[str, Any]) -> Any:
    run_id = str(payload.get("run_id", ""))
    if run_id not in _runs():
        await _say("That run does not belong to this conversation.", error=True)
        return None
    try:
        return _store(_base_settings()).load(run_id)
    except CourtroomError as exc:
        await _say(str(exc), error=True)
        return None


@cl.action_callback("export")
async def export(action: cl.Action) -> None:
    from .. import render
    from ..events import parse_events

    record = await _own_record(action.payload)
    if record is None:
        return
    stored = _store(_base_settings()).path_for(record.run_id).read_bytes()
    try:
        markdown = render.replay(parse_events(record.events)).encode()
    except CourtroomError as exc:  # a run file damaged on disk
        await _say(str(exc), error=True)
        return
    await _notice(cl.Message(
        content=f"The record of run `{record.run_id}`, as JSON and as Markdown.", author=AUTHOR,
        elements=[cl.File(name=f"courtroom-{record.run_id}.json", content=stored, mime="application/json"),
                  cl.File(name=f"courtroom-{record.run_id}.md", content=markdown, mime="text/markdown")],
    )).send()


@cl.action_callback("rerun")
async def rerun(action: cl.Action) -> None:
    record = await _own_record(action.payload)
    if record is not None:
        await _in_task(run_trial(record.case))


@cl.action_callback("show_prompts")
async def show_prompts(action: cl.Action) -> None:
    record = await _own_record(action.payload)
    if record is not None:
        await _in_task(run_trial(record.case, dry_run=True))


@cl.on_feedback
async def feedback(fb: Any) -> None:
    run_id = (cl.user_session.get("verdicts") or {}).get(fb.forId)
    data_layer = get_data_layer()
    if run_id is None and isinstance(data_layer, ChatDataLayer):
        run_id = (await data_layer.get_step_metadata(fb.forId)).get("run_id")
    if run_id is None or run_id not in _runs():
        return  # feedback on a message that is not a verdict of this conversation
    try:
        _store(_base_settings()).set_feedback(run_id, "up" if fb.value == 1 else "down", fb.comment or None)
    except CourtroomError as exc:  # the run's file deleted or damaged: say the rating was not kept
        await _say(f"Your rating was not stored: {exc}", error=True)


# ---------------------------------------------------------------- persistence and login


@cl.data_layer
def data_layer() -> ChatDataLayer:
    return ChatDataLayer()


_guard = LoginGuard()


async def login(username: str, password: str) -> cl.User | None:
    if _guard.locked(username):  # too many failed logins for this name lately: no password is checked
        log.warning("login refused for %r: %d failed logins within %.0f s", username, _guard.limit, _guard.window)
        return None
    users = ChatUsers.load()  # users added while the server runs can log in
    if await asyncio.to_thread(users.check, username, password):
        _guard.passed(username)
        return cl.User(identifier=username, metadata={"provider": "credentials"})
    _guard.failed(username)
    return None


_users = ChatUsers.load()
if _users.enabled:
    os.environ.setdefault("CHAINLIT_AUTH_SECRET", _users.secret)
    cl.password_auth_callback(login)
