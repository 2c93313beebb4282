"""How the criminal trial reads, in the case's language: the roles' names in court, the
presiding judge's procedural lines, a sentence written out, the judgment and the record."""

from __future__ import annotations

from .wire import Judgment, RecordEntry

TITLES = {
    "zh": {"judge": "审判长", "prosecution": "公诉人", "advocate": "辩护人", "defendant": "被告人", "stenographer": "书记员"},
    "en": {"judge": "Judge", "prosecution": "Prosecution", "advocate": "Advocate", "defendant": "Defendant",
           "stenographer": "Stenographer"},
}
STAGE_NAMES = {
    "zh": {"preparation": "庭前准备", "investigation": "法庭调查", "evidence": "举证质证", "debate": "法庭辩论",
           "final_statement": "被告人最后陈述", "judgment": "判决"},
    "en": {"preparation": "Trial preparation", "investigation": "Court investigation", "evidence": "Presentation of evidence",
           "debate": "Court debate", "final_statement": "Defendant's final statement", "judgment": "Judgment"},
}
# What the presiding judge says when it gives the floor (a line of the record, not a model's turn).
CALLS = {
    "zh": {"indictment": "现在进行法庭调查。由公诉人宣读起诉书。", "prosecution": "公诉人可以向被告人发问。",
           "advocate": "辩护人可以向被告人发问。", "judge": "本庭向被告人发问。", "end": "法庭调查结束。",
           "evidence": "下面进行举证、质证。先由公诉人举证。", "defense_evidence": "由辩护人出示证据。",
           "debate": "现在就“{focus}”进行法庭辩论。", "more": "双方可以继续发表辩论意见。", "closed": "本轮辩论结束。",
           "final": "被告人，你可以作最后陈述。", "stalled": "本庭已经听清，相关内容不再重复。"},
    "en": {"indictment": "The court investigation begins. The prosecution will read the indictment.",
           "prosecution": "The prosecution may question the defendant.", "advocate": "Counsel may question the defendant.",
           "judge": "The court has a question for the defendant.", "end": "The court investigation is closed.",
           "evidence": "We turn to the evidence. The prosecution will present its evidence first.",
           "defense_evidence": "The defense may present its evidence.",
           "debate": "The court will now hear argument on: {focus}.", "more": "The parties may answer each other once more.",
           "closed": "Argument on this point is closed.", "final": "The defendant may make a final statement.",
           "stalled": "The court has heard this already; it need not be repeated."},
}
KINDS = {
    "zh": {"discipline": "宣布法庭纪律", "open": "开庭", "identity": "核对身份", "indictment": "宣读起诉书", "plea": "对起诉书的意见",
           "question": "发问", "answer": "回答", "present": "举证", "challenge": "质证", "argue": "辩论", "rebut": "反驳",
           "final": "最后陈述", "call": "主持", "judgment": "判决"},
    "en": {"discipline": "court discipline", "open": "opens the session", "identity": "identity", "indictment": "reads the indictment",
           "plea": "answers the indictment", "question": "question", "answer": "answer", "present": "presents evidence",
           "challenge": "challenges", "argue": "argues", "rebut": "rebuts", "final": "final statement", "call": "presides",
           "judgment": "judgment"},
}


def title(role: str, lang: str) -> str:
    return TITLES[lang].get(role, role)


def record_start(count: int, window: int, step: int = 0) -> int:
    """Where the record the agents read starts: at least the last ``window`` turns, from a start
    that moves in steps of half the window. From one turn to the next the prompt then only grows
    at its end, so the model's prompt cache reuses what the last speaker read. A window sliding
    by one turn made every speaker read the whole window again (on the embedded model, reading
    prompts took about two thirds of a trial's time). ``step`` 1 gives exactly the last
    ``window`` turns."""
    step = step or max(1, window // 2)
    return max(0, (count - window) // step * step) if window else 0


def record_text(entries: list[RecordEntry], lang: str, *, window: int, indictment: str = "",
                step: int = 0) -> tuple[str, str]:
    """The record as the agents read it (see ``record_start``), and a heading for it that stays
    the same while its start does."""
    start = record_start(len(entries), window, step)
    shown = entries[start:]
    if not shown:
        return ("（尚无记录）" if lang == "zh" else "(nothing yet)"), "every turn"
    lines = []
    for e in shown:
        text = e.text
        if indictment and text == indictment:
            text = "（宣读起诉书，见案卷）" if lang == "zh" else "(reads the indictment: see the case file)"
        elif e.repeats:  # a copy read again invites the next speaker to copy it too
            text = f"（重复第{e.repeats}轮发言，略）" if lang == "zh" else f"(repeats turn {e.repeats}; left out)"
        lines.append(f"[{e.turn}] {title(e.speaker, lang)}: {text}")
    heading = "every turn" if not start else f"from turn {shown[0].turn}; the {start} turns before it are left out"
    return "\n".join(lines), heading


SENTENCE_FORMS = {  # acquitted, term, suspension, fine, separator, no penalty
    "zh": ("无罪", "有期徒刑{:g}个月", "缓刑{:g}个月", "罚金人民币{:g}元", "，", "免予刑事处罚"),
    "en": ("not guilty", "{:g} months' imprisonment", "suspended for {:g} months", "a fine of {:,.0f}", ", ", "no penalty"),
}


def sentence_text(j: Judgment, lang: str) -> str:
    """The sentence in words: 有期徒刑10个月，缓刑12个月，罚金人民币4000元 / 10 months' imprisonment, …"""
    acquitted, term, suspended, fine, separator, nothing = SENTENCE_FORMS[lang]
    if not j.charges:
        return acquitted
    parts = [j.special] if j.special else [term.format(j.term_months)] if j.term_months else []
    if j.probation_months:
        parts.append(suspended.format(j.probation_months))
    if j.fine:
        parts.append(fine.format(j.fine))
    return separator.join(parts) or nothing


def verdict_line(name: str, j: Judgment, lang: str) -> str:
    if lang == "zh":
        if not j.charges:
            return f"被告人{name}无罪"
        return f"被告人{name}犯{'、'.join(j.charges)}，判处{sentence_text(j, lang)}"
    if not j.charges:
        return f"{name}: not guilty"
    return f"{name}: guilty of {', '.join(j.charges)}; {sentence_text(j, lang)}"


def judgment_markdown(j: Judgment, lang: str) -> str:
    heads = (("认定事实", "本院认为", "法律依据", "判决如下") if lang == "zh"
             else ("Facts found", "Reasoning", "Law applied", "Judgment"))
    rows = [("罪名" if lang == "zh" else "Charges", "、".join(j.charges) or ("无罪" if lang == "zh" else "acquitted")),
            ("刑期（月）" if lang == "zh" else "Term (months)", j.special or f"{j.term_months:g}"),
            ("罚金" if lang == "zh" else "Fine", f"{j.fine:g}"),
            ("缓刑（月）" if lang == "zh" else "Probation (months)", f"{j.probation_months:g}")]
    table = "| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)
    body = "\n\n".join(f"**{h}**: {t}" for h, t in zip(heads, (j.facts, j.reasoning, j.law, j.text), strict=True) if t)
    return f"{j.text.splitlines()[0] if j.text else sentence_text(j, lang)}\n\n{table}\n\n{body}"
