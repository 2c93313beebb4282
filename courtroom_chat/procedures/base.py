"""What a procedure declares, and the defaults it inherits.

A procedure is one module (or package) plus its prompts. At the top it declares its
vocabulary: its roles, its ``Parameters`` (which become ``[procedures.<name>]`` in
config.toml and a settings panel in the chat and the notebook), the case inputs it
accepts, its stages, and where its prompts live. Below that it reads as its stages in
order, each an async function over the runtime (``court.Court``). Everything else (asking
and repairing, budgets, throttling, storing, rendering, replay, dry runs, evaluation, the
scripted backend) belongs to the runtime and is shared.

    class ThreeJustices(Procedure):
        name, title, description = "justices", "Three justices", "Three justices vote."
        stages = (("bench", "Bench"),)
        roles = (Role("justice", "Justice", wire=Opinion, numbered=True),)

        async def run(self, court):
            async with court.stage("bench", "Bench"):
                ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from .. import prompts
from ..errors import CaseError, InputError
from ..motion import asks_what_to_do
from ..replies import (  # re-exported: procedures import their tools from here
    Problem,
    extract_json,
    literal_pattern,
    parse_reply,
    refine_schema,
    word_pattern,
    words,
)

if TYPE_CHECKING:
    from ..backends.base import ModelRequest
    from ..case import Case
    from ..court import Court
    from ..records import RunRecord

__all__ = ["NoParameters", "Problem", "Procedure", "Role", "case_block", "extract_json", "listed", "literal_pattern",
           "parse_reply", "refine_schema", "word_pattern", "words"]


def listed(text: str, separators: str = ",") -> list[str]:
    """A setting written as a list in one string ("0, 2", "local:a, local:b"): its parts,
    stripped, empty ones dropped. Procedures' list settings are strings so they survive the
    config file's round trip and the chat's and notebook's settings panels."""
    return [part.strip() for part in re.split(f"[{re.escape(separators)}]", text) if part.strip()]


@dataclass(frozen=True)
class Role:
    """A part in a procedure. ``numbered`` roles seat agents named ``<name>-1``, ``<name>-2``…"""

    name: str  # juror
    title: str  # Juror
    wire: type[BaseModel] | None = None  # the JSON the role writes (the scripted backend fakes it)
    numbered: bool = False
    max_tokens: int = 800
    expected_output_tokens: int = 300
    aliases: tuple[str, ...] = ()  # other [models] keys that name it ("jury" for the juror)
    description: str = ""


class NoParameters(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Procedure:
    """The base every procedure extends. Override ``run``; the rest has defaults. Optional hooks
    the runtime calls where a procedure defines them: ``plan`` (a dry run's prompts; without it a
    dry run is refused in one line) and ``fragility`` (``--fragility``; without it the check
    says it is not available)."""

    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    stages: ClassVar[tuple[tuple[str, str], ...]]
    roles: ClassVar[tuple[Role, ...]]
    Parameters: ClassVar[type[BaseModel]] = NoParameters
    # Case inputs it reads: name -> what it is. Any other input is refused in one line
    # (``check_inputs``), and ``courtroom procedures`` lists these.
    inputs: ClassVar[dict[str, str]] = {}
    # Inputs its own ``prepare`` writes into the case (a transcript's title): a recorded case
    # carries them, so a re-run of it, even one recorded before ``Case.derived_inputs``, is not refused.
    prepared_inputs: ClassVar[tuple[str, ...]] = ()
    prompts_dir: ClassVar[Traversable | Path | None] = None  # default: courtroom_chat/prompts/<name>/
    # Parameters that, set to these values, give every agent the same order of labels and
    # evidence: the fixed-order control of ``courtroom eval --order-control``. Empty: no order
    # controls, and the eval refuses the switch for this procedure.
    fixed_order: ClassVar[dict[str, Any]] = {}
    # Templates whose wording a reply may restate: a legal standard the agents are told to
    # apply and to name (a justice's opinion states the burden of proof). The prompt-leak rule
    # does not count them as the instructions' own words.
    restatable: ClassVar[tuple[str, ...]] = ()
    # The same parameters set so each agent reads its own seeded order: the control's other arm
    # when the procedure is configured to read in one order.
    shuffled_order: ClassVar[dict[str, Any]] = {}
    # The answers an evaluation can score this procedure's verdicts against: "yes/no" (the
    # outcome's polarity), "labels" (its label among a dataset's own) or "judgment" (charges and
    # a sentence). `courtroom eval` refuses a dataset of another kind in one line.
    scored_on: ClassVar[tuple[str, ...]] = ("yes/no",)
    # What a court of law tries ("a criminal charge against a defendant"). Set, ``take`` refuses
    # in one line a question that asks what its asker should do ("Should I merge PR #214?"), which
    # would otherwise be tried as the charge and answered "not guilty" (``motion.asks_what_to_do``).
    tries: ClassVar[str] = ""

    def arms(self, params: BaseModel) -> tuple[str, ...]:
        """Decisions a trial under ``params`` makes beside its verdict, each an evaluation method of
        its own read from the same record (the outcome's ``data["arms"]``: per arm its label and
        the agents only it used, ``only``, and the verdict's own it did without, ``without``)."""
        return ()

    def models(self, params: BaseModel) -> list[str]:
        """Models the procedure's settings name beyond its roles' (``backend:model``, as written),
        checked with the roles' before a trial starts: a mistyped one is one line before any call,
        not a trial failed after its first stages."""
        return []

    def baseline_shots(self, params: BaseModel) -> tuple[int, ...]:
        """Numbers of precedents that benches beside the verdict read other than the verdict's
        own: an evaluation runs each baseline again at each (``single-0-shot``), so one call and
        a majority of calls are compared with the court at the same number of shots."""
        return ()

    async def run(self, court: Court) -> None:
        raise NotImplementedError

    async def plan(self, court: Court) -> None:
        """Dry run: emit ``PromptPlanned`` for every agent (``court.plan_prompt``), calling no
        model. Optional: a procedure without it has no plan to show (``defines("plan")``), and a
        dry run of it is refused before it starts, in one line (``no_plan``)."""
        raise self.no_plan()

    def defines(self, hook: str) -> bool:
        """Whether this procedure defines the optional hook ``hook`` ("plan", "fragility") itself,
        rather than inheriting the base's default."""
        return getattr(type(self), hook) is not getattr(Procedure, hook)

    def no_plan(self) -> InputError:
        return InputError(f"the {self.name} procedure has no plan to show: it defines no plan(), so a dry run cannot "
                          "list its prompts; run it without the dry run (the scripted backend calls no model)")

    async def fragility(self, court: Court) -> dict[str, Any] | None:
        """``--fragility``: decide the case again without the evidence the verdict leaned on most,
        after the verdict (``court.record.outcome``), and say whether it held: a dict with
        ``held`` (True, False, or None when the check could not be run) and ``summary`` (one
        sentence), kept as the outcome's ``data["fragility"]``. Optional: the default, None,
        shows the check as not available for this procedure."""
        return None

    # ---------------------------------------------------------------- declared vocabulary

    def role(self, agent_or_role: str) -> Role | None:
        """The role of a role name, an alias, or a numbered agent name (``justice-3``, or
        ``judge-2-sequential`` for a seat on a second bench)."""
        for role in self.roles:
            if agent_or_role == role.name or agent_or_role in role.aliases:
                return role
            if role.numbered and re.fullmatch(rf"{re.escape(role.name)}-\d+(-[a-z]+)?", agent_or_role):
                return role
        return None

    def stage_title(self, stage: str) -> str:
        return dict(self.stages).get(stage, stage.replace("_", " ").capitalize())

    # ---------------------------------------------------------------- prompts

    def folder(self) -> Traversable | Path:
        return self.prompts_dir if self.prompts_dir is not None else prompts.shared().joinpath(self.name)

    def render(self, template: str, **values: object) -> str:
        return prompts.render(template, self.folder(), **values)

    def instructions(self) -> list[str]:
        """The procedure's own wording, unrendered: every template in its prompts folder and the
        shared ones but ``restatable``. The runtime flags replies that repeat it (a prompt leak)."""
        texts = []
        for folder in (self.folder(), prompts.shared()):
            for entry in folder.iterdir():
                if entry.name.endswith(".md") and entry.name != "case.md" and entry.name not in self.restatable:
                    texts.append(entry.read_text(encoding="utf-8"))
        return texts

    def take(self, case: Case, params: Any = None) -> Case:
        """The case as this procedure tries it: its inputs checked (``check_inputs``), then
        ``prepare``d. The inputs ``prepare`` writes are marked the court's own
        (``Case.derived_inputs``), so a re-run of the recorded case is not refused for them."""
        self.check_inputs(case)
        if why := self.misplaced(case.question):
            raise CaseError(why)
        prepared = self.prepare(case, params)
        given = sorted(k for k in self.prepared_inputs if k in case.inputs and k not in case.derived_inputs
                       and prepared.inputs.get(k, _ABSENT) != case.inputs[k])
        if given:  # the court writes these itself (a re-run of a recorded case gives back what it wrote)
            raise self.not_given(given, f"{case.source}: " if case.source else "")
        wrote = {k for k, v in prepared.inputs.items() if k not in self.inputs and case.inputs.get(k, _ABSENT) != v}
        if wrote - set(prepared.derived_inputs):
            prepared = prepared.model_copy(update={"derived_inputs": sorted(wrote | set(prepared.derived_inputs))})
        return prepared

    def misplaced(self, question: str) -> str:
        """Why a court that tries charges or disputes (``tries``) refuses ``question``, in one line, or "":
        "Should I merge PR #214 now?" asks what its asker should do, a question for the decision court."""
        if not (self.tries and asks_what_to_do(question)):
            return ""
        return (f"the {self.title.lower()} tries {self.tries}, and “{question}” asks what you should do: put it to the "
                "decision court (--procedure decision; the Decision court profile in the chat), or state the case, for "
                "example “Is Tom Reed guilty of burglary?”")

    def not_given(self, keys: list[str], where: str = "") -> CaseError:
        """The refusal of ``prepared_inputs`` a person gave (``--input transcript_type=…``): the court
        reads them from the case itself."""
        return CaseError(f"{where}{', '.join(keys)} {'are' if len(keys) > 1 else 'is'} read from the case by the "
                         f"{self.name} procedure, not given; drop --input {keys[0]}"
                         + (" (--type criminal or civil sets the case type)" if "transcript_type" in keys else ""))

    def check_inputs(self, case: Case) -> None:
        """Refuse, in one line, case inputs this procedure does not read (a misspelt ``--input``,
        or another procedure's case tried here), naming the ones it reads and the procedure that
        reads them, if one does. Every procedure gets this from its declared ``inputs``."""
        unknown = sorted(set(case.inputs) - set(self.inputs) - set(self.prepared_inputs) - set(case.derived_inputs))
        if not unknown:
            return
        where = f"{case.source}: " if case.source else ""
        plural = len(unknown) > 1
        reads = f"it reads {', '.join(self.inputs)}" if self.inputs else "it reads no case inputs"
        owner, covered = self._reader_of(case, unknown)
        if owner and len(covered) == len(unknown):
            hint = f"this looks like a {owner} case: run it with --procedure {owner}"
        elif owner:
            hint = (f"{', '.join(covered)} {'are' if len(covered) > 1 else 'is'} read by --procedure {owner}; "
                    "check the spelling of the rest, or drop them")
        else:
            hint = (f"check the spelling, or drop {'them' if plural else 'it'} "
                    "(`courtroom procedures` lists each procedure's inputs)")
        raise CaseError(f"{where}the {self.name} procedure does not read the case input{'s' if plural else ''} "
                        f"{', '.join(unknown)}; {reads}; {hint}")

    def _reader_of(self, case: Case, keys: list[str]) -> tuple[str | None, list[str]]:
        """The other procedure that reads most of ``keys``, at least half of them (the case file's own
        procedure first), and those it reads; (None, []) when none does."""
        from . import available, get

        best: tuple[str | None, list[str]] = (None, [])
        names = [info.name for info in available()]
        if case.procedure in names:
            names.insert(0, names.pop(names.index(case.procedure)))
        for name in names:
            if name == self.name:
                continue
            try:
                accepted = get(name).inputs
            except (ImportError, AttributeError):  # a plugin that does not load reads nothing here
                continue
            covered = [k for k in keys if k in accepted]
            if len(covered) > len(best[1]) and 2 * len(covered) >= len(keys):
                best = (name, covered)
        return best

    def prepare(self, case: Case, params: Any = None) -> Case:
        """The case as this procedure tries it, before anything else reads it: a procedure may
        read a structured input into the evidence (a trial transcript's JSON rendered as the
        text every agent quotes and the verifier checks). Raise a CaseError for input it cannot
        read. ``params``: the procedure's parameters for this trial (None: its defaults). The
        default is the case unchanged."""
        return case

    @classmethod
    def read_case(cls, path: Path, data: Any) -> Case | None:
        """A case from a JSON file in a format of this procedure's own (one with no 'question'),
        or None when the file is not one; a bad file of its format raises a one-line CaseError."""
        return None

    def question_problem(self, question: str) -> str:
        """Why ``question`` is not one this procedure decides, in one line, or "": checked on its
        own (the chat checks it before it asks for evidence) and again with the whole case."""
        return ""

    def check_case(self, case: Case) -> None:
        """Refuse, before the trial starts, a case this procedure cannot try (raise a CaseError)."""

    def system_prompt(self, case: Case) -> str:
        return self.render("system")

    def role_system(self, court: Any, role: str) -> str | None:
        """A system prompt of a role's own, or None: the procedure's one system prompt, shared by
        every role so the prompt cache reads it and the case once (an own prompt costs one more read)."""
        return None

    def case_block(self, case: Case) -> str:
        """The case as every agent reads it: identical bytes for every agent, so it caches."""
        return case_block(case, self.folder())

    # ---------------------------------------------------------------- scripted backend and results

    def demo(self, request: ModelRequest) -> dict[str, Any] | None:
        """A reply for the scripted backend, consistent with the case; None: fake one from the schema."""
        return None

    def result_of(self, record: RunRecord) -> dict[str, Any]:
        """What ``-o`` writes; the generic record unless the procedure has a shape of its own."""
        return record.generic_result()


_ABSENT = object()
END_MARK = "<<<END EVIDENCE"


def case_block(case: Case, folder: Traversable | Path | None = None) -> str:
    """The question and the evidence documents, each between marks the agents are told are data."""
    if not case.context:
        documents = "(none attached: the question must be argued on its own terms, and no exhibit can be quoted)"
        count = "none"
    else:
        parts = []
        for i, doc in enumerate(case.context, 1):
            text = doc.text.replace(END_MARK, "<<< END EVIDENCE")
            parts.append(f"<<<EVIDENCE {i}: {doc.name} ({doc.kind}, {doc.lines} lines)>>>\n{text}\n{END_MARK} {i}>>>")
        documents = "\n\n".join(parts)
        count = f"{len(case.context)} document{'s' if len(case.context) != 1 else ''}"
    return prompts.render("case", folder, question=case.question, count=count, documents=documents)
