"""Duplicate records of one paper, found in time that does not grow with the index.

Candidates: the same text up to case, spacing and punctuation (an indexed key), the same DOI,
arXiv id or title among the records of this run, and texts sharing 5-word shingles, found with
MinHash and LSH bands: 32 bands of 3 rows make a pair with Jaccard 0.56 a candidate with
probability 0.998, one with 0.1 with 0.03 and one with 0.02 with 0.0003. A text candidate is the
same paper only when one holds most (``containment``) of the other's shingles (a long and a short
version: the MILABOT pair shares 72% of the shorter one's shingles; unrelated abstracts of the
bundled corpus stay below Jaccard 0.02) and ``same_paper.conflict`` finds nothing that tells them
apart, within one file as across files. A title match merges only when the abstracts agree too.
The band keys of stored papers live in an indexed catalogue table, so a lookup costs the same at
1k and at 10M papers. The hash functions are fixed: stored keys must stay comparable.
"""

from __future__ import annotations

import hashlib
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from rag.index.same_paper import conflict, identifiers, same_by_record, title_key
from rag.text.clean import dedupe_key
from rag.text.lexicon import words_any_script
from rag.types import Paper

BANDS, ROWS = 32, 3
MAX_CANDIDATES, CROWDED_BAND = 10, 100
_RNG = np.random.default_rng(20240611)
_A = _RNG.integers(1, 2**63, size=(BANDS * ROWS, 1), dtype=np.uint64) | np.uint64(1)
_B = _RNG.integers(0, 2**63, size=(BANDS * ROWS, 1), dtype=np.uint64)


def shingle_hashes(text: str, n: int = 5) -> set[int]:
    """Stable 32-bit hashes of the text's n-word shingles (the same in every process)."""
    words = words_any_script(text)
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

    def band_members(self, keys: Sequence[int], most: int) -> dict[int, list[str]]: ...

    def get(self, paper_id: str) -> Paper | None: ...


class DuplicateFinder:
    """Finds the paper a new one duplicates among stored papers (through ``index``) and those
    added since the last ``flush`` (kept in memory until the catalogue has saved them). DOIs,
    arXiv ids and titles are remembered for the whole run."""

    def __init__(self, index: DuplicateIndex | None = None, containment: float = 0.6) -> None:
        self.index, self.containment = index, containment
        self._exact: dict[str, str] = {}
        self._bands: dict[int, list[str]] = {}
        self._papers: dict[str, Paper] = {}
        self._records: dict[str, Paper] = {}  # "doi:…", "arxiv:…", "title:…" -> first record

    def add(self, paper: Paper) -> None:
        if not paper.text:
            return
        self._exact.setdefault(dedupe_key(paper.text), paper.id)
        self._papers[paper.id] = paper
        for key in band_keys(shingle_hashes(paper.text)):
            self._bands.setdefault(key, []).append(paper.id)
        marks = _record_marks(paper)
        slim = replace(paper, abstract="", original=None) if marks else paper  # text kept: titles compare it
        for mark in marks:
            self._records.setdefault(mark, slim)

    def flush(self) -> None:
        """Forget the texts that were added: the catalogue has stored them (with their keys)."""
        self._exact.clear()
        self._bands.clear()
        self._papers.clear()

    def find(self, paper: Paper) -> str | None:
        """The id of an added or stored paper that this one duplicates, if any."""
        if not paper.text:
            return None
        key = dedupe_key(paper.text)
        exact = self._exact.get(key)
        if exact is None and self.index is not None:
            exact = self.index.exact_duplicate(key, paper.id)
        if exact is not None and exact != paper.id:
            return exact  # identical texts are one paper, in one file too
        for mark in _record_marks(paper):
            other = self._records.get(mark)
            if other is not None and other.id != paper.id and same_by_record(other, paper) \
                    and (not mark.startswith("title:") or self._same_text(other, paper)):
                return other.id
        return self._near_identical(paper)

    def _same_text(self, a: Paper, b: Paper) -> bool:
        """A title match is one paper only when the abstracts agree too (or one has none)."""
        if not (a.text and b.text):
            return True
        return self._share(shingle_hashes(a.text), shingle_hashes(b.text)) >= self.containment \
            and conflict(a, b) is None

    @staticmethod
    def _share(mine: set[int], theirs: set[int]) -> float:
        """How much of the shorter text the longer one holds."""
        return len(mine & theirs) / max(1, min(len(mine), len(theirs)))

    def _near_identical(self, paper: Paper) -> str | None:
        mine = shingle_hashes(paper.text)
        best, best_share = None, self.containment
        for other_id in self._candidates(band_keys(mine), paper.id):
            other = self._papers.get(other_id) or (self.index.get(other_id) if self.index else None)
            if other is None or not other.text:
                continue
            share = self._share(mine, shingle_hashes(other.text))
            if share >= best_share and conflict(other, paper) is None:
                best, best_share = other.id, share
        return best

    def _candidates(self, keys: list[int], not_id: str) -> list[str]:
        """At most ``MAX_CANDIDATES`` papers, those sharing the most bands (the most similar)
        first. A band shared by over ``CROWDED_BAND`` stored papers (a family of templated
        abstracts) is passed over: what tells a true copy from its siblings lies in the bands
        they do not all share, and every paper then costs a bounded number of rows and checks."""
        shared: Counter[str] = Counter(pid for k in keys for pid in self._bands.get(k, ()))
        if self.index is not None:
            for members in self.index.band_members(keys, CROWDED_BAND).values():
                shared.update(members)
        shared.pop(not_id, None)
        ranked = sorted(shared.items(), key=lambda item: (-item[1], item[0]))
        return [pid for pid, _ in ranked[:MAX_CANDIDATES]]


def _record_marks(paper: Paper) -> list[str]:
    title = title_key(paper)
    return sorted(identifiers(paper)) + ([f"title:{title}"] if title else [])
