"""The injection detector on abstracts written apart from it, and on the bundled corpus.

The suite (``eval/datasets/injections/``) holds 44 abstracts with an injected instruction
(paraphrased, translated, hidden with zero-width or look-alike characters) and 30 clean research
sentences that only sound like instructions ("Participants were instructed to ignore the cue").
Both were written blind, without the detector at hand, and split once with a fixed seed into a
development half (the detector was tuned on it) and a held-back half (reported, never tuned on):

    python benchmarks/injection.py --split /path/to/injections.jsonl /path/to/clean.jsonl
    python benchmarks/injection.py          # the figures

Prints, for each half: injected abstracts whose injected text is caught (every part of it
removed by ``scrub``), research sentences of those abstracts flagged by mistake, clean
instruction-like sentences flagged; then the sentences of the bundled corpus flagged (should be 0).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.ingest.formats import input_files, read_file  # noqa: E402
from rag.settings import BUNDLED_CORPUS  # noqa: E402
from rag.text.clean import split_sentences  # noqa: E402
from rag.text.injection import is_instruction, scrub  # noqa: E402

SUITE = ROOT / "eval" / "datasets" / "injections"
SEED = 1919


def split(injections: Path, clean: Path) -> None:
    """Shuffle each file with the fixed seed; the first half is dev, the rest held back."""
    for source, name in ((injections, "injected"), (clean, "clean")):
        rows = [line for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
        random.Random(SEED).shuffle(rows)
        half = len(rows) // 2
        (SUITE / f"{name}_dev.jsonl").write_text("\n".join(rows[:half]) + "\n", encoding="utf-8")
        (SUITE / f"{name}_heldout.jsonl").write_text("\n".join(rows[half:]) + "\n", encoding="utf-8")


def load(name: str) -> list[dict]:
    lines = (SUITE / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def caught(row: dict) -> bool:
    """The injected text is gone from the scrubbed abstract: no sentence of it is left."""
    kept, _ = scrub(row["abstract"])
    return not any(part in kept for part in split_sentences(row["injected"]) if len(part) > 8)


def research_flagged(row: dict) -> list[str]:
    """Sentences of an injected abstract that are not the injection but were flagged."""
    injected = row["injected"]
    return [s for s in split_sentences(row["abstract"])
            if is_instruction(s) and s not in injected and injected not in s]


def report(half: str) -> dict[str, object]:
    injected, clean = load(f"injected_{half}.jsonl"), load(f"clean_{half}.jsonl")
    missed = [r["id"] for r in injected if not caught(r)]
    wrong = [s for r in injected for s in research_flagged(r)]
    flagged = [r["id"] for r in clean if is_instruction(r["sentence"])]
    return {"half": half, "injected": len(injected), "caught": len(injected) - len(missed),
            "missed": missed, "research sentences flagged": len(wrong), "clean": len(clean),
            "clean flagged": flagged}


def corpus_false_positives() -> tuple[int, int, list[str]]:
    abstracts = [p for f in input_files(BUNDLED_CORPUS) for p in read_file(f)
                 if hasattr(p, "abstract") and p.abstract]
    sentences = [s for p in abstracts for s in split_sentences(p.text)]
    return len(abstracts), len(sentences), [s for s in sentences if is_instruction(s)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", nargs=2, type=Path, metavar=("INJECTIONS", "CLEAN"))
    parser.add_argument("--half", choices=["dev", "heldout", "both"], default="both")
    args = parser.parse_args()
    if args.split:
        split(*args.split)
        return
    for half in (["dev", "heldout"] if args.half == "both" else [args.half]):
        row = report(half)
        print(f"{half}: {row['caught']}/{row['injected']} injected abstracts caught "
              f"(missed: {', '.join(row['missed']) or 'none'}); "  # type: ignore[arg-type]
              f"{row['research sentences flagged']} of their research sentences flagged; "
              f"{len(row['clean flagged'])}/{row['clean']} clean instruction-like sentences flagged "  # type: ignore[arg-type]
              f"({', '.join(row['clean flagged']) or 'none'})")  # type: ignore[arg-type]
    papers, sentences, flagged = corpus_false_positives()
    print(f"bundled corpus: {len(flagged)} of {sentences} sentences in {papers} abstracts flagged")
    for sentence in flagged:
        print(f"  flagged: {sentence[:160]}")


if __name__ == "__main__":
    main()
