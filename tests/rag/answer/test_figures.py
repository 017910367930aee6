"""Which figure of a sentence leads the answer to a figure question."""

from __future__ import annotations

from rag.answer.figures import lead_figure
from rag.answer.intent import parse_intent


def lead(question: str, sentence: str, abstract: str = "") -> str:
    return lead_figure(parse_intent(question).parts[0], sentence, question, abstract)


def test_how_much_better_asks_for_the_difference_not_a_count_beside_it():
    sentence = ("On human evaluation, our method writes fluent outputs on 22% more inputs than the best "
                "previous system, averaged over three transfer datasets.")
    assert lead("How much better is the transfer method than the best earlier system?", sentence) == "22%"
    assert lead("How many transfer datasets are averaged over?", sentence) == "three transfer datasets"


def test_a_figure_counted_out_of_a_whole_leads_with_both():
    sentence = "Adding image crops outperforms the baseline on 11 out of 14 out-of-distribution datasets."
    assert lead("On how many out-of-distribution datasets do image crops beat the baseline?", sentence) \
        == "11 out of 14 out-of-distribution datasets"


def test_a_short_form_the_abstract_defines_counts_as_its_long_form():
    abstract = ("There are numerous Hardness Characterization Methods (HCMs) that aim to find hard samples. "
                "We use our toolkit to evaluate 13 different HCMs across 8 hardness types.")
    sentence = "We use our toolkit to evaluate 13 different HCMs across 8 hardness types."
    question = "How many hardness characterization methods were compared?"
    assert lead(question, sentence, abstract) == "13"
    assert lead("How many hardness types were covered?", sentence, abstract) == "8 hardness types"


def test_asking_for_a_score_is_not_answered_with_a_count_of_benchmarks():
    sentence = ("RASAT achieves state-of-the-art results across all three benchmarks "
                "(75.5% EX on Spider, 52.6% IEX on SParC, and 37.4% IEX on CoSQL).")
    assert lead("What execution accuracy does RASAT reach on the Spider text-to-SQL benchmark?", sentence) == "75.5%"


def test_a_count_or_a_number_in_words_is_no_score():
    question = "What lemmatization accuracy does the best lemmatizer reach?"
    assert lead(question, "We develop contextual lemmatizers in six languages.") == ""
    assert lead(question, "We train lemmatizers for 12 languages.") == ""
    assert lead(question, "A reproduction of 'Teaching CLIP to Count to Ten' improves counting accuracy.") == ""
    assert lead(question, "The best lemmatizer reaches 95.2% on 12 languages.") == "95.2%"


def test_the_lead_keeps_the_bound_a_figure_is_given_under_and_what_it_counts():
    assert lead("How many classes does the institution name dataset contain?",
                "We collect a large dataset, which contains over 25k classes that are long-tailed.") \
        == "over 25k classes"
    assert lead("What maximum training speedup does TACO report?",
                "Experiments show that TACO achieves up to 5x speedup over existing MLMs.") == "up to 5x speedup"
    # half a noun phrase is none: "6.16% label" would misread "6.16% label errors"
    assert lead("What fraction of labels are wrong in the toxicity datasets?",
                "We find and fix an average of 6.16% label errors in 11 datasets.") == "6.16%"


def test_a_figure_of_the_thing_the_question_names_leads():
    sentence = ("Our method achieves 77.12% F1-score on Twitter-2015, 88.40% F1-score on Twitter-2017, "
                "and 84.12% F1-score on MNRE.")
    assert lead("What F1-score does the method report on the MNRE dataset?", sentence) == "84.12% F1-score"


def test_how_many_of_a_thing_leads_with_the_figure_that_counts_it():
    sentence = "In these proxy tasks we measure 12 metrics across 12 domains."
    assert lead("Across how many domains are the reward-model metrics measured?", sentence) == "12 domains"
