"""Words of opposite meaning, from WordNet's antonym pointers (rag/assets/antonyms.tsv, written
by ``python -m eval.build_antonyms``): "large" and "small", "internally" and "externally", "more"
and "fewer". The yes/no verdict reads a question's word that its sentence leaves out, where the
sentence says the opposite ("Does it need large datasets?" over "on small datasets"), as a "no".

A word is looked up by its forms: itself, its stem, and an adjective's base under its comparative
or superlative ("smaller", "largest", "bigger", "happier"; WordNet's irregular "worse", "better"
are in the table)."""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from rag.text.lexicon import stem

TABLE = Path(__file__).resolve().parents[1] / "assets" / "antonyms.tsv"


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, frozenset[str]], dict[str, str]]:
    opposite: dict[str, set[str]] = defaultdict(set)
    base: dict[str, str] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):  # the header: where the pairs come from
            continue
        kind, a, b = line.split("\t")
        if kind == "!":
            opposite[a].add(b)
        elif kind == "=":
            base[a] = b
    return {w: frozenset(o) for w, o in opposite.items()}, base


def forms(word: str) -> set[str]:
    """The word, its stem, the verb or noun it inflects ("increases" -> "increase"), the
    adjective it inflects ("smaller" -> "small", "larger" -> "large", "bigger" -> "big",
    "happiest" -> "happy", "worse" -> "bad") and an adverb's adjective ("internally" ->
    "internal")."""
    w = word.lower()
    out = {w, stem(w)}
    _, irregular = _table()
    if w in irregular:
        out.add(irregular[w])
    for ending, back in (("es", "e"), ("ed", "e"), ("ed", ""), ("ing", ""), ("ing", "e"), ("s", "")):
        if w.endswith(ending) and len(w) > len(ending) + 3:  # "increases", "decreased", "using"
            out.add(w[: -len(ending)] + back)
    if w.endswith("ly") and len(w) > 5:  # "internally" -> "internal"
        out.add(w[:-2])
        if w.endswith("ically"):  # "automatically" -> "automatic"
            out.add(w[:-4])
        if w.endswith("ily"):  # "easily" -> "easy"
            out.add(w[:-3] + "y")
    for ending in ("er", "est"):
        if w.endswith(ending) and len(w) > len(ending) + 2:
            root = w[: -len(ending)]
            out |= {root, root + "e"}
            if root.endswith("i"):
                out.add(root[:-1] + "y")
            if len(root) > 2 and root[-1] == root[-2]:
                out.add(root[:-1])
    return out


def opposites(word: str) -> set[str]:
    """Every form of every antonym of the word (empty for a word WordNet pairs with none)."""
    table, _ = _table()
    found: set[str] = set()
    for f in forms(word):
        found |= table.get(f, frozenset())
    return found | {stem(o) for o in found}


def contrasted(asked: list[str], said: list[str]) -> list[tuple[str, str]]:
    """Pairs (asked word, said word) where the text says the opposite of an asked word it does
    not say itself: "large" asked, "small" said and "large" not."""
    said_forms = {f for w in said for f in forms(w)}
    pairs = []
    for a in asked:
        if forms(a) & said_forms:
            continue
        against = opposites(a)
        pairs += [(a, s) for s in said if forms(s) & against]
    return pairs
