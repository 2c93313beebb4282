"""Chat threads in SQL through Chainlit's SQLAlchemy data layer, with the schema made here.

SQLite by default (``chat.sqlite`` in the user data dir); ``DATABASE_URL`` selects another
database (``sqlite:///…``, ``postgresql://…``; the async driver is added when missing).

The schema is created on first use, and columns the layer writes but an older table lacks
are added. It is derived from the installed layer: ``Step.to_dict`` writes ``autoCollapse``
and ``defaultOpen``, ``Message.to_dict`` writes ``command`` and ``modes``; Chainlit's
documented SQL lacks some of them, and then every upsert of a step fails and is only logged,
so steps are silently not saved. Step writes run one at a time, in the order they were
issued (Chainlit fires them as background tasks), so a step's final text never loses to an
earlier update. SQLite gets WAL and a busy timeout, and lists (thread tags) stored as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from sqlalchemy import JSON, Boolean, Column, Integer, MetaData, Table, Text, event, inspect
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

from ..files import private_dir, private_file

_JSON = Text().with_variant(JSONB(), "postgresql")
_TAGS = Text().with_variant(ARRAY(Text()), "postgresql")

SCHEMA = MetaData()
Table(
    "users", SCHEMA,
    Column("id", Text, primary_key=True),
    Column("identifier", Text, nullable=False, unique=True),
    Column("metadata", _JSON, nullable=False),
    Column("createdAt", Text),
)
Table(
    "threads", SCHEMA,
    Column("id", Text, primary_key=True),
    Column("createdAt", Text),
    Column("name", Text),
    Column("userId", Text),
    Column("userIdentifier", Text),
    Column("tags", _TAGS),
    Column("metadata", _JSON),
)
Table(
    "steps", SCHEMA,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("type", Text, nullable=False),
    Column("threadId", Text, nullable=False),
    Column("parentId", Text),
    Column("streaming", Boolean, nullable=False),
    Column("waitForAnswer", Boolean),
    Column("isError", Boolean),
    Column("metadata", _JSON),
    Column("tags", _TAGS),
    Column("input", Text),
    Column("output", Text),
    Column("createdAt", Text),
    Column("command", Text),
    Column("modes", _JSON),
    Column("start", Text),
    Column("end", Text),
    Column("generation", _JSON),
    Column("showInput", Text),
    Column("language", Text),
    Column("indent", Integer),
    Column("defaultOpen", Boolean),
    Column("autoCollapse", Boolean),
)
Table(
    "elements", SCHEMA,
    Column("id", Text, primary_key=True),
    Column("threadId", Text),
    Column("type", Text),
    Column("url", Text),
    Column("chainlitKey", Text),
    Column("name", Text, nullable=False),
    Column("display", Text),
    Column("objectKey", Text),
    Column("size", Text),
    Column("page", Integer),
    Column("language", Text),
    Column("forId", Text),
    Column("mime", Text),
    Column("props", _JSON),
    Column("autoPlay", Boolean),
    Column("playerConfig", JSON().with_variant(JSONB(), "postgresql")),
)
Table(
    "feedbacks", SCHEMA,
    Column("id", Text, primary_key=True),
    Column("forId", Text, nullable=False),
    Column("threadId", Text),
    Column("value", Integer, nullable=False),
    Column("comment", Text),
)


def database_url() -> str:
    """The async SQLAlchemy URL of the chat database."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("courtroom-chat")) / "chat.sqlite"
        private_dir(path.parent)
        private_file(path)  # whole threads, evidence included: the user's alone, its WAL files too
        return f"sqlite+aiosqlite:///{path}"
    for plain, driver in (("sqlite://", "sqlite+aiosqlite://"), ("postgresql://", "postgresql+asyncpg://"),
                          ("postgres://", "postgresql+asyncpg://")):
        if url.startswith(plain):
            return driver + url[len(plain):]
    return url


def _create_schema(sync_conn: Any) -> None:
    SCHEMA.create_all(sync_conn, checkfirst=True)
    found = inspect(sync_conn)
    for table in SCHEMA.sorted_tables:
        have = {c["name"] for c in found.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:  # a table made from Chainlit's documented SQL
                kind = column.type.compile(dialect=sync_conn.dialect)
                sync_conn.exec_driver_sql(f'ALTER TABLE {table.name} ADD COLUMN "{column.name}" {kind}')


class ChatDataLayer(SQLAlchemyDataLayer):
    def __init__(self, url: str | None = None):
        super().__init__(conninfo=url or database_url())
        self._sqlite = self.engine.dialect.name == "sqlite"
        self._schema_ready = False
        self._schema_lock = asyncio.Lock()
        self._write_lock = asyncio.Lock()
        if self._sqlite:
            @event.listens_for(self.engine.sync_engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cursor = dbapi_conn.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA busy_timeout=15000")
                cursor.close()

    async def ensure_schema(self) -> None:
        if self._schema_ready:
            return
        async with self._schema_lock:
            if not self._schema_ready:
                async with self.engine.begin() as conn:
                    await conn.run_sync(_create_schema)
                self._schema_ready = True

    async def execute_sql(self, query: str, parameters: dict) -> Any:
        await self.ensure_schema()
        if self._sqlite:  # SQLite binds no lists or dicts (thread tags, step modes)
            parameters = {k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in parameters.items()}
        return await super().execute_sql(query, parameters)

    async def create_step(self, step_dict: Any) -> None:
        async with self._write_lock:
            await super().create_step(step_dict)

    async def get_step_metadata(self, step_id: str) -> dict[str, Any]:
        step = await self.get_step(step_id)
        meta = (step or {}).get("metadata") or {}
        if isinstance(meta, str):
            try:
                meta = json.loads(meta)
            except json.JSONDecodeError:
                return {}
        return meta if isinstance(meta, dict) else {}
