"""The support-checker benchmark (eval/datasets/support_pairs.jsonl) is well formed and agrees
with the bundled corpus: every cited paper exists and has an abstract, verbatim claims really
occur in it, labels follow from kinds, splits are by paper, every kind is in both splits, and the
260 pairs written apart from the checker's tuning (sp2-*) are split half and half per kind."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from rag.ingest.formats import Problem, read_file
from rag.settings import BUNDLED_CORPUS, PROJECT_ROOT
from rag.types import Paper

PAIRS = PROJECT_ROOT / "eval" / "datasets" / "support_pairs.jsonl"
KEYS = frozenset({"id", "paper_id", "sentence", "kind", "supported", "split"})
SUPPORTED_KINDS = frozenset({"verbatim", "paraphrase"})
KINDS = SUPPORTED_KINDS | {"number_changed", "entity_swapped", "negated", "overreach", "unrelated"}
BLIND = PROJECT_ROOT / "eval" / "datasets" / "blind" / "support_pairs.jsonl"
SPLITS = frozenset({"dev", "test"})
MIN_PAIRS = 400
MIN_PER_KIND_AND_SPLIT = 10
MAX_PER_PAPER_AND_KIND = 2
# Near-duplicates merged into another record at ingest: a pair must cite the kept copy.
MERGED_DUPLICATES = {"003-0365": "000-0061"}


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines()
            if line.strip()]


@pytest.fixture(scope="module")
def corpus() -> dict[str, Paper]:
    return {item.id: item for path in sorted(BUNDLED_CORPUS.glob("0*.txt"))
            for item in read_file(path) if not isinstance(item, Problem)}


def test_every_pair_has_exactly_the_known_keys_and_valid_values(pairs):
    bad = [f"{p.get('id')}: keys {sorted(set(p) ^ KEYS)}" for p in pairs if set(p) != KEYS]
    bad += [f"{p['id']}: kind {p['kind']!r}" for p in pairs if p.get("kind") not in KINDS]
    bad += [f"{p['id']}: split {p['split']!r}" for p in pairs if p.get("split") not in SPLITS]
    bad += [f"{p['id']}: empty sentence" for p in pairs
            if not (isinstance(p.get("sentence"), str) and p["sentence"].strip())]
    assert not bad, "\n".join(bad)


def test_the_label_follows_from_the_kind(pairs):
    bad = [p["id"] for p in pairs if p["supported"] is not (p["kind"] in SUPPORTED_KINDS)]
    assert not bad, f"supported must be true exactly for {sorted(SUPPORTED_KINDS)}: {bad}"


def test_ids_and_sentences_are_unique(pairs):
    ids = Counter(p["id"] for p in pairs)
    texts = Counter((p["paper_id"], p["sentence"]) for p in pairs)
    assert not [i for i, n in ids.items() if n > 1]
    assert not [t for t, n in texts.items() if n > 1]


def test_every_cited_paper_exists_and_has_an_abstract(pairs, corpus):
    bad = [f"{p['id']}: {p['paper_id']}" for p in pairs
           if p["paper_id"] not in corpus or not corpus[p["paper_id"]].has_abstract]
    bad += [f"{p['id']}: cite {MERGED_DUPLICATES[p['paper_id']]}, the kept copy" for p in pairs
            if p["paper_id"] in MERGED_DUPLICATES]
    assert not bad, "\n".join(bad)


def test_verbatim_sentences_occur_in_their_abstract(pairs, corpus):
    bad = [p["id"] for p in pairs if p["kind"] == "verbatim"
           and p["sentence"] not in corpus[p["paper_id"]].text]
    assert not bad, f"not a substring of the cited (normalised) abstract: {bad}"


def test_perturbed_sentences_are_not_copied_from_their_abstract(pairs, corpus):
    bad = [p["id"] for p in pairs if p["kind"] != "verbatim"
           and p["sentence"].rstrip(".") in corpus[p["paper_id"]].text]
    assert not bad, bad


def test_counts_meet_the_minimums_and_every_kind_is_in_both_splits(pairs):
    assert len(pairs) >= MIN_PAIRS
    cells = Counter((p["kind"], p["split"]) for p in pairs)
    short = {f"{k}/{s}": cells[k, s] for k in KINDS for s in SPLITS
             if cells[k, s] < (MIN_PER_KIND_AND_SPLIT if k != "unrelated" else 5)}
    assert not short, f"fewer than {MIN_PER_KIND_AND_SPLIT} pairs: {short}"


def test_splits_are_by_paper(pairs):
    splits: dict[str, set[str]] = {}
    for p in pairs:
        splits.setdefault(p["paper_id"], set()).add(p["split"])
    assert not [pid for pid, s in splits.items() if len(s) > 1]


def test_pairs_are_spread_over_files_and_papers(pairs):
    files = Counter(p["paper_id"][:3] for p in pairs)
    assert set(files) == {"000", "001", "002", "003", "004"}
    per_paper_kind = Counter((p["paper_id"], p["kind"]) for p in pairs)
    assert max(per_paper_kind.values()) <= MAX_PER_PAPER_AND_KIND
    assert len({p["paper_id"] for p in pairs}) >= 40


def test_the_blind_pairs_are_merged_as_written_and_split_half_and_half_per_kind(pairs):
    blind = [json.loads(line) for line in BLIND.read_text(encoding="utf-8").splitlines() if line.strip()]
    merged = {p["id"]: p for p in pairs}
    assert all({k: v for k, v in merged[b["id"]].items() if k != "split"} == b for b in blind)
    cells = Counter((merged[b["id"]]["kind"], merged[b["id"]]["split"]) for b in blind)
    lopsided = {k: (cells[k, "dev"], cells[k, "test"]) for k in KINDS if abs(cells[k, "dev"] - cells[k, "test"]) > 2}
    assert not lopsided, lopsided
