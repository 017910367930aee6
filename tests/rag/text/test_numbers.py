"""Figures as abstracts write them: a range is one figure, a year range none."""

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
