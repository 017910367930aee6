"""Questions are parsed once into an intent: its kind, its parts, the names it says, its focus.
Examples are this file's own, not the eval questions."""

from __future__ import annotations

import pytest

from rag.answer.intent import parse_intent


@pytest.mark.parametrize("question, kind", [
    ("How many GPUs was GlimmerNet trained on?", "number"),
    ("By how much does TideRank improve recall?", "number"),
    ("What percentage of fish calls does the detector find?", "number"),
    ("What speed-up does Quokka give over Whisper?", "number"),
    ("What RMSE does the rating model reach on the Yelp reviews?", "number"),  # an error measure
    ("Which MAE-pretrained encoder does Quokka distil?", "name"),  # a masked autoencoder, no measure
    ("Does GlimmerNet require labelled data?", "yes_no"),
    ("Is Quokka trained on unlabelled audio?", "yes_no"),
    ("How does TideRank rank legal documents?", "how"),
    ("Why does sparse attention save memory?", "how"),
    ("Which papers compress the KV cache?", "list"),
    ("List studies on low-resource speech recognition", "list"),
    ("Which retrieval model is built for legal search?", "name"),
    ("What is the name of the image editor based on diffusion?", "name"),
    ("Compare GlimmerNet and TideRank.", "comparison"),
    ("How do GlimmerNet and TideRank differ?", "comparison"),
    ("What does GlimmerNet do?", "describe"),
    ("Which papers did Ada Lovelace co-author?", "metadata"),
])
def test_the_kind_of_a_question(question, kind):
    assert parse_intent(question).kind == kind


def test_a_two_part_question_has_one_part_per_question_asked():
    intent = parse_intent("Which retrieval model is built for legal search, and by how much does it "
                          "improve recall?")
    assert [p.kind for p in intent.parts] == ["name", "number"]
    assert "legal" in intent.parts[0].focus and "recall" in intent.parts[1].focus


def test_two_questions_in_one_message_are_two_parts():
    intent = parse_intent("What does Quokka do? How many languages does it cover?")
    assert [p.kind for p in intent.parts] == ["describe", "number"]
    assert intent.parts[1].unit == "language"


@pytest.mark.parametrize("question, unit, counted", [
    ("How many GPUs was GlimmerNet trained on?", "gpus", {"gpus"}),
    ("How many hours of audio were used?", "hour", {"hour"}),
    ("How many galaxy images was it pretrained on?", "image", {"galaxy", "image"}),
    ("How many new recipes does it introduce?", "recipe", {"recipe"}),  # not "new"
    ("How many more layers does the student keep?", "layer", {"layer"}),
    ("What percentage of calls are found?", "%", set()),
    ("What speed-up does it reach?", "x", set()),
])
def test_a_number_question_knows_its_unit(question, unit, counted):
    part = parse_intent(question).parts[0]
    assert (part.unit, set(part.counted)) == (unit, counted)


def test_names_are_method_like_tokens_not_generic_acronyms():
    intent = parse_intent("Does GlimmerNet-2 beat GPT-4o on LongDocs for LLM inference on GPUs?")
    assert intent.names == ("GlimmerNet-2", "GPT-4o", "LongDocs")


def test_focus_terms_leave_out_names_and_generic_words():
    intent = parse_intent("How does TideRank improve the performance of legal search?")
    assert intent.parts[0].focus == {"legal", "search"}


@pytest.mark.parametrize("question", ["What are the main findings of TideRank?",
                                      "What does TideRank conclude?", "What are TideRank's key takeaways?"])
def test_asking_for_findings_asks_about_the_named_paper_only(question):
    """Like "What does TideRank do?": the words of the frame ("findings", "conclude") are no topic
    an abstract must say, or the gate reads them as something the abstract does not answer."""
    assert parse_intent(question).parts[0].focus == set()


def test_how_a_named_method_works_asks_what_it_does():
    """"How does Air-Decoding work?" asks nothing but what the named method does (its name's
    stem, "air-decod", is no focus word either); "How does it reduce memory?" still asks how."""
    works = parse_intent("How does Air-Decoding work?").parts[0]
    assert (works.kind, works.focus) == ("describe", frozenset())
    assert parse_intent("How does Air-Decoding reduce memory?").parts[0].kind == "how"


def test_an_author_question_is_metadata_and_names_the_author():
    intent = parse_intent("Show me papers by Grace Hopper")
    assert intent.kind == "metadata" and intent.author == "Grace Hopper"


@pytest.mark.parametrize("question, kind", [
    ("Is there a method that detects fish calls from hydrophones?", "name"),
    ("Are there papers on legal case retrieval?", "list"),
    ("Which is faster, GlimmerNet or TideRank?", "comparison"),
    ("How do GlimmerNet and TideRank each handle long inputs?", "comparison"),
    ("How does GlimmerNet differ from dense attention?", "comparison"),
    ("What AUC does TideRank reach on CaseLaw?", "number"),
    ("How many times fewer parameters does Quokka train?", "number"),
])
def test_the_kind_of_questions_that_look_like_another_kind(question, kind):
    assert parse_intent(question).kind == kind


@pytest.mark.parametrize("question, unit", [
    ("What F1 score does TideRank reach?", "score"),
    ("How many times fewer parameters does Quokka train?", "x"),
    ("By how many percentage points does TideRank improve recall?", "%"),
    ("How many OctoCoder models make up the suite?", "model"),
])
def test_metric_factor_and_share_units(question, unit):
    assert parse_intent(question).parts[0].unit == unit


def test_a_part_after_a_preposition_is_still_its_own_part():
    intent = parse_intent("What corpus does Quokka use, and on how many languages is it tested?")
    assert [p.kind for p in intent.parts] == ["name", "number"]


def test_a_comparative_question_wants_each_side_s_figure():
    part = parse_intent("Which is bigger, GlimmerNet or TideRank?").parts[0]
    assert part.kind == "comparison" and part.unit == "figure"


def test_common_words_hyphenated_to_a_name_are_not_part_of_it():
    intent = parse_intent("Does the MAE-pretrained student beat the T5-style baseline at top-1?")
    assert intent.names == ("MAE", "T5")


def test_a_generic_acronym_is_vocabulary_for_every_reader_of_names():
    from rag.text.names import is_name, method_name

    assert not is_name("BERT") and not is_name("LLMs") and is_name("SupReMix")
    assert method_name("We propose BERT, a new encoder.") is None
    assert parse_intent("Does BERT-style pretraining help GlimmerNet?").names == ("GlimmerNet",)


@pytest.mark.parametrize("sentence, question, found", [
    ("With 2B parameters it beats Qwen-Chat-7B by 8.8% on average.", "By what margin does it beat Qwen-Chat-7B?",
     ["2B", "8.8%"]),
    ("It outperforms ResNet-50 by 2.5% in Top-1 accuracy.", "What is its top-1 gain?", ["2.5%"]),
    ("Trained on 64 GPUs for 3 days, it reaches 41.5% on 2023 data.", "How long, on 64 GPUs?", ["3", "41.5%"]),
])
def test_an_answer_figure_is_not_part_of_a_name_nor_a_figure_the_question_gives(sentence, question, found):
    from rag.text.numbers import number_spans

    assert [m.group(0).strip() for m in number_spans(sentence, question)] == found


@pytest.mark.parametrize("question, parts", [
    ("During its training on games, does GlimmerNet see labelled data?", ["yes_no"]),
    ("When Quokka was tuned on radio audio, did its accuracy drop?", ["yes_no"]),
    ("In legal search, how does TideRank rank documents?", ["how", "describe"]),
    ("When was TideRank published, and at which venue?", ["describe", "describe"]),
])
def test_a_leading_clause_belongs_to_the_yes_no_question_after_it(question, parts):
    assert [p.kind for p in parse_intent(question).parts] == parts


@pytest.mark.parametrize("question, parts", [
    ("To stop meaning from degrading, which constraints does SCUF add?",
     ["which constraints does SCUF add", "To stop meaning from degrading"]),
    ("When Quokka was deployed, what online gains were measured?",
     ["what online gains were measured", "When Quokka was deployed"]),
    # several asked parts follow their shared context in the question's order
    ("For zero-shot learning, what does MADS do, and by how much does it beat the best?",
     ["For zero-shot learning", "what does MADS do", "by how much does it beat the best"]),
    ("What does Quokka do, and how?", ["What does Quokka do", "how: What does Quokka do"]),
])
def test_the_part_that_asks_leads_and_its_leading_context_follows(question, parts):
    assert [p.text for p in parse_intent(question).parts] == parts


@pytest.mark.parametrize("question", ["What results does ChemVLM report?", "What gains does Velmo show?",
                                      "What improvements does X-Net bring?", "What performance does K2 reach?"])
def test_asking_for_results_is_not_asking_for_a_name(question):
    assert parse_intent(question).kind == "describe"



@pytest.mark.parametrize("question", [
    "Which recurrent architectures are trained without treebanks?",
    "List the graph network designs that exploit subtree hierarchy.",
    "Anything in here on repeating training data?",
    "What's in the collection on contrastive audio models?",
    "What does each paper conclude about data repetition?",
    "Which set of methods cuts the memory of attention?",  # a collective noun asks for the plural
    "What datasets of medical images do the papers use?",
])
def test_a_question_that_asks_for_several_papers_in_other_words_is_answered_as_a_list(question):
    assert parse_intent(question).lists_papers


@pytest.mark.parametrize("question", [
    "Which model encodes schema links for text-to-SQL?",
    "Which loss does GlimmerNet minimise?",
    "What does GlimmerNet do?",
    "Which technique do Glimmer Reward Models apply to preference vectors?",  # a name's last word
    "Which loss did earlier hashing methods mostly rely on?",  # the plural is the clause's subject
    "What kind of loss do these methods share?",
    "Which environmental harm of training big models does the GlimmerNet paper point to?",  # in a phrase
])
def test_a_question_about_one_thing_is_not_a_list(question):
    assert not parse_intent(question).lists_papers


@pytest.mark.parametrize("question", [
    "How do GlimmerNet and sparse routing each cut memory?",  # one side named, one described
    "How are the experts created in GlimmerNet and in TideRank?",
])
def test_two_things_asked_side_by_side_are_a_comparison(question):
    assert parse_intent(question).kind == "comparison"


@pytest.mark.parametrize("question", [
    "Which component of GlimmerNet performs the head-by-head comparison of student and teacher heads?",
    "What training data did the GlimmerNet reproduction use compared with the original work?",
])
def test_one_paper_compared_with_nothing_named_is_asked_about_not_compared(question):
    intent = parse_intent(question)
    assert intent.kind == "name" and not intent.multi_paper


def test_a_plural_before_a_name_still_asks_for_a_list():
    assert parse_intent("Which methods use Large Language Models as judges?").lists_papers
    assert parse_intent("What other methods does GlimmerNet beat?").lists_papers
    assert parse_intent("What do recent studies say about KV caches?").lists_papers
    assert parse_intent("How does GlimmerNet compare in speed with TideRank's library?").kind == "comparison"


def test_a_comparison_asks_for_figures_when_it_asks_which_is_bigger_not_how_each_does_better():
    which = parse_intent("Which gives the bigger pretraining compute saving, PreSelect or Domain2Vec?").parts[0]
    how = parse_intent("EAST versus Mixed Distillation: how does each try to make models better at math?").parts[0]
    assert (which.kind, which.unit) == ("comparison", "figure")
    assert how.kind == "comparison" and how.unit is None


@pytest.mark.parametrize(("question", "kind"), [
    ("Can you tell me which papers use contrastive learning for medical images?", "list"),
    ("Could you please list papers on KV-cache compression?", "list"),
    ("Could you explain how SupReMix builds hard negatives?", "how"),
    ("Can you give me a good recipe for vegan lasagna?", "describe"),
    ("Can you get near-BERT quality by pretraining for one day on one GPU?", "yes_no"),  # "you": anyone
    ("Can SupReMix handle MRI scans?", "yes_no"),
    ("I'm looking for papers on KV cache compression", "list"),
    ("Do you have anything on speech emotion recognition?", "list"),
    ("Do you know what SupReMix uses as hard negatives?", "name"),
    ("Hi, can you list papers about Mamba?", "list"),
])
def test_a_polite_request_is_read_for_what_it_asks(question, kind):
    assert parse_intent(question).kind == kind


def test_the_wrapping_of_a_request_is_no_topic_of_it():
    wrapped = parse_intent("I want to know which papers use contrastive learning")
    assert wrapped.parts[0].focus == {"contrastive", "learn"}
    looking = parse_intent("I'm looking for papers on KV cache compression")
    assert looking.parts[0].focus == {"kv", "cache", "compression"}


def test_a_measure_is_the_head_of_what_is_asked_not_a_word_after_of():
    assert parse_intent("What sequence length does ModernBERT support natively?").kind == "number"
    assert parse_intent("What property of LLM parameters does HuRef rely on?").kind != "number"
    assert parse_intent("What fraction of labels were wrong?").parts[0].unit == "%"


def test_summarize_says_how_to_answer_not_what_about():
    for question in ("Summarize the SupReMix paper", "Give me an overview of SupReMix"):
        assert parse_intent(question).parts[0].focus == frozenset(), question


def test_a_bare_how_asks_how_of_the_part_before_it():
    intent = parse_intent("What failure of controllable text generation does Air-Decoding address, and how?")
    assert [p.kind for p in intent.parts] == ["describe", "how"]
    assert intent.parts[1].focus == intent.parts[0].focus >= {"failure", "controllable", "generation"}


@pytest.mark.parametrize("question", ["What problem does SH2 address?", "What limitation of CLIP does FocusCLIP fix?",
                                      "Which challenges does HELMET tackle?"])
def test_asking_what_problem_a_method_solves_asks_for_a_description_not_a_name(question):
    assert parse_intent(question).parts[0].kind == "describe"


@pytest.mark.parametrize("question", ["What baseline works best on KILT?",
                                      "Which loss works well for long-tailed data?"])
def test_works_as_a_verb_does_not_ask_for_a_list_of_works(question):
    assert parse_intent(question).kind != "list"


def test_works_as_a_noun_still_asks_for_a_list():
    assert parse_intent("Which recent works on graph pretraining use contrastive losses?").kind == "list"


@pytest.mark.parametrize("question", ["What happens to parallel fusion baselines under missing data?",
                                      "What causes attribute collapse in controllable generation?",
                                      "What makes routing decisions fixed early in OpenMoE?"])
def test_asking_what_happens_or_causes_asks_for_a_description_not_a_name(question):
    assert parse_intent(question).parts[0].kind == "describe"


def test_studied_is_a_frame_word_like_study():
    question = "Which pre-trained language model was studied to see how DPO works?"
    assert "studi" not in parse_intent(question).parts[0].focus


@pytest.mark.parametrize(("question", "names"), [
    ("What loss does the 'Teaching CLIP to Count to Ten' method add?", ("Teaching CLIP to Count to Ten", "CLIP")),
    ("Which paper is “Attention Is All You Need”?", ("Attention Is All You Need",)),
    ("What did the analysis of SciDFM's expert layers find?", ("SciDFM",)),  # an apostrophe quotes nothing
    ("What does the 'fast' mode do?", ()),  # one quoted word is emphasis
])
def test_a_quoted_title_is_a_name_the_question_asks_about(question, names):
    assert parse_intent(question).names == names
