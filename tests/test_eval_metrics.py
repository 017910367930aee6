"""The eval metrics on tiny hand-made cases."""

from __future__ import annotations

import pytest

from eval.metrics import (
    abstention_scores,
    citation_precision,
    citation_recall,
    citation_validity,
    fact_covered,
    key_fact_coverage,
    token_f1,
)


@pytest.mark.parametrize("fact, answer", [
    ("35%", "improves accuracy by 35 % on average"),
    ("35%", "a 35 percent gain"),
    ("35 percent", "a 35% gain"),
    ("Anchor-inclusive mixtures", "it uses ANCHOR-INCLUSIVE   mixtures as negatives"),
])
def test_facts_match_ignoring_case_spacing_and_percent_forms(fact, answer):
    assert fact_covered([fact], answer)


def test_a_fact_is_not_matched_by_a_different_number():
    assert not fact_covered(["35%"], "a 36% gain")
    assert not fact_covered(["8.6 million"], "8 million images")


def test_key_fact_coverage_needs_every_required_fact_and_any_alternative():
    facts = [["K2"], ["geoscience", "earth science"]]
    assert key_fact_coverage(facts, "K2 is an LLM for earth science") == 1.0
    assert key_fact_coverage(facts, "K2 is an LLM") == 0.5
    assert key_fact_coverage([], "anything") == 1.0


def test_token_f1():
    assert token_f1("the cat sat", "the cat sat") == 1.0
    assert token_f1("a b", "c d") == 0.0
    assert token_f1("cat sat on mat", "the cat sat") == pytest.approx(2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3))


def test_citation_metrics():
    assert citation_precision(["a", "b", "c"], gold={"a"}, supported={"b"}) == pytest.approx(2 / 3)
    assert citation_precision([], gold={"a"}, supported=set()) == 1.0
    assert citation_recall(["a", "x"], {"a", "b"}) == 0.5
    assert citation_validity(3, 1) == 0.75 and citation_validity(0, 0) == 1.0


def test_abstention_precision_and_recall():
    scores = abstention_scores(abstained=[True, True, False, False],
                               unanswerable=[True, False, True, False])
    assert scores == {"precision": 0.5, "recall": 0.5}
