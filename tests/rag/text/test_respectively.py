"""Which figure of a "respectively" enumeration a question asks for."""

from __future__ import annotations

import pytest

from rag.text.numbers import number_spans
from rag.text.respectively import respective

BLEU = ("Our experiments show the efficacy of A2D, demonstrating gains of up to +3.61 and +0.63 BLEU "
        "points for WMT-2022 De->Dsb and WMT-2014 En->De, respectively, compared to baselines.")
SHARES = "It reaches 41.5%, 38.2% and 12.0% on ImageNet, COCO and ADE20K respectively."
MUSIC = ("MuseCoco outperforms baseline systems in terms of musicality, controllability, and overall "
         "score by at least 1.27, 1.08, and 1.32 respectively.")
LINES = ("Our algorithm achieved per-line precision, recall, and F1 score of 98.4, 97.0, and 97.7, "
         "respectively, for body line extraction.")
# "ImageNet, and MSCOCO" closes a list of three (its comma says so), not a pair beside the figures'
LUMI = ("LumiNet excels on benchmarks like CIFAR-100, ImageNet, and MSCOCO, outperforming leading "
        "feature-based methods, e.g., compared to KD with ResNet18 and MobileNetV2 on ImageNet, it "
        "shows improvements of 1.5% and 2.05%, respectively.")


def placed(text: str, question: str) -> str | None:
    found = respective(text, number_spans(text, question), question)
    return found[0].group(0) if found else None


@pytest.mark.parametrize(("text", "question", "figure"), [
    (BLEU, "How many BLEU points does it gain on WMT-2022 De->Dsb?", "3.61"),
    (BLEU, "How many BLEU points does it gain on WMT-2014 En->De?", "0.63"),
    (SHARES, "What does it reach on ImageNet?", "41.5%"),
    (SHARES, "What does it reach on COCO?", "38.2%"),
    (SHARES, "What does it reach on ADE20K?", "12.0%"),
    (MUSIC, "By how much does MuseCoco beat baseline systems on controllability?", "1.08"),
    (LINES, "What per-line recall did the body line extraction algorithm achieve?", "97.0"),
    (LUMI, "What improvement does LumiNet show over KD with MobileNetV2 on ImageNet?", "2.05%"),
    (LUMI, "What improvement does LumiNet show over KD with ResNet18 on ImageNet?", "1.5%"),
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
