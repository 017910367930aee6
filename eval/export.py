"""Exports of a run for other tools. RAGAS reads one JSON object a line with question, answer,
contexts (the passages the answer rests on) and ground_truth (the reference answer)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def ragas_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Contexts are the cited abstracts (none when the answer declined)."""
    return [{"question": r["question"], "answer": r["answer"],
             "contexts": [r["passages"][c["paper_id"]]["text"] for c in r["citations"]
                          if c["paper_id"] in r.get("passages", {})],
             "ground_truth": r.get("reference_answer", "")} for r in rows]


def write_ragas(path: Path, rows: Sequence[Mapping[str, Any]]) -> int:
    lines = ragas_rows(rows)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return len(lines)
