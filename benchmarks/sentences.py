"""The sentence splitter: the hand-written ``rag.text.clean.split_sentences`` against the
libraries ``pysbd`` and ``syntok`` on the bundled abstracts (as normalised for indexing), in one
run: how often they agree, where they differ (after an abbreviation, inside a number, or
elsewhere), the errors each makes at the places that decide it (abbreviations and decimals),
and speed.

Errors are counted at candidate places, the same way for all three: a boundary right after an
abbreviation ("e.g.", "i.e.", "et al.", "Fig.", "vs.", "cf.", "etc." before a lower-case word,
"No.") or inside a number ("3." + "5") is a wrong split; a ". " + capital letter that is not
after an abbreviation and is not split is a missed one.

    .venv/bin/python benchmarks/sentences.py [--repeat N]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable

from rag.ingest.formats import input_files, read_file
from rag.settings import Settings
from rag.text.clean import split_sentences
from rag.types import Paper

Splitter = Callable[[str], list[str]]
ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|et al|Fig|Figs|Eq|cf|vs|approx|No|etc|resp|w\.r\.t)\.)$")
WANTED = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def pysbd_splitter() -> Splitter:
    import pysbd

    segmenter = pysbd.Segmenter(language="en", clean=False)
    return lambda text: [s.strip() for s in segmenter.segment(text) if s.strip()]


def syntok_splitter() -> Splitter:
    from syntok import segmenter

    def split(text: str) -> list[str]:
        return ["".join(t.spacing + t.value for t in sentence).strip()
                for paragraph in segmenter.process(text) for sentence in paragraph]

    return split


def boundaries(text: str, sentences: list[str]) -> set[int]:
    """Character offsets in ``text`` where a sentence after the first starts."""
    found, pos = set(), 0
    for sentence in sentences:
        at = text.find(sentence[:20], pos)
        if at < 0:
            continue
        if at > 0:
            found.add(at)
        pos = at + max(1, len(sentence) - 5)
    return found


def errors(text: str, cuts: set[int]) -> tuple[int, int, int]:
    """(splits after an abbreviation, splits inside a number, missed sentence ends)."""
    after_abbreviation = inside_number = 0
    for cut in cuts:
        before = text[:cut].rstrip()
        if ABBREVIATION.search(before) and not (before.endswith("etc.") and text[cut:cut + 1].isupper()):
            after_abbreviation += 1
        elif re.search(r"\d\.$", before) and text[cut:cut + 1].isdigit():
            inside_number += 1
    missed = sum(1 for m in WANTED.finditer(text)
                 if m.end() not in cuts and not ABBREVIATION.search(text[:m.start()]))
    return after_abbreviation, inside_number, missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    texts = [p.text for f in input_files(Settings().corpus_dir) for p in read_file(f)
             if isinstance(p, Paper) and p.text]
    splitters = {"hand-written": split_sentences, "pysbd": pysbd_splitter(), "syntok": syntok_splitter()}
    splits = {name: [split(t) for t in texts] for name, split in splitters.items()}
    cuts = {name: [boundaries(t, s) for t, s in zip(texts, out, strict=True)] for name, out in splits.items()}
    print(f"{len(texts)} abstracts, {sum(len(s) for s in splits['hand-written'])} sentences (hand-written)\n")
    print(f"{'splitter':<13} {'sentences':>9} {'same as hand':>12} {'after abbrev.':>13} "
          f"{'in number':>9} {'missed end':>10} {'ms total':>9} {'speed':>7}")
    timings = {}
    for name, split in splitters.items():
        runs = []
        for _ in range(max(1, args.repeat)):
            started = time.perf_counter()
            for text in texts:
                split(text)
            runs.append((time.perf_counter() - started) * 1000)
        timings[name] = statistics.median(runs)
    for name in splitters:
        same = sum(a == b for a, b in zip(cuts[name], cuts["hand-written"], strict=True)) / len(texts)
        wrong = [errors(t, c) for t, c in zip(texts, cuts[name], strict=True)]
        totals = [sum(w[i] for w in wrong) for i in range(3)]
        ratio = timings[name] / timings["hand-written"]
        print(f"{name:<13} {sum(len(s) for s in splits[name]):>9} {same:>12.3f} {totals[0]:>13} "
              f"{totals[1]:>9} {totals[2]:>10} {timings[name]:>9.1f} {ratio:>6.0f}x")
    print("\nwhere pysbd and the hand-written splitter differ (first 8):")
    shown = 0
    for text, mine, theirs in zip(texts, cuts["hand-written"], cuts["pysbd"], strict=True):
        for cut in sorted(mine ^ theirs):
            if shown < 8:
                who = "hand-written only" if cut in mine else "pysbd only"
                print(f"  [{who}] …{text[max(0, cut - 45):cut]}|{text[cut:cut + 30]}…")
                shown += 1


if __name__ == "__main__":
    main()
