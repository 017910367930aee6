"""How far the judge can be trusted: its labels on the hand-labelled support pairs
(eval/datasets/support_pairs.jsonl), against their labels, on one half of their split."""

from __future__ import annotations

import json
import random
import time
from collections import Counter

from eval.judge import Judge, agreement
from rag.index.library import open_library
from rag.settings import PROJECT_ROOT, Settings

PAIRS = PROJECT_ROOT / "eval" / "datasets" / "support_pairs.jsonl"


def measure(settings: Settings, judge: Judge, split: str = "test", limit: int | None = None) -> list[str]:
    """Label every pair of the split (or a seeded sample of ``limit``); the lines to print."""
    pairs = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    pairs = [p for p in pairs if p["split"] == split]
    if limit is not None and limit < len(pairs):
        pairs = sorted(random.Random(17).sample(pairs, limit), key=lambda p: p["id"])
    lib = open_library(settings)
    try:
        papers = lib.catalog.get_many({p["paper_id"] for p in pairs})
    finally:
        lib.close()
    started = time.perf_counter()
    labelled = [(p, judge.label(p["sentence"], [papers[p["paper_id"]]])) for p in pairs if p["paper_id"] in papers]
    seconds = time.perf_counter() - started
    scores = agreement([(p["supported"], label) for p, label in labelled])
    right = Counter(p["kind"] for p, label in labelled if label is p["supported"])
    total = Counter(p["kind"] for p, _ in labelled)
    lines = [f"judge {judge.model.name} on the {split} half of the support pairs: {scores['pairs']} pairs "
             f"in {seconds:.0f} s ({seconds / max(1, scores['pairs']):.1f} s a pair)",
             f"agreement {scores['accuracy']:.3f}, Cohen's kappa {scores['kappa']:.3f}; "
             f"'unsupported': precision {scores['unsupported_precision']:.3f}, recall "
             f"{scores['unsupported_recall']:.3f}; no label {scores['no_label']}"]
    lines += [f"  {kind:<15} {right[kind]:>3}/{total[kind]:<3} right" for kind in sorted(total)]
    return lines
