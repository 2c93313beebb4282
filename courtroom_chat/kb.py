"""The legal knowledge base: statutes as chunks, in a real vector store, searched three ways.

    kb = KnowledgeBase.from_settings(settings.kb)
    report = kb.build()                        # once; reused until the corpus changes
    hits = kb.search("a driver ran over a pedestrian", k=5)   # [KBHit(provision, chunk, score, rank)]
    check = kb.verify("IPC", "304A", "rash or negligent act")  # the section exists; the words are there

The corpus is read in place: a folder of statute JSON files (lists of objects with a number
under ``section``/``Section``/``article``, a ``title``/``section_title`` and a
``description``/``section_desc``; the Indian Penal Code, the CrPC, the Evidence Act, the
CPC and the Constitution in ``../shared/data/india_law``), plus an optional user folder of
text, Markdown, PDF or JSON files in the same shape. A text file is split into provisions at
its headings (``# Title``, ``Section 12. Title``, ``Article 5 - Title``).

Every provision becomes one chunk or, when longer than ``chunk_chars``, several: each chunk
starts with the provision's heading (``IPC section 302: Punishment for murder``) so a part
read alone still says where it comes from, and carries source, act, section and title as
metadata. Dense search embeds the chunks with the project's MiniLM (``retrieval.Embedder``,
on the CPU, offline) into ChromaDB, given as the collection's embedding function so Chroma
never loads its own; the store is embedded and persistent (``PersistentClient``) or a
``chroma run`` server (``HttpClient``), by ``[kb] store``. Lexical search is the project's
BM25 over the same chunks; hybrid mixes both, each scaled over the chunks (``retrieval.fuse``),
leaning on BM25 as far as the query's own words occur in the best chunk. Results are
provisions, each at its best chunk of its own words. With ``[kb] situations`` a provision
also has a chunk of everyday situations written for it (``courtroom_chat/situations/``),
which a question told in plain words can meet; ``[kb] expand`` adds a thesaurus's statutory
terms to the query instead (measured to help only on the questions it was written beside).

The collection is named after a hash of the corpus (every provision, its situations, the chunk
size, the model): an unchanged corpus reuses it, a changed one is built again and the old one
dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, InputError, MissingDependencyError
from .replies import shorten
from .retrieval import BM25, METHODS, Embedder, default_embedder, fuse, top

if TYPE_CHECKING:
    from .config import KBSettings

# The shipped statutes: file stem -> (abbreviation, act, what a provision is called)
KNOWN = {
    "ipc": ("IPC", "Indian Penal Code, 1860", "section"),
    "crpc": ("CrPC", "Code of Criminal Procedure, 1973", "section"),
    "iea": ("IEA", "Indian Evidence Act, 1872", "section"),
    "cpc": ("CPC", "Code of Civil Procedure, 1908", "section"),
    "constitution_of_india": ("Constitution", "Constitution of India", "article"),
}
# Ways a citation may name a source, squeezed to lower-case letters
ALIASES = {
    "ipc": "IPC", "indianpenalcode": "IPC", "penalcode": "IPC", "indianpenalcode1860": "IPC",
    "crpc": "CrPC", "codeofcriminalprocedure": "CrPC", "criminalprocedurecode": "CrPC", "codeofcriminalprocedure1973": "CrPC",
    "iea": "IEA", "evidenceact": "IEA", "indianevidenceact": "IEA", "indianevidenceact1872": "IEA",
    "cpc": "CPC", "codeofcivilprocedure": "CPC", "civilprocedurecode": "CPC", "codeofcivilprocedure1908": "CPC",
    "constitution": "Constitution", "constitutionofindia": "Constitution", "coi": "Constitution",
}
NAMED_SHORT = re.compile(r"\b(IPC|CrPC|Cr\.P\.C\.?|IEA|CPC)\s*(?:section|sec\.|s\.)?\s*(\d+[A-Z]{0,2})\b", re.I)
NAMED_LONG = re.compile(r"\b(section|article)\s+(\d+[A-Z]{0,2})\s+of\s+the\s+(Indian Penal Code|Code of Criminal Procedure|"
                        r"Indian Evidence Act|Code of Civil Procedure|Constitution(?: of India)?)", re.I)
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".pdf")
COLLECTION_PREFIX = "kb_"
DENSE_CANDIDATES = 100  # chunks the store returns for the hybrid's dense half
# The hybrid leans on BM25 as far as the query's own words occur in the best chunk (BM25.match,
# raised to this power): a statute's wording is found lexically, a plain-language situation by
# the embedding. Chosen on bench/samvad/questions.jsonl (the same set it is measured on).
LEXICAL_TRUST = 3
TERMS = Path(__file__).with_name("legal_terms.toml")  # everyday words -> the statutes' vocabulary
EXPANSIONS = ("off", "lexical", "both")


@dataclass(frozen=True)
class Provision:
    """A section or article as the corpus holds it."""

    source: str  # IPC
    act: str  # Indian Penal Code, 1860
    unit: str  # section | article
    number: str  # 302, 304A
    title: str
    text: str

    @property
    def key(self) -> str:
        return f"{self.source} {self.number}"

    @property
    def heading(self) -> str:
        return f"{self.source} {self.unit} {self.number}: {self.title}".rstrip(": ")


@dataclass(frozen=True)
class Chunk:
    id: str
    provision: Provision
    part: int
    parts: int
    text: str  # the heading, then this part of the provision
    kind: str = "text"  # text: the provision's own words; situation: everyday situations written for it

    def metadata(self) -> dict[str, Any]:
        p = self.provision
        return {"source": p.source, "act": p.act, "unit": p.unit, "section": p.number, "title": p.title,
                "part": self.part, "parts": self.parts, "kind": self.kind}


@dataclass(frozen=True)
class KBHit:
    provision: Provision
    chunk: Chunk
    score: float
    rank: int


@dataclass
class BuildReport:
    built: bool  # False: an index of the same corpus was reused
    store: str
    where: str
    provisions: int
    chunks: int
    seconds: float
    size_bytes: int | None  # the embedded store's folder on disk; None for a server
    corpus_hash: str
    sources: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        size = f"{self.size_bytes / 1e6:.1f} MB on disk" if self.size_bytes is not None else "size kept by the server"
        verb = "built in" if self.built else "reused (unchanged corpus; first built in"
        close = "" if self.built else ")"
        return (f"{self.provisions:,} provisions, {self.chunks:,} chunks, {verb} {self.seconds:.1f} s{close}, {size} "
                f"· {self.store} store at {self.where} · corpus {self.corpus_hash[:12]}")


@dataclass(frozen=True)
class CitationCheck:
    source: str
    number: str
    quote: str
    exists: bool
    quote_found: bool | None  # None: nothing quoted
    reason: str = ""
    heading: str = ""

    @property
    def verified(self) -> bool:
        return self.exists and self.quote_found is not False


# ---------------------------------------------------------------------- reading the corpus


def default_corpus() -> Path:
    """``$COURTROOM_KB_CORPUS``, else ``../shared/data/india_law`` beside the project's folder."""
    env = os.environ.get("COURTROOM_KB_CORPUS", "").strip()
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[1].parent / "shared" / "data" / "india_law"


def _first(item: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if item.get(key) not in (None, ""):
            return item[key]
    return None


def clean(text: str) -> str:
    """Statute text with its layout whitespace (tabs, non-breaking spaces, blank runs) tidied."""
    text = text.replace("\u00a0", " ").replace("\t", " ").replace("\r\n", "\n")
    text = re.sub(r"[ ]{2,}", " ", text)
    text = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text)
    return "\n".join(line.strip() for line in text.splitlines()).strip()


def number_of(value: Any) -> str:
    """A section or article number as the corpus and citations are compared: ``302``, ``304A``
    (``s. 304-A``, ``Section 302(1)`` and ``Art. 21`` read as ``304A``, ``302`` and ``21``)."""
    found = re.search(r"(\d+)\s*-?\s*([A-Za-z]{0,2})\b", str(value))
    if not found:
        return str(value).strip().upper()
    return f"{int(found.group(1))}{found.group(2).upper()}"


def read_json_source(path: Path) -> list[Provision]:
    stem = path.stem.lower()
    source, act, unit = KNOWN.get(stem, (path.stem, path.stem.replace("_", " "), "section"))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable JSON file ({exc}); give a list of sections "
                         "with 'section', 'title' and 'description'") from None
    if not isinstance(data, list):
        return []
    out = []
    for item in data:
        if not isinstance(item, dict):
            continue
        number = _first(item, "section", "Section", "article", "Article", "number")
        text = _first(item, "section_desc", "description", "text", "desc")
        title = str(_first(item, "section_title", "title", "Title") or "").strip()
        if isinstance(text, str) and not text.strip():
            text = None
        text = text if text is not None else (title or None)  # a section the source left empty (IPC 304B) keeps its title
        if number is None or not isinstance(text, str):
            continue
        if "article" in item or "Article" in item:
            unit = "article"
        out.append(Provision(source, act, unit, number_of(number), title, clean(text)))
    return out


_HEADING = re.compile(r"^(?:#{1,6}\s*(?P<md>.+)|(?P<unit>section|article|sec\.|art\.)\s*(?P<num>\d+[A-Za-z]?)\s*[.:\-–—]?\s*(?P<title>.*))$",
                      re.IGNORECASE)


def read_text_source(path: Path, skipped: list[str] | None = None) -> list[Provision]:
    """A text, Markdown or PDF file: a provision per heading, else the whole file as one. A file
    that is no text (binary, undecodable, a PDF without a text layer) is left out and named in
    ``skipped``."""
    from .case import read_document
    from .errors import CaseError

    try:
        text = read_document(path).text
    except CaseError as exc:
        if skipped is not None:
            skipped.append(f"{path}: {exc}")
        return []
    source = path.stem
    provisions: list[Provision] = []
    title, number, unit, body = "", "", "section", []

    def close() -> None:
        content = clean("\n".join(body))
        if content:
            provisions.append(Provision(source, source.replace("_", " "), unit, number or str(len(provisions) + 1),
                                        title, content))

    for line in text.splitlines():
        m = _HEADING.match(line.strip())
        if m:
            close()
            body = []
            if m.group("md") is not None:
                md = m.group("md").strip()
                inner = _HEADING.match(md)
                if inner and inner.group("num"):
                    unit = "article" if inner.group("unit").lower().startswith("art") else "section"
                    number, title = number_of(inner.group("num")), inner.group("title").strip()
                else:
                    number, title = "", md
            else:
                unit = "article" if m.group("unit").lower().startswith("art") else "section"
                number, title = number_of(m.group("num")), m.group("title").strip()
            continue
        body.append(line)
    close()
    return provisions


def read_folder(folder: Path, *, user: bool = False, skipped: list[str] | None = None) -> list[Provision]:
    if not folder.is_dir():
        what = "[kb] user_corpus" if user else "[kb] corpus"
        raise InputError(f"the knowledge base folder {folder} does not exist; set {what} in config.toml "
                         f"{'' if user else '(or $COURTROOM_KB_CORPUS) '}to a folder of statute files")
    provisions: list[Provision] = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or not path.is_file() or re.match(r"(source|readme|license)\b", path.stem, re.I):
            continue  # the folder's own notes (where the texts come from) are not law
        suffix = path.suffix.lower()
        if suffix == ".json":
            provisions += read_json_source(path)
        elif suffix in TEXT_SUFFIXES:
            provisions += read_text_source(path, skipped)
    if not provisions:
        raise InputError(f"{folder} holds no readable file for the knowledge base; add .txt, .md, .pdf or .json "
                         "files (JSON: a list of sections with 'section', 'title' and 'description')")
    return provisions


def split(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, broken at paragraphs, then sentences, then words."""
    if len(text) <= size:
        return [text]
    units: list[str] = []
    for para in text.split("\n"):
        if len(para) <= size:
            units.append(para)
            continue
        for sentence in re.split(r"(?<=[.;:])\s+", para):
            while len(sentence) > size:
                cut = sentence.rfind(" ", 0, size)
                cut = cut if cut > size // 2 else size
                units.append(sentence[:cut])
                sentence = sentence[cut:].lstrip()
            units.append(sentence)
    pieces, current = [], ""
    for unit in units:
        if not unit.strip():
            continue
        joined = f"{current}\n{unit}" if current else unit
        if len(joined) <= size:
            current = joined
        else:
            pieces.append(current)
            current = unit
    if current:
        pieces.append(current)
    return pieces


def chunk(provision: Provision, size: int) -> list[Chunk]:
    """The provision's chunks: each its heading, then at most ``size`` characters in all."""
    room = max(100, size - len(provision.heading) - 20)
    pieces = split(provision.text, room)
    n = len(pieces)
    base = re.sub(r"\W+", "-", provision.key.lower())
    return [Chunk(f"{base}-{i}", provision, i, n,
                  f"{provision.heading}{f' (part {i} of {n})' if n > 1 else ''}\n{piece}")
            for i, piece in enumerate(pieces, 1)]


def corpus_hash(provisions: Sequence[Provision], chunk_chars: int, model: str,
                situations: dict[str, str] | None = None) -> str:
    digest = hashlib.sha256(f"{model}:{chunk_chars}".encode())
    for p in provisions:
        digest.update(json.dumps([p.source, p.unit, p.number, p.title, p.text]).encode())
    if situations:  # an index with situations is another index
        digest.update(json.dumps(situations, sort_keys=True).encode())
    return digest.hexdigest()


SITUATIONS = Path(__file__).with_name("situations")  # situations written for the shipped corpus, one file a source


def load_situations(spec: str) -> dict[str, str]:
    """Everyday situations to index beside the provisions they are about ({"IPC 378": "…"}):
    "auto" the files shipped for the bundled corpus, "off" none, else a JSON file of its own
    (the shipped files' shape, or a plain object of key to text)."""
    spec = spec.strip()
    if spec.lower() in ("off", "none", ""):
        return {}
    paths = sorted(SITUATIONS.glob("*.json")) if spec.lower() == "auto" else [Path(spec).expanduser()]
    found: dict[str, str] = {}
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"[kb] situations: {path} not found; give a JSON file of provision key to text, "
                              "or \"auto\" or \"off\"") from None
        except json.JSONDecodeError as exc:
            raise ConfigError(f"[kb] situations: {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
        table = data.get("situations", data) if isinstance(data, dict) else None
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise ConfigError(f"[kb] situations: {path} must map provision keys (\"IPC 378\") to text")
        found.update({k: v for k, v in table.items() if v.strip()})
    return found


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# ---------------------------------------------------------------------- the store


def embedding_function(embedder: Embedder | None = None) -> Any:
    """Our MiniLM as a Chroma embedding function (so Chroma never fetches its default model)."""
    try:
        from chromadb.api.types import Documents, EmbeddingFunction
    except ImportError:
        raise MissingDependencyError("the knowledge base needs chromadb; reinstall courtroom-chat (`uv sync`)") from None

    class MiniLM(EmbeddingFunction[Documents]):
        def __init__(self, embedder: Embedder | None = None) -> None:
            self.embedder = embedder

        def __call__(self, input: Documents) -> Any:
            return list((self.embedder or default_embedder()).embed(list(input)))

        @staticmethod
        def name() -> str:
            return "courtroom-minilm-int8"

        def default_space(self) -> Any:
            return "cosine"

        def supported_spaces(self) -> Any:
            return ["cosine"]

        def get_config(self) -> dict[str, Any]:
            return {"model": "all-MiniLM-L6-v2-onnx-int8"}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> Any:
            return MiniLM()

    return MiniLM(embedder)


def default_store_path() -> Path:
    env = os.environ.get("COURTROOM_CACHE_DIR", "").strip()
    if env:
        return Path(env).expanduser() / "kb"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("courtroom-chat")) / "kb"


@cache
def legal_terms() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The thesaurus of ``legal_terms.toml``: (what triggers it, what the query gains)."""
    def piece(word: str) -> str:
        return re.escape(word[:-1]) + r"s?\b" if word.endswith("$") else re.escape(word) + r"[\w'-]*"

    terms = []
    for term in tomllib.loads(TERMS.read_text(encoding="utf-8"))["term"]:
        phrases = [r"\b" + r"\W+".join(piece(w) for w in when.split()) for when in term["when"]]
        terms.append((re.compile("|".join(phrases), re.IGNORECASE), term["adds"]))
    return tuple(terms)


def expand_query(query: str) -> str:
    """``query`` with the statutory terms its everyday words call for appended, each once
    ("someone took my phone" gains "theft: dishonestly takes movable property …"): a situation
    told in plain words shares few words, and for MiniLM little meaning, with the section
    that governs it."""
    adds = [adds for pattern, adds in legal_terms() if pattern.search(query)]
    return "\n".join([query, *adds])


class KnowledgeBase:
    def __init__(self, folders: Sequence[Path], *, store: str = "embedded", path: Path | None = None,
                 host: str = "127.0.0.1", port: int = 8000, method: str = "hybrid", chunk_chars: int = 900,
                 embedder: Embedder | None = None, expand: str = "off", situations: dict[str, str] | None = None):
        if method not in METHODS:
            raise ConfigError(f"unknown search method '{method}'; use one of {', '.join(METHODS)}")
        if expand not in EXPANSIONS:
            raise ConfigError(f"unknown query expansion '{expand}'; use one of {', '.join(EXPANSIONS)}")
        self.expand = expand
        self.situations = dict(situations or {})
        self.folders = [Path(f) for f in folders]
        self.store, self.path, self.host, self.port = store, path or default_store_path(), host, port
        self.method, self.chunk_chars = method, chunk_chars
        self.embedder = embedder
        self._provisions: list[Provision] | None = None
        self.skipped: list[str] = []  # files of the corpus that hold no text, named for the user
        self._chunks: list[Chunk] | None = None
        self._own: dict[str, Chunk] | None = None
        self._by_key: dict[str, Provision] = {}
        self._bm25: BM25 | None = None
        self._collection: Any = None
        self._vectors: Any = None  # every chunk's stored vector (``vectors``)
        self.report: BuildReport | None = None

    @classmethod
    def from_settings(cls, kb: KBSettings, embedder: Embedder | None = None) -> KnowledgeBase:
        folders = [Path(kb.corpus).expanduser() if kb.corpus else default_corpus()]
        if kb.user_corpus:
            folders.append(Path(kb.user_corpus).expanduser())
        return cls(folders, store=kb.store, path=Path(kb.path).expanduser() if kb.path else None, host=kb.host,
                   port=kb.port, method=kb.method, chunk_chars=kb.chunk_chars, embedder=embedder, expand=kb.expand,
                   situations=load_situations(kb.situations))

    # ------------------------------------------------------------------ the corpus

    @property
    def provisions(self) -> list[Provision]:
        if self._provisions is None:
            found: list[Provision] = []
            for i, folder in enumerate(self.folders):
                found += read_folder(folder, user=i > 0, skipped=self.skipped)
            self._provisions = found
            for p in found:
                self._by_key.setdefault(p.key.lower(), p)
        return self._provisions

    @property
    def chunks(self) -> list[Chunk]:
        if self._chunks is None:
            out: list[Chunk] = []
            taken: Counter[str] = Counter()
            for p in self.provisions:
                pieces = chunk(p, self.chunk_chars)
                situation = self.situations.get(p.key, "")
                if situation and taken[pieces[0].id] == 0:  # the first text of a number holds its situations
                    base = pieces[0].id.rsplit("-", 1)[0]
                    pieces.append(Chunk(f"{base}-situations", p, 0, pieces[0].parts, f"{p.heading}\n{situation}",
                                        kind="situation"))
                for c in pieces:
                    taken[c.id] += 1  # a number the corpus holds twice (two texts of one article) keeps both
                    out.append(c if taken[c.id] == 1 else Chunk(f"{c.id}~{taken[c.id]}", c.provision, c.part,
                                                                  c.parts, c.text, c.kind))
            self._chunks = out
        return self._chunks

    def own_words(self) -> dict[str, Chunk]:
        """Each provision's first chunk of its own words, shown for a hit on its situations; built
        once with the chunks, not at every search."""
        if self._own is None:
            self._own = {}
            for c in self.chunks:
                if c.kind == "text":
                    self._own.setdefault(c.provision.key, c)
        return self._own

    @property
    def corpus_hash(self) -> str:
        embedder = self.embedder or default_embedder()
        return corpus_hash(self.provisions, self.chunk_chars, f"{embedder.model_id}:{embedder.sha256}",
                           {p.key: self.situations[p.key] for p in self.provisions if p.key in self.situations})

    @property
    def collection_name(self) -> str:
        return f"{COLLECTION_PREFIX}{self.corpus_hash[:24]}"

    def sources(self) -> list[str]:
        return list(dict.fromkeys(p.source for p in self.provisions))

    # ------------------------------------------------------------------ the store

    def client(self) -> Any:
        try:
            import chromadb
            from chromadb.config import Settings as ChromaSettings
        except ImportError:
            raise MissingDependencyError("the knowledge base needs chromadb; reinstall courtroom-chat (`uv sync`)") from None
        options = ChromaSettings(anonymized_telemetry=False)
        if self.store == "server":
            try:
                return chromadb.HttpClient(host=self.host, port=self.port, settings=options)
            except Exception as exc:  # noqa: BLE001 - chromadb raises plain exceptions for a refused connection
                raise ConfigError(f"no Chroma server at {self.host}:{self.port} ({str(exc).splitlines()[0][:120]}); "
                                  f"start one with `chroma run --host {self.host} --port {self.port} --path DIR`, "
                                  "or set [kb] store = \"embedded\"") from None
        self.path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(self.path), settings=options)

    def where(self) -> str:
        return f"{self.host}:{self.port}" if self.store == "server" else str(self.path)

    def build(self, *, force: bool = False, progress: Any = None) -> BuildReport:
        """The index of this corpus: reused when a complete one exists, else built (and any
        index of an earlier corpus dropped). ``progress(done, total)`` is called while embedding."""
        chunks = self.chunks
        client = self.client()
        name = self.collection_name
        function = embedding_function(self.embedder)
        existing = {c if isinstance(c, str) else c.name for c in client.list_collections()}
        if name in existing and not force:
            collection = client.get_collection(name, embedding_function=function)
            meta = collection.metadata or {}
            if collection.count() == len(chunks) and meta.get("complete"):
                self._collection, self._vectors = collection, None
                self.report = self._report(False, float(meta.get("build_seconds", 0.0)))
                return self.report
        for old in existing:
            if old.startswith(COLLECTION_PREFIX):
                client.delete_collection(old)
        started = time.perf_counter()
        collection = client.create_collection(name, embedding_function=function,
                                              metadata={"hnsw:space": "cosine", "corpus_hash": self.corpus_hash})
        embedder = self.embedder or default_embedder()
        step = 128
        for start in range(0, len(chunks), step):
            batch = chunks[start:start + step]
            vectors = embedder.embed([c.text for c in batch])
            collection.add(ids=[c.id for c in batch], documents=[c.text for c in batch],
                           metadatas=[c.metadata() for c in batch], embeddings=[list(map(float, v)) for v in vectors])
            if progress:
                progress(min(start + step, len(chunks)), len(chunks))
        seconds = round(time.perf_counter() - started, 2)
        collection.modify(metadata={"corpus_hash": self.corpus_hash, "complete": True, "build_seconds": seconds})
        self._collection, self._vectors = client.get_collection(name, embedding_function=function), None
        self.report = self._report(True, seconds)
        return self.report

    def _report(self, built: bool, seconds: float) -> BuildReport:
        counts: dict[str, int] = {}
        for p in self.provisions:
            counts[p.source] = counts.get(p.source, 0) + 1
        return BuildReport(built, self.store, self.where(), len(self.provisions), len(self.chunks), seconds,
                           folder_size(self.path) if self.store == "embedded" else None, self.corpus_hash, counts)

    def collection(self) -> Any:
        if self._collection is None:
            self.build()
        return self._collection

    # ------------------------------------------------------------------ search

    def vectors(self) -> Any:
        """Every chunk's vector as the store keeps it, in ``chunks`` order and of unit length, read
        once: the dense half scores all of them exactly. The store's own (approximate, HNSW)
        search returned a slightly different tail of its 100 candidates in each process, which
        moved the hybrid's scaling and so which provisions a trial read: the same case tried twice
        with the same seed cited different law (fischer-arson, 2026-11-29)."""
        if self._vectors is None:
            import numpy as np

            stored = self.collection().get(ids=[c.id for c in self.chunks], include=["embeddings"])
            at = {cid: row for row, cid in enumerate(stored["ids"])}
            found = np.asarray(stored["embeddings"], dtype=np.float32)
            matrix = np.zeros((len(self.chunks), found.shape[1] if found.ndim == 2 else 0), dtype=np.float32)
            rows = np.asarray([at.get(c.id, -1) for c in self.chunks], dtype=np.int64)
            have = rows >= 0  # a chunk the store lacks scores 0
            if have.any():
                matrix[have] = found[rows[have]]
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            self._vectors = matrix / np.where(norms == 0, 1.0, norms)
        return self._vectors

    def dense(self, query: str, n: int) -> list[tuple[int, float]]:
        """(chunk index, cosine) of the ``n`` nearest chunks, best first (ties by chunk order),
        over every stored vector."""
        import numpy as np

        matrix = self.vectors()
        if not len(matrix):
            return []
        asked = np.asarray((self.embedder or default_embedder()).embed([query])[0], dtype=np.float32)
        cosine = matrix @ (asked / (float(np.linalg.norm(asked)) or 1.0))
        return [(i, float(cosine[i])) for i in top(cosine, max(1, min(n, len(self.chunks))))]

    def lexical(self, query: str) -> list[float]:
        if self._bm25 is None:
            self._bm25 = BM25([c.text for c in self.chunks])
        return self._bm25.scores(query)

    def search(self, query: str, k: int = 5, method: str | None = None, expand: str | None = None) -> list[KBHit]:
        """The ``k`` provisions that best answer ``query``, best first, each at its best chunk.
        ``expand`` (default: the knowledge base's): "lexical" adds the statutory terms the
        query's everyday words call for (``expand_query``) to the BM25 query, "both" to the
        embedded one too, "off" searches the words as given."""
        method, expand = method or self.method, expand or self.expand
        if method not in METHODS:
            raise ConfigError(f"unknown search method '{method}'; use one of {', '.join(METHODS)}")
        if expand not in EXPANSIONS:
            raise ConfigError(f"unknown query expansion '{expand}'; use one of {', '.join(EXPANSIONS)}")
        if not query.strip() or k <= 0:
            return []
        words = expand_query(query) if expand != "off" else query
        meaning = words if expand == "both" else query
        chunks = self.chunks
        if method == "bm25":
            scored = list(enumerate(self.lexical(words)))
        elif method == "embedding":
            scored = self.dense(meaning, max(DENSE_CANDIDATES, k * 8))
        else:
            near = self.dense(meaning, DENSE_CANDIDATES)
            floor = min((s for _, s in near), default=0.0)
            cosine = [floor] * len(chunks)
            for i, s in near:
                cosine[i] = s
            lexical = self.lexical(words)
            weight = self._bm25.match(words) ** LEXICAL_TRUST if self._bm25 else 0.5
            scored = list(enumerate(fuse(cosine, lexical, weight)))
        scored.sort(key=lambda p: (-p[1], p[0]))
        hits: list[KBHit] = []
        seen: set[str] = set()
        first = self.own_words()
        for i, score in scored:
            provision = chunks[i].provision
            if provision.key in seen:
                continue
            seen.add(provision.key)
            shown = chunks[i] if chunks[i].kind == "text" else first.get(provision.key, chunks[i])
            hits.append(KBHit(provision, shown, round(float(score), 6), len(hits) + 1))
            if len(hits) == k:
                break
        return hits

    # ------------------------------------------------------------------ citations

    def source_of(self, name: str) -> str | None:
        """The corpus source a citation names (``Indian Penal Code``, ``I.P.C.``, ``ipc`` -> IPC)."""
        squeezed = re.sub(r"[^a-z0-9]", "", name.lower())
        squeezed = re.sub(r"^the", "", squeezed)
        if squeezed in ALIASES:
            return ALIASES[squeezed]
        for source in self.sources():
            if re.sub(r"[^a-z0-9]", "", source.lower()) == squeezed:
                return source
        return None

    def cited_source(self, source: str, number: str) -> str | None:
        """The corpus source a citation names; a source that also carries the cited number
        ("CrPC 154" with section "154", as the 1.5B writes them) names the source before it."""
        found = self.source_of(source)
        if found is None and (both := re.fullmatch(r"(.*?\D)[\s,.]*(?:s\.|sec\.?|section|art\.?|article)?\s*(\d+[A-Za-z]*)\s*",
                                                   source, re.IGNORECASE)) and number_of(both.group(2)) == number_of(number):
            found = self.source_of(both.group(1))
        return found

    def provision(self, source: str, number: str) -> Provision | None:
        self.provisions  # noqa: B018 - loads the corpus and its index by key
        found = self.cited_source(source, number)
        return self._by_key.get(f"{found} {number_of(number)}".lower()) if found else None

    @staticmethod
    def mentions(text: str) -> list[tuple[str, str]]:
        """Every (source, number) a text names outright ("IPC 379", "section 304A of the Indian
        Penal Code", "Article 21 of the Constitution"), in order, whether or not it exists."""
        found = [(m.start(), m.group(1), m.group(2)) for m in NAMED_SHORT.finditer(text)]
        found += [(m.start(), m.group(3), m.group(2)) for m in NAMED_LONG.finditer(text)]
        return [(source, number) for _, source, number in sorted(found)]

    def named_in(self, text: str) -> list[Provision]:
        """The provisions of this knowledge base a text names outright, in order, each once."""
        found: list[Provision] = []
        for source, number in self.mentions(text):
            provision = self.provision(source, number)
            if provision is not None and provision not in found:
                found.append(provision)
        return found

    def index(self, provision: Provision, *, lower: bool = False) -> Any:
        """The provision's text as the decision court's quote verifier reads it (``lower``: in lower case)."""
        from .case import Document
        from .evidence import EvidenceIndex

        text = provision.text.lower() if lower else provision.text
        return EvidenceIndex([Document(name=provision.heading, kind="text", text=text)])

    def verify(self, source: str, number: str, quote: str = "") -> CitationCheck:
        """Whether a citation stands: the section or article exists in the knowledge base, and any
        quoted words are found in it (the decision court's quote verification)."""
        cited = f"{source} {number}".strip()
        provision = self.provision(source, number)
        if provision is None:
            known = self.source_of(source)
            reason = (f"{cited}: no such {'section or article' if known else 'source'} in the knowledge base"
                      + ("" if known else f" (sources: {', '.join(self.sources())})"))
            return CitationCheck(source, number, quote, False, None if not quote.strip() else False, reason)
        if not quote.strip():
            return CitationCheck(source, number, quote, True, None, heading=provision.heading)
        found = self.index(provision).check(quote, min_chars=8)
        if not found.verified:  # the statute's words, differing only in case or a closing stop
            loose = self.index(provision, lower=True).check(quote.lower().strip().rstrip(".;,:"), min_chars=8, nearest=False)
            found = loose if loose.verified else found
        if found.verified:
            return CitationCheck(source, number, quote, True, True, heading=provision.heading)
        near = f'; the nearest words there are "{shorten(found.nearest.passage, 160)}"' if found.nearest else ""
        return CitationCheck(source, number, quote, True, False,
                             f'{provision.heading}: the quoted words "{shorten(quote, 160)}" are not in it{near}',
                             heading=provision.heading)


__all__ = ["BuildReport", "Chunk", "CitationCheck", "KBHit", "KnowledgeBase", "Provision", "chunk", "corpus_hash",
           "default_corpus", "embedding_function", "number_of", "read_folder", "split"]
