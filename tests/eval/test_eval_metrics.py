"""The eval metrics on tiny hand-made cases."""

from __future__ import annotations

import pytest

from eval.dataset import Fact
from eval.metrics import (
    abstention_scores,
    citation_precision,
    citation_recall,
    citation_validity,
    countable_facts,
    fact_covered,
    fact_state,
    is_verbatim,
    leading_verdict,
    token_f1,
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
    facts = [Fact(("VoiceShop",)), Fact(("diffusion",))]
    assert countable_facts(facts, "What backbone does VoiceShop use?") == [Fact(("diffusion",))]


@pytest.mark.parametrize("fact, text", [
    ("10.0", "an average improvement of 10.0% over GRPO"),
    ("1.45", "up to a 1.45× reduction in pretraining steps"),
    ("99%", "models achieve up to sim99% of the performance"),
])
def test_a_bare_figure_matches_it_with_its_unit(fact, text):
    assert fact_covered([fact], text)
    assert not fact_covered(["35%"], "a 135% gain") and not fact_covered(["5"], "a 15% gain")


@pytest.mark.parametrize("sentence", [
    "It is not ChemAgent that builds the library.",
    "The method does not rely on a static tokenizer.",
    "It works without any labelled data.",
    "X never uses ChemAgent.",
])
def test_a_fact_under_a_negation_in_its_clause_is_negated(sentence):
    fact = Fact(("ChemAgent", "static tokenizer", "labelled data"))
    assert fact_state(fact, sentence) == "negated"


@pytest.mark.parametrize("sentence", [
    "**No**: ChemAgent builds a self-updating library.",
    "No, ChemAgent builds it; earlier methods fail to scale.",
    "Unlike methods that fail, ChemAgent builds a library.",
    "ChemAgent does not need labels and reaches 35% gains.",
])
def test_a_negation_outside_the_facts_clause_or_window_does_not_count(sentence):
    assert fact_state(Fact(("ChemAgent", "35%")), sentence) == "stated"


def test_a_negation_word_inside_the_fact_is_part_of_the_fact():
    assert fact_state(Fact(("not yet able to beat",)), "Generators are not yet able to beat retrieval.") == "stated"
    assert fact_state(Fact(("training-free",)), "A training-free method.") == "stated"


def test_a_figure_with_near_words_needs_one_in_the_same_sentence():
    fact = Fact(("82B",), ("parameters",))
    assert fact_state(fact, "The model has 82B parameters.") == "stated"
    assert fact_state(fact, "It was trained on 82B tokens.") == "wrong quantity"
    assert fact_state(fact, "It has 7B parameters.") == "missing"


@pytest.mark.parametrize("answer, verdict", [
    ("**Yes**: it does [1]", "yes"), ("No. The abstract says it needs no labels [1]", "no"),
    ("- No, it does not", "no"), ("It does, yes [1]", None), ("Nobody knows", None),
    ("The abstracts do not say whether. **No**: it does not [1]", None),
])
def test_the_verdict_is_the_answers_opening_word(answer, verdict):
    assert leading_verdict(answer) == verdict


def test_verbatim_sentences_are_recognised_ignoring_spacing_and_case():
    source = "We propose X.  It compresses the   KV cache by 2x. More text."
    assert is_verbatim("it compresses the KV cache by 2x.", [source])
    assert not is_verbatim("It shrinks the KV cache by 2x.", [source])


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
