"""Choose the support threshold on the bundled corpus: how well does the support score separate
a sentence checked against its own paper (supported) from the same sentence checked against the
most similar other paper (unsupported, a hard negative)?

    .venv/bin/python benchmarks/support_threshold.py [--data-dir DIR] [--sample 300]

Prints the score distributions and the threshold with the best balanced accuracy. Superseded by
benchmarks/support_checker.py, which scores hand-labelled pairs of six kinds (dev and test)."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from common import indexed_settings

from rag.answer.support import AlignedSupportScorer
from rag.index.library import open_library
from rag.retrieve.fusion import retrieve
from rag.text.clean import split_sentences


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--sample", type=int, default=300)
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        lib = open_library(settings)
        scorer = AlignedSupportScorer(lib)
        papers = [p for p in lib.catalog.papers() if p.has_abstract]
        random.Random(7).shuffle(papers)
        positives, negatives = [], []
        for paper in papers[: args.sample]:
            sentences = [s for s in split_sentences(paper.text) if len(s.split()) >= 8]
            if not sentences:
                continue
            sentence = random.Random(paper.id).choice(sentences)
            other = next(h.paper for h in retrieve(lib, sentence, 3, mode="dense")
                         if h.paper.id != paper.id)
            positives.append(scorer.score(sentence, [paper]))
            negatives.append(scorer.score(sentence, [other]))
        lib.close()
    best = max((t / 100 for t in range(20, 90)), key=lambda t: (
        sum(p >= t for p in positives) / len(positives) + sum(n < t for n in negatives) / len(negatives)))
    tpr = sum(p >= best for p in positives) / len(positives)
    tnr = sum(n < best for n in negatives) / len(negatives)
    quantiles = lambda xs: " ".join(f"{sorted(xs)[int(q * (len(xs) - 1))]:.2f}" for q in (0.05, 0.25, 0.5, 0.75, 0.95))  # noqa: E731
    print(f"{len(positives)} sentences; quantiles 5/25/50/75/95%")
    print(f"  own paper (supported):       {quantiles(positives)}")
    print(f"  nearest other paper (not):   {quantiles(negatives)}")
    print(f"best threshold {best:.2f}: {tpr:.1%} of supported kept, {tnr:.1%} of unsupported caught "
          f"(balanced accuracy {(tpr + tnr) / 2:.1%})")
    current = settings.answer.support_threshold
    kept = sum(p >= current for p in positives) / len(positives)
    caught = sum(n < current for n in negatives) / len(negatives)
    print(f"configured threshold {current:.2f}: {kept:.1%} kept, {caught:.1%} caught")


if __name__ == "__main__":
    main()
