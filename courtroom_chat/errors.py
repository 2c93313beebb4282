"""Errors a person can act on.

Every error the user may see is a ``CourtroomError``: its message is one line that
says what failed, where, and what to do. Anything else escaping the engine is a bug.

    CourtroomError
    ├── InputError              bad input: the person can fix it (CLI exit code 2)
    │   ├── ConfigError         config.toml: unknown key, wrong type, bad value
    │   ├── CaseError           case file, question or evidence file unusable
    │   └── ContextTooLongError the evidence does not fit the model's window
    ├── BackendError            a model backend failed (CLI exit code 1)
    │   ├── MissingDependencyError  an optional package/extra is not installed
    │   ├── MissingCredentialsError no API key for a hosted backend
    │   ├── BackendUnavailableError server not running / unreachable / timed out
    │   ├── ModelNotFoundError      model weights absent or unknown model id
    │   └── WeightsCorruptError     assembled weights fail their sha256
    ├── RoleOutputError         a role's reply stayed invalid after its repair;
    │                           carries the raw text it last produced
    └── BudgetExceeded          the next stage would pass [budget] max_usd
"""

from __future__ import annotations


class CourtroomError(Exception):
    """Base of every error shown to a person. ``str(err)`` is the one-line message."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(CourtroomError):
    exit_code = 2


class ConfigError(InputError):
    pass


class CaseError(InputError):
    pass


class ContextTooLongError(InputError):
    pass


class BackendError(CourtroomError):
    pass


class MissingDependencyError(BackendError):
    pass


class MissingCredentialsError(BackendError):
    pass


class BackendUnavailableError(BackendError):
    pass


class ModelNotFoundError(BackendError):
    exit_code = 2  # a setup problem the person must fix (install the weights), not a failed run


class WeightsCorruptError(BackendError):
    exit_code = 2


class RoleOutputError(CourtroomError):
    """A role's output was still unusable after one repair."""

    def __init__(self, message: str, *, agent: str, raw: str = "") -> None:
        super().__init__(message)
        self.agent = agent
        self.raw = raw


class BudgetExceeded(CourtroomError):
    def __init__(self, message: str, *, stage: str, estimate_usd: float, spent_usd: float, cap_usd: float):
        super().__init__(message)
        self.stage = stage
        self.estimate_usd = estimate_usd
        self.spent_usd = spent_usd
        self.cap_usd = cap_usd


def missing_extra(package: str, extra: str | None = None) -> MissingDependencyError:
    """The error for an import that is not installed, naming the pip extra that brings it."""
    how = f"pip install -e '.[{extra}]'" if extra else f"pip install {package}"
    return MissingDependencyError(f"the '{package}' package is not installed; install it with: {how}")
