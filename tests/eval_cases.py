"""An invented corpus and answers built the way the engine shows them (lead, sentence, [n] keys,
per-sentence support), for the tests of the eval metrics and report."""

from __future__ import annotations

from typing import Any

from eval.dataset import Question, from_record
from rag.types import Answer, Citation, Paper, SentenceSupport

CHEM = ("We present ChemAgent, an agent that builds a self-updating library of sub-tasks from its own "
        "runs. The model has 82B parameters and was trained on 3T tokens. It improves accuracy by 35%.")
PAPERS = {pid: Paper(pid, text, text, method=name) for pid, text, name in [
    ("p1", CHEM, "ChemAgent"),
    ("p2", "We introduce MolTide, which ranks reactions with a learned energy model.", "MolTide"),
    ("p3", "We propose RouteNet, a router for mixture-of-depths models.", "RouteNet"),
    ("p4", "A survey of benchmarks for chemistry agents.", None),
]}
Claim = tuple[str, str, tuple[str, ...], bool]  # (lead, sentence, cited papers, supported)


def answer_of(*claims: Claim, route: str = "offline") -> Answer:
    """An Answer as the engine builds it: keys by first use, one line per "- " lead."""
    keys: dict[str, int] = {}
    parts, support = [], []
    for lead, text, papers, supported in claims:
        for pid in papers:
            keys.setdefault(pid, len(keys) + 1)
        marks = "".join(f"[{keys[p]}]" for p in papers)
        parts.append(f"{lead}{text} {marks}")
        support.append(SentenceSupport(text, tuple(keys[p] for p in papers), 0.9 if supported else 0.2, supported))
    body = "".join(p if i == 0 else ("\n" if p.startswith("- ") else " ") + p for i, p in enumerate(parts))
    citations = tuple(Citation(k, pid, PAPERS[pid].label, "") for pid, k in keys.items())
    return Answer("q", body, citations, False, sentences=tuple(support), route=route)


def question(**fields: Any) -> Question:
    return from_record({"question": "What does the chemistry agent build?", "type": "single"} | fields, "q1")
