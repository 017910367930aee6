"""Short forms an abstract defines in parentheses stand for their long forms in its other
sentences."""

from __future__ import annotations

from rag.text.abbreviations import definitions, spelled_out

ABSTRACT = ("We propose Direct Reasoning Optimization (DRO), guided by a new reward signal: the Reasoning "
            "Reflection Reward (R3). Unlike Reinforcement Learning with Verifiable Rewards (RLVR), R3 is "
            "computed internally. We pretrain on the Colossal Clean Crawled Corpus (C4).")


def test_long_forms_are_the_words_that_spell_the_short_form():
    assert definitions(ABSTRACT) == {
        "DRO": "Direct Reasoning Optimization", "R3": "Reasoning Reflection Reward",
        "RLVR": "Reinforcement Learning with Verifiable Rewards", "C4": "Colossal Clean Crawled Corpus"}


def test_a_parenthesis_that_spells_nothing_defines_nothing():
    assert definitions("It improves accuracy (CE) on every task (and more).") == {}
    assert definitions("Results on the test split (TS3) are shown.") == {}  # "split" is no "tss s"


def test_a_sentence_is_read_with_the_long_forms_of_the_short_forms_it_uses():
    assert spelled_out("R3 is computed internally.", ABSTRACT) == "Reasoning Reflection Reward"
    assert spelled_out("It is computed internally.", ABSTRACT) == ""
