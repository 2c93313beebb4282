"""The retrieval-grounded bench (issue 16): the knowledge base (chunking, metadata, a persistent
index rebuilt only when the corpus changes, embedded and server stores agreeing), citation
verification, consensus and the hung bench, the rounds reading each other, conformity, the
ablation switch, and one-line errors. A small corpus is written per test from the IPC in
../shared, so the index builds in seconds; the full corpus is used only to verify citations."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import CaseError, ConfigError, InputError
from courtroom_chat.frontends.cli import app
from courtroom_chat.kb import KnowledgeBase, Provision, chunk, default_corpus, read_folder
from courtroom_chat.procedures.samvad.cases import bench_case
from courtroom_chat.procedures.samvad.rules import consensus, elements_of, grounding, meaningful, needed
from courtroom_chat.store import RunStore
from tests.conftest import CASES, SHARED_DATA, needs_shared, staggered

INDIA_LAW = SHARED_DATA / "india_law"
# The bench's knowledge base, and the small corpora these tests build, are the shared Indian statutes.
pytestmark = needs_shared("india_law")
WANTED = {"96", "97", "99", "100", "103", "279", "299", "300", "302", "304", "304A", "304B", "319", "323", "378", "379",
          "403", "405", "406", "411", "415", "420", "498A", "503", "506"}
SAMVAD_CASES = sorted(CASES.glob("samvad-*.json"))


def small_corpus(folder: Path, extra: dict | None = None) -> Path:
    """Two dozen IPC sections (read from ../shared) as a corpus folder of one JSON file."""
    folder.mkdir(parents=True, exist_ok=True)
    ipc = json.loads((INDIA_LAW / "ipc.json").read_text(encoding="utf-8"))
    chosen = [s for s in ipc if str(s["Section"]) in WANTED]
    if extra:
        chosen.append(extra)
    (folder / "ipc.json").write_text(json.dumps(chosen), encoding="utf-8")
    return folder


def kb_settings(tmp_path: Path, **kb) -> Settings:
    corpus = small_corpus(tmp_path / "corpus")
    values = {"corpus": str(corpus), "path": str(tmp_path / "store"), **kb}
    return Settings().with_backend("scripted").with_overrides({"kb": values})


async def bench(case: Path, settings: Settings, script: dict | None = None, **params):
    if params:
        settings = settings.with_params("samvad", params)
    backend = ScriptedBackend(script=script or {})
    record = await Trial(load_case(case), settings, store=None, backends={"scripted": backend}).run()
    return record, backend


def statement(leaning: str, words: str = "", elements: int = 2) -> dict:
    """A statement whose findings agree with its leaning (the scripted judge lists two elements):
    every element proved on P1 when guilty, the last one not proved otherwise."""
    findings = [{"element": k, "evidence": ["P1"], "finding": "not proved" if leaning != "guilty" and k == elements
                 else "proved"} for k in range(1, elements + 1)]
    return {"findings": findings, "leaning": leaning,
            "justification": words or f"On the evidence P1 and the law in IPC section 379 I lean {leaning}, having "
                                      "weighed both arguments with care today."}


# ---------------------------------------------------------------- the knowledge base


def test_chunks_keep_source_section_title_and_heading():
    long = Provision("IPC", "Indian Penal Code, 1860", "section", "300", "Murder",
                     "\n".join(f"Exception {i}. " + "word " * 60 for i in range(1, 8)))
    parts = chunk(long, 500)
    assert len(parts) > 1
    for i, c in enumerate(parts, 1):
        assert c.text.startswith(f"IPC section 300: Murder (part {i} of {len(parts)})\n")
        assert len(c.text) <= 500
        assert c.metadata() == {"source": "IPC", "act": "Indian Penal Code, 1860", "unit": "section", "section": "300",
                                "title": "Murder", "part": i, "parts": len(parts), "kind": "text"}
    assert " ".join(" ".join(c.text.split("\n", 1)[1] for c in parts).split()) == " ".join(long.text.split())
    short = chunk(Provision("IPC", "Indian Penal Code, 1860", "section", "379", "Punishment for theft", "Whoever commits theft"), 500)
    assert [c.text for c in short] == ["IPC section 379: Punishment for theft\nWhoever commits theft"]


def test_the_shipped_corpus_reads_in_place_with_its_sources():
    provisions = read_folder(INDIA_LAW)
    sources = {p.source for p in provisions}
    assert sources == {"IPC", "CrPC", "IEA", "CPC", "Constitution"}
    by = {(p.source, p.number): p for p in provisions}
    assert by[("IPC", "378")].title == "Theft" and by[("Constitution", "21")].unit == "article"
    assert by[("IPC", "304B")].text == "Dowry death"  # the source leaves its text empty: the title is kept


def test_a_user_corpus_of_text_markdown_and_json(tmp_path):
    (tmp_path / "rules.md").write_text("# Section 1. Quiet hours\nNo music after ten at night.\n\n"
                                       "# Section 2. Guests\nGuests sign the register.\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("Article 5 - Parking\nCars park in the back lot only.\n", encoding="utf-8")
    (tmp_path / "bylaws.json").write_text(json.dumps([{"section": 7, "title": "Pets", "description": "Dogs on a lead."}]))
    got = {(p.source, p.number, p.title, p.text) for p in read_folder(tmp_path, user=True)}
    assert got == {("rules", "1", "Quiet hours", "No music after ten at night."), ("rules", "2", "Guests", "Guests sign the register."),
                   ("notes", "5", "Parking", "Cars park in the back lot only."), ("bylaws", "7", "Pets", "Dogs on a lead.")}


def test_a_corpus_folder_with_no_readable_file_is_one_line(tmp_path):
    (tmp_path / "picture.png").write_bytes(b"\x89PNG")
    with pytest.raises(InputError, match="holds no readable file"):
        read_folder(tmp_path, user=True)
    result = CliRunner().invoke(app, ["kb", "build", "--corpus", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "holds no readable file" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_corpus_option_that_is_no_folder_is_named_as_given(tmp_path):
    (tmp_path / "law.txt").write_text("Section 1. Theft is punishable.\n")
    for given, what in ((tmp_path / "law.txt", "is a file"), (tmp_path / "missing", "is not found")):
        result = CliRunner().invoke(app, ["kb", "search", "theft", "--corpus", str(given)])
        assert result.exit_code == 2 and result.output.strip() == (
            f"error: --corpus {given} {what}; give a folder of your own .txt, .md, .pdf or .json files")


def test_a_corpus_file_that_holds_no_text_is_left_out_and_named(tmp_path):
    (tmp_path / "rules.md").write_text("# Section 1. Quiet hours\nNo music after ten at night.\n", encoding="utf-8")
    (tmp_path / "scan.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    skipped: list[str] = []
    got = read_folder(tmp_path, user=True, skipped=skipped)
    assert [(p.source, p.number) for p in got] == [("rules", "1")]
    assert skipped == [f"{tmp_path / 'scan.txt'}: scan.txt looks like a binary file; attach text, Markdown, code, "
                       "diffs, JSON, CSV or PDF"]
    result = CliRunner().invoke(app, ["kb", "search", "music at night", "--method", "bm25", "--config",
                                      str(_config(tmp_path / "kb")), "--corpus", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"skipped {tmp_path / 'scan.txt'}: scan.txt looks like a binary file" in " ".join(result.stderr.split())
    assert "[rules 1]" in result.stdout


def test_the_index_persists_and_is_rebuilt_only_when_the_corpus_changes(tmp_path):
    corpus = small_corpus(tmp_path / "corpus")
    first = KnowledgeBase([corpus], path=tmp_path / "store").build()
    assert first.built and first.chunks >= len(WANTED) and first.size_bytes and first.seconds > 0
    again = KnowledgeBase([corpus], path=tmp_path / "store")
    second = again.build()
    assert not second.built and second.corpus_hash == first.corpus_hash and second.seconds == first.seconds
    assert again.search("theft of movable property", k=3, method="embedding")  # the reused index answers
    small_corpus(corpus, {"Section": 999, "section_title": "A new offence", "section_desc": "Whoever whistles at night."})
    changed = KnowledgeBase([corpus], path=tmp_path / "store")
    third = changed.build()
    assert third.built and third.corpus_hash != first.corpus_hash and third.chunks == first.chunks + 1
    names = [c if isinstance(c, str) else c.name for c in changed.client().list_collections()]
    assert names == [changed.collection_name]  # the old corpus's index was dropped


def test_search_returns_provisions_by_each_method(tmp_path):
    kb = KnowledgeBase([small_corpus(tmp_path / "corpus")], path=tmp_path / "store")
    for method in ("embedding", "bm25", "hybrid"):
        hits = kb.search("a truck driver speeding on the highway ran over a pedestrian", k=5, method=method)
        keys = [h.provision.key for h in hits]
        assert len(keys) == len(set(keys)) == 5 and [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert {"IPC 304A", "IPC 279"} & {h.provision.key for h in kb.search("a truck driver speeding ran over a pedestrian")}


def test_the_dense_half_scores_every_chunk_exactly_so_the_same_query_reads_the_same_law(tmp_path):
    """The store's approximate search gave a different tail of candidates in each process, which
    moved the hybrid's scores: the same case, same seed, cited different provisions. The dense half
    now scores every stored vector: its nearest are the brute-force nearest, in a fixed order, and a
    knowledge base opened afresh on the same store ranks the same, to the last digit."""
    import numpy as np

    from courtroom_chat.retrieval import default_embedder

    corpus = small_corpus(tmp_path / "corpus")
    kb = KnowledgeBase([corpus], path=tmp_path / "store")
    kb.build()
    query = "a truck driver speeding on the highway ran over a pedestrian"
    vectors = default_embedder().embed([c.text for c in kb.chunks])
    exact = vectors @ default_embedder().embed([query])[0]
    near = kb.dense(query, len(kb.chunks))
    assert [i for i, _ in near] == sorted(range(len(exact)), key=lambda i: (-exact[i], i))
    assert np.allclose([s for _, s in near], sorted(exact, reverse=True), atol=1e-5)
    again = KnowledgeBase([corpus], path=tmp_path / "store")
    again.build()
    assert [(h.provision.key, h.score) for h in again.search(query, 8)] == [(h.provision.key, h.score) for h in kb.search(query, 8)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_embedded_and_server_stores_return_the_same_top_results(tmp_path):
    pytest.importorskip("chromadb", reason="chromadb is not installed")
    chroma = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    if not Path(chroma).exists():
        pytest.skip("the `chroma` command (from chromadb) is not installed")
    import chromadb

    port = _free_port()
    log = tmp_path / "chroma.log"
    server = subprocess.Popen([chroma, "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(tmp_path / "server")],
                              stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 240  # a hang guard, not a timing: a loaded machine starts it slowly
        while True:
            try:
                chromadb.HttpClient(host="127.0.0.1", port=port).heartbeat()
                break
            except Exception:  # noqa: BLE001 - not listening yet
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail(f"the chroma server did not start on 127.0.0.1: {log.read_text()[-2000:]}")
                time.sleep(0.3)
        corpus = small_corpus(tmp_path / "corpus")
        embedded = KnowledgeBase([corpus], path=tmp_path / "store")
        remote = KnowledgeBase([corpus], store="server", host="127.0.0.1", port=port)
        assert remote.build().built and remote.build().size_bytes is None
        for query in ("whoever commits murder", "dowry death of a woman", "the right of private defence of the body"):
            for method in ("embedding", "hybrid"):
                assert [h.provision.key for h in embedded.search(query, 5, method)] == \
                       [h.provision.key for h in remote.search(query, 5, method)]
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_no_server_is_one_clear_line(tmp_path):
    result = CliRunner().invoke(app, ["kb", "search", "theft", "--store", "server", "--config", str(_config(tmp_path, port=_free_port()))])
    assert result.exit_code == 2 and "Traceback" not in result.output and "chroma run" in result.output


def _config(tmp_path: Path, **kb) -> Path:
    corpus = small_corpus(tmp_path / "corpus")
    lines = ["[kb]", f'corpus = "{corpus}"', f'path = "{tmp_path / "store"}"', *(f"{k} = {v!r}" for k, v in kb.items())]
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_kb_commands_build_and_search(tmp_path):
    config = _config(tmp_path)
    built = CliRunner().invoke(app, ["kb", "build", "--config", str(config)])
    assert built.exit_code == 0, built.output
    assert "built in" in built.stdout and "MB on disk" in built.stdout
    again = CliRunner().invoke(app, ["kb", "build", "--config", str(config)])
    assert "reused" in again.stdout
    found = CliRunner().invoke(app, ["kb", "search", "someone took my phone without asking", "--config", str(config), "-k", "3"])
    assert found.exit_code == 0, found.output
    assert found.stdout.startswith("1. [IPC ") and "3. [IPC " in found.stdout


# ---------------------------------------------------------------- citations


@pytest.fixture(scope="module")
def law() -> KnowledgeBase:
    return KnowledgeBase([default_corpus()])


def test_a_real_section_with_its_own_words_is_verified(law):
    check = law.verify("Indian Penal Code", "s. 378", "intending to take dishonestly any movable property")
    assert check.verified and check.exists and check.quote_found and check.heading == "IPC section 378: Theft"
    assert law.verify("Constitution", "Art. 21", "").verified


def test_a_citation_as_the_small_model_writes_it_is_verified(law):
    """Seen on the 1.5B: the number written into the source too, and the statute's words with the
    first letter in lower case and a closing stop; both were refused as unverified."""
    assert law.verify("CrPC 60", "60", "If a person in lawful custody escapes or is rescued").verified
    assert law.verify("IPC, section 379", "379", "").verified
    assert not law.verify("CrPC 154", "60", "").exists  # a number in the source that is not the section cited
    check = law.verify("IPC", "379", "whoever commits theft shall be punished with imprisonment of either "
                                     "description for a term which may extend to three years, or with fine, or with both.")
    assert check.verified and check.quote_found
    assert not law.verify("IPC", "379", "whoever commits theft shall be punished with death.").verified


def test_a_section_that_does_not_exist_is_not_verified(law):
    check = law.verify("IPC", "9999", "")
    assert not check.verified and not check.exists and "no such section" in check.reason
    assert not law.verify("Penal Statute of Narnia", "1").verified


def test_a_misquoted_passage_is_not_verified(law):
    check = law.verify("IPC", "302", "shall be punished with death or fine only")
    assert check.exists and check.quote_found is False and not check.verified
    assert "nearest words there" in check.reason and "shall be punished with death, or imprisonment" in check.reason


# ---------------------------------------------------------------- consensus and metrics


def test_consensus_at_exactly_the_threshold_and_short_of_it():
    assert needed(5, 0.8) == 4 and needed(7, 0.8) == 6 and needed(3, 2 / 3) == 2
    four = {f"adjudicator-{n}": v for n, v in enumerate(["guilty"] * 4 + ["not guilty"], 1)}
    assert consensus(four, 5, 0.8) == ("guilty", 0.8)
    three = {**four, "adjudicator-4": "undecided"}
    assert consensus(three, 5, 0.8) == ("", 0.6)
    assert consensus({"a": "undecided"}, 5, 0.8) == ("", 0.0)


def test_meaningful_statements_and_grounding():
    case = bench_case(load_case(CASES / "samvad-theft.json"))
    assert meaningful("The CCTV shows a man in a red shirt but not his face, so the taking is not proved at all here.", case, 15)
    assert not meaningful("I think he did it.", case, 15)
    assert not meaningful("I have thought about this for a long time and I am still of the same view as before now.", case, 15)
    assert grounding(["The phone was in his locker; the CCTV is unclear."], ["phone", "locker", "CCTV", "consent"]) == 0.75


# ---------------------------------------------------------------- whole benches (scripted)


@pytest.mark.parametrize("case", SAMVAD_CASES, ids=lambda p: p.stem)
async def test_the_scripted_backend_runs_a_full_bench(case, tmp_path):
    record, backend = await bench(case, kb_settings(tmp_path))
    assert record.status == "complete", record.error
    doc = record.outputs["bench"]
    out = record.outcome
    assert out.label in ("guilty", "not guilty", "hung") and out.label == doc["verdict"]
    m = doc["metrics"]
    assert set(m) >= {"verdict", "rounds", "agreement", "participation", "meaningful_per_adjudicator", "grounding", "counsel_grounding",
                      "response_seconds", "citations"}
    assert set(m["response_seconds"]) == {"mean", "median", "min", "max"}
    assert m["participation"] == 1.0 and m["citations"]["made"] >= 4 and m["citations"]["verified"] == m["citations"]["made"]
    judge = next(r for r in backend.calls if r.role == "judge")
    assert "STATUTE TEXT RETRIEVED FOR YOU:\n[IPC " in judge.prompt
    assert record.outputs["judge"]["retrieved"]


async def test_four_of_five_is_consensus_and_a_failed_adjudicator_lowers_participation(tmp_path):
    script = {**{f"adjudicator-{n}": statement("guilty") for n in range(1, 5)}, "adjudicator-5": {"$error": "went away"}}
    record, _ = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script)
    m = record.outputs["bench"]["metrics"]
    assert record.outcome.label == "guilty" and m["rounds"] == 1  # 4 of 5 seats is exactly the 80% threshold
    assert m["agreement"] == 0.8 and m["participation"] == 0.8


def bench_script(name: str = "samvad"):
    """A bench of the ``bench`` package (bench/NAME.py), imported."""
    import importlib

    return importlib.import_module(f"bench.{name}")


async def test_the_bench_script_keeps_each_trial_where_asked(tmp_path):
    store = RunStore(tmp_path / "runs")
    script = bench_script()
    row = await script.one(CASES / "samvad-theft.json", kb_settings(tmp_path), 1001, store)
    kept = store.load(row["run"])
    assert row["verdict"] == kept.outputs["bench"]["verdict"] and row["seed"] == 1001
    assert any(c.role == "adjudicator" for c in kept.calls)  # what each adjudicator was asked is there to read
    bare = await script.one(CASES / "samvad-theft.json", kb_settings(tmp_path / "again"), 1001)
    assert "run" not in bare and bare["verdict"] == row["verdict"]


async def test_the_leaning_probe_rewrites_the_stored_prompts_and_maps_each_wording(tmp_path):
    probe = bench_script("samvad_leaning")
    store = RunStore(tmp_path / "runs")
    row = await bench_script().one(CASES / "samvad-theft.json", kb_settings(tmp_path), 1001, store)
    calls = probe.round_one(store.load(row["run"]))
    assert [c.agent for c in calls] == [f"adjudicator-{n}" for n in range(1, 6)]
    user = calls[0].messages[1]["content"]
    full, schema = probe.rewrite(user, "doubt", "full")
    assert full.startswith(user[: user.index(probe.ASK)]) and full.endswith("committed the offence charged?\n")
    assert list(schema["properties"]) == ["justification", "reasonable_doubt"]
    alone, _ = probe.rewrite(user, "leaning", "noargs")
    assert "THE ARGUMENTS:" not in alone and "PROSECUTION EVIDENCE:" in alone and "ROUND 1 of" in alone
    last, _ = probe.rewrite(user, "proved", "evidence-last")
    assert last.count("P1. ") == 2 and last.index("THE EVIDENCE AGAIN") > last.index("THE ARGUMENTS:")
    replies = [{"reasonable_doubt": "yes", "justification": "The theft is not proven: D1 shows he was away."},
               {"reasonable_doubt": "no", "justification": "P1 and P3 prove the taking; it has not been proved otherwise."},
               {"reasonable_doubt": "maybe"}]
    assert probe.tally(replies, "doubt") == {"n": 3, "guilty": 1, "not guilty": 1, "undecided": 1,
                                             "reasons_say_not_proven": 2, "guilty_beside_not_proven": 1}
    plain, schema = probe.rewrite(user, "plain", "noargs")
    assert list(schema["properties"]) == ["reasoning", "decision"] and schema["properties"]["decision"]["enum"] == ["yes", "no"]
    assert probe.tally([{"decision": "no", "reasoning": "D1 puts him elsewhere; the theft is not proven."}], "plain")["not guilty"] == 1
    with pytest.raises(ValueError, match="not an adjudicator prompt"):
        probe.rewrite("hello", "leaning", "full")


async def test_the_statements_reader_lists_each_finding_and_counts_leanings_kept_against_them(tmp_path, capsys):
    reader = bench_script("samvad_statements")
    store = RunStore(tmp_path / "runs")
    stubborn = statement("guilty") | {"findings": [{"element": 1, "evidence": ["P1"], "finding": "proved"},
                                                   {"element": 2, "evidence": ["D1"], "finding": "not proved"}]}
    settings = kb_settings(tmp_path).with_params("samvad", {"max_rounds": 1})
    backend = ScriptedBackend(script={"adjudicator-1": [stubborn, stubborn]})
    record = await Trial(load_case(CASES / "samvad-theft.json"), settings, store=store,
                         backends={"scripted": backend}).run()
    lines, counts = reader.describe(store.load(record.run_id))
    assert "  adjudicator-1@1 undecided (guilty kept against its findings) 1:P1=proved 2:D1=not proved" in lines
    assert counts["statements"] == 5 and counts["inconsistent"] == 1 and counts["repairs"] == 1
    # an element the judge's list had but the bench was not asked (set aside) is listed apart
    stored = store.load(record.run_id)
    stored.outputs["judge"] = {"elements": ["moved the phone", "the phone was in his locker", "dishonestly"],
                               "set_aside": [2]}
    lines, _ = reader.describe(stored)
    assert lines[1:3] == ["  elements: moved the phone | dishonestly",
                          "  set aside (describe the evidence): the phone was in his locker"]
    sys.argv = ["samvad_statements.py", str(tmp_path / "runs")]
    reader.main()
    assert "1 trials: 5 statements" in capsys.readouterr().out


def test_verdict_consistency_is_the_modal_share_per_case():
    module = bench_script()
    row = {"rounds": 1, "agreement": 1.0, "participation": 1.0, "meaningful_per_adjudicator": 1.0, "grounding": 0.5,
           "counsel_grounding": 0.5, "seconds": [1.0, 3.0], "citations": {"made": 2, "verified": 1}}
    rows = [{**row, "case": "a", "verdict": v} for v in ("guilty", "guilty", "not guilty")] + \
           [{**row, "case": "b", "verdict": "hung"}, {"case": "b", "error": "boom"}]
    s = module.summary(rows)
    assert s["consistency"] == {"a": 0.667, "b": 1.0} and s["consistency_mean"] == pytest.approx(0.8335, abs=1e-3)
    assert s["runs"] == 5 and s["failed"] == 1 and s["hung"] == 1
    assert s["citations_made"] == 8 and s["citations_verified"] == 4
    assert s["response_seconds"] == {"mean": 2.0, "median": 2.0, "min": 1.0, "max": 3.0}


async def test_a_hung_bench_after_the_last_round(tmp_path):
    split = [statement("guilty"), statement("not guilty")]
    script = {f"adjudicator-{n}": split[n % 2] for n in range(1, 6)}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script, max_rounds=3)
    assert record.outcome.label == "hung" and record.outcome.polarity == "undecided"
    assert record.outputs["bench"]["metrics"]["rounds"] == 3
    assert record.outcome.answer.startswith("Hung bench: no verdict reached 80% of the bench after 3 rounds")
    assert len([r for r in backend.calls if r.role == "adjudicator"]) == 15


async def test_consensus_ends_deliberation_and_conformity_is_recorded(tmp_path):
    script = {"adjudicator-1": [statement("not guilty"), statement("guilty")], "adjudicator-2": [statement("undecided"), statement("guilty")],
              "adjudicator": statement("guilty")}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script)
    doc = record.outputs["bench"]
    assert doc["verdict"] == "guilty" and [r["agreement"] for r in doc["by_round"]] == [0.6, 1.0]
    [moves] = doc["conformity"]["rounds"]
    assert moves["previous_majority"] == "guilty" and moves["changed"] == 2 and moves["toward"] == 2
    assert {m["adjudicator"] for m in moves["moves"]} == {"adjudicator-1", "adjudicator-2"}
    assert len([r for r in backend.calls if r.role == "adjudicator"]) == 10  # no third round after consensus


async def test_the_round_prompts_contain_the_previous_rounds_statements(tmp_path):
    script = {f"adjudicator-{n}": [statement("undecided", f"Marker {n}: the evidence P{n} and IPC section 379 leave me "
                                                             "unsure for now, so I wait for the others' reasons."),
                                   statement("undecided")] for n in range(1, 6)}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script, max_rounds=2)
    second = {r.agent: r.prompt for r in backend.calls if r.role == "adjudicator" and "ROUND 2 of" in r.prompt}
    assert len(second) == 5
    for agent, prompt in second.items():
        n = int(agent.rpartition("-")[2])
        assert all(f"Marker {m}:" in prompt for m in range(1, 6) if m != n)  # every other statement, by letter
        assert f"YOUR OWN STATEMENT IN THE PREVIOUS ROUND: (undecided; elements proved 1; not proved 2): Marker {n}:" in prompt
        assert "TALLY OF ROUND 1: 0 guilty; 0 not guilty; 5 undecided" in prompt and "adjudicator-" not in prompt
    first = [r for r in backend.calls if r.role == "adjudicator" and "ROUND 1 of" in r.prompt]
    assert len(first) == 5 and all("(none: this is the first round" in r.prompt for r in first)
    # the bench reads one brief: the seat comes after it, so the local model's cache reads it once
    shared = os.path.commonprefix([r.prompt for r in first])
    assert "THE LAW THE BENCH MAY RELY ON" in shared and shared.endswith("YOU ARE ADJUDICATOR ")
    # the reasons before the leaning, in the prompt and in the schema the grammar follows
    for r in first:
        asked = r.prompt.split("Reply with JSON with these fields")[1]
        assert asked.index('"findings"') < asked.index('"justification"') < asked.index('"leaning"')
        assert list(r.schema["properties"]) == ["findings", "justification", "leaning"]
        assert "a counsel's claim or a suspicion is not a fact unless an evidence item states it" in r.prompt


def test_a_guilty_leaning_needs_every_element_found_proved_on_an_item():
    from courtroom_chat.procedures.samvad.rules import statement_problems
    from courtroom_chat.procedures.samvad.wire import StatementReply

    items = ["P1", "P2", "D1"]
    words = "The evidence P1 and the law in IPC section 379 decide it, weighed against D1 with care."

    def rules(findings, leaning):
        reply = StatementReply(findings=[{"element": k, "evidence": e, "finding": f} for k, e, f in findings],
                               justification=words, leaning=leaning)
        return [p.rule for p in statement_problems(reply, 10, 2, items)]

    assert rules([(1, ["P1"], "proved"), (2, ["P2"], "proved")], "guilty") == []
    assert rules([(1, ["P1"], "proved"), (2, ["D1"], "not proved")], "not guilty") == []
    assert rules([(1, ["P1"], "proved"), (2, ["P2"], "proved")], "not guilty") == []  # a defence may still acquit
    assert rules([(1, ["P1"], "proved"), (2, ["D1"], "not proved")], "guilty") == ["unsupported_guilt"]
    # proved on no item is not proved; an item the case file lacks, or an element left out, is sent back
    assert rules([(1, ["P1"], "proved"), (2, [], "proved")], "guilty") == ["findings", "unsupported_guilt"]
    assert rules([(1, ["P7"], "proved"), (2, ["P2"], "proved")], "guilty") == ["findings"]
    assert rules([(1, ["P1"], "proved"), (1, ["P2"], "proved")], "not guilty") == ["findings"]
    assert "element 2 not proved, yet your leaning is guilty" in statement_problems(
        StatementReply(findings=[{"element": 1, "evidence": ["P1"], "finding": "proved"},
                                 {"element": 2, "evidence": ["D1"], "finding": "not proved"}],
                       justification=words, leaning="guilty"), 10, 2, items)[0].message
    # a case file without items: findings need no item, and an older reply without findings is not checked
    assert statement_problems(StatementReply(findings=[{"element": 1, "finding": "proved"}], justification=words,
                                             leaning="guilty"), 10, 1, []) == []
    assert statement_problems(StatementReply(justification=words, leaning="guilty"), 10) == []


async def test_each_adjudicator_finds_on_the_judges_elements_and_an_unsupported_guilt_counts_undecided(tmp_path):
    judge = {"instructions": "Decide whether the prosecution proved theft of the chain on the evidence before the "
                             "bench, weighing both sides impartially and nothing outside it.",
             "elements": ["the accused moved the chain", "dishonestly", "out of the owner's possession"],
             "standard_of_proof": "Beyond reasonable doubt, on the prosecution.", "citations": []}
    proved = [{"element": k, "evidence": ["P1"], "finding": "proved"} for k in (1, 2, 3)]
    guilty = statement("guilty") | {"findings": proved}
    stubborn = statement("guilty") | {"findings": [*proved[:2], {"element": 3, "evidence": ["D1"],
                                                                 "finding": "not proved"}]}
    script = {"judge": judge, "adjudicator-1": [stubborn, stubborn],
              **{f"adjudicator-{n}": guilty for n in range(2, 6)}}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script, max_rounds=1)
    asked = [r for r in backend.calls if r.role == "adjudicator"]
    first = next(r for r in asked if r.agent == "adjudicator-2")
    assert "1. the accused moved the chain\n2. dishonestly\n3. out of the owner's possession" in first.prompt
    findings = first.schema["properties"]["findings"]
    assert findings["minItems"] == findings["maxItems"] == 3
    # the n-th finding is on element n, for a grammar that reads prefixItems
    assert [f["properties"]["element"] for f in findings["prefixItems"]] == [{"const": k} for k in (1, 2, 3)]
    assert all(f["properties"]["finding"]["enum"] == ["proved", "not proved"] for f in findings["prefixItems"])
    finding = first.schema["$defs"]["Finding"]["properties"]
    assert finding["element"]["enum"] == [1, 2, 3] and finding["finding"]["enum"] == ["proved", "not proved"]
    b = bench_case(load_case(CASES / "samvad-theft.json"))
    assert finding["evidence"]["items"]["enum"] == ([f"P{i}" for i in range(1, len(b.prosecution_evidence) + 1)]
                                                    + [f"D{i}" for i in range(1, len(b.defense_evidence) + 1)])
    # adjudicator 1 leaned guilty with element 3 not proved, twice: sent back once, then counted undecided
    ones = [r for r in asked if r.agent == "adjudicator-1"]
    assert len(ones) == 2 and "make your leaning follow your findings" in ones[1].messages()[-1]["content"]
    statement1 = record.outputs["adjudicator-1@1"]
    assert statement1["leaning"] == "undecided" and statement1["inconsistent"]
    assert statement1["findings"][2]["what"] == "out of the owner's possession"
    assert any(w.rule == "unsupported_guilt" and w.agent == "adjudicator-1" for w in record.warnings)
    assert record.outputs["bench"]["by_round"][0]["counts"] == {"guilty": 4, "not guilty": 0, "undecided": 1}
    assert record.outcome.label == "guilty"  # four of five is still the consensus


async def test_without_the_judges_elements_each_charge_is_one_and_the_digest_shows_findings(tmp_path):
    judge = {"instructions": "Decide whether the prosecution proved the charge on the evidence before the bench, "
                             "weighing both sides impartially and nothing outside it.",
             "elements": [], "standard_of_proof": "Beyond reasonable doubt, on the prosecution.", "citations": []}
    script = {"judge": judge, **{f"adjudicator-{n}": statement(["guilty", "not guilty"][n % 2], elements=1)
                                 for n in range(1, 6)}}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script, max_rounds=2)
    b = bench_case(load_case(CASES / "samvad-theft.json"))
    first = next(r for r in backend.calls if r.role == "adjudicator")
    assert f"1. {b.accused or 'the accused'} committed {b.charges[0]}" in first.prompt
    second = [r.prompt for r in backend.calls if r.role == "adjudicator" and "ROUND 2 of" in r.prompt]
    assert second and all("(guilty; elements proved 1)" in p and "(not guilty; not proved 1)" in p for p in second)


async def test_peers_without_the_tally_and_an_early_stop(tmp_path):
    script = {f"adjudicator-{n}": statement(["guilty", "not guilty"][n % 2]) for n in range(1, 6)}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script, show_tally=False,
                                  stop_when_stable=True, max_rounds=3)
    later = [r.prompt for r in backend.calls if r.role == "adjudicator" and "ROUND 2 of" in r.prompt]
    assert later and not any("TALLY OF ROUND" in p for p in later) and all("Adjudicator A (" in p for p in later)
    doc = record.outputs["bench"]
    assert doc["verdict"] == "hung" and doc["conformity"]["stopped"] == "stable" and doc["conformity"]["rounds_skipped"] == 1
    # the round not held is counted as the last one held cost: its five adjudicators' calls
    adjudicators = [c for c in record.calls if c.role == "adjudicator"]
    assert len(adjudicators) == 10  # two rounds of five, one call each
    round_2 = sum(c.usage.prompt_tokens + c.usage.output_tokens for c in adjudicators[5:])
    assert doc["conformity"]["tokens_saved"] == round_2 > 0
    assert f"about {round_2:,} tokens saved" in record.outcome.markdown
    assert any(w.rule == "stopped_early" and "tokens saved" in w.message for w in record.warnings)
    from courtroom_chat.evaluation.report import early_stops

    rows = [{"details": {"conformity": doc["conformity"]}}, {"details": {}}]
    assert early_stops(rows) == {"trials": 1, "of": 2, "rounds_skipped": 1, "tokens_saved": round_2}
    assert early_stops([{"details": {}}]) == {}


async def test_unverified_citations_are_marked_counted_and_kept_from_the_bench(tmp_path):
    script = {"prosecution": {"argument": "The CCTV and the locker prove that the accused took the phone dishonestly and "
                                          "without consent, as the items P1 to P4 show.",
                              "points": ["P3: the phone was in his locker"],
                              "citations": [{"source": "IPC", "section": "378", "quote": "moves that property"},
                                            {"source": "IPC", "section": "9999", "quote": ""},
                                            {"source": "IPC", "section": "379", "quote": "shall be hanged"}]}}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script)
    mine = [c for c in record.outputs["citations"] if c["by"] == "prosecution"]
    assert [c["verified"] for c in mine] == [True, False, False]
    assert record.outputs["bench"]["metrics"]["citations"]["unverified"] == 2
    repair = [r for r in backend.calls if r.agent == "prosecution"]
    assert len(repair) == 2 and "citation 2" in repair[1].inputs["repair"][0]  # asked once to mend them
    bench_prompt = next(r.prompt for r in backend.calls if r.role == "adjudicator")
    law = bench_prompt.split("THE LAW THE BENCH MAY RELY ON")[1].split("THE OTHER ADJUDICATORS")[0]
    assert "[IPC 378]" in law and "IPC 9999" not in law and "2 citations could not be verified" in law
    assert any(w.rule == "citation_unverified" for w in record.warnings)


async def test_the_law_the_bench_reads_lists_the_prosecutions_citations_first_whoever_finished_first(tmp_path):
    script = {"prosecution": {"argument": "The CCTV and the locker prove that the accused took the phone dishonestly and "
                                          "without consent, as the items P1 to P4 show.",
                              "points": ["P3: the phone was in his locker"],
                              "citations": [{"source": "IPC", "section": "411", "quote": ""}]},
              "defense": {"argument": "The accused found the phone and meant to hand it in; nothing in the items P1 to "
                                      "P4 shows a dishonest intention to keep it.",
                          "points": ["P2: he was seen at the lost-property desk"],
                          "citations": [{"source": "IPC", "section": "403", "quote": ""}]}}
    settings = kb_settings(tmp_path)
    laws = []
    for backend in (ScriptedBackend(script=copy.deepcopy(script)),
                    staggered(lambda agent: 0.05 if agent == "prosecution" else 0,
                              script=copy.deepcopy(script))):
        await Trial(load_case(CASES / "samvad-theft.json"), settings, store=None, backends={"scripted": backend}).run()
        finished = [agent for agent, *_ in backend.timeline if agent in ("prosecution", "defense")]
        prompt = next(r.prompt for r in backend.calls if r.agent == "adjudicator-1")
        laws.append((finished, prompt.split("THE LAW THE BENCH MAY RELY ON")[1].split("THE OTHER ADJUDICATORS")[0]))
    (_, law), (finished, law_late) = laws  # (the judge's instructions cite neither section)
    assert finished == ["defense", "prosecution"]
    assert law == law_late and law.index("[IPC 411]") < law.index("[IPC 403]")  # as the prosecution cited it


async def test_a_section_named_only_in_the_argument_text_is_checked_too(tmp_path):
    """Every citation is checked: a section the argument names in its prose, not in its list,
    is verified like a listed one; a made-up one is marked, counted and kept from the bench."""
    script = {"prosecution": {"argument": "Under section 378 of the Indian Penal Code this is theft, and IPC 9998 makes "
                                          "it worse, as the items P1 to P4 show beyond doubt today.",
                              "points": ["P3: the phone was in his locker"],
                              "citations": [{"source": "IPC", "section": "379", "quote": ""}]}}
    record, _ = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script)
    mine = [c for c in record.outputs["citations"] if c["by"] == "prosecution"]
    assert [(c["section"], c["verified"], c["point"]) for c in mine] == [
        ("379", True, ""), ("378", True, "named in the text"), ("9998", False, "named in the text")]
    assert record.outputs["bench"]["metrics"]["citations"]["unverified"] >= 1
    assert any(w.rule == "citation_unverified" and "IPC 9998" in w.message for w in record.warnings)


async def test_retrieval_off_is_the_ablation(tmp_path):
    settings = kb_settings(tmp_path)
    record, backend = await bench(CASES / "samvad-negligence.json", settings, retrieval=False)
    judge = next(r for r in backend.calls if r.role == "judge")
    assert "retrieval is off" in judge.prompt and judge.inputs["law"] == []
    assert record.outputs["judge"]["retrieved"] == [] and record.outputs["bench"]["metrics"]["retrieval"] is False
    assert not (tmp_path / "store").exists()  # nothing was indexed
    assert record.outputs["bench"]["metrics"]["citations"]["made"] >= 2  # cited from the charges, still checked


def test_a_case_with_no_charges_is_one_line(tmp_path):
    data = json.loads((CASES / "samvad-theft.json").read_text(encoding="utf-8"))
    path = tmp_path / "no-charges.json"
    path.write_text(json.dumps({**data, "charges": []}), encoding="utf-8")
    with pytest.raises(CaseError, match="the case has no charges"):
        load_case(path)
    result = CliRunner().invoke(app, ["run", str(path), "-b", "scripted"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "the case has no charges" in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("procedure", ["criminal", "samvaad"])
def test_a_bench_case_naming_another_procedure_is_one_line_not_tried_as_the_bench(tmp_path, runs_dir, procedure):
    """The file's 'procedure' was dropped unseen: a bench case saying "criminal" (or "samvaad") was
    tried by the bench with no word."""
    data = json.loads((CASES / "samvad-theft.json").read_text(encoding="utf-8"))
    path = tmp_path / "named.json"
    path.write_text(json.dumps({**data, "procedure": procedure}), encoding="utf-8")
    message = f"'procedure' is '{procedure}', but a file of case_id, summary and charges is a bench case"
    with pytest.raises(CaseError, match=re.escape(message)):
        load_case(path)
    result = CliRunner().invoke(app, ["run", str(path), "-b", "scripted"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not RunStore(runs_dir).list()
    assert load_case(CASES / "samvad-theft.json").procedure == "samvad"  # its own name, or none, reads as before


def test_a_bench_case_with_a_question_added_is_told_to_drop_it(tmp_path):
    """It was refused for every field of a bench case ("unknown field(s) accused, case_id, …")."""
    data = json.loads((CASES / "samvad-theft.json").read_text(encoding="utf-8"))
    path = tmp_path / "asked.json"
    path.write_text(json.dumps({**data, "question": "Is he guilty?"}), encoding="utf-8")
    with pytest.raises(CaseError, match=re.escape("asked.json: is a samvad case file, which states its question from "
                                                  "its own fields; drop 'question' from the file")):
        load_case(path)


def test_the_example_cases_have_every_field():
    assert len(SAMVAD_CASES) == 5
    for path in SAMVAD_CASES:
        case = load_case(path)
        assert case.procedure == "samvad"
        b = bench_case(case)
        assert b.case_id and b.summary and b.charges and b.law and b.keywords
        assert len(b.prosecution_evidence) >= 3 and len(b.defense_evidence) >= 2


async def test_dry_run_plans_every_round_without_indexing(tmp_path):
    settings = kb_settings(tmp_path)
    events = []
    await Trial(load_case(CASES / "samvad-dowry-death.json"), settings, store=None, dry_run=True).run(events.append)
    planned = [e for e in events if e.type == "prompt_planned"]
    assert [e.role for e in planned] == ["judge", "prosecution", "defense"] + ["adjudicator"] * 10
    judge = planned[0].messages[-1]["content"]
    assert "[the provisions retrieved from the knowledge base for this query]" in judge
    assert "[the statement of the last round]" in planned[-1].messages[-1]["content"]
    assert not (tmp_path / "store").exists()  # a dry run indexes nothing


def test_a_bench_over_a_corpus_with_no_readable_file_is_one_line(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "notes.docx").write_bytes(b"PK\x03\x04")
    config = tmp_path / "config.toml"
    config.write_text(f'[kb]\ncorpus = "{tmp_path / "corpus"}"\npath = "{tmp_path / "store"}"\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(CASES / "samvad-theft.json"), "-b", "scripted", "--config", str(config)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    [line] = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert "holds no readable file for the knowledge base" in line


def test_case_inputs_from_the_command_line_one_charge_a_line():
    runner = CliRunner()
    ok = runner.invoke(app, ["run", "-p", "samvad", "-q", "Is Asha guilty?", "-b", "scripted", "-i",
                             "charges=Theft of a bicycle under IPC 379\nTrespass", "-i", "summary=A bicycle was taken."])
    assert ok.exit_code == 0, ok.output
    assert "Theft of a bicycle under IPC 379; Trespass" in ok.stdout
    assert re.search(r"(Guilty|Not guilty): the accused is (guilty|not guilty) of Theft of a bicycle under IPC 379; Trespass", ok.stdout)
    missing = runner.invoke(app, ["run", "-p", "samvad", "-q", "Is Asha guilty?", "-b", "scripted", "-i", "summary=A bicycle."])
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    assert missing.output.strip().splitlines()[-1].startswith("error: case: the case has no charges")


def test_a_question_of_guilt_with_documents_charges_the_offence_and_names_the_accused():
    from courtroom_chat.case import new_case, pasted_document
    from courtroom_chat.procedures.samvad.cases import charged

    assert charged("Is Dana Whitlock guilty of theft of the laptop?") == ("Dana Whitlock", "theft of the laptop")
    assert charged("Are Tomer and Stan guilty of murder?") == ("Tomer and Stan", "murder")
    assert charged("  was the accused GUILTY for cheating under IPC 420 ? ") == ("the accused", "cheating under IPC 420")
    assert charged("Did Asha take the bicycle?") == ("", "Did Asha take the bicycle?")  # no one named, asked as is
    assert charged("Is Dana Whitlock not guilty of theft?") == ("Dana Whitlock", "theft")  # asked the other way
    assert charged("Isn't Dana Whitlock guilty of theft?") == ("Dana Whitlock", "theft")
    assert charged("The CCTV shows her at the till. Is Dana Whitlock guilty of theft?") == ("Dana Whitlock", "theft")
    case = new_case("Is Dana Whitlock guilty of theft of the laptop?",
                    [pasted_document("The store video shows Dana Whitlock taking the laptop without paying.")])
    b = bench_case(case)
    assert (b.accused, b.charges, b.summary) == ("Dana Whitlock", ["theft of the laptop"], case.question)
    assert b.prosecution_evidence and "store video" in b.prosecution_evidence[0]
    # a long document's item is its opening cut at a word, never mid-word ("from the displ")
    long = ("On 14 March at 6:40 pm the defendant took a boxed laptop from the display shelf at Volt Electronics, "
            "put it in a sports bag and walked out without paying. ") * 4
    item = bench_case(new_case(case.question, [pasted_document(long)])).prosecution_evidence[0]
    name, opening = item.split(": ", 1)
    assert name == "pasted-1.txt" and len(opening) <= 240 and opening.endswith("…")
    said = opening[:-1]
    assert long.startswith(said) and long[len(said)] in " ,;:"  # whole words, each as the document has it
    # a finding on the charge as a whole, when the judge gives no elements, reads as a sentence
    assert elements_of({}, b) == ["Dana Whitlock committed theft of the laptop"]


def test_the_hybrid_leans_on_bm25_only_when_the_query_uses_the_statutes_words():
    from courtroom_chat.retrieval import BM25, fuse

    bm = BM25(["whoever commits theft shall be punished", "whoever causes death by negligence", "the right of private defence"])
    assert bm.match("whoever commits theft shall be punished") > 0.9
    assert bm.match("someone took my phone") < 0.3 and bm.match("zzz qqq") == 0.0
    assert fuse([1.0, 0.0], [0.0, 1.0]) == [0.5, 0.5]  # the classification retriever's mean, unchanged
    assert fuse([1.0, 0.0], [0.0, 1.0], weight=0.0) == [1.0, 0.0]


def test_query_expansion_adds_the_statutes_words_for_everyday_ones():
    from courtroom_chat.kb import expand_query

    took = expand_query("Someone took my phone from the bench")
    assert took.startswith("Someone took my phone from the bench\n") and "dishonestly takes movable property" in took
    assert "dishonestly takes" in expand_query("My bicycle was STOLEN")  # a word start, any case
    assert "in charge of a police station" in expand_query("the police would not take my FIR") and \
        "police station" not in expand_query("they set a fire in the first house")  # "fir$": the whole word only
    assert "marrying again" in expand_query("he married again while his first wife lived")  # a phrase
    assert expand_query("zzz qqq") == "zzz qqq"  # nothing to add


def test_search_with_expansion_finds_theft_for_a_plain_situation(tmp_path):
    kb = KnowledgeBase([small_corpus(tmp_path / "corpus")], path=tmp_path / "store")
    question = "someone pinched my wallet on the bus"
    assert "IPC 378" not in [h.provision.key for h in kb.search(question, k=3, method="bm25")]
    assert "IPC 378" in [h.provision.key for h in kb.search(question, k=3, method="bm25", expand="lexical")]
    for expand in ("off", "lexical", "both"):
        assert len(kb.search(question, k=3, expand=expand)) == 3
    with pytest.raises(ConfigError, match="unknown query expansion 'sometimes'"):
        kb.search(question, expand="sometimes")
    with pytest.raises(ConfigError, match="unknown query expansion"):
        KnowledgeBase([tmp_path / "corpus"], expand="always")
    assert KnowledgeBase.from_settings(kb_settings(tmp_path, expand="both").kb).expand == "both"


def test_the_evaluation_harness_scores_the_bench_and_counts_its_switches(tmp_path):
    (tmp_path / "cctv.txt").write_text("The CCTV shows the accused taking the phone from the counter and leaving.\n")
    rows = [{"id": "a", "question": "Is the accused guilty of theft under IPC 379?", "context": ["cctv.txt"], "answer": "yes"},
            {"id": "b", "question": "Is the accused guilty of cheating under IPC 420?", "context": ["cctv.txt"], "answer": "no"}]
    dataset = tmp_path / "bench.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", str(dataset), "-p", "samvad", "--baseline", "none", "-b", "scripted",
                                      "--config", str(_config(tmp_path)), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    [summary] = list((tmp_path / "runs" / "evals").glob("*/summary.json"))
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["procedure"] == "samvad" and data["items"] == 2
    assert data["rounds"]["court"]  # the adjudicators' moves between rounds, scored against the gold


def test_the_next_round_reads_a_statement_with_its_findings_and_whether_it_was_counted_undecided():
    from courtroom_chat.procedures.samvad import present

    s = statement("undecided") | {"inconsistent": True}
    line = present.statement_line(s, 40)
    assert line.startswith("(undecided; elements proved 1; not proved 2; counted undecided: it leaned guilty "
                           "against its own findings): On the evidence P1")
    assert len(line.split("): ", 1)[1]) <= 41  # the justification shortened to the limit
    assert present.statement_line({"leaning": "guilty", "justification": "Short."}, 40) == "(guilty): Short."


def test_an_element_that_describes_the_evidence_is_told_apart_from_one_applied_to_the_case():
    from courtroom_chat.procedures.samvad.rules import fact_elements

    b = bench_case(load_case(CASES / "samvad-theft.json"))
    law = "378. Theft.—Whoever, intending to take dishonestly any movable property out of the possession of any person"
    elements = ["Ravi Kumar moved the phone out of Meena Iyer's possession without her consent",  # applied: fine
                "The accused intended to take the phone dishonestly",
                "The phone was recovered from Ravi Kumar's locker with its SIM card removed",  # the evidence
                "A man in a red porter's shirt walked past the bench at 7:42 p.m."]
    assert fact_elements(elements, b, law) == {3: ["recovered", "locker", "card", "removed"],
                                               4: ["porter", "shirt", "past", "bench"]}


async def test_the_judges_elements_that_describe_the_evidence_are_sent_back_then_set_aside(tmp_path):
    judge = {"instructions": "Decide whether the prosecution proved theft of the phone on the evidence before the "
                             "bench, weighing both sides impartially and nothing outside it.",
             "elements": ["The accused moved the phone out of Meena Iyer's possession without her consent",
                          "The phone was recovered from Ravi Kumar's locker with its SIM card removed",
                          "The accused intended to take the phone dishonestly"],
             "standard_of_proof": "Beyond reasonable doubt, on the prosecution.", "citations": []}
    script = {"judge": [judge, judge], **{f"adjudicator-{n}": statement("guilty") for n in range(1, 6)}}
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), script, max_rounds=1)
    asked = [r for r in backend.calls if r.agent == "judge"]
    assert len(asked) == 2 and "element 2 describes this case's evidence (recovered, locker" in \
        asked[1].messages()[-1]["content"]
    assert record.outputs["judge"]["set_aside"] == [2]
    from courtroom_chat.procedures.samvad import present

    shown = present.judge_markdown(record.outputs["judge"])
    assert "- ~~The phone was recovered from Ravi Kumar's locker with its SIM card removed~~ (set aside" in shown
    assert any(w.rule == "element_facts" and w.agent == "judge" for w in record.warnings)
    first = next(r for r in backend.calls if r.role == "adjudicator")
    assert ("1. The accused moved the phone out of Meena Iyer's possession without her consent\n"
            "2. The accused intended to take the phone dishonestly\n") in first.prompt
    assert "locker with its SIM" not in first.prompt.split("THE ELEMENTS OF THE CHARGE")[1].split("THE ARGUMENTS")[0]


async def test_shuffled_leanings_give_each_adjudicator_its_own_order_with_undecided_last(tmp_path):
    """The order control (issue 21) on the bench: with ``shuffle_labels`` each adjudicator reads
    guilty and not guilty in its own seeded order, in the prompt and the schema, undecided last,
    recorded in the run; off, every one reads guilty first."""
    settings = kb_settings(tmp_path).with_params("samvad", {"shuffle_labels": True, "max_rounds": 1})
    backend = ScriptedBackend()
    record = await Trial(load_case(CASES / "samvad-theft.json"), settings, store=None, seed=11,
                         backends={"scripted": backend}).run()
    orders = {a: tuple(o["labels"]) for a, o in record.outputs["orders"].items()}
    assert len(orders) == 5 and set(orders.values()) == {("guilty", "not guilty", "undecided"),
                                                         ("not guilty", "guilty", "undecided")}
    for call in backend.calls:
        if call.agent in orders and not call.repairs:
            first, second, last = orders[call.agent]
            assert f'"leaning": exactly "{first}", "{second}" or "{last}".' in call.prompt
            assert call.schema["properties"]["leaning"]["enum"] == [first, second, last]
    plain, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), max_rounds=1)
    assert "orders" not in plain.outputs
    assert all('exactly "guilty", "not guilty" or "undecided"' in c.prompt for c in backend.calls
               if c.agent.startswith("adjudicator"))
    order = record.outcome.data["order"]  # the order check: how many voted the leaning they read first
    voted = {a: o["leaning"] for a, o in record.outputs.items()
             if a.startswith("adjudicator") and isinstance(o, dict) and o.get("leaning") in ("guilty", "not guilty")}
    assert order["who"] == "adjudicators" and order["voters"] == len(voted) and order["chance"] == 0.5
    assert order["followed"] == sum(orders[a.split("@")[0]][0] == v for a, v in voted.items())
    assert "order" not in plain.outcome.data


def cites(leaning: str, item: str) -> dict:
    """A statement whose findings rest on evidence item ``item``."""
    out = statement(leaning, f"On the evidence {item} and the law in IPC section 379 I lean {leaning}, having weighed "
                             "both arguments with care today.")
    for f in out["findings"]:
        f["evidence"] = [item]
    return out


async def test_fragility_deliberates_again_without_the_item_the_majority_relied_on(tmp_path):
    """The final round's majority names P2 most: the second bench reads the case file with P2
    withheld (the instructions and arguments unchanged) and, here, no longer convicts."""
    script = {f"adjudicator-{n}": [cites("guilty", "P2" if n < 5 else "P1"), statement("not guilty")]
              for n in range(1, 6)}
    settings = kb_settings(tmp_path).with_params("samvad", {"max_rounds": 1})
    backend = ScriptedBackend(script=script)
    record = await Trial(load_case(CASES / "samvad-theft.json"), settings, store=None, fragility=True,
                         backends={"scripted": backend}).run()
    assert record.outcome.label == "guilty"
    found = record.outcome.data["fragility"]
    assert found["removed"] == "evidence item P2" and found["held"] is False and found["answer"] == "not guilty"
    assert found["summary"].startswith("the verdict rests on evidence item P2: without evidence item P2 (")
    case = json.loads((CASES / "samvad-theft.json").read_text(encoding="utf-8"))
    p2 = case["prosecution_evidence"][1]
    first, again = [r for r in backend.calls if r.role == "adjudicator"][:5], [r for r in backend.calls if r.role == "adjudicator"][5:]
    assert len(again) == 5 and all(p2 in r.user_text() for r in first)
    assert all(p2 not in r.user_text() and "[evidence item P2 withheld]" in r.user_text() for r in again)
    assert [r for r in backend.calls if r.role in ("judge", "prosecution", "defense")] == \
        [r for r in backend.calls[:3]]  # instructions and arguments are not asked again
    assert sum(c.stage.startswith("fragility:") for c in record.calls) == 5


TRANSCRIPT = Path(__file__).resolve().parents[1] / "bench" / "supreme" / "clear" / "whitlock-theft.txt"


async def built_from(tmp_path, script: dict, document: Path) -> tuple:
    """A bench (one round) with the fragility check, on a case built from the whitlock question and
    one document; the record and the scripted backend."""
    settings = kb_settings(tmp_path).with_params("samvad", {"max_rounds": 1})
    backend = ScriptedBackend(script=script)
    case = load_case(question="Is Dana Whitlock guilty of theft of the laptop?", context=[str(document)])
    record = await Trial(case, settings, procedure="samvad", store=None, fragility=True,
                         backends={"scripted": backend}).run()
    return record, backend


async def test_fragility_of_a_case_built_from_one_transcript_withholds_one_witness(tmp_path):
    """A case built from a question and one transcript is tried on one evidence item, P1, the
    whole transcript: withholding it would leave no evidence. The check offers the transcript's
    witnesses instead and withholds the one the majority names (here Officer Brandt, witness 2):
    the second bench reads the other witnesses and not hers, and counsels' points quoting her
    answers, or naming her, are dropped."""
    brandt = "Officer Brandt found the boxed laptop with the store's tag in the car, so I lean guilty on P1 today."
    script = {f"adjudicator-{n}": [statement("guilty", brandt), statement("not guilty")] for n in range(1, 6)}
    found_in_car = "A black sports bag on the back seat holding a boxed laptop."
    script["prosecution"] = {"argument": "The State proved the taking and the car search.", "points": [
        found_in_car, "Witness 2 saw the laptop in the car.", "The store video shows the taking."]}
    record, backend = await built_from(tmp_path, script, TRANSCRIPT)
    assert record.outcome.label == "guilty"
    found = record.outcome.data["fragility"]
    assert found["removed"] == "witness 2's testimony (Officer Lena Brandt)" and found["held"] is False
    assert found["summary"] == ("the verdict rests on witness 2's testimony (Officer Lena Brandt): without the testimony "
                                "of witness 2 (Officer Lena Brandt) in evidence item P1, the bench finds not guilty "
                                "(100% agree)")
    calls = [r for r in backend.calls if r.role == "adjudicator"]
    first, again = calls[:5], calls[5:]
    assert len(again) == 5 and all(found_in_car in r.user_text() for r in first)
    for r in again:
        text = r.user_text()
        assert "WITNESS 2: Officer Lena Brandt [testimony withheld]" in text and found_in_car not in text
        assert "WITNESS 1: Kevin Osei" in text and "WITNESS 3:" in text  # the other witnesses stay
        assert "The store video shows the taking." in text and "Witness 2 saw" not in text


async def test_fragility_withholds_the_witness_whose_testimony_the_reasons_state_without_naming_him(tmp_path):
    """Reasons that name no witness but state what the store manager said (the video, the shelf,
    the tills) rest on his testimony, not on the defendant's two short answers that share their
    everyday words: witness 1 is withheld."""
    video = ("The store video shows the defendant lifting the boxed laptop off the shelf and walking past both "
             "tills to the exit, and the till records show no sale, so I lean guilty on P1.")
    script = {f"adjudicator-{n}": [statement("guilty", video), statement("guilty")] for n in range(1, 6)}
    record, backend = await built_from(tmp_path, script, TRANSCRIPT)
    found = record.outcome.data["fragility"]
    assert found["removed"] == "witness 1's testimony (Kevin Osei)" and found["held"] is True
    again = [r for r in backend.calls if r.role == "adjudicator"][5:]
    assert all("WITNESS 1: Kevin Osei, store manager [testimony withheld]" in r.user_text() for r in again)


async def test_fragility_of_a_case_that_is_one_plain_document_is_not_run(tmp_path):
    """One document with no witness sessions is the case's only evidence item: without it the
    bench would decide on nothing, so the check says why it did not run."""
    memo = tmp_path / "memo.txt"
    memo.write_text("The till shows no sale of the laptop. The camera shows Dana Whitlock leaving with it.\n",
                    encoding="utf-8")
    script = {f"adjudicator-{n}": statement("guilty") for n in range(1, 6)}
    record, backend = await built_from(tmp_path, script, memo)
    found = record.outcome.data["fragility"]
    assert record.outcome.label == "guilty" and found["held"] is None
    assert found["summary"] == ("not run: the case file is one evidence item with no witness sessions; without it the "
                                "bench would have no evidence at all")
    assert len([r for r in backend.calls if r.role == "adjudicator"]) == 5  # not asked again


async def test_fragility_of_a_hung_bench_is_not_run(tmp_path):
    split = [statement("guilty"), statement("not guilty")]
    script = {f"adjudicator-{n}": split[n % 2] for n in range(1, 6)}
    settings = kb_settings(tmp_path).with_params("samvad", {"max_rounds": 1})
    record = await Trial(load_case(CASES / "samvad-theft.json"), settings, store=None, fragility=True,
                         backends={"scripted": ScriptedBackend(script=script)}).run()
    assert record.outcome.label == "hung" and record.outcome.data["fragility"]["held"] is None


async def test_shuffled_arguments_give_each_adjudicator_its_own_order_of_the_counsels(tmp_path):
    """The order control of the arguments (issue 21): with ``shuffle_arguments`` each adjudicator
    reads the prosecution's and the defense's arguments in its own seeded order, recorded beside
    the labels' order; off, every one reads the prosecution first. --order-control switches both."""
    settings = kb_settings(tmp_path).with_params("samvad", {"shuffle_arguments": True, "shuffle_labels": True,
                                                            "max_rounds": 1})
    backend = ScriptedBackend()
    record = await Trial(load_case(CASES / "samvad-theft.json"), settings, store=None, seed=11,
                         backends={"scripted": backend}).run()
    orders = record.outputs["orders"]
    heard = {a: tuple(o["arguments"]) for a, o in orders.items()}
    assert len(heard) == 5 and set(heard.values()) == {("prosecution", "defense"), ("defense", "prosecution")}
    assert all(len(o["labels"]) == 3 for o in orders.values())  # both orders kept, neither hiding the other
    for call in backend.calls:
        if call.agent in heard and not call.repairs:
            first, second = heard[call.agent]
            text = call.user_text()
            assert text.index(f"\n{first.upper()}: ") < text.index(f"\n{second.upper()}: ")
    from courtroom_chat.procedures import get

    assert get("samvad").fixed_order == {"shuffle_labels": False, "shuffle_arguments": False}


async def test_without_shuffled_arguments_the_prosecution_is_heard_first(tmp_path):
    record, backend = await bench(CASES / "samvad-theft.json", kb_settings(tmp_path), max_rounds=1)
    assert "orders" not in record.outputs
    for call in backend.calls:
        if call.agent.startswith("adjudicator"):
            text = call.user_text()
            assert text.index("\nPROSECUTION: ") < text.index("\nDEFENSE: ")


def test_situations_are_indexed_beside_their_provision_and_a_hit_shows_its_words(tmp_path):
    """A situation written for a section is its own chunk (kind "situation") in both searches;
    a hit found through it shows the provision's own words, as the bench must cite them."""
    corpus = small_corpus(tmp_path / "corpus")
    situations = {"IPC 379": "Someone pinches a wallet from a coat on a crowded bus."}
    kb = KnowledgeBase([corpus], path=tmp_path / "store", situations=situations)
    added = [c for c in kb.chunks if c.kind == "situation"]
    assert [(c.provision.key, c.id) for c in added] == [("IPC 379", "ipc-379-situations")]
    assert added[0].text == "IPC section 379: Punishment for theft\nSomeone pinches a wallet from a coat on a crowded bus."
    plain = KnowledgeBase([corpus], path=tmp_path / "store")
    assert kb.corpus_hash != plain.corpus_hash  # another index, built anew
    [hit] = kb.search("a wallet pinched from a coat on a bus", k=1)
    assert hit.provision.key == "IPC 379" and hit.chunk.kind == "text" and "whoever commits theft" in hit.chunk.text.lower()


def test_situations_load_from_the_shipped_files_or_a_file_of_ones_own(tmp_path):
    from courtroom_chat.errors import ConfigError
    from courtroom_chat.kb import load_situations

    shipped = load_situations("auto")
    assert len(shipped) > 400 and all(k.startswith("IPC ") and v.strip() for k, v in shipped.items())
    assert load_situations("off") == {}
    own = tmp_path / "mine.json"
    own.write_text(json.dumps({"IPC 302": "A man kills his neighbour on purpose.", "IPC 1": ""}), encoding="utf-8")
    assert load_situations(str(own)) == {"IPC 302": "A man kills his neighbour on purpose."}  # empty ones dropped
    with pytest.raises(ConfigError, match=r"\[kb\] situations: .*nope.json not found"):
        load_situations(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('["IPC 302"]', encoding="utf-8")
    with pytest.raises(ConfigError, match="must map provision keys"):
        load_situations(str(bad))
    assert KnowledgeBase.from_settings(kb_settings(tmp_path).kb).situations == {}  # off by default
    assert KnowledgeBase.from_settings(kb_settings(tmp_path, situations="auto").kb).situations == shipped


async def test_asked_the_other_way_the_bench_answers_the_question_it_was_asked(tmp_path):
    from courtroom_chat.case import new_case, pasted_document

    case = new_case("Is Dana Whitlock not guilty of theft of the laptop?",
                    [pasted_document("The store video shows Dana Whitlock taking the laptop without paying. "
                                     "She told the officer she took it.")]).model_copy(update={"procedure": "samvad"})
    record = await Trial(case, kb_settings(tmp_path), store=None, backends={"scripted": ScriptedBackend()}).run()
    outcome = record.outcome
    assert bench_case(case).accused == "Dana Whitlock"  # not "Dana Whitlock not"
    if outcome.label in ("guilty", "not guilty"):  # a guilty finding answers this question No
        assert outcome.polarity == {"guilty": "no", "not guilty": "yes"}[outcome.label]
        assert outcome.answer.startswith({"guilty": "Guilty: Dana Whitlock is guilty of theft of the laptop",
                                          "not guilty": "Not guilty: Dana Whitlock is not guilty of theft of the laptop"}[
            outcome.label])
    else:
        assert outcome.polarity == "undecided" and outcome.answer.startswith("Hung bench")
