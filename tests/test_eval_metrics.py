"""The eval metrics on tiny hand-made cases."""

from __future__ import annotations

import pytest

from eval.metrics import (
    abstention_scores,
    citation_precision,
    citation_recall,
    citation_validity,
    countable_facts,
    fact_covered,
    is_verbatim,
    key_fact_coverage,
    token_f1,
    yes_no_correct,
)


@pytest.mark.parametrize("fact, answer", [
    ("35%", "improves accuracy by 35 % on average"),
    ("35%", "a 35 percent gain"),
    ("35 percent", "a 35% gain"),
    ("Anchor-inclusive mixtures", "it uses ANCHOR-INCLUSIVE   mixtures as negatives"),
    ("1,000 GPUs", "trained on 1000 GPUs"),
    ("2.5x", "a 2.5× speed-up"),
    ("3 times", "3x faster"),
    ("token IDs", "routing depends on token IDs."),
])
def test_facts_match_ignoring_case_spacing_and_percent_forms(fact, answer):
    assert fact_covered([fact], answer)


def test_a_fact_is_not_matched_by_a_different_number():
    assert not fact_covered(["35%"], "a 36% gain")
    assert not fact_covered(["8.6 million"], "8 million images")


@pytest.mark.parametrize("fact, answer", [
    ("MoD", "mixture of depths models"),
    ("35%", "a 135% gain"),
    ("BERT", "RoBERTa is used"),
    ("5.1", "improves by 15.1 points"),
])
def test_facts_match_only_at_word_boundaries(fact, answer):
    assert not fact_covered([fact], answer)


def test_a_fact_already_in_the_question_is_not_counted():
    facts = [["VoiceShop"], ["diffusion"]]
    assert countable_facts(facts, "What backbone does VoiceShop use?") == [["diffusion"]]
    assert key_fact_coverage(facts, "VoiceShop uses an LSTM", "What backbone does VoiceShop use?") == 0.0
    assert key_fact_coverage([["K2"]], "K2", "What is K2?") is None


def test_yes_no_answers_must_open_with_the_expected_word():
    assert yes_no_correct("yes", "**Yes**: it does [1]")
    assert yes_no_correct("no", "No. The abstract says it needs no labels [1]")
    assert not yes_no_correct("no", "Yes: it does [1]")
    assert not yes_no_correct("yes", "It does, yes [1]")


def test_verbatim_sentences_are_recognised_ignoring_spacing_and_case():
    source = "We propose X.  It compresses the   KV cache by 2x. More text."
    assert is_verbatim("it compresses the KV cache by 2x.", [source])
    assert not is_verbatim("It shrinks the KV cache by 2x.", [source])


def test_key_fact_coverage_needs_every_required_fact_and_any_alternative():
    facts = [["K2"], ["geoscience", "earth science"]]
    assert key_fact_coverage(facts, "K2 is an LLM for earth science") == 1.0
    assert key_fact_coverage(facts, "K2 is an LLM") == 0.5
    assert key_fact_coverage([], "anything") is None


def test_token_f1():
    assert token_f1("the cat sat", "the cat sat") == 1.0
    assert token_f1("a b", "c d") == 0.0
    assert token_f1("cat sat on mat", "the cat sat") == pytest.approx(2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3))


def test_citation_metrics():
    assert citation_precision(["a", "b", "c"], gold={"a", "b"}) == pytest.approx(2 / 3)
    assert citation_precision([], gold={"a"}) is None
    assert citation_recall(["a", "x"], {"a", "b"}) == 0.5
    assert citation_validity(3, 1) == 0.75 and citation_validity(0, 0) == 1.0


def test_abstention_precision_and_recall():
    scores = abstention_scores(abstained=[True, True, False, False],
                               unanswerable=[True, False, True, False])
    assert scores == {"precision": 0.5, "recall": 0.5}
