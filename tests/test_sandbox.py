"""A test run reads and writes no folder of the user's: every folder the package resolves for
itself (cache, models, config, data, runs, the chat's database) lies in the session's temporary
folder, and the shipped statutes' index is built there (or in $COURTROOM_TEST_CACHE_DIR, a cache
the tester keeps between sessions, never the user's own)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from platformdirs import user_cache_dir, user_config_dir, user_data_dir, user_state_dir


def folders() -> dict[str, Path]:
    from courtroom_chat.backends.local_models import models_dir
    from courtroom_chat.config import user_config_path
    from courtroom_chat.frontends.chat_data import database_url
    from courtroom_chat.frontends.chat_users import users_path
    from courtroom_chat.kb import default_store_path
    from courtroom_chat.retrieval import default_cache_dir
    from courtroom_chat.store import default_runs_dir

    return {"kb": default_store_path(), "embeddings": default_cache_dir(), "models": models_dir(),
            "config": user_config_path(), "chat users": users_path(), "runs": default_runs_dir(),
            "chat database": Path(database_url().split(":///", 1)[1]),
            **{f"platformdirs {f.__name__}": Path(f("courtroom-chat"))
               for f in (user_cache_dir, user_config_dir, user_data_dir, user_state_dir)}}


def test_every_user_folder_is_in_the_sessions_temporary_folder(tmp_path_factory, user_dirs):
    # the session's temporary folder; the system's, where the chat tests make their app root when
    # they are imported; and a cache the tester keeps
    allowed = (tmp_path_factory.getbasetemp().resolve(), Path(tempfile.gettempdir()).resolve(),
               user_dirs["COURTROOM_CACHE_DIR"].resolve())
    outside = {what: path for what, path in folders().items()
               if not any(path.resolve().is_relative_to(a) for a in allowed)}
    assert outside == {}
    home = Path.home().resolve()
    assert not any(a.is_relative_to(home / ".cache" / "courtroom-chat") or a.is_relative_to(home / ".local" / "share")
                   for a in allowed)


def test_the_cache_is_one_per_session_where_the_knowledge_base_builds(user_dirs):
    from courtroom_chat.kb import default_store_path
    from courtroom_chat.retrieval import default_cache_dir

    assert default_store_path() == user_dirs["COURTROOM_CACHE_DIR"] / "kb"
    assert default_cache_dir() == user_dirs["COURTROOM_CACHE_DIR"] / "embeddings"
