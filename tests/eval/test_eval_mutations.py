"""Each wrong answer that the old metrics gave credit to (issue 17's table), and the new cases,
must lower the metric that is meant to catch it. Right and wrong answers are built the way the
engine shows them (lead, sentence, [n] keys, per-sentence support) over an invented corpus."""

from __future__ import annotations

from typing import Any

from eval.judge import Judge
from eval.run import grade
from rag.llm.prompts import load_prompt
from rag.settings import PROJECT_ROOT
from rag.testing.fakes import FakeChatModel
from rag.types import Answer
from tests.eval_cases import PAPERS, answer_of, question


def score(q, result: Answer, judge: Judge | None = None) -> dict[str, Any]:
    return grade(q, result, PAPERS, judge=judge)["scores"]


SINGLE = question(gold_papers=["p1"], key_facts=[["self-updating library"]])
RIGHT = answer_of(("", "ChemAgent builds a self-updating library of sub-tasks from its own runs.", ("p1",), True))


def test_right_paper_cited_with_a_wrong_fact_earns_no_gold_cited():
    wrong = answer_of(("", "ChemAgent was trained on 3T tokens.", ("p1",), True))
    assert score(SINGLE, RIGHT)["gold_cited"] == 1.0
    assert score(SINGLE, wrong)["gold_cited"] == 0.0 and score(SINGLE, wrong)["key_facts"] == 0.0


def test_a_fact_only_inside_a_negation_is_not_stated():
    q = question(question="Which agent builds a self-updating library?", gold_papers=["p1"], key_facts=[["ChemAgent"]])
    right = answer_of(("**ChemAgent**: ", "We present ChemAgent, an agent that builds a self-updating library.",
                       ("p1",), True))
    negated = answer_of(("", "It is not ChemAgent that builds a self-updating library.", ("p1",), True))
    assert score(q, right)["key_facts"] == 1.0
    assert score(q, negated)["key_facts"] == 0.0
    assert grade(q, negated, PAPERS)["failures"][0]["code"] == "fact negated"


def test_a_negated_fact_is_a_failure_of_its_own():
    negated = answer_of(("", "ChemAgent does not build a self-updating library.", ("p1",), True))
    row = grade(SINGLE, negated, PAPERS)
    assert row["scores"]["key_facts"] == 0.0 < score(SINGLE, RIGHT)["key_facts"]
    assert [f["code"] for f in row["failures"]] == ["fact negated"]


def test_a_figure_stated_for_the_wrong_quantity_does_not_count():
    q = question(question="How large is ChemAgent's model?", gold_papers=["p1"],
                 key_facts=[{"any": ["82B"], "near": ["parameters"]}])
    right = answer_of(("**82B**: ", "The model has 82B parameters.", ("p1",), True))
    wrong = answer_of(("", "ChemAgent was trained on 82B tokens.", ("p1",), True))
    assert score(q, right)["key_facts"] == 1.0
    assert score(q, wrong)["key_facts"] == 0.0


def test_a_padded_list_loses_answer_precision_and_is_not_right():
    q = question(type="list", question="Which papers build agents or rankers for chemistry?",
                 gold_papers=["p1", "p2"], key_facts=[["ChemAgent"], ["MolTide"]])
    lines = [("- ChemAgent (p1): ", "We present ChemAgent, an agent.", ("p1",), True),
             ("- MolTide (p2): ", "We introduce MolTide, which ranks reactions.", ("p2",), True)]
    padded = lines + [("- RouteNet (p3): ", "We propose RouteNet, a router.", ("p3",), True),
                      ("- p4: ", "A survey of benchmarks for chemistry agents.", ("p4",), True)]
    right, wrong = score(q, answer_of(*lines)), score(q, answer_of(*padded))
    assert right["key_facts"] == wrong["key_facts"] == 1.0
    assert right["answer_precision"] == 1.0 and wrong["answer_precision"] == 0.5
    assert right["accuracy"] == 1.0 and wrong["accuracy"] == 0.0


def test_padding_a_single_answer_lowers_citation_precision():
    padded = answer_of(("", "ChemAgent builds a self-updating library of sub-tasks.", ("p1",), True),
                       ("", "We propose RouteNet, a router.", ("p3",), True))
    assert score(SINGLE, padded)["citation_precision"] == 0.5 < score(SINGLE, RIGHT)["citation_precision"]


def test_a_false_llm_sentence_that_the_checker_kept_lowers_the_judges_rate():
    prompt = load_prompt(PROJECT_ROOT / "prompts", "judge")
    false = answer_of(("", "ChemAgent needs millions of labelled reactions.", ("p1",), True), route="llm")
    truthful = answer_of(("", "ChemAgent builds a self-updating library of sub-tasks.", ("p1",), True), route="llm")
    model = FakeChatModel("SUPPORTED", "UNSUPPORTED")
    judge = Judge(model, prompt)
    assert score(SINGLE, truthful, judge)["judge_support"] == 1.0
    assert score(SINGLE, false, judge)["judge_support"] == 0.0
    assert "ChemAgent needs millions" in model.prompts[1][1]["content"]
    assert "self-updating library" in model.prompts[1][1]["content"], "the cited passage is in the prompt"


def test_an_unsupported_llm_sentence_earns_no_fact():
    kept_marked = answer_of(("", "ChemAgent builds a self-updating library.", ("p1",), False), route="llm")
    row = grade(SINGLE, kept_marked, PAPERS)
    assert row["scores"]["key_facts"] == 0.0 < score(SINGLE, RIGHT)["key_facts"]
    assert row["failures"][0]["code"] == "fact unsupported"


YES_NO = question(question="Does ChemAgent need labelled data to build its library?", gold_papers=["p1"],
                  yes_no="no", key_facts=[["from its own runs"]])
RIGHT_NO = answer_of(("**No**: ", "ChemAgent builds a self-updating library of sub-tasks from its own runs.",
                      ("p1",), True))


def test_a_right_verdict_with_a_wrong_reason_scores_no_yes_no():
    wrong_reason = answer_of(("No. ", "ChemAgent needs millions of labels.", ("p1",), True))
    assert score(YES_NO, RIGHT_NO)["yes_no"] == 1.0
    assert score(YES_NO, wrong_reason)["yes_no_verdict"] == 1.0
    assert score(YES_NO, wrong_reason)["yes_no"] == 0.0


def test_a_wrong_verdict_scores_no_verdict():
    wrong = answer_of(("**Yes**: ", "ChemAgent builds a self-updating library of sub-tasks from its own runs.",
                       ("p1",), True))
    assert score(YES_NO, RIGHT_NO)["yes_no_verdict"] == 1.0
    assert score(YES_NO, wrong)["yes_no_verdict"] == 0.0 and score(YES_NO, wrong)["accuracy"] == 0.0


def test_figures_and_names_match_only_at_word_boundaries():
    q = question(question="By how much does ChemAgent improve, and on which model?", gold_papers=["p1"],
                 key_facts=[["35%"], ["MoD"]])
    right = answer_of(("", "It improves accuracy by 35% on MoD.", ("p1",), True))
    near_miss = answer_of(("", "It improves accuracy by 135% on models.", ("p1",), True))
    assert score(q, right)["key_facts"] == 1.0
    assert score(q, near_miss)["key_facts"] == 0.0


def test_a_fact_under_the_wrong_paper_does_not_count():
    q = question(type="list", question="Which papers build agents or rankers for chemistry?",
                 gold_papers=["p1", "p2"], key_facts=[["self-updating library"], ["energy model"]])
    swapped = answer_of(("- MolTide (p2): ", "It builds a self-updating library.", ("p2",), True))
    assert score(q, swapped)["key_facts"] == 0.0
    assert grade(q, swapped, PAPERS)["facts"][0]["state"] == "wrong paper"


def test_a_metadata_line_the_catalogue_does_not_back_earns_nothing():
    q = question(type="metadata", question="Which papers did A. Chem write?", gold_papers=["p1"], key_facts=[["p1"]])
    backed = answer_of(("- ChemAgent (p1): ", "We present ChemAgent, an agent that builds a self-updating library "
                        "of sub-tasks from its own runs.", ("p1",), True), route="metadata")
    invented = answer_of(("- ChemAgent (p1): ", "ChemAgent won a Nobel prize.", ("p1",), True), route="metadata")
    assert score(q, backed)["key_facts"] == 1.0 and score(q, backed)["accuracy"] == 1.0
    assert score(q, invented)["key_facts"] == 0.0 and score(q, invented)["accuracy"] == 0.0
