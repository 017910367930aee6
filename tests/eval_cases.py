"""An invented corpus and answers built the way the engine shows them (lead, sentence, [n] keys,
per-sentence support), for the tests of the eval metrics and report."""

from __future__ import annotations

from typing import Any

from eval.dataset import Question, from_record
from rag.text.clean import split_sentences
from rag.types import Answer, Citation, Paper, SentenceSupport

CHEM = ("We present ChemAgent, an agent that builds a self-updating library of sub-tasks from its own "
        "runs. The model has 82B parameters and was trained on 3T tokens. It improves accuracy by 35%.")
PAPERS = {pid: Paper(pid, text, text, method=name) for pid, text, name in [
    ("p1", CHEM, "ChemAgent"),
    ("p2", "We introduce MolTide, which ranks reactions with a learned energy model.", "MolTide"),
    ("p3", "We propose RouteNet, a router for mixture-of-depths models.", "RouteNet"),
    ("p4", "A survey of benchmarks for chemistry agents.", None),
    ("p5", "Crystal structure prediction is slow because every candidate needs an expensive energy "
           "calculation. Learned surrogates help, but they are trained for one chemical system at a time "
           "and transfer poorly. We present LatticeFlow, a generative model that proposes crystal "
           "structures for any composition. LatticeFlow finds the known ground state for 71% of held-out "
           "compositions.", "LatticeFlow"),
    ("p6", "Reaction yield prediction matters for planning syntheses in the laboratory. Most datasets "
           "are small, noisy and collected in different laboratories with different protocols. We "
           "introduce YieldLens, which pretrains on patents before fine-tuning on each dataset. YieldLens "
           "lowers the yield error by 18% on three public benchmarks.", "YieldLens"),
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


def every_sentence(*pids: str, lead: str = "") -> list[Claim]:
    """Padding: every sentence of these abstracts in turn, each citing its paper and supported
    (what an answer made of the top abstracts looks like after the engine's checker)."""
    out = [("", text, (pid,), True) for pid in pids for text in split_sentences(PAPERS[pid].abstract)]
    return [(lead, *out[0][1:]), *out[1:]] if lead else out


def one_line(label: str, pid: str) -> Claim:
    """A list line that is a whole abstract: "- Label (pid): " and every sentence of it."""
    return (f"- {label} ({pid}): ", " ".join(split_sentences(PAPERS[pid].abstract)), (pid,), True)
