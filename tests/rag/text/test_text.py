"""Tests for text clean-up (``rag.text.clean``) and near-duplicate handling (``rag.ingest.papers``)."""

from __future__ import annotations

import pytest

from rag.ingest.papers import DuplicateFinder, make_paper, merge
from rag.text.clean import dedupe_key, normalise, split_sentences
from rag.text.names import method_name, name_pattern, names

# --------------------------------------------------------------------------- normalise


def test_normalise_adds_the_missing_space_after_a_sentence_end() -> None:
    text = "We learn representations?In this work we do better.Results follow."

    assert normalise(text) == "We learn representations? In this work we do better. Results follow."


def test_normalise_joins_a_word_broken_by_line_hyphenation() -> None:
    assert normalise("models that pro- duce text") == "models that produce text"


@pytest.mark.parametrize("text", [
    "both pre- and post-training",
    "first- or second-order methods",
    "short- to long-range context",
])
def test_normalise_keeps_suspended_hyphens(text: str) -> None:
    assert normalise(text) == text


@pytest.mark.parametrize(("raw", "clean"), [
    (r"\textbf{Foo} works", "Foo works"),
    (r"an \emph{important} result", "an important result"),
    (r"\textbf{\emph{nested}} commands", "nested commands"),
    (r"accuracy of 90\% and R\&D", "accuracy of 90% and R&D"),
])
def test_normalise_strips_latex_commands_but_keeps_their_text(raw: str, clean: str) -> None:
    assert normalise(raw) == clean


def test_normalise_unwraps_inline_math() -> None:
    text = normalise(r"It runs in $\mathcal{O}(n\log n)$ time.")

    assert "O(n" in text
    assert "$" not in text
    assert "\\" not in text
    assert text.startswith("It runs in O(n")
    assert text.endswith("time.")


def test_normalise_turns_a_tilde_into_a_space() -> None:
    assert normalise("as shown in Table~2 and Fig.~3") == "as shown in Table 2 and Fig. 3"


def test_normalise_drops_a_trailing_footnote_number() -> None:
    text = normalise("Our model reaches an F1 of 32.85%. 1")

    assert text.endswith("32.85%.")
    assert text == "Our model reaches an F1 of 32.85%."


def test_normalise_keeps_a_number_that_is_part_of_the_last_sentence() -> None:
    assert normalise("We tested version 2.") == "We tested version 2."


@pytest.mark.parametrize("text", [
    "The loss drops by 3.5 points and 0.25 on average.",
    "Accuracy rose from 71.2% to 74.9%.",
])
def test_normalise_leaves_decimals_untouched(text: str) -> None:
    assert normalise(text) == text


@pytest.mark.parametrize("url", [
    "https://github.com/OpenGVLab/InternVL",
    "https://example.com/a.b-c_d?x=1&y=two",
    "https://huggingface.co/datasets/foo/bar-baz",
    "https://www.cs.umd.edu/~sakshams/vit_analysis",  # a URL in data/004
    "https://example.org/search?Query=graphs",
])
def test_normalise_does_not_break_urls(url: str) -> None:
    text = normalise(f"Code is available at {url}. We thank the reviewers.")

    assert url in text


def test_normalise_collapses_whitespace() -> None:
    assert normalise("  many\n\tspaces   here  ") == "many spaces here"


def test_normalise_is_idempotent_on_clean_text() -> None:
    clean = "We propose SupReMix, a simple method. It works, e.g. on images."

    assert normalise(normalise(clean)) == normalise(clean) == clean


# --------------------------------------------------------------------------- split_sentences


def test_split_sentences_splits_at_a_period_before_a_capital() -> None:
    assert split_sentences("We study graphs. The results are good. 3 datasets are used.") == [
        "We study graphs.",
        "The results are good.",
        "3 datasets are used.",
    ]


def test_split_sentences_keeps_common_abbreviations_inside_a_sentence() -> None:
    text = (
        "We use pretrained models, e.g. BERT and GPT. Smith et al. Showed this before. "
        "The rest, i.e. Everything else, follows."
    )

    assert split_sentences(text) == [
        "We use pretrained models, e.g. BERT and GPT.",
        "Smith et al. Showed this before.",
        "The rest, i.e. Everything else, follows.",
    ]


def test_split_sentences_handles_question_and_exclamation_marks() -> None:
    assert split_sentences("Does it scale? Yes! It does.") == ["Does it scale?", "Yes!", "It does."]


def test_split_sentences_does_not_split_before_lowercase_or_decimals() -> None:
    assert split_sentences("It gains 3.5 points vs. the baseline. done.") == [
        "It gains 3.5 points vs. the baseline. done."
    ]


def test_split_sentences_of_empty_text_is_empty() -> None:
    assert split_sentences("   ") == []


# --------------------------------------------------------------------------- method_name


@pytest.mark.parametrize(("text", "name"), [
    ("In this paper, we propose SupReMix, a supervised mixup method for regression.",
     "SupReMix"),
    ("We design a framework named CyclE that learns cycles.", "CyclE"),
    ("Here we present the first-ever LLM in geoscience, K2, alongside a suite of tools.", "K2"),
    ("This paper introduces GraphFast: a fast graph learner.", "GraphFast"),
    ("We introduce a tool-use benchmark (ToolBench) of API calls.", "ToolBench"),
    ("We propose a model dubbed \"LongNet\" for long inputs.", "LongNet"),
])
def test_method_name_finds_the_introduced_name(text: str, name: str) -> None:
    assert method_name(text) == name


@pytest.mark.parametrize(("text", "name"), [
    ("In this work, we propose Entropy-Based Adaptive Weighting for Self-Training (EAST), an "
     "adaptive weighting strategy.", "EAST"),
    ("We introduce the Item-Language Model (ILM), which is composed of an item encoder.", "ILM"),
    ("We propose Self-Adapting LLMs (SEAL), a framework that enables LLMs to self-adapt.", "SEAL"),
    ("We introduce Sentence-BERT (SBERT), a modification of the pretrained BERT network.", "Sentence-BERT"),
])
def test_method_name_is_the_short_name_of_a_name_spelled_out_before_it(text: str, name: str) -> None:
    assert method_name(text) == name


def test_method_name_is_none_for_an_abstract_without_a_named_method() -> None:
    text = (
        "Graph neural networks are widely used. We study how label noise affects them and "
        "find that simple regularisation helps. Experiments on five datasets confirm this."
    )

    assert method_name(text) is None


@pytest.mark.parametrize("text", [
    "We propose LLMs as annotators for low-resource tasks.",
    "We present GNNs that are robust to noise.",
    "In this work we introduce NLP pipelines for clinical notes.",
])
def test_method_name_ignores_generic_acronyms(text: str) -> None:
    assert method_name(text) is None


def test_method_name_ignores_ordinary_capitalised_words() -> None:
    assert method_name("We propose Transformers for everything.") is None


# --------------------------------------------------------------------------- dedupe_key


@pytest.mark.parametrize("variant", [
    "we study graphs. the results are good.",
    "We study graphs.The results are good.",
    "We  study   graphs -- the results, are good!",
    "WE STUDY GRAPHS THE RESULTS ARE GOOD",
])
def test_dedupe_key_ignores_spacing_case_and_punctuation(variant: str) -> None:
    assert dedupe_key(variant) == dedupe_key("We study graphs. The results are good.")


def test_dedupe_key_differs_for_different_words() -> None:
    assert dedupe_key("We study graphs.") != dedupe_key("We study trees.")


# --------------------------------------------------------------------------- DuplicateFinder

SENTENCES = [
    "We present a chatbot built for a large open-domain conversation competition.",
    "The system combines an ensemble of natural language generation and retrieval models.",
    "A reinforcement learning policy selects among the candidate responses at every turn.",
    "The policy is trained on crowdsourced ratings collected from real users of the system.",
    "In an evaluation with real users the system scored well above competing systems.",
    "We also release the dialogue data collected during the competition period for research.",
]
LONG = " ".join(SENTENCES)
SHORT = " ".join(SENTENCES[:4])
UNRELATED = (
    "Protein structure prediction has improved rapidly with deep learning methods. "
    "We benchmark several folding models on membrane proteins and report their failure cases. "
    "Our analysis shows that coevolution signals remain important for hard targets."
)


def test_duplicate_finder_finds_an_exact_duplicate_up_to_spacing() -> None:
    finder = DuplicateFinder()
    original = make_paper("000-0061", LONG)
    squashed = make_paper("003-0365", LONG.replace(". ", "."))
    finder.add(original)

    assert finder.find(squashed) == "000-0061"


def test_duplicate_finder_does_not_report_a_paper_as_its_own_duplicate() -> None:
    finder = DuplicateFinder()
    paper = make_paper("p1", LONG)
    finder.add(paper)

    assert finder.find(paper) is None


def test_duplicate_finder_finds_a_short_version_of_a_long_abstract() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("001-0193", LONG))

    assert finder.find(make_paper("001-0201", SHORT)) == "001-0193"


def test_duplicate_finder_finds_a_long_version_of_a_short_abstract() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("short", SHORT))

    assert finder.find(make_paper("long", LONG)) == "short"


def test_duplicate_finder_does_not_merge_unrelated_abstracts() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("chatbot", LONG))

    assert finder.find(make_paper("proteins", UNRELATED)) is None


def test_duplicate_finder_picks_the_matching_paper_among_several() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("proteins", UNRELATED))
    finder.add(make_paper("chatbot", LONG))

    assert finder.find(make_paper("chatbot-short", SHORT)) == "chatbot"


def test_duplicate_finder_ignores_papers_without_text() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("empty-1", ""))

    assert finder.find(make_paper("empty-2", "")) is None
    assert finder.find(make_paper("p", LONG)) is None


# --------------------------------------------------------------------------- merge


def test_merge_keeps_the_first_id_and_text_and_fills_gaps_from_the_duplicate() -> None:
    kept = make_paper("000-0061", LONG, source="000.txt", line=61)
    duplicate = make_paper(
        "003-0365", SHORT, authors=("Jane Doe", "John Smith"), year=2017,
        venue="NeurIPS", url="https://example.org/x", title="A Chatbot",
        source="003.txt", line=365,
    )

    merged = merge(kept, duplicate)

    assert merged.id == "000-0061"
    assert merged.abstract == kept.abstract
    assert merged.text == kept.text
    assert (merged.source, merged.line) == ("000.txt", 61)
    assert merged.authors == ("Jane Doe", "John Smith")
    assert merged.year == 2017
    assert merged.venue == "NeurIPS"
    assert merged.url == "https://example.org/x"
    assert merged.title == "A Chatbot"
    assert merged.aliases == ("003-0365",)


def test_merge_does_not_overwrite_metadata_the_first_paper_has() -> None:
    kept = make_paper("a", LONG, authors=("Ann Lee",), year=2020, venue="ACL")
    duplicate = make_paper("b", LONG, authors=("Bob Roe", "Cy Poe"), year=2019, venue="EMNLP",
                           authors_truncated=True)

    merged = merge(kept, duplicate)

    assert (merged.authors, merged.year, merged.venue) == (("Ann Lee",), 2020, "ACL")
    assert merged.authors_truncated is False


def test_merge_collects_aliases_without_repeats() -> None:
    first = make_paper("a", LONG)
    second = make_paper("b", LONG)
    third = make_paper("c", LONG)

    merged = merge(merge(first, second), third)
    merged = merge(merged, second)

    assert merged.id == "a"
    assert merged.aliases == ("b", "c")


def test_merge_takes_over_the_duplicates_own_aliases() -> None:
    kept = make_paper("a", LONG)
    duplicate = merge(make_paper("b", LONG), make_paper("c", LONG))

    assert merge(kept, duplicate).aliases == ("b", "c")


@pytest.mark.parametrize(("text", "found"), [
    ("How many tokens was Rodimus+-1.6B trained on?", ["Rodimus+-1.6B"]),
    ("How big is Qwen2-1.5B next to GPT-4.5?", ["Qwen2-1.5B", "GPT-4.5"]),
    ("ResNet-50 reaches 76.1% top-1.", ["ResNet-50"]),
    ("LLaMA+LoRA is tuned on one GPU.", ["LLaMA", "LoRA"]),  # a "+" between two names joins nothing
])
def test_a_name_keeps_its_decimal_size_and_its_plus(text: str, found: list[str]) -> None:
    assert names(text) == found


def test_a_name_with_a_plus_is_found_as_the_abstract_writes_it() -> None:
    assert name_pattern("Rodimus+-1.6B").search("Our Rodimus+-1.6B, trained on 1 trillion tokens")
    assert not name_pattern("Rodimus-1.6B").search("Rodimus-16B")
