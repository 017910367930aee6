"""Loading the hand-written question sets (JSON Lines)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rag.settings import PROJECT_ROOT

DATASETS = PROJECT_ROOT / "eval" / "datasets"
DEFAULT_DATASET = DATASETS / "dev.jsonl"  # what is tuned on
TEST_DATASET = DATASETS / "test.jsonl"  # held out: written before the system was run on it


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold_papers: tuple[str, ...]
    reference_answer: str
    key_facts: tuple[tuple[str, ...], ...]
    type: str
    tags: tuple[str, ...]
    yes_no: str | None = None  # "yes" or "no" for yes/no questions: the answer must open with it


def load(path: Path = DEFAULT_DATASET) -> list[Question]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out.append(Question(row["id"], row["question"], tuple(row["gold_papers"]),
                                row["reference_answer"], tuple(map(tuple, row["key_facts"])),
                                row["type"], tuple(row.get("tags", ())), row.get("yes_no")))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path.name}:{number}: not a valid question line ({exc})") from exc
    return out
