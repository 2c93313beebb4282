"""Replies for the scripted backend, read from the case file so a dry trial reads sensibly:
questions about the indictment's own dates and amounts, answers from the defendant's
account, each item of evidence presented and challenged, arguments on each focus, and a
judgment naming the charge the indictment brings."""

from __future__ import annotations

import re
from typing import Any

from ...sentences import split as split_sentences
from .cases import Dossier

_SENTENCE_GAP = re.compile(r"(?<=[。！？])\s*|(?<=[.!?])\s+")
_ZH_CHARGES = (re.compile(r"涉嫌(?:犯)?([\u4e00-\u9fff]{2,10}?罪)"), re.compile(r"构成([\u4e00-\u9fff]{2,10}?罪)"),
               re.compile(r"犯([\u4e00-\u9fff]{2,10}?罪)"))
_EN_CHARGE = re.compile(r"(?i)charge[sd]?\b[^.]{0,60}? with (?:the offence of )?([a-z][a-z ]{2,40}?)(?= under| contrary|[,.;])")


def sentences(text: str) -> list[str]:
    """The sentences of a text worth quoting (masked recommendations and headings left out)."""
    pieces = [s for line in text.split("\n") for s in split_sentences(line, _SENTENCE_GAP)]
    return [s.strip() for s in pieces if len(s.strip()) > 12 and "XX" not in s and "：" != s.strip()[-1]]


def charge_of(dossier: Dossier) -> str:
    if dossier.language == "zh":
        found = next((m for p in _ZH_CHARGES if (m := p.search(dossier.indictment))), None)
        return found.group(1) if found else "起诉书指控的罪名"
    found = _EN_CHARGE.search(dossier.indictment)
    return found.group(1).strip() if found else "the offence charged"


def pick(items: list[str], n: int, fallback: str) -> str:
    return items[n % len(items)] if items else fallback


def speech(dossier: Dossier, inputs: dict[str, Any], role: str) -> str:
    zh = inputs.get("lang") == "zh"
    task, turn, focus = inputs.get("task"), int(inputs.get("turn", 1)), inputs.get("focus", "")
    name, charge = dossier.name(), charge_of(dossier)
    facts = sentences(dossier.indictment)[1:] or sentences(dossier.indictment)
    account = sentences(dossier.account) or facts
    item = " ".join(str(inputs.get("item", "")).split())[:120]
    turn += 7 if inputs.get("repair") else 0  # asked again after a repair: another fact
    if task == "discipline":
        return ("请全体肃静。现在宣布法庭纪律：诉讼参与人应当遵守法庭秩序，未经允许不得录音、录像、摄影；"
                "旁听人员不得发言、提问，关闭通讯工具。公诉人、辩护人均已到庭。" if zh else
                "Silence, please. The rules of this court: no recording or photography, phones off, no one speaks "
                "without leave of the court. The prosecution and defense counsel are present.")
    if task == "open":
        return (f"现在开庭。本庭今天依法审理被告人{name}涉嫌{charge}一案。经核对，被告人身份与起诉书所载一致。"
                "被告人依法享有申请回避、自行辩护和委托辩护、提出证据和作最后陈述的权利。被告人是否听清？" if zh else
                f"This court is in session to try {name}, charged with {charge}. The defendant's identity matches the "
                "indictment. You have the right to ask for recusal, to defend yourself and be defended by counsel, "
                "to present evidence and to make a final statement. Do you understand?")
    if task == "identity":
        return (f"我叫{name}，身份情况与起诉书所写一致。我听清楚了，不申请回避。" if zh else
                f"I am {name}; what the indictment says about me is correct. I understand my rights and ask for no recusal.")
    if task == "plea":
        if dossier.plea == "guilty":
            return "起诉书指控的事实属实，我认罪认罚，没有异议。" if zh else "What the indictment says is true. I plead guilty."
        return (f"起诉书说的基本属实，但{pick(account, 0, '具体情节')}，请法庭考虑。" if zh else
                f"Most of it is true, but the court should hear my side: {pick(account, 0, 'the details differ')}")
    if task == "question":
        fact = pick(facts, turn * 3 + len(role), dossier.indictment[:80])
        if zh:
            return {"prosecution": f"起诉书称“{fact[:60]}”，这是不是你做的？当时是几点？",
                    "advocate": f"关于“{fact[:60]}”，案发后你是否主动交代、退赃或者赔偿？",
                    }.get(role, f"本庭问你：“{fact[:60]}”这一节，你和谁在一起，钱款去了哪里？")
        return {"prosecution": f"The indictment says: \"{fact[:100]}\" Did you do that, and at what time?",
                "advocate": f"About \"{fact[:100]}\": did you return anything or compensate anyone afterwards?",
                }.get(role, f"The court asks about \"{fact[:100]}\": who was with you, and where did the money go?")
    if task == "answer":
        if dossier.account:
            return pick(account, turn, "")
        plain = (["是我做的，我承认。", "具体时间记不清了，大概是下午。", "钱已经退还了一部分，剩下的我愿意赔。", "当时只有我一个人。"] if zh else
                 ["Yes, that was me.", "I do not remember the exact time; it was the afternoon.",
                  "I have paid part of it back and will pay the rest.", "I was alone."])
        return pick(plain, turn, "")
    if task == "present":
        return (f"公诉人出示证据：{item}。该证据证明被告人{name}实施了起诉书指控的行为。" if zh and role == "prosecution" else
                f"辩护人出示证据：{item}。该证据证明被告人具有从轻处罚的情节。" if zh else
                f"We present: {item}. It proves the facts stated in the indictment." if role == "prosecution" else
                f"The defense presents: {item}. It shows circumstances in the defendant's favour.")
    if task == "challenge":
        return (f"对“{item[:40]}”的真实性、合法性没有异议，但其只能证明部分事实，不能证明全部指控。" if zh and role == "advocate" else
                f"对“{item[:40]}”无异议，但不影响对被告人犯罪事实的认定。" if zh else
                f"We do not dispute that \"{item[:60]}\" is authentic, but it proves less than the indictment claims."
                if role == "advocate" else f"The prosecution accepts \"{item[:60]}\" but it does not change the facts proven.")
    if task == "argue" and str(inputs.get("round", "1")) != "1":
        evidence = dossier.prosecution_evidence if role == "prosecution" else dossier.defense_evidence or account
        cited = pick(evidence, turn, "")[:50]
        if zh:
            return (f"针对辩护人的意见，公诉人补充：本案证据之间相互印证，“{focus[:30]}”一节不存在合理怀疑，{cited}即可印证。"
                    if role == "prosecution" else
                    f"辩护人回应：即使认定“{focus[:30]}”，被告人系初犯、偶犯，并已退赔，应当适用缓刑；{cited}。")
        return (f"In reply on {focus.lower()}: the items of evidence confirm one another and leave no reasonable doubt: {cited}."
                if role == "prosecution" else
                f"In reply on {focus.lower()}: even if the court finds against us, restitution and remorse call for a suspended sentence: {cited}.")
    if task == "argue":
        ground = pick(facts if role == "prosecution" else account, turn, focus)
        if zh:
            return (f"关于“{focus}”，公诉人认为：{ground[:80]}，事实清楚，证据确实充分，应依法追究刑事责任。"
                    if role == "prosecution" else
                    f"关于“{focus}”，辩护人认为：{ground[:80]}，被告人认罪态度好，请求法庭从轻处罚。")
        return (f"On {focus.lower()}: {ground[:120]} The evidence proves it; the court should convict as charged."
                if role == "prosecution" else
                f"On {focus.lower()}: {ground[:120]} The defendant cooperated and deserves the lightest sentence the law allows.")
    if task == "final":
        return "我知道错了，请求法庭从轻处罚，我以后一定遵纪守法。" if zh else "I am sorry for what I did. I ask the court for leniency."
    return "我没有补充。" if zh else "I have nothing to add."


def host(inputs: dict[str, Any]) -> dict[str, Any]:
    asked = inputs.get("asked") or {}
    if inputs.get("stage") == "debate":
        return {"next": "prosecution", "reason": "the parties have more to answer"}
    for choice in inputs.get("choices") or []:
        if not asked.get(choice):
            return {"next": choice, "reason": "has not spoken yet"}
    return {"next": "end", "reason": "every side has been heard"}


def judgment(dossier: Dossier, lang: str) -> dict[str, Any]:
    charge, name = charge_of(dossier), dossier.name()
    guilty = dossier.plea == "guilty"
    term, fine, probation = 12, (5000 if lang == "zh" else 2000), (12 if guilty else 0)
    if lang == "zh":
        text = (f"被告人{name}犯{charge}，判处有期徒刑一年" + ("，缓刑一年" if probation else "")
                + f"，并处罚金人民币{fine}元。")
        facts, law = (sentences(dossier.indictment)[1:2] or ["起诉书指控的事实清楚"])[0], "《中华人民共和国刑法》相关规定"
        reasoning = f"被告人{name}的行为已构成{charge}，证据确实充分；" + ("其认罪认罚，可以从宽处理。" if guilty else "应依法惩处。")
    else:
        text = (f"The defendant {name} is guilty of {charge} and is sentenced to 12 months' imprisonment"
                + (", suspended for 12 months" if probation else "") + f", and a fine of {fine}.")
        facts, law = (sentences(dossier.indictment)[1:2] or ["The facts of the indictment are proven."])[0], "The criminal code"
        reasoning = f"The evidence proves {charge}; " + ("the guilty plea earns a lighter sentence." if guilty else
                                                         "no circumstance justifies leniency.")
    return {"facts": facts, "reasoning": reasoning, "law": law, "charges": [charge], "term_months": term,
            "fine": fine, "probation_months": probation, "text": text}


def demo_reply(dossier: Dossier, schema_name: str, role: str, inputs: dict[str, Any]) -> dict[str, Any] | None:
    lang = inputs.get("lang") or dossier.language
    if schema_name in ("JudgmentReply", "DirectJudgment"):
        return judgment(dossier, lang)
    if schema_name == "HostChoice":
        return host(inputs)
    if schema_name == "Speech":
        return {"text": speech(dossier, inputs, role)}
    return None
