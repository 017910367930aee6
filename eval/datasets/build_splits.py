"""Build dev.jsonl, test.jsonl and support_pairs.jsonl from what was written by hand.

    python eval/datasets/build_splits.py            # rewrite the three files (idempotent)
    python eval/datasets/build_splits.py --check    # exit 1 if running it would change them

What it does, every time the same way (seed 17):
- drops the leaked and duplicated test questions (REMOVED below, with why);
- fills the key facts of metadata questions: the gold papers' ids, from the catalogue, in gold
  order (an author or venue listing is right when it lists every one of them);
- types a one-paper two-part question "single" (the sets' convention: "multi" means two or more
  gold papers); nothing else of a question is changed;
- deals the questions written blind from the abstracts (blind/*.jsonl) to test and dev,
  stratified by shape (QUOTAS), so that test holds at least 300 questions with 40 yes/no (half
  "no"), 60 unanswerable (40 near-domain), 40 lists and 30 two-part questions, and dev at least
  40 yes/no, 40 lists and 30 two-part questions;
- writes test_fingerprints.txt, a hash per test question, by which the harness, the reader's
  training and tune.py recognise test content under any file name without opening test.jsonl;
- merges the blind support pairs into support_pairs.jsonl, keeping the old pairs' split and
  giving the new ones a split of their own: by paper (both pairs of a paper go to one side),
  balanced per kind.
The old questions keep their place; a question already in the output is recognised by its id."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from eval.dataset import fingerprint  # noqa: E402  (the one definition of a question's identity)

HERE = Path(__file__).resolve().parent
BLIND = HERE / "blind"
SOURCES = ("list.jsonl", "yesno_twopart.jsonl", "unanswerable_single.jsonl")
SEED = 17
REMOVED = {
    "t154": "word for word dev d188 (added to test after the split was made)",
    "t150": "the same question as t050",
}
# (shape, how many of the blind questions of that shape go to test); the rest go to dev.
QUOTAS = {"list": 45, "yes-no/no": 13, "yes-no/yes": 15, "two-part": 20,
          "missing-attribute": 13, "invented-name": 12, "adjacent-topic": 10, "out-of-scope": 5,
          "single": 38}


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(path: Path, rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def shape(row: dict[str, Any]) -> str:
    tags = row["tags"]
    if row["type"] == "list":
        return "list"
    if "yes_no" in row:
        return f"yes-no/{row['yes_no']}"
    if "two-part" in tags:
        return "two-part"
    if row["type"] == "unanswerable":
        return next(t for t in ("missing-attribute", "invented-name", "adjacent-topic", "out-of-scope")
                    if t in tags)
    return "single"


def tidy(row: dict[str, Any]) -> dict[str, Any]:
    """The two field fixes (see the module docstring); a copy, the rest untouched."""
    row = dict(row)
    if row["type"] == "multi" and len(row["gold_papers"]) < 2:
        row["type"] = "single"
    if row["type"] == "metadata" and not row["key_facts"]:
        row["key_facts"] = [[pid] for pid in row["gold_papers"]]
    return row


def deal(blind: list[dict[str, Any]]) -> dict[str, str]:
    """{question id: "test" or "dev"}: per shape, a seeded shuffle, the first QUOTAS[shape] to test."""
    rng = random.Random(SEED)
    by_shape: dict[str, list[str]] = {}
    for row in sorted(blind, key=lambda r: r["id"]):
        by_shape.setdefault(shape(row), []).append(row["id"])
    split: dict[str, str] = {}
    for name in sorted(by_shape):
        ids = by_shape[name]
        rng.shuffle(ids)
        split |= {qid: "test" if i < QUOTAS[name] else "dev" for i, qid in enumerate(ids)}
    return split


def split_pairs(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Old pairs as they were; new ones split by paper, each paper to the side that has fewer of
    its kinds so far (papers in a seeded order), so every kind is near half and half."""
    known = {p["id"] for p in new}
    kept = [p for p in old if p["id"] not in known]
    papers: dict[str, list[dict[str, Any]]] = {}
    for pair in new:
        papers.setdefault(pair["paper_id"], []).append(pair)
    order = sorted(papers)
    random.Random(SEED).shuffle(order)
    counts: Counter[tuple[str, str]] = Counter()
    out = []
    for pid in order:
        kinds = [p["kind"] for p in papers[pid]]
        side = min(("dev", "test"), key=lambda s: (sum(counts[k, s] for k in kinds),
                                                   sum(v for (_, s2), v in counts.items() if s2 == s)))
        counts.update((k, side) for k in kinds)
        out += [p | {"split": side} for p in papers[pid]]
    return kept + sorted(out, key=lambda p: p["id"])


def build() -> dict[Path, str]:
    blind = [tidy(r) for name in SOURCES for r in read(BLIND / name)]
    blind_ids = {r["id"] for r in blind}
    where = deal(blind)
    dev = [tidy(r) for r in read(HERE / "dev.jsonl") if r["id"] not in blind_ids]
    test = [tidy(r) for r in read(HERE / "test.jsonl") if r["id"] not in blind_ids | set(REMOVED)]
    dev += [r for r in blind if where[r["id"]] == "dev"]
    test += [r for r in blind if where[r["id"]] == "test"]
    pairs = split_pairs(read(HERE / "support_pairs.jsonl"), read(BLIND / "support_pairs.jsonl"))
    return {HERE / "dev.jsonl": write(HERE / "dev.jsonl", dev),
            HERE / "test.jsonl": write(HERE / "test.jsonl", test),
            HERE / "test_fingerprints.txt": "".join(sorted(f"{fingerprint(r['question'])}\n" for r in test)),
            HERE / "support_pairs.jsonl": write(HERE / "support_pairs.jsonl", pairs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether the files are up to date")
    args = parser.parse_args()
    changed = [path for path, text in build().items()
               if not path.exists() or path.read_text(encoding="utf-8") != text]
    if args.check:
        print("up to date" if not changed else f"out of date: {', '.join(p.name for p in changed)}")
        sys.exit(1 if changed else 0)
    for path, text in build().items():
        path.write_text(text, encoding="utf-8")
    print(f"wrote {', '.join(p.name for p in changed) or 'nothing (already up to date)'}")


if __name__ == "__main__":
    main()
