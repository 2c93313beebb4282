"""Chat users: password hashes for the chat's login, kept apart from ``config.toml``.

The settings in ``config.toml`` are copied into every run record, so the hashes live in a
file of their own (``chat-users.toml`` in the user config dir, or ``$COURTROOM_CHAT_USERS``),
written with mode 0600. It holds scrypt hashes, never a password, and the secret that
signs login tokens (``CHAINLIT_AUTH_SECRET`` when the environment gives none). When it
lists no user, the chat needs no login.

    secret = "…"
    [users.alice]
    password = "scrypt$16384$8$1$<salt>$<hash>"

Only the standard library is imported, so ``courtroom --help`` stays fast.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError

_N, _R, _P = 2**14, 8, 1
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


def users_path() -> Path:
    env = os.environ.get("COURTROOM_CHAT_USERS", "").strip()
    if env:
        return Path(env).expanduser()
    from ..config import user_config_path

    return user_config_path().parent / "chat-users.toml"


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    enc = base64.b64encode
    return f"scrypt${_N}${_R}${_P}${enc(salt).decode()}${enc(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                                dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


@dataclass
class ChatUsers:
    path: Path
    secret: str = ""
    hashes: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> ChatUsers:
        path = path or users_path()
        if not path.is_file():
            return cls(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot be read as TOML ({exc}); fix it or delete it and add users again") from None
        users = data.get("users", {})
        if not isinstance(users, dict) or not all(isinstance(u, dict) and isinstance(u.get("password"), str)
                                                  for u in users.values()):
            raise ConfigError(f"{path}: [users.NAME] entries need a 'password' hash; re-add them with `courtroom chat add-user`")
        return cls(path, str(data.get("secret", "")), {name: u["password"] for name, u in users.items()})

    @property
    def enabled(self) -> bool:
        return bool(self.hashes)

    def check(self, name: str, password: str) -> bool:
        stored = self.hashes.get(name)
        if stored is None:
            verify_password(password, hash_password("timing"))  # same cost for unknown names
            return False
        return verify_password(password, stored)

    def add(self, name: str, password: str) -> None:
        if not _NAME.match(name):
            raise InputError(f"user name {name!r} is not allowed; use letters, digits, '.', '_', '-' or '@' (up to 64)")
        if len(password) < 8:
            raise InputError("the password is too short; use at least 8 characters")
        self.hashes[name] = hash_password(password)
        self.secret = self.secret or secrets.token_urlsafe(48)

    def save(self) -> Path:
        import tomli_w

        body = {"secret": self.secret, "users": {name: {"password": h} for name, h in sorted(self.hashes.items())}}
        text = "# courtroom chat users: scrypt password hashes, never passwords. Keep this file private.\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + tomli_w.dumps(body))
            os.chmod(self.path, 0o600)
        except OSError as exc:
            raise InputError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        return self.path


class LoginGuard:
    """Failed logins, counted per user name: after ``limit`` failures within ``window`` seconds
    that name is refused, whatever the password, until the oldest failure leaves the window
    (issue 83: the login took any number of guesses). A right password resets the count. Chainlit
    hands the login callback no client address, so the count is per name, not per address: a
    guesser can lock a user out for the window, which SECURITY.md states."""

    def __init__(self, limit: int = 5, window: float = 900.0, clock: Any = None):
        import time

        self.limit, self.window = limit, window
        self.clock = clock or time.monotonic
        self.failures: dict[str, list[float]] = {}

    def locked(self, username: str) -> bool:
        now = self.clock()
        recent = [t for t in self.failures.get(username, []) if now - t < self.window]
        if recent:
            self.failures[username] = recent
        else:
            self.failures.pop(username, None)
        return len(recent) >= self.limit

    def failed(self, username: str) -> None:
        self.failures.setdefault(username, []).append(self.clock())

    def passed(self, username: str) -> None:
        self.failures.pop(username, None)
