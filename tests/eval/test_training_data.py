"""The cross-encoder's training data: the guard that keeps held-out questions out by content, the
filter on the local model's questions, and the template pairs, on invented sentences."""

from __future__ import annotations

import json

from eval.dataset import Fact, Question
from eval.train_reader import GENERATED
from eval.training import templates
from eval.training.corpus import Guard, Sentence
from eval.training.llm_questions import verdict


def _held_out() -> Guard:
    return Guard([Question(id="h1", question="How much memory does Quillformer save on long documents?",
                           gold_papers=("900-0001",), reference_answer="", key_facts=(Fact(("41%",)),),
                           type="single", tags=())])


def test_a_question_overlapping_a_held_out_one_is_refused():
    guard = _held_out()
    assert guard.question_overlaps("How much memory does Quillformer save for long documents?")
    assert not guard.question_overlaps("Which optimiser trains the Quillformer decoder?")


def test_a_sentence_stating_a_held_out_fact_of_its_paper_is_never_a_target():
    guard = _held_out()
    sentence = "Quillformer cuts inference memory by 41% on long documents."
    assert guard.refuses("What does the sparse layer buy at inference?", [("900-0001", sentence)])
    assert not guard.refuses("What does the sparse layer buy at inference?", [("900-0002", sentence)])


def test_the_local_models_questions_are_kept_only_when_they_paraphrase():
    sentence = "Quillformer cuts inference memory by 41% on long documents through sparse attention."
    assert verdict("How does Quillformer cut inference memory on long documents?", sentence,
                   "Quillformer") == "copies the sentence"
    assert verdict("By how much does Quillformer cut memory, 41%?", sentence, "Quillformer") != "ok"
    assert verdict("What are the key limitations discussed in this research?", sentence, None) == "generic"
    assert verdict("How much less RAM does Quillformer need when reading lengthy texts?", sentence,
                   "Quillformer") == "ok"


def test_a_contrast_is_asked_both_ways_with_opposite_answers():
    s = Sentence("900-0001", 3, "The gains come from the retrieval step rather than the larger decoder.")
    pairs = list(templates.yes_no(s))
    assert [answer for _, answer in pairs] == [True, False]
    assert "retrieval step" in pairs[0][0] and "larger decoder" not in pairs[0][0]
    assert "larger decoder" in pairs[1][0] and "retrieval step" not in pairs[1][0]


def test_a_sibling_entity_question_asks_about_what_the_abstract_never_names():
    from rag.types import Paper

    paper = Paper(id="900-0001", abstract="x", text="We propose Quillformer, a sparse layer.", method="Quillformer")
    swapped = templates.sibling_entity("What does Quillformer do?", paper, ["Quillformer", "Brambleset"])
    assert swapped == "What does Brambleset do?"


def test_the_local_model_writes_for_a_collections_own_sentences_and_a_rerun_goes_on(tmp_path):
    from eval.training.llm_questions import generate
    from rag.types import Paper

    text = ("We propose Velmo, a learned codec for sonar archives. Velmo stores an hour of recordings in 33 MB "
            "on the survey ships. Decoding runs in real time on a laptop.")
    papers = [Paper(id="mine-1", abstract=text, text=text, method="Velmo")]
    asked: list[str] = []

    def asker(sentence: Sentence, method: str | None) -> str:
        asked.append(sentence.text)
        return "How compactly does the sonar codec keep sixty minutes of audio?"

    out = tmp_path / "llm.jsonl"
    first = generate(out, minutes=5, limit=2, threads=1, papers=papers, asker=asker)
    assert first["written"] == 2 and all(s in text for s in asked)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["paper"] for r in rows} == {"mine-1"} and all("kept" in r and "reason" in r for r in rows)
    again = generate(out, minutes=5, limit=None, threads=1, papers=papers, asker=asker)
    assert again["written"] == 1 and len(set(asked)) == 3  # the third sentence only: the first two were done


def test_each_counted_twin_asks_a_count_its_abstract_gives_and_only_for_the_training_half():
    """The generated "How many datasets is X evaluated on?" questions: the count is in X's
    abstract next to the noun, the paper is in the half they are made for, and they teach the
    gate only."""
    from eval.generate_training import GATE_ONLY, generate, papers, trains_on

    by_id = {p.id: p for p in papers()}
    twins = [q for q in generate(3, 150) if "counted" in q["tags"]]
    assert len(twins) >= 10
    for q in twins:
        (pid,), (fact,) = q["gold_papers"], q["key_facts"]
        text = by_id[pid].text.lower()
        assert trains_on(pid) and GATE_ONLY in q["tags"] and by_id[pid].method in q["question"]
        assert f"{fact['any'][0].lower()} " in text and fact["near"][0] in text
    assert {q["id"] for q in generate(3, 150)} == {json.loads(line)["id"] for line in
                                                     GENERATED.read_text(encoding="utf-8").splitlines()}


def test_each_example_question_asks_for_an_example_its_abstract_gives_and_teaches_sentences_only():
    """The generated "What does X give as an example of <thing>?" questions: the example follows
    "such as" in X's abstract, and no test paper or fresh-set paper is asked about."""
    from eval.generate_training import HELD_OUT, SENTENCE_ONLY, generate, papers, test_papers

    by_id = {p.id: p for p in papers()}
    asked = [q for q in generate(3, 150) if "example" in q["tags"]]
    assert len(asked) >= 10
    kept_off = HELD_OUT | test_papers()
    for q in asked:
        (pid,), ((fact,),) = q["gold_papers"], q["key_facts"]
        assert pid not in kept_off and SENTENCE_ONLY in q["tags"] and by_id[pid].method in q["question"]
        assert f"such as {fact}" in by_id[pid].text or f"such as '{fact}" in by_id[pid].text
