"""Which figure of a "respectively" enumeration a question asks for."""

from __future__ import annotations

import pytest

from rag.text.numbers import number_spans
from rag.text.respectively import respective

BLEU = ("Our experiments show the efficacy of A2D, demonstrating gains of up to +3.61 and +0.63 BLEU "
        "points for WMT-2022 De->Dsb and WMT-2014 En->De, respectively, compared to baselines.")
SHARES = "It reaches 41.5%, 38.2% and 12.0% on ImageNet, COCO and ADE20K respectively."


def placed(text: str, question: str) -> str | None:
    found = respective(text, number_spans(text, question), question)
    return found[0].group(0) if found else None


@pytest.mark.parametrize(("text", "question", "figure"), [
    (BLEU, "How many BLEU points does it gain on WMT-2022 De->Dsb?", "3.61"),
    (BLEU, "How many BLEU points does it gain on WMT-2014 En->De?", "0.63"),
    (SHARES, "What does it reach on ImageNet?", "41.5%"),
    (SHARES, "What does it reach on COCO?", "38.2%"),
    (SHARES, "What does it reach on ADE20K?", "12.0%"),
])
def test_the_figure_in_the_place_of_the_thing_asked_about(text: str, question: str, figure: str) -> None:
    assert placed(text, question) == figure


@pytest.mark.parametrize(("text", "question"), [
    (SHARES, "What does it reach?"),  # no place asked for
    (SHARES.replace(" respectively", ""), "What does it reach on COCO?"),  # no "respectively"
    ("It reaches 41.5% on ImageNet and COCO, respectively, and 38.2% on ADE20K.", "What on COCO?"),
])
def test_no_figure_without_an_enumeration_and_a_place_asked_for(text: str, question: str) -> None:
    assert placed(text, question) is None
