"""What the fitted reader knows about a candidate sentence, read off the feature rows."""

from __future__ import annotations

import numpy as np

from rag.answer.features import FEATURES, candidates, is_named, part_features
from rag.answer.intent import parse_intent
from rag.types import ScoredPaper
from tests.support import scored_paper

METHOD_SAID = FEATURES.index("method_said")


def rows(question: str, *papers: ScoredPaper) -> tuple[list[str], np.ndarray]:
    intent = parse_intent(question)
    pool = candidates(list(papers))
    sims = np.zeros(len(pool))
    return [c.text for c in pool], part_features(intent, intent.parts[0], pool, sims, lambda w: 1.0)


def test_a_sentence_that_speaks_of_the_method_the_one_before_names_says_the_method():
    """"It takes anchor mixtures as hard negatives" after "We propose GlimmerNet ..." is about
    GlimmerNet; an "It" sentence of another paper, or one not after the method's name, is not."""
    glimmer = scored_paper("p1", "We propose GlimmerNet, a contrastive method for scans. "
                                 "It takes anchor mixtures as hard negative pairs. "
                                 "Results on six datasets are strong overall here.", "GlimmerNet")
    other = scored_paper("p2", "Scans are hard to label at scale today. "
                               "It takes many hours of expert work per scan.", "TideRank", 0.9)
    texts, x = rows("What does GlimmerNet use as hard negatives?", glimmer, other)
    said = dict(zip(texts, x[:, METHOD_SAID], strict=True))
    assert said["It takes anchor mixtures as hard negative pairs."] == 1.0
    assert said["Results on six datasets are strong overall here."] == 0.0
    assert said["It takes many hours of expert work per scan."] == 0.0


def test_the_sentence_introducing_a_paper_the_question_names_is_marked_for_each_kind_of_question():
    """"We propose GlimmerNet, ..." tells the asker of "How does GlimmerNet ...?" what they already
    know; the reader weighs that per kind of question (for "What does X do?" it is the answer)."""
    glimmer = scored_paper("p1", "We propose GlimmerNet, a contrastive method for scans. "
                                 "It takes anchor mixtures as hard negative pairs.", "GlimmerNet")
    other = scored_paper("p2", "We introduce TideRank, a ranking model for scans today.", "TideRank", 0.9)
    texts, x = rows("How does GlimmerNet pick its hard negatives?", glimmer, other)
    marked = dict(zip(texts, x[:, FEATURES.index("how*named_intro")], strict=True))
    assert marked == {"We propose GlimmerNet, a contrastive method for scans.": 1.0,
                      "It takes anchor mixtures as hard negative pairs.": 0.0,
                      "We introduce TideRank, a ranking model for scans today.": 0.0}


def test_a_quoted_title_the_abstract_says_names_its_paper():
    reproduction = scored_paper("r1", "This paper conducts a reproducibility study of 'Teaching CLIP to Count "
                                      "to Ten', which adds a counting-contrastive loss.", None)
    other = scored_paper("r2", "CountNet teaches a vision model to count to ten objects.", "CountNet")
    asked = parse_intent("What loss does the 'Teaching CLIP to Count to Ten' method add?").names
    assert is_named(reproduction, asked)
    assert not is_named(other, asked)


def test_a_sentence_giving_an_example_is_marked_only_when_the_question_asks_for_one():
    """"Which chatbot does the survey give as its example of a language model?" over "LLMs, such
    as ChatGPT, ...": the reader weighs the pair (fitted on the generated example questions)."""
    survey = scored_paper("p1", "Large language models, such as ChatGPT, draw wide attention today. "
                                "This survey reviews medical language models in depth.", "MedSurvey")
    example = FEATURES.index("example_asked")
    texts, x = rows("Which chatbot does MedSurvey give as its example of a language model?", survey)
    marked = dict(zip(texts, x[:, example], strict=True))
    assert marked["Large language models, such as ChatGPT, draw wide attention today."] == 1.0
    assert marked["This survey reviews medical language models in depth."] == 0.0
    _, plain = rows("Which chatbot does MedSurvey review?", survey)
    assert not plain[:, example].any()
