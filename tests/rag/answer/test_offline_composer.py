"""The offline composer lays out a hand-built Reading: no embedder, no index. It leads with the
span the best sentence holds, lists one line per qualifying paper, names a part nothing answers,
and writes nothing when the reader says the abstracts do not answer."""

from __future__ import annotations

from rag.answer.evidence import Reading, Sentence
from rag.answer.features import FEATURES
from rag.answer.intent import parse_intent
from rag.answer.model import ReaderModel
from rag.answer.offline import OfflineComposer
from rag.answer.reader import EVIDENCE
from rag.settings import AnswerSettings
from rag.types import Evidence, ScoredPaper
from tests.support import scored_paper

BLANK = ReaderModel.blank(FEATURES, EVIDENCE)
MODEL = ReaderModel(BLANK.sentence, BLANK.answerable, {"list": 0.5, "part": 0.3})


ORBIT = scored_paper("p1", "OrbitNet predicts drag. It lowers the error by 12% on three datasets.", "OrbitNet")
KELP = scored_paper("p2", "KelpCodec compresses survey images. It reduces storage by 40% on two archives.", "KelpCodec")
REEF = scored_paper("p3", "We study reef fish counts from video.", None)


def reading(question: str, *sentences: tuple[ScoredPaper, str, float, bool], reason: str = "") -> Reading:
    intent = parse_intent(question)
    ranked = tuple(sorted((Sentence(p, t, s, h) for p, t, s, h in sentences), key=lambda s: -s.score))
    return Reading(tuple((part, ranked) for part in intent.parts), (ORBIT, KELP, REEF), reason, intent)


def compose(question: str, r: Reading):  # type: ignore[no-untyped-def]
    return OfflineComposer(AnswerSettings(), MODEL).generate(question, r, Evidence(r.papers))


def test_a_figure_question_leads_with_the_figure_the_best_sentence_holds():
    q = "By how much does OrbitNet lower the error?"
    draft = compose(q, reading(q, (ORBIT, "It lowers the error by 12% on three datasets.", 0.9, True),
                               (ORBIT, "OrbitNet predicts drag.", 0.2, False)))
    first = draft.sentences[0]
    assert first.prefix == "**12%**: " and first.paper_ids == ("p1",)


def test_a_list_question_gets_one_line_per_qualifying_paper_and_leaves_out_the_rest():
    q = "Which papers reduce storage or error?"
    draft = compose(q, reading(q, (KELP, "It reduces storage by 40% on two archives.", 0.8, True),
                               (ORBIT, "It lowers the error by 12% on three datasets.", 0.7, True),
                               (REEF, "We study reef fish counts from video.", 0.1, True)))
    assert [s.paper_ids for s in draft.sentences] == [("p2",), ("p1",)]
    assert all(s.prefix.startswith("- ") for s in draft.sentences)


def test_nothing_is_written_when_the_reader_says_the_abstracts_do_not_answer():
    q = "What does OrbitNet cost to train?"
    draft = compose(q, reading(q, (ORBIT, "OrbitNet predicts drag.", 0.1, False),
                               reason="the closest abstracts give no figure for: cost"))
    assert draft.abstained and draft.sentences == () and "no figure" in draft.reason


def test_a_figure_about_named_things_comes_from_an_abstract_that_says_them():
    """"What accuracy did QuillCoder-7B reach on SVAMPX?" names a model and a benchmark but no
    paper's own method: a higher-scoring figure from an abstract that says neither is another
    experiment's."""
    other = scored_paper("p5", "Distilling ViT-L into ViT-B, our method achieves 84.0% top-1 accuracy.", None)
    own = scored_paper("p6", "Notably, QuillCoder-7B reaches 85.5% accuracy on the SVAMPX benchmark.", None)
    q = "What accuracy did QuillCoder-7B reach on SVAMPX?"
    draft = compose(q, reading(q, (other, other.paper.text, 0.95, True), (own, own.paper.text, 0.9, True)))
    assert draft.sentences[0].prefix == "**85.5% accuracy**: " and draft.sentences[0].paper_ids == ("p6",)


def test_what_a_named_method_does_is_read_from_its_own_abstract():
    """"What does OrbitNet do?" leads with OrbitNet's sentence even when another paper's scores
    higher (its abstract is dissimilar to so short a question)."""
    q = "What does OrbitNet do?"
    draft = compose(q, reading(q, (KELP, "KelpCodec compresses survey images.", 0.4, True),
                               (ORBIT, "OrbitNet predicts drag.", 0.3, True)))
    assert draft.sentences[0].paper_ids == ("p1",)


def test_what_a_named_method_addresses_is_not_another_papers_name():
    """"What problem does OrbitNet address?" asks what OrbitNet's abstract says, not for a name:
    another paper's sentence with a name the question does not say is no answer to it."""
    q = "What problem does OrbitNet address?"
    draft = compose(q, reading(q, (KELP, "To fix this, we propose KelpCodec for survey images.", 0.5, True),
                               (ORBIT, "OrbitNet predicts drag.", 0.4, False)))
    assert draft.sentences[0].paper_ids == ("p1",) and "KelpCodec" not in draft.sentences[0].prefix


def test_a_figure_of_a_named_paper_is_never_borrowed_from_another():
    """KelpCodec's sentence scores higher and holds a share, but the question asks OrbitNet's: the
    lead figure is OrbitNet's own, from its own sentence."""
    q = "By how much does OrbitNet reduce storage, and what does it predict?"
    draft = compose(q, reading(q, (KELP, "It reduces storage by 40% on two archives.", 0.9, True),
                               (ORBIT, "It lowers the error by 12% on three datasets.", 0.5, True),
                               (ORBIT, "OrbitNet predicts drag.", 0.4, False)))
    first = draft.sentences[0]
    assert first.paper_ids == ("p1",) and "40%" not in first.prefix, first


def test_a_named_paper_without_a_figure_leads_with_no_borrowed_one():
    q = "How many parameters does OrbitNet have, and what does it predict?"
    draft = compose(q, reading(q, (KELP, "It reduces storage by 40% on two archives.", 0.9, True),
                               (ORBIT, "OrbitNet predicts drag.", 0.5, False)))
    first = draft.sentences[0]  # the figure part: OrbitNet's own sentence, no lead figure
    assert first.paper_ids == ("p1",) and first.prefix == "", draft.sentences
    assert not any("40%" in s.prefix for s in draft.sentences)


def test_a_list_with_one_qualifying_paper_is_still_a_list_of_one_line():
    """Only KelpCodec qualifies: the answer is its one line, not a paragraph of its abstract
    (which the grading rightly counts as no list at all)."""
    q = "Which papers compress survey images?"
    r = reading(q, (KELP, "KelpCodec compresses survey images.", 0.9, False),
                (KELP, "It reduces storage by 40% on two archives.", 0.6, True),
                (REEF, "We study reef fish counts from video.", 0.1, False))
    draft = compose(q, r)
    assert [s.paper_ids for s in draft.sentences] == [("p2",)]
    assert draft.sentences[0].prefix.startswith("- ")


def test_a_list_question_about_a_named_paper_with_one_answer_reads_that_paper():
    """"Which datasets does OrbitNet use?" asks about OrbitNet: its own sentences, in prose."""
    q = "Which datasets does OrbitNet use?"
    r = reading(q, (ORBIT, "It lowers the error by 12% on three datasets.", 0.9, True),
                (ORBIT, "OrbitNet predicts drag.", 0.3, False))
    draft = compose(q, r)
    assert draft.sentences[0].paper_ids == ("p1",) and not draft.sentences[0].prefix.startswith("- ")


def test_a_count_leads_with_the_figure_the_asked_noun_follows():
    """"Nine ... languages" answers how many languages, though "five ... tasks" sits nearer the
    question's other words."""
    q = "How many languages did the study of monolingual models cover?"
    text = ("We study a set of nine typologically diverse languages with pretrained monolingual models "
            "on a set of five diverse monolingual downstream tasks.")
    assert compose(q, reading(q, (ORBIT, text, 0.9, True))).sentences[0].prefix == "**nine**: "


LONG = ("KelpCodec compresses survey images with a learned entropy model whose context spans tiles, "
        "scales and bands, trained on archives from twelve fleets and evaluated on every archive "
        "format the survey offices still use today, from scanned film to multispectral rasters.")


def test_a_list_line_shows_a_shorter_sentence_of_its_paper_when_the_best_is_too_long_to_scan():
    q = "Which papers compress survey images?"
    short = (KELP, "KelpCodec compresses survey images.", 0.8, False)
    draft = compose(q, reading(q, (KELP, LONG, 0.9, False), short, (ORBIT, "OrbitNet predicts drag.", 0.7, False)))
    assert draft.sentences[0].text == "KelpCodec compresses survey images."
    weak = (KELP, "KelpCodec compresses survey images.", 0.2, False)  # not nearly as good: the long one stays
    draft = compose(q, reading(q, (KELP, LONG, 0.9, False), weak, (ORBIT, "OrbitNet predicts drag.", 0.7, False)))
    assert draft.sentences[0].text == LONG


def test_a_comparison_of_two_things_one_paper_names_is_answered_from_that_paper():
    """"OrbitNet and KelpCodec" both named by one abstract (and neither the name of another
    paper) is one paper's question: its own sentence leads, not a side from an unrelated paper."""
    both = scored_paper("p4", "We propose OrbitNet and KelpCodec, two tricks for drag.", None)
    q = "How do OrbitNet and KelpCodec each cut drag?"
    draft = compose(q, reading(q, (both, "We propose OrbitNet and KelpCodec, two tricks for drag.", 0.9, False),
                               (REEF, "We study reef fish counts from video.", 0.5, False)))
    assert draft.sentences[0].paper_ids == ("p4",) and not draft.sentences[0].prefix.startswith("- ")


def test_a_figure_given_respectively_leads_with_the_one_in_the_asked_things_place():
    """"5.8, 3.9, and 2.1 percentage points" over "RETFound, UrFound, and VisionFM, respectively":
    asked about RETFound, the answer is 5.8, though 2.1 sits next to "percentage points"."""
    text = ("We tested OrbitNet on the retinal models RETFound, UrFound, and VisionFM, with an average "
            "increase of 5.8, 3.9, and 2.1 percentage points over their baselines, respectively.")
    for asked, figure in (("RETFound", "5.8"), ("UrFound", "3.9"), ("VisionFM", "2.1 percentage points")):
        q = f"By how many percentage points does OrbitNet improve {asked} on average?"
        assert compose(q, reading(q, (ORBIT, text, 0.9, True))).sentences[0].prefix == f"**{figure}**: "


def test_a_factor_leads_with_the_figure_followed_by_what_was_asked():
    q = "By what factor does OrbitNet reduce perplexity on the test set?"
    text = ("OrbitNet achieves a 100 times reduction in perplexity and a 4 times reduction in "
            "cross-entropy loss on the test set.")
    assert compose(q, reading(q, (ORBIT, text, 0.9, True))).sentences[0].prefix == "**100 times**: "


def test_a_shorter_list_line_is_never_a_pointer_nor_off_the_question():
    q = "Which papers compress survey images?"
    pointer = (KELP, "Our code is available at https://github.com/kelp/kelpcodec online.", 0.85, False)
    aside = (KELP, "Fleets keep growing every single year.", 0.8, False)
    other = (ORBIT, "OrbitNet predicts drag.", 0.7, False)
    draft = compose(q, reading(q, (KELP, LONG, 0.9, False), pointer, aside, other))
    assert draft.sentences[0].text == LONG


def test_a_contrast_answers_no_only_among_the_closest_sentences_a_negation_among_all():
    q = "Does KelpCodec compress unlabeled survey images?"
    best = (KELP, "KelpCodec compresses unlabeled survey images from reef archives.", 0.9, False)
    filler = [(KELP, f"KelpCodec compresses survey images of site {i}.", 0.8 - i / 100, False) for i in range(3)]
    far_contrast = (KELP, "KelpCodec compresses labeled survey images too.", 0.5, False)
    far_denial = (KELP, "KelpCodec does not compress unlabeled survey images.", 0.5, False)
    assert compose(q, reading(q, best, *filler, far_contrast)).sentences[0].prefix == "**Yes**: "
    assert compose(q, reading(q, best, *filler, far_denial)).sentences[0].prefix == "**No**: "
    near_contrast = (KELP, "KelpCodec compresses only labeled survey images.", 0.95, False)
    assert compose(q, reading(q, near_contrast, best)).sentences[0].prefix == "**No**: "


def test_a_code_link_answers_only_a_question_about_code():
    link = (KELP, "Our code is available at https://github.com/kelp/codec.", 0.95, True)
    claim = (KELP, "KelpCodec compresses survey images with a learned entropy model.", 0.7, True)
    q = "What does KelpCodec do?"
    assert compose(q, reading(q, link, claim)).sentences[0].text.startswith("KelpCodec compresses")
    q = "Where is KelpCodec's code available?"
    assert "github.com" in compose(q, reading(q, link, claim)).sentences[0].text


HEDGE = scored_paper("p4", "Point embeddings cannot represent the uncertainty of ambiguous inputs. We introduce "
                     "HedgeNet, which represents each input as a distribution and gives a per-input uncertainty "
                     "estimate.", "HedgeNet")


def test_a_denial_in_what_earlier_work_does_is_no_answer_about_the_new_method():
    prior = (HEDGE, "Point embeddings cannot represent the uncertainty of ambiguous inputs.", 0.9, True)
    own = (HEDGE, "We introduce HedgeNet, which represents each input as a distribution and gives a "
                  "per-input uncertainty estimate.", 0.8, True)
    q = "Can HedgeNet represent the uncertainty of ambiguous inputs?"
    assert compose(q, reading(q, prior, own)).sentences[0].prefix == "**Yes**: "
    q = "Can existing point embeddings represent the uncertainty of ambiguous inputs?"
    assert compose(q, reading(q, prior, own)).sentences[0].prefix == "**No**: "


def test_a_name_question_is_not_led_by_the_name_of_a_paper_the_reader_ranks_below():
    """"Which survey tasks does the reef fish study evaluate?": the best sentence (REEF's, a paper with no method
    name) answers it; KelpCodec's name, in a sentence ranked below, is no answer to it."""
    q = "Which survey tasks does the reef fish study evaluate?"
    draft = compose(q, reading(q, (REEF, "We evaluate on fish counting and species survey tasks.", 0.9, True),
                               (KELP, "To fix this, we propose KelpCodec for survey images.", 0.8, True)))
    first = draft.sentences[0]
    assert first.paper_ids == ("p3",) and first.prefix == "", first


def test_a_denial_in_a_sentence_about_research_to_date_is_no_answer_about_the_new_study():
    """"Most research to date has not investigated whether scaling laws help ..." says what others
    did not do; the study's own "they can be exploited for debugging" answers."""
    paper = scored_paper("p9", "Most research to date has not investigated whether scaling laws help debugging. "
                               "Scaling laws can be exploited for debugging convergence of large models.", None)
    q = "Can scaling laws help debugging convergence of large models?"
    draft = compose(q, reading(q, (paper, "Most research to date has not investigated whether scaling laws "
                                          "help debugging.", 0.9, True),
                               (paper, "Scaling laws can be exploited for debugging convergence of large models.",
                                0.8, True)))
    assert draft.sentences[0].prefix == "**Yes**: ", draft.sentences[0]


def test_a_count_the_first_paper_gives_otherwise_anywhere_is_a_false_premise():
    """"Was DATG evaluated with just one base LLM?" is answered from its "five LLMs" sentence
    though the reader ranks it sixth; a sentence of the paper that agrees keeps the premise."""
    text = ("DATG steers generation with attribute words. It rewrites the decoding graph. It reranks "
            "the graph nodes. It lowers toxicity a lot. It keeps fluency. We employ five LLMs as base models.")
    paper = scored_paper("p8", text, "DATG")
    sentences = text.split(". ")
    q = "Was DATG evaluated with just one base LLM?"
    ranked = [(paper, s, 0.9 - 0.1 * i, True) for i, s in enumerate(sentences)]
    assert compose(q, reading(q, *ranked)).sentences[0].prefix == "**No**: "
    agreeing = [*ranked, (paper, "One base LLM is tuned first", 0.1, True)]
    assert compose(q, reading(q, *agreeing)).sentences[0].prefix != "**No**: "


def test_another_figure_of_a_paper_that_gives_the_asked_one_is_no_denial():
    """"Did TideMem reach 160k tokens?" is not denied by its "up to 16k tokens" sentence when
    another of its sentences says 160k."""
    first = "TideMem works well for sequence lengths up to 16k tokens in early tests."
    second = "TideMem extends knowledge retention to 160k tokens with similar memory."
    paper = scored_paper("p9", f"{first} {second}", "TideMem")
    q = "Does TideMem extend knowledge retention to 160k tokens?"
    assert compose(q, reading(q, (paper, first, 0.9, True), (paper, second, 0.8, True))).sentences[0].prefix \
        == "**Yes**: "
    assert compose(q, reading(q, (paper, first, 0.9, True))).sentences[0].prefix == "**No**: "
