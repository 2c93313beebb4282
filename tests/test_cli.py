from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from courtroom_chat.events import parse_events
from courtroom_chat.frontends.cli import app
from courtroom_chat.store import RunStore
from tests.conftest import CASES, ROOT, sigint_default

runner = CliRunner()


def invoke(*args, **env):
    return runner.invoke(app, [str(a) for a in args], env=env or None)


def one_line_error(result) -> str:
    """The error line: the last line on stderr, after any progress lines."""
    assert "Traceback" not in result.output
    text = result.stderr.strip().splitlines()[-1]
    assert text.startswith("error: "), result.stderr
    return text


def test_run_prints_the_verdict_and_exits_0(runs_dir):
    result = invoke("run", CASES / "code-commit.json", "--backend", "scripted")
    assert result.exit_code == 0, result.output
    assert "Decision:" in result.stdout and "Confidence:" in result.stdout and "This trial:" in result.stdout
    assert "How sure:" in result.stdout and "Votes: 3–2 (split)" in result.stdout and "Split vote: treat it as weak" in result.stdout
    assert "── Prosecution" in result.stderr and "exhibit 1: ✓ verified code-commit/" in result.stderr
    assert len(RunStore(runs_dir).list()) == 1


def test_the_question_and_evidence_can_be_given_as_arguments(runs_dir, tmp_path):
    """`courtroom run "QUESTION?" FILE…` as a newcomer would type it, and `CASE.json FILE…` adds evidence."""
    pr = tmp_path / "pr.md"
    pr.write_text("PR 9 fixes the crash on logout.\nAll 214 tests pass and two reviewers approved.\n")
    result = invoke("run", "Should I merge PR 9?", pr, "--backend", "scripted")
    assert result.exit_code == 0, result.output
    [row] = RunStore(runs_dir).list()
    assert row["question"] == "Should I merge PR 9?"
    assert "exhibit 1: ✓ verified" in result.stderr and "pr.md" in result.stderr
    result = invoke("run", CASES / "code-commit.json", pr, "--backend", "scripted", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "All 214 tests pass" in result.stdout


def test_evidence_piped_in_as_dash_is_read_from_standard_input(runs_dir, tmp_path):
    """`git diff | courtroom run "Should I commit this?" -`: the diff is evidence, named as a diff."""
    diff = ("diff --git a/retry.py b/retry.py\n--- a/retry.py\n+++ b/retry.py\n@@ -1 +1 @@\n"
            "-RETRIES = 0\n+RETRIES = 3  # all 214 tests pass with the retry\n")
    note = tmp_path / "note.md"
    note.write_text("Two reviewers approved the retry change.\n")
    result = runner.invoke(app, ["run", "Should I commit this?", str(note), "-", "--backend", "scripted", "--dry-run"],
                           input=diff)
    assert result.exit_code == 0, result.output
    assert "+RETRIES = 3  # all 214 tests pass with the retry" in result.stdout
    assert result.stdout.index("Two reviewers approved") < result.stdout.index("+RETRIES = 3")  # in the order given
    assert "stdin.diff" in result.stdout


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (["-", "-"], "x\n", "error: '-' is given twice; standard input is read once, so give '-' once"),
    (["-"], "", 'error: standard input is empty; pipe the evidence in, as in git diff | courtroom run "Should I commit this?" -'),
    (["https://github.com/acme/app/pull/12"], None, "error: https://github.com/acme/app/pull/12 is a web address, and "
     "courtroom reads files, not the web: save the page (a pull request's changes: gh pr diff NUMBER > pr.diff) and attach the file"),
    (["-c", "https://github.com/acme/app/pull/12"], None, "error: https://github.com/acme/app/pull/12 is a web address"),
    (["All tests pass and two reviewers approved"], None, "error: context entry 1 is not a file: 'All tests pass and two "
     "reviewers approve…'; context lists file paths, and the evidence's text goes in a file, or piped in as `-`"),
])
def test_evidence_that_is_no_file_is_named_in_one_line(runs_dir, args, stdin, message):
    result = runner.invoke(app, ["run", "Should I merge PR 12?", *args, "--backend", "scripted"], input=stdin)
    assert result.exit_code == 2
    assert one_line_error(result).startswith(message)
    assert RunStore(runs_dir).list() == []


def test_dash_with_nothing_piped_in_says_how_to_pipe(runs_dir):
    """A terminal at standard input: `-` would wait for typing that never comes; one line instead."""
    script = ("import sys; sys.stdin.isatty = lambda: True; sys.argv = ['courtroom', 'run', 'Should I commit this?', '-', "
              "'-b', 'scripted']; from courtroom_chat.frontends.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**__import__("os").environ, "COURTROOM_RUNS_DIR": str(runs_dir)})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith(
        "'-' reads the evidence from standard input, and nothing is piped in; pipe it, as in git diff | courtroom run \"Should I commit this?\" -")


def test_a_choice_is_run_as_the_question_it_is_tried_as_and_says_what_was_asked(runs_dir, tmp_path):
    designs = tmp_path / "designs.md"
    designs.write_text("Design A loads in 0.8 s and passed the accessibility review.\n"
                       "Design B loads in 2.4 s and failed it.\n")
    result = invoke("run", "Design A or B?", designs, "--backend", "scripted")
    assert result.exit_code == 0, result.output
    assert "⚖  Should we choose Design A rather than Design B?" in result.stderr
    assert "asked: Design A or B?" in result.stderr
    assert re.search(r"(Yes: choose Design A|No: choose Design B)", result.stdout)
    [row] = RunStore(runs_dir).list()
    record = RunStore(runs_dir).load(row["run_id"])
    assert record.case.inputs == {"asked": "Design A or B?"}
    from courtroom_chat import render

    assert "# Should we choose Design A rather than Design B?\n\nAsked: *Design A or B?*" in render.replay(
        parse_events(record.events))


def test_output_writes_the_courtroom_result_as_json(tmp_path):
    out = tmp_path / "result.json"
    result = invoke("run", CASES / "essay-publish.json", "--backend", "scripted", "--output", out)
    assert result.exit_code == 0
    data = json.loads(out.read_text())
    assert data["verdict"]["decision"] in ("guilty", "not_guilty", "dismissed")
    assert data["metadata"]["run_id"] and data["jury"]["guilty_count"] + data["jury"]["not_guilty_count"] >= 1
    assert "Decision:" in result.stdout  # the verdict is printed as usual
    assert f"to {out}" in result.stderr.replace("\n", "")
    md = tmp_path / "result.md"
    assert invoke("run", CASES / "essay-publish.json", "-b", "scripted", "-o", md).exit_code == 0
    assert md.read_text().startswith("# Should I publish my essay")


def test_question_and_context_flags(tmp_path):
    note = tmp_path / "note.md"
    note.write_text("The deadline moved to Friday, which gives the team two extra days of testing.\n")
    result = invoke("run", "--question", "Should we ship on Friday?", "--context", note, "-b", "scripted",
                    "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["case"]["question"] == "Should we ship on Friday?"


def test_verbose_shows_every_agent(runs_dir):
    result = invoke("run", CASES / "architecture.json", "-b", "scripted", "--verbose")
    assert result.exit_code == 0
    assert "Motion:" in result.stderr and "Alternative:" in result.stderr and "Vote:" in result.stderr


def test_dry_run_prints_prompts_and_stores_nothing(runs_dir):
    result = invoke("run", CASES / "code-commit.json", "--dry-run", "--backend", "anthropic")
    assert result.exit_code == 0
    assert "### juror-5" in result.stdout and "[the prosecutor's case statement]" in result.stdout
    # eight roles, and on Claude the screener's second opinion on each of the three documents first
    assert "### screener-3" in result.stdout and result.stdout.index("### screener-1") < result.stdout.index("### prosecutor")
    assert "Dry run:** 11 prompts" in result.stdout and "No model was called." in result.stdout
    assert RunStore(runs_dir).list() == []



def test_a_dry_run_on_an_embedded_model_it_cannot_name_is_refused_in_one_line(runs_dir):
    """A dry run needs no weights, but a plan for a model that does not exist is a silent wrong
    answer: the real run would stop at once."""
    result = invoke("run", CASES / "code-commit.json", "--dry-run", "--backend", "local:qwen9-giant")
    assert result.exit_code == 2 and "Traceback" not in result.output and "### prosecutor" not in result.stdout
    assert result.stderr.strip().splitlines()[-1].startswith("error: unknown local model 'qwen9-giant'; use one of")
    named = invoke("run", CASES / "code-commit.json", "--dry-run", "--backend", "local:qwen2.5-coder-0.5b")
    assert named.exit_code == 0 and "No model was called." in named.stdout  # weights installed or not
    assert RunStore(runs_dir).list() == []

def test_script_file_drives_the_scripted_backend(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"juror": {"reasoning": "word " * 59 + "word.", "vote": "do not act"}}))
    result = invoke("run", CASES / "code-commit.json", "--script", script, "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["jury"]["not_guilty_count"] == 5 and data["verdict"]["decided_by"] == "jury"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run"], "give a case file or --question"),
        (["run", "missing.json"], "case file not found: missing.json"),
        (["run", "merge"], "case file not found: merge; if you meant it as the question, ask it as one, ending in '?', in quotes: courtroom run \"Should I"),
        (["run", "Should I merge?", "nope.md"], "evidence file not found: nope.md"),
        (["run", "Should I merge?", "-q", "Other?"], "two questions given"),
        (["run", "--question", "  "], "the question is empty"),
        (["run", CASES / "code-commit.json", "--format", "yaml"], "--format must be json or markdown"),
        (["run", CASES / "code-commit.json", "--backend", "gpt"], "unknown backend 'gpt'"),
        (["run", "--question", "Q?", "--context", "nope.txt"], "evidence file not found: nope.txt"),
        (["show", "20990101"], "no run '20990101'"),
        (["replay", "20990101"], "no run '20990101'"),
        (["run", CASES], "is a folder, not a case file"),
        (["run", CASES / "code-commit.json", "--script", "nope.json"], "script file not found: nope.json"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in one_line_error(result)


def test_bad_files_are_named(tmp_path):
    (tmp_path / "bad.json").write_text("{oops")
    assert "malformed JSON at line 1" in one_line_error(invoke("run", tmp_path / "bad.json"))
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    result = invoke("run", "-q", "Q?", "-c", tmp_path / "blob.bin", "-b", "scripted")
    assert result.exit_code == 2 and "blob.bin looks like a binary file" in one_line_error(result)
    (tmp_path / "latin.txt").write_bytes(b"\x81\x8d\x8f\x90 bytes")
    result = invoke("run", "-q", "Q?", "-c", tmp_path / "latin.txt", "-b", "scripted")
    assert result.exit_code == 2 and "latin.txt is not UTF-8 text" in one_line_error(result)
    (tmp_path / "c.toml").write_text("[limits]\nmax_file_bytes = 10\n")
    (tmp_path / "long.txt").write_text("x" * 50)
    result = invoke("run", "-q", "Q?", "-c", tmp_path / "long.txt", "-b", "scripted", "--config", tmp_path / "c.toml")
    assert result.exit_code == 2 and "over the 10 bytes limit" in one_line_error(result)
    (tmp_path / "broken.toml").write_text("[parameters]\njury_size = 'x'\n")
    result = invoke("run", CASES / "code-commit.json", "--config", tmp_path / "broken.toml")
    assert result.exit_code == 2 and "jury_size" in one_line_error(result)


def test_a_failed_run_exits_1_and_keeps_the_partial_record(tmp_path, runs_dir):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"judge": {"$error": "the server went away"}}))
    result = invoke("run", CASES / "code-commit.json", "--script", script)
    assert result.exit_code == 1
    message = one_line_error(result)
    assert "the server went away" in message and "partial record saved as run" in message
    [row] = RunStore(runs_dir).list()
    assert row["status"] == "failed"


def test_runs_show_and_feedback(runs_dir):
    assert invoke("run", CASES / "code-commit.json", "-b", "scripted").exit_code == 0
    [row] = RunStore(runs_dir).list()
    listing = invoke("runs")
    assert listing.exit_code == 0 and row["run_id"] in listing.stdout
    shown = invoke("show", row["run_id"][:17])  # rendered for the terminal
    assert shown.exit_code == 0 and "Jury" in shown.stdout and "Exhibit 1" in shown.stdout
    assert "How sure:" in shown.stdout and "Evidence:" in shown.stdout  # the replay shows the block the run did
    assert "<details>" not in shown.stdout and "## " not in shown.stdout
    raw = invoke("show", row["run_id"], "--format", "markdown")
    assert "## Jury" in raw.stdout and "### Exhibit 1" in raw.stdout
    as_json = invoke("show", row["run_id"], "--format", "json")
    assert json.loads(as_json.stdout)["metadata"]["run_id"] == row["run_id"]
    assert invoke("replay", row["run_id"][:17]).stdout == shown.stdout  # the name people ask for it by
    assert invoke("feedback", row["run_id"], "down", "-m", "the PR broke checkout").exit_code == 0
    assert RunStore(runs_dir).load(row["run_id"]).feedback.comment == "the PR broke checkout"
    assert invoke("feedback", row["run_id"], "sideways").exit_code == 2


@pytest.mark.parametrize("command", [("runs",), ("show", "20261127"), ("replay", "20261127"),
                                     ("feedback", "20261127", "up"), ("calibration",)])
def test_reading_commands_refuse_a_runs_folder_that_does_not_exist_and_do_not_create_it(tmp_path, command):
    typo = tmp_path / "runz"
    result = invoke(*command, "--runs-dir", typo)
    assert result.exit_code == 2
    assert one_line_error(result) == (f"error: no runs folder {typo}: check --runs-dir (or [runs] dir in the config); "
                                      "`courtroom runs` lists the runs of the default folder")
    assert not typo.exists()


@pytest.mark.parametrize("command", [("runs",), ("show", "x"), ("feedback", "x", "up"), ("calibration",),
                                     ("run", CASES / "code-commit.json", "-b", "scripted"),
                                     ("eval", ROOT / "bench" / "supreme" / "clear.jsonl", "--baseline", "single", "-b", "scripted")])
def test_an_empty_runs_dir_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    result = invoke(*command, "--runs-dir", "")
    assert result.exit_code == 2
    assert one_line_error(result) == ("error: --runs-dir is empty; give the folder for run records, "
                                      "or leave --runs-dir out for the default")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_run_cannot_be_rated(runs_dir, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    script = runs_dir.parent / "failing.json"
    script.write_text(json.dumps({"judge": {"$error": "boom"}}))
    assert invoke("run", CASES / "code-commit.json", "-b", "scripted", "--script", script).exit_code != 0
    [row] = RunStore(runs_dir).list()
    result = invoke("feedback", row["run_id"], "up")
    assert result.exit_code == 2
    assert one_line_error(result).startswith(f"error: run {row['run_id']} failed and has no verdict to rate")
    assert RunStore(runs_dir).load(row["run_id"]).feedback is None


def test_with_no_runs_folder_yet_listing_and_calibration_say_so(monkeypatch, tmp_path):
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("COURTROOM_RUNS_DIR", str(fresh))
    listing = invoke("runs")
    assert listing.exit_code == 0 and "".join(listing.stdout.split()) == f"norunsyetin{fresh}"
    calibration = invoke("calibration")
    assert calibration.exit_code == 0 and "No rated verdict" in calibration.stdout
    assert not fresh.exists()


def test_config_init_and_show(tmp_path):
    target = tmp_path / "config.toml"
    assert invoke("config", "init", target).exit_code == 0
    assert invoke("config", "init", target).exit_code == 2
    shown = invoke("config", "show", "--config", target)
    assert shown.exit_code == 0 and "jury_size = 5" in shown.stdout


def test_help_imports_nothing_heavy():
    code = (
        "import sys, io, contextlib\n"
        "from courtroom_chat.frontends.cli import app\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    app(['--help'])\n"
        "heavy = [m for m in ('pydantic', 'anthropic', 'ollama', 'chainlit', 'xllamacpp', 'pandas', 'ipywidgets',"
        " 'genai_prices', 'pypdf') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_ctrl_c_saves_the_partial_record_and_exits_1(runs_dir):
    import os
    import signal
    import time

    env = {**os.environ, "COURTROOM_SCRIPTED_LATENCY_MS": "400", "COURTROOM_RUNS_DIR": str(runs_dir),
           "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "courtroom_chat.frontends.cli", "run", str(CASES / "code-commit.json"), "-b", "scripted"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=sigint_default,
    )
    # Interrupt once the trial has started (its first line is out), not after a fixed sleep: a
    # loaded machine can take longer than any fixed start-up allowance. At 400 ms a call the
    # trial cannot finish within the next line.
    first = proc.stderr.readline()  # the trial's progress goes to stderr
    assert first and proc.poll() is None, first
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    err = first + err
    assert proc.returncode == 1, err
    assert "interrupted; the partial record was saved as run" in err and "Traceback" not in err
    [row] = RunStore(runs_dir).list()
    assert row["status"] == "incomplete"
    assert RunStore(runs_dir).load(row["run_id"]).verdict is None


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_kill_and_a_closed_terminal_save_the_partial_record_as_ctrl_c_does(runs_dir, signame):
    """`kill -TERM` (143) and SIGHUP (129) ended the process at once and left no record."""
    import os
    import signal
    import time

    env = {**os.environ, "COURTROOM_SCRIPTED_LATENCY_MS": "400", "COURTROOM_RUNS_DIR": str(runs_dir),
           "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "courtroom_chat.frontends.cli", "run", str(CASES / "code-commit.json"), "-b", "scripted"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    first = proc.stderr.readline()
    assert first and proc.poll() is None, first
    time.sleep(0.3)
    signum = getattr(signal, signame)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    err = first + err
    assert proc.returncode == 128 + signum, err
    assert f"stopped by {signame}; the partial record was saved as run" in err and "Traceback" not in err
    [row] = RunStore(runs_dir).list()
    assert row["status"] == "incomplete"


def test_kill_during_an_eval_keeps_every_finished_item_and_says_so(tmp_path):
    import os
    import signal
    import time

    env = {**os.environ, "COURTROOM_SCRIPTED_LATENCY_MS": "200", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "courtroom_chat.frontends.cli", "eval", str(ROOT / "bench" / "supreme" / "clear.jsonl"),
         "-p", "supreme", "--baseline", "single", "-b", "scripted", "--runs-dir", str(tmp_path)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    first = proc.stderr.readline()
    assert first and proc.poll() is None, first
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM; every finished item is kept: run the same command to resume" in err
    assert "Traceback" not in err
    records = [p for p in tmp_path.glob("*.json")]
    assert records, "the trial in flight keeps its partial record"


def test_ctrl_c_twice_during_an_eval_prints_one_line_and_no_shutdown_noise(tmp_path):
    """Two Ctrl-C during `courtroom eval` with trials in flight: the one line saying what is
    kept, then nothing (it printed asyncio tracebacks and "never awaited" warnings at exit)."""
    import os
    import signal
    import time

    env = {**os.environ, "COURTROOM_SCRIPTED_LATENCY_MS": "400", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "courtroom_chat.frontends.cli", "eval", str(ROOT / "bench" / "supreme" / "clear.jsonl"),
         "-p", "supreme", "--baseline", "single", "-b", "scripted", "--workers", "2", "--runs-dir", str(tmp_path)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default,
    )
    first = proc.stderr.readline()  # the evaluation has started
    assert first and proc.poll() is None, first
    time.sleep(1.0)  # two supreme trials under way, each with calls in flight
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "interrupted; every finished item is kept" in err
    for noise in ("Traceback", "Exception ignored", "never awaited", "Task was destroyed", "RuntimeWarning"):
        assert noise not in err, err


BRACKETS = "[/draft] [bold]x[/bold] [ab]"


def test_brackets_in_user_strings_print_literally(tmp_path, runs_dir):
    """Nothing a user typed is read as Rich markup: paths, globs and questions print as they are."""
    folder = tmp_path / "notes[/draft]"  # the folders "notes[" and "draft]"
    folder.mkdir(parents=True)
    missing = invoke("run", folder / "case[ab].json")
    assert missing.exit_code == 2 and "[/draft]" in one_line_error(missing) and "case[ab].json" in missing.stderr
    glob = invoke("run", "-q", f"Should we ship {BRACKETS}?", "-c", tmp_path / "logs/[ab]*.txt", "-b", "scripted")
    assert glob.exit_code == 2 and "logs/[ab]*.txt" in one_line_error(glob)
    ran = invoke("run", "-q", f"Should we ship {BRACKETS}?", "-b", "scripted")
    assert ran.exit_code == 0 and BRACKETS in ran.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[procedures.decision]\njury_sise = 5\n")
    assert "unknown key 'jury_sise' in [procedures.decision]" in one_line_error(invoke("runs", "--config", bad))


def test_an_unwritable_runs_dir_fails_before_the_trial(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = invoke("run", CASES / "code-commit.json", "-b", "scripted", "--runs-dir", blocker / "runs")
    assert result.exit_code == 2
    message = one_line_error(result)
    assert "runs directory" in message and "partial record" not in message
    assert "── Prosecution" not in result.stderr  # refused before any stage


def test_a_dry_run_prints_no_run_id_it_would_not_store(runs_dir):
    result = invoke("run", CASES / "code-commit.json", "-b", "scripted", "--dry-run")
    assert result.exit_code == 0 and "(run " not in result.stderr and "dry run, no model called" in result.stderr
    assert RunStore(runs_dir).list() == []


def test_runs_fit_80_columns_and_name_the_backend(runs_dir):
    assert invoke("run", CASES / "essay-publish.json", "-b", "scripted").exit_code == 0
    listing = invoke("runs", COLUMNS="80")
    assert listing.exit_code == 0 and "scripted" in listing.stdout
    assert max(len(line) for line in listing.stdout.splitlines()) <= 80


def test_procedures_are_listed():
    result = invoke("procedures")
    assert result.exit_code == 0 and "decision: Decision court" in result.stdout and "juror (numbered)" in result.stdout
    shown = " ".join(result.stdout.split())
    assert "asks: Ask a yes/no question (“Should I merge PR #214 now?”)" in shown
    assert "asks: State the charge (“Is Tom Reed guilty of the burglary at 12 Elm Street?”)" in shown
    assert "jury_size=5" in shown and 'rule="majority"' in shown and "courtroom procedures NAME" in shown


def test_one_procedure_shows_each_setting_with_what_it_does():
    """`courtroom procedures supreme` was "unexpected extra argument": one procedure, its settings
    each on a line as config.toml writes them, with the setting's description."""
    result = invoke("procedures", "classification")
    shown = " ".join(result.stdout.split())
    assert result.exit_code == 0 and shown.startswith("classification: Classification court")
    assert "decision: Decision court" not in shown
    assert "[procedures.classification] in config.toml" in shown
    assert 'mode = "parallel": parallel: the majority decides' in shown and "compare_modes = false: Also decide" in shown
    wrong = invoke("procedures", "suprme")
    assert wrong.exit_code == 2 and "unknown procedure 'suprme'; available: decision, classification" in one_line_error(wrong)


def test_config_show_says_when_the_environment_overrides_the_models(tmp_path):
    shown = invoke("config", "show", COURTROOM_BACKEND="scripted")
    assert "COURTROOM_BACKEND=scripted overrides" in shown.stdout


def test_help_shows_config_sections_in_brackets():
    """Rich reads "[kb]" as markup and drops it; the help escapes it, so the section is named."""
    assert "([kb] in" in " ".join(invoke("--help").stdout.split())
    shown = " ".join(invoke("run", "--help").stdout.replace("│", " ").split())
    assert "[throttle] max_concurrency" in shown and "[throttle] delay_ms" in shown
    assert "default: [kb] method" in " ".join(invoke("kb", "search", "--help").stdout.replace("│", " ").split())


def test_no_evidence_note_only_when_the_case_carries_none(runs_dir):
    bare = invoke("run", "-q", "Should we adopt a four-day week?", "--backend", "scripted")
    assert bare.exit_code == 0 and "no evidence attached" in bare.stderr
    dossier = invoke("run", CASES / "criminal-burglary.json", "--backend", "scripted")  # its evidence is in the case file
    assert dossier.exit_code == 0, dossier.output
    assert "no evidence attached" not in dossier.stderr


@pytest.mark.parametrize(("procedure", "message"), [
    ("criminal", "a criminal trial needs its case: a case file with the defendant, the indictment and the evidence"),
    ("samvad", "the bench needs its case: a case file with the summary, charges and evidence"),
    ("supreme", "the supreme court decides a case from its trial transcript: attach one (uploaded, or -c FILE"),
])
def test_a_procedure_that_tries_a_case_refuses_a_bare_question_in_one_line(procedure, message, runs_dir):
    """Without a case file or attached documents, the question alone would be tried as the
    indictment, the charge or the transcript: one line saying what to give instead."""
    result = CliRunner().invoke(app, ["run", "-p", procedure, "-q", "Is he guilty?", "-b", "scripted"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1  # no "argue the question alone"
    assert not RunStore(runs_dir).list()  # nothing was tried or stored
    ok = CliRunner().invoke(app, ["run", "-q", "Should I merge it?", "-b", "scripted"])  # the decision court may
    assert ok.exit_code == 0 and "no evidence attached; the court will argue the question alone" in ok.output


@pytest.mark.parametrize(("procedure", "court"), [
    ("criminal", "the criminal trial tries a criminal charge against a defendant"),
    ("samvad", "the retrieval-grounded bench tries a criminal charge under Indian law"),
    ("supreme", "the supreme court tries a criminal or civil case from its trial transcript"),
])
def test_a_court_of_law_refuses_a_question_of_what_to_do_in_one_line(procedure, court, runs_dir):
    """"Should I merge PR #214 now?" put to a court of law was tried as the charge, with the PR as
    the prosecution's evidence, and answered "not liable": one line pointing to the decision court
    instead, before anything is asked or stored. A question about a case goes on to the trial."""
    for extra in ([], ["--dry-run"]):
        result = CliRunner().invoke(app, ["run", str(CASES / "code-commit.json"), "-p", procedure, "-b", "scripted", *extra])
        assert result.exit_code == 2 and "Traceback" not in result.output
        [line] = result.output.strip().splitlines()
        assert line.startswith(f"error: {court}, and “Should I merge PR #214")
        assert line.endswith("asks what you should do: put it to the decision court (--procedure decision; the "
                             "Decision court profile in the chat), or state the case, for example “Is Tom Reed guilty "
                             "of burglary?”")
    assert not RunStore(runs_dir).list()
    docs = ["-c", str(CASES / ("burglary/transcript.json" if procedure == "supreme" else "code-commit"))]
    case = CliRunner().invoke(app, ["run", "-p", procedure, "-q", "Is the defendant guilty of the burglary?", *docs,
                                    "-b", "scripted", "--dry-run"])
    assert case.exit_code == 0, case.output


def test_a_mistyped_option_or_missing_argument_is_one_line_through_the_command():
    """The `courtroom` command (main) turns click's usage block into the one-line error every
    other mistake gets, naming the help to read; a bare `courtroom` still shows its help."""
    def courtroom(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "from courtroom_chat.frontends.cli import main; main()", *args],
                              capture_output=True, text=True, timeout=120)

    typo = courtroom("feedback", "some-run", "--outcome", "yes")
    assert typo.returncode == 2 and typo.stdout == ""
    assert typo.stderr.strip() == ("error: No such option: --outcome (Possible options: --comment); "
                                   "see `courtroom feedback --help`")
    missing = courtroom("show")
    assert missing.returncode == 2 and missing.stderr.strip() == "error: Missing argument 'run_id'; see `courtroom show --help`"
    bare = courtroom()
    assert bare.returncode == 2 and "Usage: courtroom" in bare.stdout + bare.stderr and "Traceback" not in bare.stderr


def test_output_never_replaces_an_input_and_another_file_only_with_force(runs_dir, tmp_path):
    """`-o` silently replaced whatever was there, even the case file being tried (a dry run then
    left a list of prompts where the case had been). It is checked before any model is called."""
    case = tmp_path / "case.json"
    case.write_text((CASES / "code-commit.json").read_text().replace('"code-commit/', f'"{CASES}/code-commit/'))
    before = case.read_text()
    result = invoke("run", case, "-b", "scripted", "--dry-run", "-o", case, "--force")
    assert result.exit_code == 2 and "is one of this run's inputs" in one_line_error(result)
    assert case.read_text() == before
    kept = tmp_path / "notes.json"
    kept.write_text("KEEP")
    result = invoke("run", CASES / "code-commit.json", "-b", "scripted", "-o", kept)
    assert result.exit_code == 2 and "already exists; pass --force" in one_line_error(result)
    assert kept.read_text() == "KEEP" and not RunStore(runs_dir).list()  # refused before the trial
    assert invoke("run", CASES / "code-commit.json", "-b", "scripted", "-o", kept, "--force").exit_code == 0
    assert json.loads(kept.read_text())["verdict"]["decision"]
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    (evidence / "pr.md").write_text("PR 9 fixes the crash on logout; two reviewers approved.\n")
    result = invoke("run", "Merge PR 9?", evidence, "-b", "scripted", "-o", evidence / "pr.md", "--force")
    assert result.exit_code == 2 and "is one of this run's inputs (" in one_line_error(result)
    listed = tmp_path / "listed.json"  # a file the case file's own context lists (relative to the case file)
    listed.write_text(json.dumps({"question": "Merge PR 9?", "context": ["evidence/pr.md"]}))
    result = invoke("run", listed, "-b", "scripted", "--dry-run", "-o", evidence / "pr.md", "--force")
    assert result.exit_code == 2 and "is one of this run's inputs (" in one_line_error(result)
    assert (evidence / "pr.md").read_text().startswith("PR 9 fixes")


def test_output_into_a_missing_folder_or_onto_a_folder_is_refused_before_the_trial(runs_dir, tmp_path):
    for target, message in ((tmp_path / "nowhere" / "out.json", "does not exist; create it"),
                            (tmp_path, "is a folder; give a file name")):
        result = invoke("run", CASES / "code-commit.json", "-b", "scripted", "-o", target)
        assert result.exit_code == 2 and message in one_line_error(result)
    assert not RunStore(runs_dir).list()


@pytest.mark.parametrize("option", ["--backend", "--procedure"])
def test_an_empty_backend_or_procedure_is_refused_not_read_as_the_default(runs_dir, option):
    """`--backend "$B"` with B unset quietly started the embedded model; `-p ""` the decision court."""
    result = invoke("run", CASES / "code-commit.json", option, "", "--dry-run")
    assert result.exit_code == 2 and f"{option} is empty" in one_line_error(result)


def test_a_file_the_system_refuses_and_an_unexpected_error_are_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "cfg"
    folder.mkdir()
    for force in ([], ["--force"]):  # the same line with and without --force
        result = invoke("config", "init", folder, *force)
        assert result.exit_code == 2 and one_line_error(result) == (
            f"error: {folder} is a folder; give the path of a file in it, such as {folder / 'config.toml'}")
    result = invoke("config", "init", tmp_path / "new" / "deeper" / "config.toml")
    expected = f"wrote {tmp_path / 'new' / 'deeper' / 'config.toml'} (made the folder {tmp_path / 'new'})"
    assert result.exit_code == 0 and "".join(result.stdout.split()) == "".join(expected.split())  # wrapped at 80
    import courtroom_chat.config as config

    def broken(*_a, **_k):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(config, "write_config", broken)
    result = invoke("config", "init", tmp_path / "new.toml")
    assert result.exit_code == 1
    assert one_line_error(result).startswith("error: unexpected ZeroDivisionError (division by zero): a bug")
    monkeypatch.setenv("COURTROOM_DEBUG", "1")
    assert isinstance(invoke("config", "init", tmp_path / "new.toml").exception, ZeroDivisionError)


def test_a_port_out_of_range_is_one_line():
    done = subprocess.run([sys.executable, "-c", "from courtroom_chat.frontends.cli import main; main()", "chat",
                           "--headless", "--port", "70000"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("error: Invalid value for '--port': Input should be less than or equal to 65535; "
                                   "see `courtroom chat --help`")


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p.write_bytes(b"\xff\xfe\x00garbage"), "is not text; a script is a JSON file"),
    (lambda p: p.mkdir(), "is a folder; give the JSON file"),
])
def test_a_script_that_is_binary_or_a_folder_is_one_line(runs_dir, tmp_path, make, message):
    script = tmp_path / "script.json"
    make(script)
    result = invoke("run", CASES / "code-commit.json", "--script", script)
    assert result.exit_code == 2 and message in one_line_error(result)


def test_small_mistakes_get_the_line_that_names_them(runs_dir, tmp_path):
    empty = invoke("run", "", "-b", "scripted")
    assert empty.exit_code == 2 and "the case or question is empty" in one_line_error(empty)
    folder = invoke("run", CASES / "code-commit.json", "-b", "scripted", "--config", tmp_path, "--dry-run")
    assert folder.exit_code == 2 and f"config {tmp_path} is a folder" in one_line_error(folder)
    method = invoke("kb", "search", "theft", "--method", "nosuch", "--corpus", tmp_path)
    assert method.exit_code == 2 and "unknown search method 'nosuch'" in one_line_error(method)
    assert "indexing" not in method.output  # refused before any index is built
    blank = invoke("kb", "search", "  ", "--corpus", tmp_path)
    assert blank.exit_code == 2 and "the query is empty" in one_line_error(blank) and "indexing" not in blank.output
    for args in (("runs", "-n", "0"), ("kb", "search", "theft", "-k", "0")):
        result = invoke(*args)
        assert result.exit_code == 2 and "Invalid value" in result.output and "Traceback" not in result.output
        assert "no runs yet" not in result.output and "no provision matched" not in result.output


def test_a_one_word_question_is_a_question_and_an_absolute_glob_is_not_called_relative(runs_dir, tmp_path):
    note = tmp_path / "note.md"
    note.write_text("The release passed every check.\n")
    result = invoke("run", "Deploy?", note, "-b", "scripted", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "Deploy?" in result.output
    missing = invoke("run", "Deploy?", tmp_path / "nothing" / "*.txt", "-b", "scripted", "--dry-run")
    line = one_line_error(missing)
    assert "no files match" in line and "relative to" not in line
    # a Chinese question is a question, with a full-width question mark or none ("… case file not found" before)
    for question in ("是否上线", "我们用方案A还是方案B？"):
        result = invoke("run", question, note, "-b", "scripted", "--dry-run")
        assert result.exit_code == 0, result.output
    assert "我们用方案A而不是方案B吗？" in result.output and "asked: 我们用方案A还是方案B？" in result.output


def test_a_file_named_pdf_that_is_not_one_is_one_line_without_the_readers_noise(runs_dir, tmp_path):
    fake = tmp_path / "fake.pdf"
    fake.write_text("not a pdf at all\n")
    done = subprocess.run([sys.executable, "-c", "from courtroom_chat.frontends.cli import main; main()", "run",
                           "Ship it?", str(fake), "-b", "scripted", "--runs-dir", str(runs_dir)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "fake.pdf is not a readable PDF" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # pypdf's own warnings printed before it


def test_a_dry_run_says_the_checks_it_does_not_list(runs_dir):
    result = invoke("run", CASES / "code-commit.json", "-b", "scripted", "--dry-run", "--mirror", "--fragility")
    assert result.exit_code == 0
    assert "note: --mirror and --fragility add trials after the verdict" in " ".join(result.stderr.split())


def test_a_question_longer_than_a_file_name_may_be_is_the_question(runs_dir):
    """Context sentences before the question make it longer than a path may be (255 bytes):
    it is asked, not refused as a file name that is too long."""
    question = ("The release was planned for Friday, the staging run went well with every check green, and "
                "product and support signed off; the only open item is the translation of the help pages, "
                "which is due next week anyway. Given all of that, should we ship the release on Friday?")
    assert len(question.encode()) > 255
    result = invoke("run", question, "--backend", "scripted")
    assert result.exit_code == 0, result.output
    assert RunStore(runs_dir).list()[0]["question"] == question


def test_a_file_name_that_is_not_utf8_is_shown_with_a_mark_and_the_trial_is_kept(runs_dir, tmp_path):
    import os

    folder = tmp_path / "cv"
    folder.mkdir()
    (folder / os.fsdecode(b"r\xe9sum\xe9.txt")).write_text("All 214 tests pass and two reviewers approved.\n")
    result = invoke("run", "Should we ship?", folder, "--backend", "scripted")
    assert result.exit_code == 0, result.output
    [row] = RunStore(runs_dir).list()
    record = RunStore(runs_dir).load(row["run_id"])
    [document] = record.case.context
    assert document.name.endswith("cv/r\ufffdsum\ufffd.txt")


def test_text_that_is_not_utf8_is_one_line_and_a_device_is_not_read(runs_dir, tmp_path):
    import os

    bad = os.fsdecode(b"Should we ship \xff now?")
    assert one_line_error(invoke("run", bad, "--backend", "scripted")) == (
        "error: the question holds bytes that are not UTF-8 text; type it again, or save it in a UTF-8 file")
    assert "not UTF-8" in one_line_error(invoke("run", CASES / "code-commit.json", "-q", bad, "--backend", "scripted"))
    assert "is not a regular file" in one_line_error(invoke("run", "Should we ship?", "/dev/zero", "--backend", "scripted"))
    assert RunStore(runs_dir).list() == []
    assert invoke("run", CASES / "code-commit.json", "--backend", "scripted").exit_code == 0
    assert "no run" in one_line_error(invoke("feedback", os.fsdecode(b"\xff"), "up"))
    assert "comment holds bytes" in one_line_error(invoke("feedback", "2", "up", "-m", bad))


def test_a_run_file_damaged_on_disk_is_one_line_and_a_cut_one_says_it_is_cut(runs_dir):
    import json

    assert invoke("run", CASES / "code-commit.json", "--backend", "scripted").exit_code == 0
    [row] = RunStore(runs_dir).list()
    path = runs_dir / f"{row['run_id']}.json"
    whole = json.loads(path.read_text())
    cut = dict(whole, events=whole["events"][: len(whole["events"]) // 2])
    path.write_text(json.dumps(cut))
    result = invoke("show", row["run_id"])
    assert result.exit_code == 0 and "the run file was cut short" in " ".join(result.stdout.split())
    bad = dict(whole, events=[*whole["events"][:3], {"type": "no_such_event"}, *whole["events"][3:]])
    path.write_text(json.dumps(bad))
    assert one_line_error(invoke("show", row["run_id"])) == (
        "error: the run's stored event 4 (no_such_event) is damaged (Input tag 'no_such_event' found using "
        "'type'); the run file was edited or cut: replay another run, or run the trial again")
    finished = next(i for i, e in enumerate(whole["events"]) if e["type"] == "agent_finished")
    events = [dict(e) for e in whole["events"]]
    del events[finished]["output"]
    path.write_text(json.dumps(dict(whole, events=events)))
    assert "is damaged (output: Field required)" in one_line_error(invoke("show", row["run_id"]))


@pytest.mark.parametrize("script, message", [
    ("{bad", "malformed JSON at line 1"),
    ("[]", "a script must be a JSON object"),
    ('{"nobody": {}}', "unknown role 'nobody' in the script for the decision procedure"),
])
def test_a_bad_script_is_one_line_before_the_trial_and_keeps_no_run(runs_dir, tmp_path, script, message):
    path = tmp_path / "script.json"
    path.write_text(script)
    assert message in one_line_error(invoke("run", CASES / "code-commit.json", "--script", path))
    assert RunStore(runs_dir).list() == []


@pytest.mark.parametrize("models, message", [
    ("foo:bar", "[procedures.classification] judge_models: unknown backend 'foo' in 'foo:bar'"),
    ("scripted, local:nonexistent", "unknown local model 'nonexistent'"),
])
def test_a_judges_model_that_cannot_serve_is_one_line_before_the_hearing(runs_dir, tmp_path, models, message):
    config = tmp_path / "config.toml"
    config.write_text(f'[procedures.classification]\njudge_models = "{models}"\n')
    text = tmp_path / "text.txt"
    text.write_text("What a day! We won the final.\n")
    result = invoke("run", "Which label fits?", text, "-p", "classification", "--input", "labels=joy,anger",
                    "-b", "scripted", "--config", config)
    assert message in one_line_error(result)
    assert RunStore(runs_dir).list() == []


@pytest.mark.parametrize("args, message", [
    (["-i", "labels=joy", "-i", "labels=anger"], "--input labels is given twice ('joy', then 'anger'); give it once"),
    (["--type", "civil", "-i", "type=criminal"], "--type civil and --input type=criminal disagree"),
])
def test_an_input_given_twice_is_one_line_not_the_first_dropped(runs_dir, tmp_path, args, message):
    """`-i labels=joy -i labels=anger` kept only anger and was refused as 'got one ('anger')'; a
    repeated evidence input lost its first item unseen."""
    text = tmp_path / "text.txt"
    text.write_text("What a day! We won the final.\n")
    result = invoke("run", "Which label fits?", text, "-p", "classification", "-b", "scripted", *args)
    assert message in one_line_error(result) and result.exit_code == 2
    assert RunStore(runs_dir).list() == []


def test_a_bom_case_file_reads_and_evidence_given_as_the_case_says_how_to_ask(runs_dir, tmp_path):
    case = tmp_path / "bom.json"
    case.write_bytes(b'\xef\xbb\xbf{"question": "Should we ship?", "context": []}')
    assert invoke("run", case, "--backend", "scripted", "--dry-run").exit_code == 0
    notes = tmp_path / "notes.md"
    notes.write_text("The load test passed.\n")
    assert one_line_error(invoke("run", notes, "--backend", "scripted")) == (
        f'error: {notes} is not a case file (a case file is JSON); to ask about it, put the question first: '
        f'courtroom run "Should I …?" {notes}')


def test_output_is_never_written_into_the_runs_folder(runs_dir):
    assert invoke("run", CASES / "code-commit.json", "--backend", "scripted").exit_code == 0
    [row] = RunStore(runs_dir).list()
    stored = runs_dir / f"{row['run_id']}.json"
    before = stored.read_bytes()
    for target in (stored, runs_dir / "index.sqlite", runs_dir / "verdict.json"):
        message = one_line_error(invoke("run", CASES / "code-commit.json", "--backend", "scripted", "-o", target, "--force"))
        assert "is in the runs folder" in message
    assert stored.read_bytes() == before and len(RunStore(runs_dir).list()) == 1


def test_control_codes_in_a_question_never_reach_the_terminal(runs_dir):
    asked = "Should we \x1b[31mship\x1b]0;owned\x07 it\x9b2J?"
    result = invoke("run", asked, "--backend", "scripted")
    assert result.exit_code == 0, result.output
    assert not any(c in result.output for c in "\x1b\x07\x9b") and "Should we ship it" in result.stderr
    [row] = RunStore(runs_dir).list()
    for fmt in ("markdown", "terminal"):
        shown = invoke("show", row["run_id"], "-f", fmt)
        assert shown.exit_code == 0 and "\x1b" not in shown.output and "ship it" in shown.output
    assert RunStore(runs_dir).load(row["run_id"]).case.question == "Should we ship it?"  # no part of the question


def test_the_decision_court_refuses_a_message_that_is_no_yes_no_question(runs_dir):
    for message, why in (("What is this?", "asks what"), ("Should I merge? Should I also deploy it?", "asks 2 questions")):
        assert why in one_line_error(invoke("run", message, "--backend", "scripted"))
    assert RunStore(runs_dir).list() == []


def test_eval_report_only_prints_the_stored_report_and_names_what_is_unfinished(runs_dir):
    clear = ROOT / "bench" / "supreme" / "clear.jsonl"
    missing = invoke("eval", clear, "--procedure", "none", "-b", "scripted", "--report-only")
    assert missing.exit_code == 2 and one_line_error(missing).startswith("error: --report-only: no results for this evaluation")
    assert invoke("eval", clear, "--procedure", "none", "-b", "scripted", "-n", "2").exit_code == 0
    result = invoke("eval", clear, "--procedure", "none", "-b", "scripted", "--report-only")
    assert result.exit_code == 0 and "single" in result.stdout
    assert "nothing was run:" in result.stderr and "items not finished left out" in result.stderr
    small = invoke("eval", clear, "--procedure", "none", "-b", "scripted", "-n", "1", "--report-only")
    assert small.exit_code == 0 and "".join(small.stderr.split()).endswith("report-first-1.md")  # the report written


def test_config_path_names_the_file_config_show_reads(tmp_path, monkeypatch):
    """Issue 86: `config path` named the user file while `config show` read ./config.toml."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COURTROOM_CONFIG", raising=False)
    assert invoke("config", "path").stdout.strip() == "none: the built-in defaults"
    (tmp_path / "config.toml").write_text("[budget]\nmax_usd = 2.0\n")
    shown = invoke("config", "path")
    assert shown.stdout.strip() == str(tmp_path / "config.toml")
    assert invoke("config", "show").stdout.startswith(f"# from {tmp_path / 'config.toml'}")
    assert "looked for in this order: --config, $COURTROOM_CONFIG, then ./config.toml" in " ".join(shown.stderr.split())
