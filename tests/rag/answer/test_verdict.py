"""Yes or no from a sentence: a false premise about how many ("a single dataset" where the
abstract says six) is answered "No", while a count that agrees, or counts something else, leaves
the verdict to the rest of the sentence."""

from __future__ import annotations

import pytest

from rag.answer.intent import parse_intent
from rag.answer.verdict import yes_or_no
from rag.text.numbers import counts, counts_differ, magnitudes, magnitudes_differ

SIX = "SupReMix is evaluated on six datasets spanning MRI, X-ray, ultrasound and PET modalities."


def verdict(question: str, sentence: str) -> str:
    return yes_or_no(parse_intent(question).parts[0], sentence)


@pytest.mark.parametrize(("question", "expected"), [
    ("Was SupReMix evaluated on a single chest X-ray dataset?", "No"),
    ("Was SupReMix evaluated on three datasets?", "No"),
    ("Was SupReMix evaluated on six datasets?", "Yes"),
    ("Was SupReMix evaluated on datasets of several modalities?", "Yes"),
])
def test_a_count_the_sentence_contradicts_is_a_false_premise(question, expected):
    assert verdict(question, SIX) == expected


def test_counts_are_read_by_the_thing_counted():
    assert counts("trained on 1,024 GPUs for two days") == {"gpu": {1024.0}, "day": {2.0}}
    assert counts("one of the models") == {}  # "one" before "of" counts nothing
    assert counts("in 2023 we") == {}  # a year is not a count


@pytest.mark.parametrize(("asked", "stated", "differ"), [
    ("Was it trained on 64 GPUs?", "It was trained on 64 GPUs for two days.", False),
    ("Was it trained on 8 GPUs?", "It was trained on 64 GPUs for two days.", True),
    ("Was it trained for two days?", "It was trained on 64 GPUs for two days.", False),
    ("Does it use two encoders?", "It was trained on 64 GPUs.", False),  # another thing counted
])
def test_counts_differ_only_on_the_same_thing(asked, stated, differ):
    assert counts_differ(asked, stated) is differ


def test_figures_with_a_scale_or_a_share_are_read_by_value_with_their_spelling():
    from rag.text.numbers import scaled_figures

    assert scaled_figures("the 360M variant at 50% sparsity, trained for 3 days") == {3.6e8: "360M", 50.0: "50%"}
    assert set(scaled_figures("a 1.7 billion parameter model")) == set(scaled_figures("the 1.7B model"))


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("Do routing decisions mostly depend on the context?",
     "Routing decisions in MoE models are predominantly based on token IDs, with minimal context relevance.", "No"),
    ("Does the evaluator need lots of human preference labels?",
     "The evaluator can be fine-tuned with a little amount of human preference annotation.", "No"),
    ("Is the memory overhead of the cache negligible?",  # the question says the word: it asks about it
     "The cache adds negligible memory overhead.", "Yes"),
])
def test_a_minimiser_all_but_denies_what_it_governs(question, sentence, expected):
    assert verdict(question, sentence) == expected


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("Does CLIP-Refine need many epochs of training on large image-text datasets?",
     "CLIP-Refine aligns the feature space with 1 epoch training on small image-text datasets.", "No"),
    ("Is the R3 reward computed externally?",
     "The R3 reward is computed internally by the model being optimized.", "No"),
    ("Does adding parse trees give higher perplexity?",
     "When parse trees are provided as training signals, the model achieves lower perplexity.", "No"),
    ("Does CLIP-Refine train on small image-text datasets?",  # the sentence says the asked word
     "CLIP-Refine trains on small image-text datasets rather than large ones.", "Yes"),
    ("Do we find that CLIP-Refine closes the modality gap?",  # "find"/"lose" is no contrast: a frame word
     "We find that CLIP-Refine does close the modality gap, and lose nothing.", "Yes"),
])
def test_a_sentence_saying_the_opposite_of_an_asked_word_answers_no(question, sentence, expected):
    assert verdict(question, sentence) == expected


def test_what_the_question_itself_denies_agrees_with_the_same_denial():
    sentence = "Useful video representations are learned from synthetic videos, without any natural videos."
    assert verdict("Can video models trained with no natural videos learn useful representations?", sentence) == "Yes"
    assert verdict("Are useful video representations learned from natural videos?", sentence) == "No"


def test_not_only_affirms_what_follows_it():
    sentence = "The framework not only makes effective predictions but also generates explanations."
    assert verdict("Does the framework make effective predictions?", sentence) == "Yes"
    assert verdict("Does the framework make effective predictions?",
                   "The framework does not make effective predictions.") == "No"


def test_a_sentence_covers_what_its_short_forms_stand_for_and_a_verb_in_any_form():
    question = "Is the Reasoning Reflection Reward produced by an external reward model?"
    sentence = "R3 is computed internally using the same model being optimized."
    assert verdict(question, sentence) == ""  # too little of the question is said
    assert yes_or_no(parse_intent(question).parts[0], sentence, 0.5, "Reasoning Reflection Reward") == "No"
    part = parse_intent("Did improving tokenizers matter downstream?").parts[0]  # "improving" meets "improve"
    assert yes_or_no(part, "We improve tokenizers, with negligible downstream gains.", 0.75) == "No"


def test_in_the_absence_of_denies_what_it_governs():
    assert verdict("Was there enough clinical data to train the model from scratch?",
                   "In the absence of enough clinical data to train a model from scratch, we applied transfer.") == "No"


def test_an_items_number_in_an_enumeration_is_no_figure():
    from rag.text.numbers import number_spans

    spans = number_spans("Across 51 models we find that (1) synthetic tasks mislead; and (3) open models lag.")
    assert [m.group(0) for m in spans] == ["51"]


def test_a_count_of_new_things_is_a_count_of_the_things():
    sentence = "We propose two new metrics, label loyalty and probability loyalty, that measure how a student mimics."
    assert counts(sentence)["metric"] == {2.0}
    assert verdict("Does the loyalty study introduce three new metrics for how a student mimics?", sentence) == "No"
    assert verdict("Does the loyalty study introduce two new metrics for how a student mimics?", sentence) == "Yes"


def test_struggling_to_do_something_denies_doing_it():
    sentence = "The results showed that large models struggle to produce accurate content that follows preferences."
    assert verdict("Did large models produce accurate content that follows preferences?", sentence) == "No"


def test_a_denial_verb_denies_its_object_not_where_the_object_acts():
    sentence = ("We split the classifier into two classification heads for different losses, eliminating "
                "adverse influences on the classification head.")
    assert verdict("Does the method split the classifier into two heads for different losses?", sentence) == "Yes"
    assert verdict("Does the method keep adverse influences?", sentence) == "No"


@pytest.mark.parametrize(("question", "expected"), [
    ("With fine-tuning, does KV-Distill cut context length by up to 75%?", "No"),
    ("With fine-tuning, does KV-Distill cut context length by up to 99%?", "Yes"),
    ("With fine-tuning, does KV-Distill cut context length by over 90%?", "Yes"),
    ("With fine-tuning, does KV-Distill cut context length by about 50%?", "No"),
    ("With fine-tuning, does KV-Distill cut context length by roughly 95%?", "Yes"),
])
def test_a_share_the_sentence_gives_otherwise_is_a_false_premise_a_bound_is_not(question, expected):
    sentence = "With fine-tuning, KV-Distill can cut context length by up to 99% while keeping quality."
    assert verdict(question, sentence) == expected


CAUSAL = ("We explore fine-tuning with hard negative cases, showing that targeted fine-tuning can "
          "improve causal reasoning while maintaining generalization and downstream performance.")


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("Did fine-tuning with hard negative cases hurt generalization?", CAUSAL, "No"),
    ("Does fine-tuning with hard negative cases keep generalization?", CAUSAL, "Yes"),
    ("Does fine-tuning with hard negative cases improve causal reasoning?", CAUSAL, "Yes"),
    ("Does KV shifting make the model depend more on depth and width?",
     "We prove that KV shifting attention reduces the model's dependency on depth and width.", "No"),
    ("Does KV shifting reduce the model's dependency on depth and width?",
     "We prove that KV shifting attention reduces the model's dependency on depth and width.", "Yes"),
    ("Do sampled anchors make masked language models more efficient?",
     "Models adopt sampled embeddings as anchors, which limits the efficiency of masked language models.", "No"),
    ("Does the method fail to improve accuracy on small datasets?",
     "The method does not improve accuracy on small datasets.", "Yes"),  # a negated move is no move
    # a trade-off the question supposes, over a sentence that raises both sides
    ("Does KelpNet give up some accuracy in exchange for clearer explanations?",
     "KelpNet achieves better accuracy than all baselines, while producing clearer explanations.", "No"),
    ("Does KelpNet sacrifice accuracy for speed?",
     "KelpNet improves both accuracy and speed over the baselines.", "No"),
    ("Does KelpNet give up some accuracy in exchange for clearer explanations?",
     "KelpNet gives up some accuracy in exchange for clearer explanations.", "Yes"),
])
def test_a_thing_the_sentence_moves_the_other_way_is_answered_no(question, sentence, expected):
    assert verdict(question, sentence) == expected


BADAM = "The evaluation on MT-bench shows that BAdam modestly surpasses LoRA and more substantially outperforms LOMO."


@pytest.mark.parametrize(("question", "expected"), [
    ("On MT-bench, did LOMO outperform BAdam?", "No"),
    ("On MT-bench, was BAdam outperformed by LOMO?", "No"),
    ("On MT-bench, did BAdam outperform LOMO?", "Yes"),
    ("On MT-bench, was LOMO outperformed by BAdam?", "Yes"),
])
def test_who_beats_whom_reversed_is_answered_no(question, expected):
    assert verdict(question, BADAM) == expected


CALIBRATION = ("We show that the calibration of dense networks is always superior to that of their pruned "
               "sparse counterparts.")


@pytest.mark.parametrize(("question", "expected"), [
    ("Are pruned sparse networks better calibrated than dense networks?", "No"),
    ("Are dense networks better calibrated than pruned sparse networks?", "Yes"),
    ("Is the calibration of sparse-pruned networks superior to that of dense ones?", "No"),
])
def test_who_beats_whom_reversed_is_answered_no_for_things_named_by_common_words(question, expected):
    """No names on either side: the sides are read by their words ("dense networks" over
    "their pruned sparse counterparts")."""
    assert verdict(question, CALIBRATION) == expected


def test_a_denial_reaches_past_an_infinitive_to():
    """"eliminate the need to modify the backbone's code" denies modifying it: "to" here is no place."""
    sentence = "Our techniques eliminate the need to modify the backbone code, making OpenDelta compatible."
    assert verdict("Does OpenDelta require changing the backbone code?", sentence) == "No"


RADLADS = "Our conversion process requires only 350-700M tokens, less than 0.005% of the teacher's token count."


@pytest.mark.parametrize(("question", "expected"), [
    ("Does the RADLADS conversion require several billion training tokens?", "No"),
    ("Does the RADLADS conversion require about 500M tokens?", "Yes"),
    ("Does the RADLADS conversion require hundreds of millions of tokens?", "Yes"),
])
def test_an_amount_at_another_scale_is_a_false_premise(question, expected):
    assert verdict(question, RADLADS) == expected


def test_a_model_size_names_a_variant_not_an_amount():
    assert magnitudes("Does it train the 6.7B model faster?") == {}
    assert magnitudes("Is it a 7B-parameter model?") == {"parameter": [(7e9, 7e9)]}
    assert not magnitudes_differ("Does it make the 6.7B model train faster?", "It beats baselines on 3B models.")


def test_a_denial_of_what_the_opening_clause_takes_as_given_answers_nothing():
    sentence = "Contextual lemmatizers do well without seeing any explicit morphological signal out of domain."
    asked = "In the study of morphological signal for lemmatizers, were the lemmatizers evaluated out of domain?"
    assert verdict(asked, sentence) == "Yes"
    assert verdict("Do the lemmatizers see an explicit morphological signal?", sentence) == "No"


@pytest.mark.parametrize(("question", "expected"), [
    ("Did fixing the annotations lower joint goal accuracy?", "No"),
    ("Did fixing the annotations raise joint goal accuracy?", "Yes"),
])
def test_a_change_said_as_a_noun_of_a_short_form_moves_the_words_it_stands_for(question, expected):
    sentence = "Fixing the annotations leads to a 7-10% improvement in JGA."
    part = parse_intent(question).parts[0]
    assert yes_or_no(part, sentence, spelled="joint goal accuracy") == expected


def test_what_a_change_is_measured_against_is_not_moved():
    sentence = ("A model trained with SuperBPE gives a 4.0% improvement over the BPE baseline while needing "
                "27% less compute at inference time.")
    assert verdict("Does a model trained with SuperBPE need less compute than its BPE counterpart?", sentence) == "Yes"


def test_the_best_against_the_poorer_is_answered_no():
    sentence = "Highly chaotic systems resulted in poorer downstream performance than systems of moderate complexity."
    assert verdict("Did training on highly chaotic systems give the best downstream performance?", sentence) == "No"
    assert verdict("Did highly chaotic systems result in poorer downstream performance?", sentence) == "Yes"


STAGE = "We add an intermediate training stage between pretraining and downstream few-shot usage."


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("Is the intermediate stage run before pretraining?", STAGE, "No"),
    ("Is the intermediate stage run after pretraining?", STAGE, "Yes"),
    ("Is KelpNet's filter applied before tokenization?", "KelpNet applies its filter after tokenization.", "No"),
    ("Is KelpNet's filter applied after tokenization?", "KelpNet applies its filter prior to tokenization.", "No"),
    ("Is KelpNet's filter applied before tokenization?", "KelpNet applies its filter before tokenization.", "Yes"),
])
def test_a_step_the_sentence_puts_on_the_other_side_of_a_stage_is_answered_no(question, sentence, expected):
    assert verdict(question, sentence) == expected


def test_the_following_benchmarks_put_nothing_after_anything():
    assert verdict("Is KelpNet tuned before benchmark runs?",
                   "KelpNet is tuned before benchmark runs on the following benchmarks: GLUE and SQuAD.") == "Yes"
