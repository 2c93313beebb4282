"""The retriever: MiniLM embeddings from the packaged ONNX file, BM25, the disk cache, disjointness."""

from __future__ import annotations

import pytest

from courtroom_chat.errors import ConfigError
from courtroom_chat.retrieval import (
    BM25,
    MODEL_SHA256,
    Embedder,
    Example,
    Retriever,
    default_embedder,
    disjoint,
    model_file,
    sha256_of,
    top,
)

# Three topics, two examples each: each query's two nearest neighbours are its own topic's.
POOL = [
    Example("The striker scored twice in the second half and the home crowd roared.", "sport", "a football match"),
    Example("The goalkeeper saved a penalty in the final minute of the cup game.", "sport", "a football match"),
    Example("Preheat the oven, then knead the dough and let the bread rise for an hour.", "cooking", "a recipe"),
    Example("Simmer the tomatoes with garlic and basil until the sauce thickens.", "cooking", "a recipe"),
    Example("The central bank raised interest rates to slow inflation.", "economy", "monetary policy"),
    Example("Unemployment fell while wages grew faster than prices this quarter.", "economy", "the labour market"),
]


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


def test_the_packaged_model_is_the_pinned_one():
    assert sha256_of(model_file()) == MODEL_SHA256


def test_embeddings_are_unit_vectors_and_rank_paraphrases_first():
    vectors = default_embedder().embed(["A man is eating food.", "A man is eating a piece of bread.",
                                        "The girl is carrying a baby."])
    assert vectors.shape == (3, 384)
    sims = vectors @ vectors.T
    assert abs(float(sims[0, 0]) - 1) < 1e-4
    assert sims[0, 1] > 0.6 > 0.1 > sims[0, 2]


@pytest.mark.parametrize("method", ["embedding", "bm25", "hybrid"])
@pytest.mark.parametrize(("query", "topic"), [
    ("The referee showed a red card and the match ended in a draw.", "sport"),
    ("Knead the dough, then simmer a sauce of basil for the pasta.", "cooking"),
    ("Inflation, interest rates and wages worry the economists.", "economy"),
])
def test_the_nearest_examples_are_the_same_topic(method, query, topic, cache):
    hits = Retriever(POOL, method=method, cache_dir=cache).nearest(query, k=2)
    assert [h.rank for h in hits] == [1, 2]
    assert {h.example.label for h in hits} == {topic}
    assert hits[0].score >= hits[1].score


def test_the_embedding_ranks_meaning_that_bm25_misses(cache):
    query = "Referees showed red cards; matches ended drawn."  # no word in common with the pool
    assert not any(BM25([e.text for e in POOL]).scores(query))
    assert Retriever(POOL, cache_dir=cache).nearest(query, 1)[0].example.label == "sport"


def test_pool_vectors_are_cached_and_a_changed_pool_is_embedded_again(cache):
    first = Retriever(POOL, cache_dir=cache)
    first.nearest("a cup final", 1)
    assert first.cache_hit is False and len(list(cache.glob("*.npy"))) == 1
    again = Retriever(list(POOL), cache_dir=cache)
    again.nearest("a cup final", 1)
    assert again.cache_hit is True and (again.vectors() == first.vectors()).all()
    relabelled = [*POOL[:-1], Example(POOL[-1].text, "sport")]  # one label changed: another key
    changed = Retriever(relabelled, cache_dir=cache)
    assert changed.key != first.key
    changed.nearest("a cup final", 1)
    assert changed.cache_hit is False and len(list(cache.glob("*.npy"))) == 2
    grown = Retriever([*POOL, Example("Stocks fell sharply after the report.", "economy")], cache_dir=cache)
    grown.vectors()
    assert grown.cache_hit is False and grown.vectors().shape == (7, 384)


def test_a_cache_file_cut_short_is_computed_again(cache):
    retriever = Retriever(POOL, cache_dir=cache)
    retriever.vectors()
    [path] = cache.glob("*.npy")
    path.write_bytes(path.read_bytes()[:50])
    again = Retriever(POOL, cache_dir=cache)
    assert again.vectors().shape == (6, 384) and again.cache_hit is False


def test_the_pool_is_disjoint_from_the_items_and_a_text_never_retrieves_itself(cache):
    items = [POOL[0].text.upper(), "  " + POOL[3].text.replace(" ", "  ")]
    kept = disjoint(POOL, items)
    assert len(kept) == 4 and POOL[0] not in kept and POOL[3] not in kept
    retriever = Retriever(POOL, method="bm25", cache_dir=cache)
    assert all(h.example != POOL[2] for h in retriever.nearest(POOL[2].text, 5))
    assert all(h.example != POOL[2] for h in retriever.sample(5, seed=1, text=POOL[2].text))


def test_random_precedents_are_seeded(cache):
    retriever = Retriever(POOL, cache_dir=cache)
    one = [h.example for h in retriever.sample(3, seed="item-1")]
    assert one == [h.example for h in retriever.sample(3, seed="item-1")]
    draws = {tuple(h.example.text for h in retriever.sample(3, seed=s)) for s in range(20)}
    assert len(draws) > 5 and len(one) == 3


def test_an_empty_pool_or_k_zero_retrieves_nothing(cache):
    assert Retriever([], cache_dir=cache).nearest("anything", 3) == []
    assert Retriever(POOL, cache_dir=cache).nearest("anything", 0) == []


def test_a_wrong_model_file_or_method_is_one_line(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="unknown retrieval method 'dense'"):
        Retriever(POOL, method="dense")  # type: ignore[arg-type]
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not a model")
    monkeypatch.setattr("courtroom_chat.retrieval.model_file", lambda: fake)
    with pytest.raises(ConfigError, match="sha256 .* not the pinned"):
        Embedder().embed(["x"])


def test_top_ranks_best_first_with_ties_by_index_and_skips_what_keep_refuses():
    scores = [0.2, 0.9, 0.5, 0.9, 0.1]
    assert top(scores, 3) == [1, 3, 2]
    assert top(scores, 3, keep=lambda i: i != 3) == [1, 2, 0]
    assert top(scores, 10) == [1, 3, 2, 0, 4]
    assert top([], 2) == [] and top(scores, 0) == []
