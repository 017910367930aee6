"""Figures as abstracts write them: a range is one figure, a year range and a bibliography
reference ("[11]") none."""

from __future__ import annotations

import pytest

from rag.text.numbers import number_spans


@pytest.mark.parametrize(("sentence", "spans"), [
    ("Our conversion process requires only 350-700M tokens.", ["350-700M"]),
    ("It accelerates the model by 2-3 times.", ["2-3 times"]),
    ("Accuracy rises by 3–5% on every task.", ["3–5%"]),
    ("Pruning gives a significant 2 ~ 5 times speed-up.", ["2 ~ 5 times"]),
    ("Papers from 2019-2023 were read.", []),
    ("ResNet-50 is trained 5-shot for 10 epochs.", ["5", "10"]),
])
def test_a_range_is_one_figure(sentence, spans):
    assert [m.group(0) for m in number_spans(sentence)] == spans


@pytest.mark.parametrize(("sentence", "spans"), [
    ("Mean squared error is prone to lose input information [11].", []),
    ("As earlier hashing work shows [3, 12], codes of 64 bits suffice [4-6].", ["64"]),
    ("Scores are normalised to [0.5, 1] over 12 tasks.", ["0.5", "1", "12"]),
])
def test_a_reference_to_the_bibliography_is_no_figure(sentence, spans):
    assert [m.group(0) for m in number_spans(sentence)] == spans
