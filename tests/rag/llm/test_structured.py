"""The structured reader on hand-built input: the reader's best sentences are offered once each,
best first, and the model's JSON becomes a draft of those sentences verbatim; a number it invents
or a span the sentence does not hold is dropped."""

from __future__ import annotations

import pytest

from rag.answer.evidence import Reading, Sentence
from rag.answer.intent import parse_intent
from rag.errors import LLMError
from rag.llm.structured import numbered, parse
from rag.types import Paper, ScoredPaper

PAPER = ScoredPaper(Paper("p1", "x", "x", method="OrbitNet"), 1.0)
INTENT = parse_intent("How much does OrbitNet lower the error, and on what?")
READING = Reading(tuple((part, (Sentence(PAPER, "It lowers the error by 12%.", 0.9, True),
                                Sentence(PAPER, "It is tested on three datasets.", 0.4 + i / 10, True)))
                        for i, part in enumerate(INTENT.parts)), (PAPER,), "", INTENT)


def test_each_sentence_is_offered_once_best_first():
    offered = numbered(READING, 5)
    assert [n.text for n in offered] == ["It lowers the error by 12%.", "It is tested on three datasets."]
    assert offered[0].source == "OrbitNet"


def test_the_answer_is_the_chosen_sentences_verbatim_and_invented_numbers_are_dropped():
    offered = numbered(READING, 5)
    draft = parse('{"answerable": true, "parts": [{"sentences": [1, 7], "answer": "12%"}, '
                  '{"sentences": [2], "answer": "five datasets"}]}', offered)
    assert [s.text for s in draft.sentences] == [n.text for n in offered]
    assert draft.sentences[0].prefix == "**12%**: " and draft.sentences[1].prefix == ""
    assert draft.unknown_keys == 1


def test_a_model_that_declines_or_breaks_the_schema_is_said_so():
    assert parse('{"answerable": false, "parts": []}', []).declined
    with pytest.raises(LLMError, match="not the JSON asked for"):
        parse("Sure! Here is the answer.", [])
