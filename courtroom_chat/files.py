"""Writing files so that none is ever left half written, and stores that only their user reads.

``write_atomic`` writes beside the target and renames over it: on a full disk (or any failure)
the target is as it was, the temporary file is removed, and the error says so. ``private_file``
creates a file readable by its user alone (0600) before SQLite opens it: SQLite gives its WAL
and shared-memory files the database file's mode, so they are private too.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .errors import InputError


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, what: str = "", private: bool = False) -> Path:
    """Write ``data`` to ``path`` whole or not at all. ``private``: readable by the user alone
    (0600), else as a new file would be under the umask. An ``InputError`` names the file, why, and
    that it was left as it was."""
    target = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        if not private:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        kept = "left as it was" if target.exists() else "not written"
        raise InputError(f"cannot write {what or target} ({exc.strerror or exc}): {target} was {kept}; "
                         "free some space or choose another folder") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return target


def private_file(path: str | os.PathLike[str]) -> Path:
    """``path``, created empty and readable by its user alone if it does not exist yet (an
    existing file keeps its mode: the user may have shared it on purpose)."""
    target = Path(path)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return target


def private_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` as a folder; a folder made here is readable by its user alone (0700)."""
    target = Path(path)
    if not target.is_dir():
        target.mkdir(parents=True, exist_ok=True, mode=0o700)
    return target
