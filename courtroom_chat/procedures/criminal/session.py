"""The trial's five stages and its judgment, in order, over the runtime (``Court``).

    preparation ─> investigation ─> evidence ─> debate (a round per focus) ─> final statement ─> judgment

Every turn goes through ``Session.speak``: the role's prompt (its instructions, the recent
court record, its task), the turn rules (repetition, role break, vague question, off focus)
with the runtime's one repair, then a line in the stenographer's record and an event. The
presiding judge hosts the investigation and the debate: it names the next speaker or ends
the stage, within ``max_turns`` turns a stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...events import AgentStarted
from ...replies import text_pattern
from ..base import refine_schema
from . import present
from .cases import Dossier
from .rules import judgment_problems, stated, turn_problems
from .wire import END, HostChoice, Judgment, JudgmentReply, RecordEntry, Speech

if TYPE_CHECKING:
    from ...court import Court
    from . import CriminalTrial

ASKERS = ("prosecution", "advocate", "judge")


def judgment_schema(wire: type[JudgmentReply], *, zh: bool, latin: bool) -> dict:
    """The judgment's JSON schema with the trial's grammar: its texts in the case's script (a
    Chinese judgment holds no lower-case Latin letter) and, in Chinese, each charge as the
    Criminal Law names it, ending in 罪. The direct-prediction baseline answers under the same
    grammar, so the two differ only by the trial."""
    pattern = text_pattern(1, 3000, latin=latin, cjk=zh)
    fields: dict[str, dict] = {f: {"pattern": pattern} for f in ("facts", "reasoning", "law", "text")}
    if zh:
        fields["charges"] = {"items": {"type": "string", "pattern": text_pattern(2, 31, cjk=True, end="罪")}}
    return refine_schema(wire, fields)


class Session:
    def __init__(self, procedure: CriminalTrial, court: Court, dossier: Dossier):
        self.procedure, self.court, self.dossier = procedure, court, dossier
        self.params = court.params
        self.lang = "en" if court.latin else "zh"
        self.zh = self.lang == "zh"
        self.record: list[RecordEntry] = []
        self.stage = ""
        self.spoken: dict[str, int] = {}

    # ------------------------------------------------------------------ turns

    def note(self, speaker: str, text: str, kind: str, repeats: int = 0) -> RecordEntry:
        """A line of the record, shown as it is spoken. A turn that still repeats turn ``repeats``
        after its repair is kept, and speakers read it as a repeat, not its words."""
        entry = RecordEntry(turn=len(self.record) + 1, stage=self.stage, speaker=speaker, text=text, repeats=repeats)
        self.record.append(entry)
        self.court.keep("court_record", {"entries": [e.model_dump() for e in self.record]})
        return entry

    def say(self, speaker: str, text: str, kind: str) -> None:
        """A line no model writes (the indictment read out, the judge giving the floor)."""
        entry = self.note(speaker, text, kind)
        agent = self.court.agent(speaker, speaker, present.title(speaker, self.lang), round=entry.turn)
        self.court.emit(AgentStarted(stage=self.stage, agent=agent.name, role=speaker, title=agent.title,
                                     round=entry.turn))
        self._show(agent, Speech(text=text), entry, kind)

    def _show(self, agent: Any, value: Any, entry: RecordEntry, kind: str, repaired: bool = False) -> None:
        label = present.KINDS[self.lang].get(kind, kind)
        self.court.finish(agent, value, title=f"{agent.title} · {label}", markdown=entry.text,
                          line=f"{agent.title}: {entry.text[:100]}", repaired=repaired,
                          key=f"turn-{entry.turn:03d}-{agent.role}")

    def record_view(self, window: int = 0, step: int = 0) -> tuple[str, str]:
        """The court record as a speaker reads it, and its heading (``present.record_text``):
        ``record_window`` turns unless told otherwise."""
        return present.record_text(self.record, self.lang, window=window or self.params.record_window,
                                   indictment=self.dossier.indictment, step=step)

    def prompt(self, role: str, task: str, **values: Any) -> str:
        record, shown = self.record_view()
        plea = {"guilty": "You plead guilty.", "not guilty": "You plead not guilty."}.get(self.dossier.plea, "")
        instructions = self.procedure.render(role, plea=plea)
        length = ("Two to five sentences." if not self.zh else "Two to five sentences (about 60 to 200 Chinese characters).")
        return self.procedure.render("turn", role=instructions, record=record, shown=shown,
                                     stage=present.STAGE_NAMES[self.lang][self.stage],
                                     task=self.procedure.render(task, **values), language=self.language(), length=length,
                                     who=self.who(role))

    def who(self, role: str) -> str:
        """Who takes this turn, said again beside the task: a small model reading a record of
        other speakers' lines otherwise went on writing as the last of them."""
        english = present.title(role, "en").lower()
        return f"you are the {english}, {present.title(role, 'zh')}" if self.zh else f"you are the {english}"

    def language(self) -> str:
        return "Write in Chinese (用中文回答)." if self.zh else "Write in English."

    async def speak(self, role: str, task: str, *, kind: str = "", focus: str = "", **values: Any) -> RecordEntry:
        turn = len(self.record) + 1
        agent = self.court.agent(role, role, present.title(role, self.lang), round=turn,
                                 temperature=self.params.judge_temperature if role == "judge" else self.params.temperature)
        chars = self.params.speech_chars
        # Under a grammar a Chinese trial's turn has no lower-case Latin letters (the 1.5B slid
        # into English under "write in Chinese"), and a question ends with a question mark (a
        # questioner otherwise copied the defendant's last answer as its "question").
        schema = refine_schema(Speech, {"text": {"pattern": text_pattern(
            1, chars * 3, latin=self.court.latin, cjk=self.zh, end="[?？]" if kind == "question" else "")}})

        repeats: dict[str, RecordEntry] = {}

        def check(value: Speech) -> list:
            return turn_problems(value.text, role, self.record, threshold=self.params.repetition_threshold,
                                 kind=kind, focus=focus, zh=self.zh, repeats=repeats,
                                 item=str(values.get("item", "")) if kind == "present" else "")

        inputs = {"task": task, "kind": kind, "focus": focus, "turn": turn, "stage": self.stage, "lang": self.lang,
                  "record": [e.model_dump() for e in self.record[-6:]], **{k: str(v) for k, v in values.items()}}
        answer = await self.court.ask(agent, self.prompt(role, task, focus=focus, **values), Speech, inputs=inputs, check=check,
                                      schema=schema, resample={"repetition": self.params.repeat_temperature})
        self.court.settle(agent, answer)
        copied = repeats.get(answer.value.text) if any(p.rule == "repetition" for p in answer.problems) else None
        entry = self.note(role, answer.value.text, kind or task, repeats=copied.turn if copied else 0)
        self.spoken[self.stage] = self.spoken.get(self.stage, 0) + 1
        self._show(agent, answer.value, entry, kind or task, answer.repaired)
        return entry

    def stalled(self, *turns: RecordEntry) -> bool:
        """Whether an exchange has stopped moving: one of its turns still repeated an earlier one
        after its repair. The judge then closes the questioning, or the argument on that focus,
        saying why (``close_stalled``); a looping model otherwise fills every turn the stage allows
        with the same words."""
        if not (self.params.close_stalled and any(t.repeats for t in turns)):
            return False
        self.say("judge", present.CALLS[self.lang]["stalled"], "call")
        return True

    async def host(self, choices: list[str], turns_left: int, asked: dict[str, int]) -> str:
        """The presiding judge names the next speaker (or ends the stage); in a fixed order
        when ``host`` is off."""
        if turns_left <= 0:
            return END
        if not self.params.host:
            order = [c for c in choices if not asked.get(c)]
            return order[0] if order else END
        agent = self.court.agent("judge", "judge", present.title("judge", self.lang), round=len(self.record) + 1,
                                 temperature=self.params.judge_temperature)
        limit = f"At most {turns_left} more turns remain in this stage."
        options = ", ".join(f'"{c}"' for c in choices)
        record, shown = self.record_view()
        prompt = self.procedure.render(
            "turn", role=self.procedure.render("judge"), stage=present.STAGE_NAMES[self.lang][self.stage],
            record=record, shown=shown, task=self.procedure.render("host", choices=options, limit=limit),
            language="", length="", who=self.who("judge")).rsplit('Reply with JSON: {"text"', 1)[0]
        schema = refine_schema(HostChoice, {"next": {"enum": [*choices, END]},
                                            "reason": {"pattern": text_pattern(0, 200, latin=self.court.latin)}})

        def check(value: HostChoice) -> list:
            from ..base import Problem

            if value.next not in (*choices, END):
                return [Problem("host_choice", f"'{value.next}' may not speak now; choose one of {options} or \"end\"")]
            return []

        answer = await self.court.ask(agent, prompt, HostChoice, schema=schema, check=check, announce=False,
                                      inputs={"task": "host", "choices": choices, "asked": asked, "stage": self.stage,
                                              "lang": self.lang, "turns_left": turns_left})
        self.court.settle(agent, answer)
        return answer.value.next if answer.value.next in (*choices, END) else END

    # ------------------------------------------------------------------ stages

    async def preparation(self) -> None:
        async with self.court.stage("preparation") as stage:
            self.stage = "preparation"
            await self.speak("stenographer", "discipline", kind="discipline")
            await self.speak("judge", "open", kind="open")
            await self.speak("defendant", "identity", kind="identity")
            stage.state = self.turns_in("preparation")

    async def investigation(self) -> None:
        calls = present.CALLS[self.lang]
        async with self.court.stage("investigation") as stage:
            self.stage = "investigation"
            self.say("judge", calls["indictment"], "call")
            self.say("prosecution", self.dossier.indictment, "indictment")
            await self.speak("defendant", "plea", kind="plea")
            asked: dict[str, int] = {}
            cap = self.params.max_turns
            while True:
                spoken = self.count("investigation")
                choice = await self.host(list(ASKERS), (cap - spoken) // 2, asked)
                if choice == END:
                    break
                asked[choice] = asked.get(choice, 0) + 1
                self.say("judge", calls[choice], "call")
                about = ", ".join(f"{k} asked {v}" for k, v in asked.items())
                question = await self.speak(choice, "question", kind="question", about=f"questions so far: {about}")
                answer = await self.speak("defendant", "answer", kind="answer", asker=present.title(choice, self.lang))
                if self.stalled(question, answer):
                    break
            self.say("judge", calls["end"], "call")
            stage.state = self.turns_in("investigation")

    async def evidence(self) -> None:
        calls = present.CALLS[self.lang]
        async with self.court.stage("evidence") as stage:
            self.stage = "evidence"
            self.say("judge", calls["evidence"], "call")
            defense = self.dossier.defense_evidence
            room = max(1, self.params.max_turns // 2 - (1 if defense else 0))
            for item in groups(self.dossier.prosecution_evidence, room):
                await self.speak("prosecution", "present", kind="present", item=item)
                await self.speak("advocate", "challenge", kind="challenge", item=item,
                                 other=present.title("prosecution", self.lang))
            if defense:
                self.say("judge", calls["defense_evidence"], "call")
                item = "\n".join(defense)
                await self.speak("advocate", "present", kind="present", item=item)
                await self.speak("prosecution", "challenge", kind="challenge", item=item,
                                 other=present.title("advocate", self.lang))
            stage.state = self.turns_in("evidence")

    async def debate(self) -> None:
        calls = present.CALLS[self.lang]
        rounds = min(self.params.debate_rounds, max(1, self.params.max_turns // 2))
        for number, focus in enumerate(self.dossier.focus()[: self.params.max_focus], 1):
            async with self.court.stage("debate", round=number) as stage:
                self.stage = "debate"
                self.say("judge", calls["debate"].format(focus=focus), "call")
                for round_ in range(1, rounds + 1):
                    if round_ > 1:
                        choice = await self.host(["prosecution"], rounds - round_ + 1, {"prosecution": round_ - 1})
                        if choice == END:
                            break
                        self.say("judge", calls["more"], "call")
                    argued = await self.speak("prosecution", "argue", kind="debate", focus=focus, round=round_,
                                              rounds=rounds, rebut="" if round_ == 1 else "Answer the advocate's last point.")
                    answered = await self.speak("advocate", "argue", kind="debate", focus=focus, round=round_,
                                                rounds=rounds, rebut="Answer the prosecution's last point.")
                    if round_ < rounds and self.stalled(argued, answered):
                        break
                self.say("judge", calls["closed"], "call")
                stage.state = focus[:40]

    async def final_statement(self) -> None:
        async with self.court.stage("final_statement") as stage:
            self.stage = "final_statement"
            self.say("judge", present.CALLS[self.lang]["final"], "call")
            await self.speak("defendant", "final", kind="final")
            stage.state = self.turns_in("final_statement")

    async def judgment(self) -> Judgment:
        async with self.court.stage("judgment") as stage:
            self.stage = "judgment"
            agent = self.court.agent("judge", "judge", present.title("judge", self.lang), round=len(self.record) + 1,
                                     temperature=self.params.judge_temperature)
            schema = judgment_schema(JudgmentReply, zh=self.zh, latin=self.court.latin)
            # the last turns exactly: one call, which no later prompt shares
            record, shown = self.record_view(self.params.record_window * 2, step=1)
            prompt = self.procedure.render(
                "turn", role=self.procedure.render("judge"), record=record, shown=shown,
                stage=present.STAGE_NAMES[self.lang]["judgment"],
                task=self.procedure.render("judgment", language=self.language()), language="", length="",
                who=self.who("judge"),
            ).rsplit('Reply with JSON: {"text"', 1)[0]
            answer = await self.court.ask(agent, prompt, JudgmentReply, schema=schema,
                                          check=lambda v: judgment_problems(v, self.zh),
                                          inputs={"task": "judgment", "lang": self.lang})
            self.court.settle(agent, answer)
            judgment = judgment_of(answer.value)
            entry = self.note("judge", judgment.text, "judgment")
            self.court.finish(agent, judgment, title=f"{agent.title} · {present.KINDS[self.lang]['judgment']}",
                              markdown=present.judgment_markdown(judgment, self.lang), repaired=answer.repaired,
                              line=present.verdict_line(self.dossier.name(), judgment, self.lang),
                              key=f"turn-{entry.turn:03d}-judge")
            self.court.keep("judgment", judgment)
            stage.state = present.sentence_text(judgment, self.lang)[:60]
            return judgment

    # ------------------------------------------------------------------ counts

    def count(self, stage: str) -> int:
        """Turns the roles have spoken in ``stage`` (the judge's procedural lines aside)."""
        return self.spoken.get(stage, 0)

    def turns_in(self, stage: str) -> str:
        n = sum(1 for e in self.record if e.stage == stage)
        return f"{n} turns" if not self.zh else f"{n} 轮发言"


def groups(items: list[str], room: int) -> list[str]:
    """The evidence items in at most ``room`` presentations: one item each while they fit,
    else consecutive items presented together."""
    if len(items) <= room:
        return list(items)
    size = -(-len(items) // room)
    return ["\n".join(items[i:i + size]) for i in range(0, len(items), size)]


def judgment_of(reply: JudgmentReply) -> Judgment:
    """The judgment as kept: the sentence its text states wins over its fields (the repair has
    already asked the judge to make them agree)."""
    said = stated(reply.text)
    return Judgment(
        charges=[c.strip() for c in reply.charges if c.strip()],
        term_months=said.term_months if said.term_months is not None else reply.term_months,
        fine=said.fine if said.fine is not None else reply.fine,
        probation_months=said.probation_months if said.probation_months is not None else reply.probation_months,
        special=said.special, facts=reply.facts, reasoning=reply.reasoning, law=reply.law, text=reply.text,
    )
