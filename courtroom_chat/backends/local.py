"""The embedded local backend: llama.cpp in this process, through the xllamacpp wheel.

Why xllamacpp: it is a prebuilt manylinux wheel (installs in seconds) that bundles
llama.cpp's server loop, with JSON-schema-constrained decoding, parallel slots and prompt
caching. llama-cpp-python compiles from source for about nine minutes on these machines.

One ``LocalRuntime`` per weights file is loaded per process, shared by every role and
every chat session, and released at exit. Calls run on the runtime's own thread pool;
llama.cpp queues them across its slots, so concurrent jurors and concurrent trials never
share a decoding sequence. Text streams back to the event loop token by token, and a
cancelled call stops decoding at the next token.

Every role's prompt starts with the same system prompt and case block, so llama.cpp's
prompt cache reuses the case's KV state across roles instead of reading it again.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..errors import BackendError, ContextTooLongError, missing_extra
from ..records import Usage
from .base import ModelReply, ModelRequest, Stopwatch, TextCallback
from .local_models import LocalModel, assemble, resolve, stderr_progress
from .local_slots import SlotBook
from .profiles import PROFILES

CHARS_PER_TOKEN = 3.0  # conservative for Qwen's tokenizer on prose, code and diffs




class LocalRuntime:
    """A loaded model and its decoding slots, shared process-wide."""

    _shared: dict[tuple[Any, ...], LocalRuntime] = {}
    _guard = threading.Lock()

    def __init__(self, path: Path, n_ctx: int, parallel: int, threads: int, cache_ram_mib: int = 8192,
                 kv_unified: bool = False):
        self.path, self.n_ctx, self.parallel, self.threads = path, n_ctx, parallel, threads
        self.cache_ram_mib, self.kv_unified = cache_ram_mib, kv_unified
        self._server: Any = None
        self._load_lock = threading.Lock()
        self.slots: SlotBook | None = None  # with several slots: which prompt each holds, and prefix copies
        self.pool = ThreadPoolExecutor(max_workers=max(2, parallel) + 2, thread_name_prefix="courtroom-local")

    @classmethod
    def shared(cls, path: Path, n_ctx: int, parallel: int, threads: int, cache_ram_mib: int = 8192,
               kv_unified: bool = False) -> LocalRuntime:
        key = (str(path), n_ctx, parallel, threads, cache_ram_mib, kv_unified)
        with cls._guard:
            runtime = cls._shared.get(key)
            if runtime is None:
                runtime = cls._shared[key] = cls(path, n_ctx, parallel, threads, cache_ram_mib, kv_unified)
            return runtime

    @classmethod
    def close_all(cls) -> None:
        with cls._guard:
            runtimes, cls._shared = list(cls._shared.values()), {}
        for runtime in runtimes:
            runtime.close()

    def server(self) -> Any:
        with self._load_lock:
            if self._server is None:
                try:
                    import xllamacpp
                except ImportError:
                    raise missing_extra("xllamacpp", "local") from None
                params = xllamacpp.CommonParams()
                params.model.path = str(self.path)
                params.n_parallel = self.parallel
                params.n_ctx = self.n_ctx * self.parallel  # each slot gets the full per-request window
                params.kv_unified = self.kv_unified
                params.cache_ram_mib = self.cache_ram_mib
                params.cpuparams.n_threads = self.threads
                params.cpuparams_batch.n_threads = self.threads
                params.verbosity = 0
                params.warmup = False
                params.cache_prompt = True
                params.n_cache_reuse = 64
                # Measured on 2 cores: flash attention reads prompts ~10% faster but decodes ~10%
                # slower at 1-2k tokens of context; decoding dominates a trial.
                params.flash_attn_type = xllamacpp.llama_flash_attn_type.LLAMA_FLASH_ATTN_TYPE_DISABLED
                book = SlotBook(self.parallel) if self.parallel > 1 else None
                if book is not None:  # the loopback /slots endpoint copies a cached prefix between slots
                    params.endpoint_slots = True
                    params.slot_save_path = str(book.folder)
                try:
                    self._server = xllamacpp.Server(params)
                except Exception as exc:  # a corrupt or incompatible GGUF
                    if book is not None:
                        book.close()
                    raise BackendError(f"llama.cpp could not load {self.path}: {exc}") from None
                if book is not None:
                    book.address = self._server.listening_address
                self.slots = book
            return self._server

    def generate(self, body: dict[str, Any], on_chunk: Callable[[dict[str, Any]], bool]) -> list[str]:
        """Blocking: decode one request, feeding each streamed chunk to ``on_chunk``.

        ``on_chunk`` returns True to stop decoding. Errors reported by the server are returned."""
        errors: list[str] = []

        def error_text(obj: dict[str, Any]) -> str:
            err = obj.get("error", obj)
            return err.get("message", str(err)) if isinstance(err, dict) else str(err)

        def callback(chunk: Any) -> bool:
            if isinstance(chunk, dict) and ("error" in chunk or "code" in chunk and "choices" not in chunk):
                errors.append(error_text(chunk))
                return True
            return bool(on_chunk(chunk))

        server = self.server()
        if self.slots is None:
            result = server.handle_chat_completions(body, callback)
        else:
            with self.slots.seat(body) as seat:  # a slot of its own, holding the longest shared prefix
                def seated(chunk: Any) -> bool:
                    seat.started()
                    return callback(chunk)

                result = server.handle_chat_completions({**body, "id_slot": seat.slot}, seated)
        if isinstance(result, dict) and ("error" in result or "code" in result):
            errors.append(error_text(result))
        return errors

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        with self._load_lock:
            self._server = None  # the server's destructor joins its loop and frees the model
            if self.slots is not None:
                self.slots.close()
                self.slots = None


atexit.register(LocalRuntime.close_all)


class LocalBackend:
    name = "local"
    accepts_temperature = PROFILES["local"].accepts_temperature
    price_provider = PROFILES["local"].price_provider
    constrained_decoding = PROFILES["local"].constrained_decoding

    def __init__(self, spec: Any, settings: Any):
        local = settings.local
        self.model = spec.model or local.model
        self.path, self.catalog_entry = resolve(self.model)
        self.n_ctx = local.n_ctx
        self.parallel = local.parallel
        self.threads = local.threads or os.cpu_count() or 2
        self.cache_ram_mib, self.kv_unified = local.cache_ram_mib, local.kv_unified
        self.dry_last_n, self.dry_multiplier, self.dry_allowed_length = (
            local.dry_last_n, local.dry_multiplier, local.dry_allowed_length)
        self.context_window = self.n_ctx
        self._runtime: LocalRuntime | None = None

    def estimate_tokens(self, text: str) -> int:
        return max(1, int(len(text) / CHARS_PER_TOKEN) + 1) if text else 0

    def runtime(self) -> LocalRuntime:
        if self._runtime is None:
            path = self.path
            entry: LocalModel | None = self.catalog_entry
            if entry is not None:
                path = assemble(entry, directory=self.path.parent, progress=stderr_progress(entry.id))
            self._runtime = LocalRuntime.shared(path, self.n_ctx, self.parallel, self.threads, self.cache_ram_mib,
                                                self.kv_unified)
        return self._runtime

    def body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "messages": request.messages(),
            "max_tokens": request.max_tokens,
            "stream": True,
            "cache_prompt": True,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.schema},
            },
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.seed is not None:
            body["seed"] = request.seed
        # Small models loop ("X is working as expected. X is working as expected."): the DRY
        # sampler penalises repeating any earlier run of tokens; quotes and colons break runs,
        # so JSON keys and punctuation are not penalised.
        body.update({"dry_multiplier": self.dry_multiplier, "dry_base": 1.75,
                     "dry_allowed_length": self.dry_allowed_length, "repeat_penalty": 1.05})
        body["dry_penalty_last_n"] = self.dry_last_n  # 64 unless set: what the runtime uses when none is sent
        return body

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply:
        loop = asyncio.get_running_loop()
        runtime = self._runtime or await loop.run_in_executor(None, self.runtime)  # first use: assemble, load off-loop
        stop = threading.Event()
        parts: list[str] = []
        final: dict[str, Any] = {}

        def on_chunk(chunk: dict[str, Any]) -> bool:
            for choice in chunk.get("choices") or []:
                text = (choice.get("delta") or {}).get("content")
                if text:
                    parts.append(text)
                    if on_text is not None:
                        loop.call_soon_threadsafe(on_text, text)
                if choice.get("finish_reason"):
                    final["finish_reason"] = choice["finish_reason"]
            if "timings" in chunk:
                final["timings"] = chunk["timings"]
            return stop.is_set()

        clock = Stopwatch()
        future = loop.run_in_executor(runtime.pool, runtime.generate, self.body(request), on_chunk)
        try:
            errors = await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()  # decoding stops at the next token; the slot is freed
            raise
        if errors:
            message = errors[0]
            if "context" in message.lower() and ("exceed" in message.lower() or "too long" in message.lower()):
                raise ContextTooLongError(
                    f"the case is too long for local:{self.model} (window {self.n_ctx:,} tokens): {message}; "
                    "cut the evidence or raise [local] n_ctx in config.toml"
                )
            raise BackendError(f"local model {self.model} failed: {message}")
        timings = final.get("timings", {})
        processed = int(timings.get("prompt_n", 0))
        cached = int(timings.get("cache_n", 0))
        return ModelReply(
            text="".join(parts),
            usage=Usage(input_tokens=processed, output_tokens=int(timings.get("predicted_n", 0)),
                        cache_read_tokens=cached),
            model=self.model,
            temperature=request.temperature,
            seconds=clock.seconds,
            finish_reason=final.get("finish_reason", ""),
            raw={"timings": timings},
        )

    async def aclose(self) -> None:
        return None  # the runtime is shared by the process; it is released at exit
