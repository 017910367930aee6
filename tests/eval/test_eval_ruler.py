"""The ruler, round two (issue 25): each wrong answer that the grading still credited must score
nothing, and the right answer beside it must still score. Answers are built the way the engine
shows them (lead, sentence, [n] keys, per-sentence support) over an invented corpus; every
sentence is marked supported, as if the engine's checker had kept it."""

from __future__ import annotations

from typing import Any

import pytest

from eval.dataset import Fact
from eval.metrics import fact_state
from eval.run import grade, summarise
from rag.types import Answer
from tests.eval_cases import PAPERS, answer_of, every_sentence, one_line, question


def score(q, result: Answer) -> dict[str, Any]:
    return grade(q, result, PAPERS)["scores"]


def right_and_wrong(q, right: Answer, wrong: Answer) -> tuple[dict[str, Any], dict[str, Any]]:
    good, bad = score(q, right), score(q, wrong)
    assert good["accuracy"] == 1.0, grade(q, right, PAPERS)["failures"]
    return good, bad


# -- concise or wrong: padding per question type ---------------------------------------------

SINGLE = question(question="What does the chemistry agent build?", gold_papers=["p1"],
                  key_facts=[["self-updating library"]])
MULTI = question(type="multi", question="What do the chemistry agent and the reaction ranker build on?",
                 gold_papers=["p1", "p2"], key_facts=[["self-updating library"], ["energy model"]])
YES_NO = question(question="Does the chemistry agent need labelled data to build its library?",
                  gold_papers=["p1"], yes_no="no", key_facts=[["from its own runs"]])
LIST = question(type="list", question="Which papers predict properties of materials or reactions, and by how much?",
                gold_papers=["p5", "p6"], key_facts=[["71%"], ["18%"]])
METADATA = question(type="metadata", question="Which papers did B. Lattice write?", gold_papers=["p5", "p6"],
                    key_facts=[["p5"], ["p6"]])
UNANSWERABLE = question(type="unanswerable", question="How many GPUs does the chemistry agent need?")

PADDING = {
    "single": (SINGLE, answer_of(("", "ChemAgent builds a self-updating library of sub-tasks.", ("p1",), True)),
               answer_of(*every_sentence("p5", "p6", "p4", "p3", "p1"))),
    "multi": (MULTI, answer_of(("", "ChemAgent builds a self-updating library of sub-tasks.", ("p1",), True),
                               ("", "MolTide ranks reactions with a learned energy model.", ("p2",), True)),
              answer_of(*every_sentence("p5", "p6", "p3", "p4", "p1", "p2"))),
    "yes/no": (YES_NO, answer_of(("**No**: ", "ChemAgent builds its library from its own runs.", ("p1",), True)),
               answer_of(*every_sentence("p5", "p6", "p4", "p1", lead="**No**: "))),
    "list": (LIST, answer_of(("- LatticeFlow (p5): ", "LatticeFlow finds the ground state for 71% of compositions.",
                              ("p5",), True),
                             ("- YieldLens (p6): ", "YieldLens lowers the yield error by 18%.", ("p6",), True)),
             answer_of(one_line("LatticeFlow", "p5"), one_line("YieldLens", "p6"))),
    "metadata": (METADATA, answer_of(("- LatticeFlow (p5): ", "We present LatticeFlow, a generative model that "
                                      "proposes crystal structures for any composition.", ("p5",), True),
                                     ("- YieldLens (p6): ", "We introduce YieldLens, which pretrains on patents "
                                      "before fine-tuning on each dataset.", ("p6",), True), route="metadata"),
                 answer_of(one_line("LatticeFlow", "p5"), one_line("YieldLens", "p6"), route="metadata")),
}


@pytest.mark.parametrize("kind", PADDING)
def test_an_answer_padded_with_whole_abstracts_scores_no_accuracy(kind):
    q, right, padded = PADDING[kind]
    good, bad = right_and_wrong(q, right, padded)
    assert bad["accuracy"] == 0.0, grade(q, padded, PAPERS)["facts"]
    assert good["key_facts"] == 1.0 and bad["key_facts"] == 0.0


def test_a_padded_answer_to_an_unanswerable_question_scores_no_accuracy():
    padded = answer_of(*every_sentence("p1", "p5", "p6"))
    declined = Answer("q", "The abstracts do not say.", (), True)
    assert score(UNANSWERABLE, declined)["accuracy"] == 1.0
    assert score(UNANSWERABLE, padded)["accuracy"] == 0.0


def test_a_fact_in_the_lead_counts_and_the_same_fact_after_sixty_words_does_not():
    fact_first = answer_of(("", "ChemAgent builds a self-updating library of sub-tasks.", ("p1",), True),
                           *every_sentence("p5", "p6"))
    fact_last = answer_of(*every_sentence("p5", "p6"),
                          ("", "ChemAgent builds a self-updating library of sub-tasks.", ("p1",), True))
    assert score(SINGLE, fact_first)["key_facts"] == 1.0
    assert score(SINGLE, fact_last)["key_facts"] == 0.0
    assert grade(SINGLE, fact_last, PAPERS)["failures"][0]["code"] == "fact beyond the lead"


def test_answer_length_is_reported_with_accuracy():
    _, right, padded = PADDING["single"]
    summary = summarise([grade(SINGLE, a, PAPERS) | {"latency_ms": 1.0} for a in (right, padded)])
    words = summary["answer_words"]
    assert words["n"] == 2 and words["p50"] > 50 and words["p90"] > 100, words
    assert summary["answer_words_by_type"]["single"] == words


# -- denials, contrasts and roles -------------------------------------------------------------

RIGHT = answer_of(("", "ChemAgent builds a self-updating library of sub-tasks from its own runs.", ("p1",), True))


@pytest.mark.parametrize("sentence", [
    "ChemAgent avoids a self-updating library of sub-tasks.",
    "Instead of a self-updating library, ChemAgent keeps a fixed list of sub-tasks.",
    "ChemAgent keeps a fixed list rather than a self-updating library.",
    "Unlike a self-updating library, ChemAgent's list of sub-tasks is written by hand.",
    "It is false that ChemAgent builds a self-updating library.",
    "A self-updating library is not what ChemAgent builds.",
    "ChemAgent does not in any of its many runs build a self-updating library.",
])
def test_a_fact_under_a_denial_or_a_contrast_is_not_stated(sentence):
    wrong = answer_of(("", sentence, ("p1",), True))
    good, bad = right_and_wrong(SINGLE, RIGHT, wrong)
    assert bad["key_facts"] == 0.0 and bad["accuracy"] == 0.0
    assert grade(SINGLE, wrong, PAPERS)["facts"][0]["state"] == "negated"


@pytest.mark.parametrize("sentence", [
    "Instead of prompting, ChemAgent builds a self-updating library of sub-tasks.",
    "Unlike methods that fail, ChemAgent builds a self-updating library.",
    "ChemAgent needs no labels; it builds a self-updating library.",
])
def test_a_denial_of_something_else_leaves_the_fact_stated(sentence):
    assert score(SINGLE, answer_of(("", sentence, ("p1",), True)))["key_facts"] == 1.0


def test_a_cue_the_question_itself_says_denies_nothing():
    q = question(question="What lets the chemistry agent work without labels?", gold_papers=["p1"],
                 key_facts=[["self-updating library"]])
    said = answer_of(("", "Without labels, ChemAgent relies on a self-updating library.", ("p1",), True))
    assert score(q, said)["key_facts"] == 1.0


def test_a_thing_in_the_wrong_role_is_not_stated():
    q = question(question="What does the mixing method use as hard negatives?", gold_papers=["p3"],
                 key_facts=[{"any": ["anchor-inclusive mixtures"], "role": ["hard negative"]}])
    right = answer_of(("", "SupReMix uses anchor-inclusive mixtures as hard negatives.", ("p3",), True))
    swapped = answer_of(("", "SupReMix uses anchor-inclusive mixtures as hard positive pairs and random "
                             "samples as hard negatives.", ("p3",), True))
    good, bad = right_and_wrong(q, right, swapped)
    assert bad["key_facts"] == 0.0 and bad["accuracy"] == 0.0
    assert grade(q, swapped, PAPERS)["failures"][0]["code"] == "fact wrong quantity"


def test_an_aside_in_brackets_does_not_part_a_thing_from_its_role():
    fact = Fact(("anchor-inclusive mixtures",), role=("hard negative",))
    assert fact_state(fact, "It takes anchor-inclusive mixtures (mixups of the anchor and a negative) as hard "
                            "negative pairs and anchor-exclusive mixtures as hard positive pairs.") == "stated"
    assert fact_state(fact, "It takes anchor-inclusive mixtures as hard positive pairs (and random samples as "
                            "hard negatives).") == "wrong quantity"


def test_a_figure_of_the_wrong_measure_is_not_stated():
    q = question(question="What F1 does the line parser reach?", gold_papers=["p3"],
                 key_facts=[{"any": ["97.7"], "near": ["F1"]}])
    right = answer_of(("", "The parser reaches an F1 of 97.7 on the held-out pages.", ("p3",), True))
    recall = answer_of(("", "The parser reaches a per-line recall of 97.7.", ("p3",), True))
    good, bad = right_and_wrong(q, right, recall)
    assert bad["key_facts"] == 0.0 and bad["accuracy"] == 0.0


# -- the verdict and the lead span -------------------------------------------------------------

def test_no_doubt_is_not_a_no():
    no_doubt = answer_of(("No doubt, it does: ", "ChemAgent builds its library from its own runs.", ("p1",), True))
    right = PADDING["yes/no"][1]
    good, bad = right_and_wrong(YES_NO, right, no_doubt)
    assert bad["yes_no_verdict"] == 0.0 and bad["accuracy"] == 0.0


def test_a_lead_span_that_is_not_the_fact_earns_its_sentence_nothing():
    q = question(question="By how much does the chemistry agent improve accuracy?", gold_papers=["p1"],
                 key_facts=[["35%"]])
    right = answer_of(("**35%**: ", "It improves accuracy by 35%.", ("p1",), True))
    wrong_span = answer_of(("**53%**: ", "It improves accuracy by 35%.", ("p1",), True))
    good, bad = right_and_wrong(q, right, wrong_span)
    assert bad["key_facts"] == 0.0 and bad["accuracy"] == 0.0
    assert grade(q, wrong_span, PAPERS)["failures"][0]["code"] == "fact under a wrong lead"
