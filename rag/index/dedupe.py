"""Near-duplicate abstracts, found in time that does not grow with the index.

Two abstracts are duplicates when they are the same text up to case, spacing and punctuation
(an indexed key), or when one holds most of the other's 5-word shingles (a long and a short
version: the MILABOT pair shares 72% of the shorter one's shingles, Jaccard 0.56; unrelated
abstracts of the bundled corpus stay below Jaccard 0.02). Candidates come from MinHash with LSH
bands: 32 bands of 3 rows make a pair with Jaccard 0.56 a candidate with probability 0.998,
one with 0.1 with 0.03 and one with 0.02 with 0.0003; each candidate is then checked exactly.
The band keys of stored papers live in an indexed catalogue table, so a lookup costs the same
at 1k and at 10M papers. The hash functions are fixed: stored keys must stay comparable.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Iterable
from typing import Protocol

import numpy as np

from rag.text.clean import dedupe_key
from rag.types import Paper

BANDS, ROWS = 32, 3
_RNG = np.random.default_rng(20240611)
_A = _RNG.integers(1, 2**63, size=(BANDS * ROWS, 1), dtype=np.uint64) | np.uint64(1)
_B = _RNG.integers(0, 2**63, size=(BANDS * ROWS, 1), dtype=np.uint64)
_WORD = re.compile(r"[a-z0-9]+")


def shingle_hashes(text: str, n: int = 5) -> set[int]:
    """Stable 32-bit hashes of the text's n-word shingles (the same in every process)."""
    words = _WORD.findall(text.lower())
    grams = (" ".join(words[i : i + n]) for i in range(max(1, len(words) - n + 1)))
    return {zlib.crc32(g.encode()) for g in grams}


def band_keys(shingles: set[int]) -> list[int]:
    """One signed 64-bit key per LSH band of the text's MinHash signature."""
    if not shingles:
        return []
    x = np.fromiter(shingles, dtype=np.uint64)[None, :]
    signature = ((_A * x + _B) >> np.uint64(32)).min(axis=1)  # multiply-shift hashing, mod 2^64
    keys = []
    for band in range(BANDS):
        rows = signature[band * ROWS : (band + 1) * ROWS].tobytes()
        digest = hashlib.blake2b(band.to_bytes(1, "big") + rows, digest_size=8).digest()
        keys.append(int.from_bytes(digest, "big", signed=True))
    return keys


class DuplicateIndex(Protocol):
    """Where stored papers' keys are looked up (the catalogue)."""

    def exact_duplicate(self, key: str, not_id: str) -> str | None: ...

    def band_candidates(self, keys: Iterable[int], not_id: str) -> set[str]: ...

    def text_of(self, paper_id: str) -> str | None: ...


class DuplicateFinder:
    """Finds the paper a new one duplicates among stored papers (through ``index``) and those
    added since the last ``flush`` (kept in memory until the catalogue has saved them)."""

    def __init__(self, index: DuplicateIndex | None = None, containment: float = 0.6) -> None:
        self.index, self.containment = index, containment
        self._exact: dict[str, str] = {}
        self._bands: dict[int, list[str]] = {}
        self._text: dict[str, str] = {}

    def add(self, paper: Paper) -> None:
        if not paper.text:
            return
        self._exact.setdefault(dedupe_key(paper.text), paper.id)
        self._text[paper.id] = paper.text
        for key in band_keys(shingle_hashes(paper.text)):
            self._bands.setdefault(key, []).append(paper.id)

    def flush(self) -> None:
        """Forget what was added: the catalogue has stored it (with its keys)."""
        self._exact.clear()
        self._bands.clear()
        self._text.clear()

    def find(self, paper: Paper) -> str | None:
        """The id of an added or stored paper that this one duplicates, if any."""
        if not paper.text:
            return None
        key = dedupe_key(paper.text)
        exact = self._exact.get(key)
        if exact is None and self.index is not None:
            exact = self.index.exact_duplicate(key, paper.id)
        if exact is not None and exact != paper.id:
            return exact
        mine = shingle_hashes(paper.text)
        keys = band_keys(mine)
        candidates = {pid for k in keys for pid in self._bands.get(k, ())}
        if self.index is not None:
            candidates |= self.index.band_candidates(keys, paper.id)
        candidates.discard(paper.id)
        best, best_share = None, self.containment
        for other in sorted(candidates):
            text = self._text.get(other) or (self.index.text_of(other) if self.index else None)
            if not text:
                continue
            theirs = shingle_hashes(text)
            share = len(mine & theirs) / max(1, min(len(mine), len(theirs)))
            if share >= best_share:
                best, best_share = other, share
        return best
