"""The support checker on an abstract of its own (not the benchmark's pairs): a faithful paraphrase
stays supported; a changed figure, a swapped name, a negated claim and an overreaching one do not.
The scorer runs with the real offline embedder, at the configured threshold."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rag.answer.claims import missing_names, missing_numbers, overreach_cues, polarity_mismatch
from rag.answer.support import AlignedSupportScorer, SupportScorer
from rag.index.embedding import CachedEmbedder, build_embedder
from rag.ingest.papers import make_paper
from rag.settings import AnswerSettings, Settings

ABSTRACT = (
    "Reviewing supplier contracts by hand is slow and expensive. We present ClauseKit, a "
    "lightweight parser that segments contracts into clauses and tags their obligations. "
    "ClauseKit reduces annotation cost by 35% compared with a rule-based baseline. It does not "
    "require labelled clauses for new jurisdictions, because it transfers from English contracts "
    "through a shared clause taxonomy. On the TermSheet benchmark, ClauseKit improves F1 by 4.2 "
    "points over the strongest prior system and processes 1,000 pages per minute on one CPU."
)
THRESHOLD = AnswerSettings().support_threshold


@pytest.fixture(scope="module")
def scorer() -> SupportScorer:
    embedder = CachedEmbedder(build_embedder(Settings().embedding))
    return AlignedSupportScorer(SimpleNamespace(embedder=embedder))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def paper():
    return make_paper("x-0001", ABSTRACT)


@pytest.mark.parametrize("claim", [
    "ClauseKit reduces annotation cost by 35% compared with a rule-based baseline.",
    "Compared with a baseline built on hand-written rules, ClauseKit cuts the cost of annotation "
    "by 35 percent.",
    "ClauseKit needs no labelled clauses to handle a new jurisdiction.",
])
def test_a_copied_or_faithfully_reworded_claim_is_supported(scorer, paper, claim):
    assert scorer.score(claim, [paper]) >= THRESHOLD


@pytest.mark.parametrize("claim", [
    "ClauseKit reduces annotation cost by 53% compared with a rule-based baseline.",  # figure
    "On the TermSheet benchmark, ClauseKit improves F1 by 2.4 points over prior systems.",
    "On the LexGLUE benchmark, ClauseKit improves F1 by 4.2 points over prior systems.",  # name
    "ClauseKit does not reduce annotation cost compared with a rule-based baseline.",  # negated
    "ClauseKit requires labelled clauses for new jurisdictions.",  # negation removed
    "ClauseKit improves F1 over every prior system on all contract benchmarks.",  # overreach
    "ClauseKit completely eliminates the cost of annotation.",
])
def test_a_claim_its_abstract_does_not_make_is_unsupported(scorer, paper, claim):
    assert scorer.score(claim, [paper]) < THRESHOLD


def test_a_claim_with_no_cited_abstract_scores_zero(scorer):
    assert scorer.score("ClauseKit parses contracts.", [make_paper("x-0002", "")]) == 0.0


@pytest.mark.parametrize(("claim", "source"), [
    ("costs fall by thirty-five percent", "cost drops by 35 %"),
    ("it reads 1,000 pages", "it reads 1k pages"),
    ("trained on 5.5 billion tokens", "trained on 5.5B tokens"),
    ("a fivefold speed-up", "a 5x speed-up"),
    ("the two sentences of each input", "each sentence pair"),
])
def test_figures_are_compared_by_value(claim, source):
    assert missing_numbers(claim, source) == []


def test_a_changed_figure_is_missing_even_when_its_digits_appear_elsewhere():
    assert missing_numbers("accuracy of 53%", "accuracy of 35%, 5.3 points better") == ["53%"]
    assert missing_numbers("on nine datasets", "on six datasets") == ["nine"]


def test_names_are_compared_as_whole_words():
    source = "Results on CIFAR-100 with GPT-4 and Qwen3-style decoders, in English."
    assert missing_names("Results on CIFAR-10.", source) == ["CIFAR-10"]
    assert missing_names("Tested on Llama3-style decoders.", source) == ["Llama3-style"]
    assert missing_names("GPT-4 helps on CIFAR-100 in English.", source) == []
    assert missing_names("We tested it in Finnish.", source) == ["Finnish"]


@pytest.mark.parametrize(("claim", "source", "mismatch"), [
    ("X does not improve recall.", "X improves recall by 3 points.", True),
    ("X fails to improve recall.", "X improves recall by 3 points.", True),
    ("X requires parallel data.", "X does not require parallel data.", True),
    ("X needs no parallel data.", "X does not require parallel data.", False),
    ("X improves recall.", "X improves recall by 3 points.", False),
    ("Without tuning, X improves recall.", "X improves recall even without any tuning.", False),
])
def test_negation_is_compared_word_by_word(claim, source, mismatch):
    assert polarity_mismatch(claim, source) is mismatch


def test_universal_or_absolute_wording_the_source_lacks_is_flagged():
    source = "X improves recall on three of the four benchmarks."
    assert overreach_cues("X always improves recall on every benchmark.", source) == ["always", "every"]
    assert overreach_cues("X eliminates errors.", source) == ["eliminates"]
    assert overreach_cues("X improves recall on each benchmark it was run on.", source) == []
    assert overreach_cues("X improves recall on all benchmarks.", "It helps on all benchmarks.") == []
