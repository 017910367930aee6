"""The pure parts of retrieval: fusion, paper-level merge, MMR, filters, metrics."""

from __future__ import annotations

import numpy as np
import pytest

from eval.metrics import hit_at, mrr_at, ndcg_at, percentile, recall_at
from rag.errors import InputError
from rag.ingest.papers import make_paper
from rag.retrieve.fusion import Filters, best_per_paper, mmr, rrf
from rag.text.years import parse_years
from rag.types import Chunk, ScoredChunk


def test_rrf_rewards_agreement_between_lists():
    fused = rrf({"dense": ["a", "b", "c"], "keyword": ["c", "b", "d"]}, k=60)
    assert [doc for doc, _ in fused] == ["c", "b", "a", "d"]  # found by both lists come first
    assert dict(fused)["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert dict(fused)["b"] == pytest.approx(2 / 62)


def test_rrf_weights_and_k_are_respected():
    lists = {"dense": ["a", "b"], "keyword": ["b", "a"]}
    assert rrf(lists, weights={"dense": 2.0})[0][0] == "a"
    assert rrf(lists, weights={"keyword": 2.0})[0][0] == "b"
    small_k = dict(rrf({"x": ["a", "b"]}, k=1))
    assert small_k["a"] == pytest.approx(0.5) and small_k["b"] == pytest.approx(1 / 3)


def test_rrf_breaks_ties_by_id_so_results_are_deterministic():
    assert [d for d, _ in rrf({"x": ["b"], "y": ["a"]})] == ["a", "b"]
    assert rrf({}) == []


def _hit(paper: str, index: int, score: float) -> ScoredChunk:
    return ScoredChunk(Chunk(f"{paper}#{index}", paper, index, "t", "h"), score)


def test_best_per_paper_keeps_one_chunk_per_paper_the_best():
    merged = best_per_paper([_hit("p1", 0, 0.2), _hit("p2", 0, 0.5), _hit("p1", 1, 0.9)])
    assert [(h.chunk.paper_id, h.chunk.index) for h in merged] == [("p1", 1), ("p2", 0)]


def test_mmr_prefers_a_different_paper_over_a_near_copy():
    query = np.array([1.0, 0.0, 0.0])
    vectors = {"a": np.array([0.9, 0.436, 0.0]), "a-copy": np.array([0.89, 0.456, 0.0]),
               "b": np.array([0.8, 0.0, 0.6])}
    vectors = {k: v / np.linalg.norm(v) for k, v in vectors.items()}
    assert mmr(["a", "a-copy", "b"], vectors, query, k=2, weight=0.6) == ["a", "b"]
    assert mmr(["a", "a-copy", "b"], vectors, query, k=2, weight=1.0) == ["a", "a-copy"]


@pytest.mark.parametrize("text, expected", [
    ("2023", (2023, 2023)), ("2023-2025", (2023, 2025)), ("2023-", (2023, None)),
    ("-2021", (None, 2021)), (None, (None, None)),
])
def test_year_ranges_are_parsed(text, expected):
    assert parse_years(text) == expected


def test_a_bad_year_range_is_an_input_error():
    with pytest.raises(InputError, match="2023-2025"):
        parse_years("last year")


def test_filters_match_author_substring_year_range_venue_and_source():
    paper = make_paper("x", "text", authors=("Zhouhan Lin", "Cheng Deng"), year=2024,
                       venue="Proceedings of ACL", source="001_abc.txt")
    assert Filters(author="zhouhan").matches(paper)
    assert not Filters(author="Boyi Zeng").matches(paper)
    assert Filters(year_from=2023, year_to=2025).matches(paper)
    assert not Filters(year_from=2025).matches(paper)
    assert not Filters(year_to=2020).matches(make_paper("y", "t"))  # no year: excluded
    assert Filters(venue="acl").matches(paper) and not Filters(venue="EMNLP").matches(paper)
    assert Filters(source="001").matches(paper) and not Filters(source="002").matches(paper)
    assert not Filters().active and Filters(year_from=2020).active


def test_retrieval_metrics_on_small_hand_made_rankings():
    ranked = ["a", "x", "b", "y"]
    assert recall_at(ranked, {"a", "b"}, 1) == 0.5 and recall_at(ranked, {"a", "b"}, 3) == 1.0
    assert hit_at(ranked, {"b"}, 2) == 0.0 and hit_at(ranked, {"b"}, 3) == 1.0
    assert mrr_at(ranked, {"b"}) == pytest.approx(1 / 3) and mrr_at(ranked, {"z"}) == 0.0
    assert ndcg_at(["a", "b"], {"a", "b"}) == pytest.approx(1.0)
    assert ndcg_at(["x", "a"], {"a"}) == pytest.approx(1 / np.log2(3))
    assert percentile([1, 2, 3, 4], 50) == pytest.approx(2.5) and percentile([], 95) == 0.0
