"""Grading one answer against one question: which of its sentences can earn credit, which key
facts they state, and what went wrong. Pure: the answer, the question and the catalogue records
of the papers involved in, scores and reasons out.

A key fact counts only when it is stated in a *claim*: a sentence of the answer that cites a
paper and that the engine kept as supported (for metadata answers: that the catalogue backs,
checked here), not under a negation in that sentence, and with its "near" word when it has one.
The claim must cite a gold paper (for list and metadata questions: the fact's own paper)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.dataset import Fact, Question
from eval.metrics import (
    citation_precision,
    citation_recall,
    countable_facts,
    fact_state,
    is_verbatim,
    leading_verdict,
    token_f1,
)
from rag.types import Answer, Paper

_PREFIX = re.compile(r"(?:- [^\n]*?: )?(?:\*\*[^*\n]+\*\*: )?$")


@dataclass(frozen=True)
class Claim:
    """One cited sentence as shown (with its "- Label: " or "**span**: " lead), its papers, and
    whether it may earn credit."""

    text: str
    body: str
    papers: tuple[str, ...]
    supported: bool


@dataclass(frozen=True)
class FactResult:
    fact: Fact
    state: str  # stated, negated, wrong quantity, unsupported, wrong paper, missing
    papers: tuple[str, ...]  # the papers the fact had to be stated under

    @property
    def label(self) -> str:
        near = f" (near {' / '.join(self.fact.near)})" if self.fact.near else ""
        return " / ".join(self.fact.any) + near


def catalogue_backs(claim_body: str, lead: str, paper: Paper | None) -> bool:
    """A metadata answer's line is backed by the catalogue when it names the paper's id and says
    a sentence of its abstract verbatim, or, for a paper listed without one, says so with the
    record's venue and year."""
    if paper is None or paper.id not in lead:
        return False
    if paper.has_abstract:
        return is_verbatim(claim_body, [paper.text, paper.abstract])
    said = claim_body.lower()
    return "without an abstract" in said and all(
        str(v).lower() in said for v in (paper.venue, paper.year) if v)


def claims(result: Answer, catalogue: Mapping[str, Paper]) -> list[Claim]:
    """The answer's cited sentences in order, each with the lead the reader sees before it."""
    by_key = {c.key: c.paper_id for c in result.citations}
    out, cursor = [], 0
    for sentence in result.sentences:
        body = sentence.text.rstrip()
        at = result.text.find(body, cursor)
        lead = ""
        if at >= 0:
            start = max(cursor, result.text.rfind("\n", 0, at) + 1)
            match = _PREFIX.search(result.text[start:at])
            lead = match.group(0) if match else ""
            cursor = at + len(body)
        papers = tuple(by_key[k] for k in sentence.keys if k in by_key)
        supported = sentence.supported and bool(papers)
        if result.route == "metadata":
            supported = bool(papers) and all(catalogue_backs(body, lead, catalogue.get(p)) for p in papers)
        out.append(Claim(lead + body, body, papers, supported))
    return out


def fact_result(fact: Fact, allowed: Sequence[str], found: Sequence[Claim]) -> FactResult:
    """The best state the fact reaches in the answer's claims (see FactResult.state)."""
    states: set[str] = set()
    for claim in found:
        state = fact_state(fact, claim.text)
        if state == "missing":
            continue
        right_paper = not allowed or bool(set(claim.papers) & set(allowed))
        if not right_paper:
            states.add("wrong paper" if state == "stated" else state)
        elif not claim.supported:
            states.add("unsupported" if state == "stated" else state)
        else:
            states.add(state)
    order = ("stated", "negated", "wrong quantity", "unsupported", "wrong paper")
    return FactResult(fact, next((s for s in order if s in states), "missing"), tuple(allowed))


def fact_results(q: Question, found: Sequence[Claim]) -> list[FactResult]:
    """Every countable key fact; a list or metadata question's i-th fact belongs to its i-th gold
    paper, any other fact to any gold paper."""
    aligned = q.type in ("list", "metadata") and len(q.key_facts) == len(q.gold_papers)
    out = []
    for i, fact in enumerate(q.key_facts):
        if fact not in countable_facts([fact], q.question):
            continue
        allowed = (q.gold_papers[i],) if aligned else q.gold_papers
        out.append(fact_result(fact, allowed, found))
    return out


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def answer_scores(q: Question, result: Answer, found: Sequence[Claim],
                  facts: Sequence[FactResult]) -> dict[str, float | None]:
    """Every answer metric this question has (None where it does not apply)."""
    unanswerable = q.type == "unanswerable"
    s: dict[str, float | None] = {
        "unanswerable_abstained": float(result.abstained) if unanswerable else None,
        "near_domain_abstained": float(result.abstained) if q.near_domain else None,
        "false_abstention": None if unanswerable else float(result.abstained)}
    if unanswerable:
        return s
    cited = [c.paper_id for c in result.citations]
    credited = {p for c in found if c.supported for p in c.papers}
    s["key_facts"] = _share([f.state == "stated" for f in facts])
    s["token_f1"] = token_f1(result.text, q.reference_answer) if q.reference_answer else None
    if q.gold_papers:
        s["citation_precision"] = citation_precision(cited, q.gold_papers)
        s["citation_recall"] = citation_recall(cited, q.gold_papers)
        gold_claims = [c for c in found if c.supported and set(c.papers) & set(q.gold_papers)]
        with_fact = any(f.state == "stated" for f in facts) if facts else bool(gold_claims)
        s["gold_cited"] = float(bool(gold_claims) and with_fact) if q.type in ("single", "multi") else None
    if q.type in ("list", "metadata") and q.gold_papers:
        s["answer_precision"] = citation_precision(sorted(credited), q.gold_papers) or 0.0
        s["answer_recall"] = citation_recall(credited, q.gold_papers)
    if q.figures:
        figures = [fact_result(f, (pid,), found) for pid, fs in q.figures for f in fs]
        s["figure_recall"] = _share([f.state == "stated" for f in figures])
    if q.yes_no:
        verdict = leading_verdict(result.text) == q.yes_no
        s["yes_no_verdict"] = float(verdict)
        s["yes_no"] = float(verdict and s["key_facts"] in (None, 1.0))
    return s


def is_correct(q: Question, result: Answer, s: Mapping[str, float | None]) -> bool:
    """Unanswerable: declined. A list: every paper it credits is gold, and half the gold papers
    come with their fact. Metadata: exactly the gold papers. Otherwise (LitQA2-style): every key
    fact stated, the right verdict, and a gold paper cited with a fact."""
    if q.type == "unanswerable":
        return result.abstained
    if result.abstained:
        return False
    if q.type == "list":
        enough = s["key_facts"] if s.get("key_facts") is not None else s.get("answer_recall")
        return s.get("answer_precision") == 1.0 and (enough or 0.0) >= 0.5
    if q.type == "metadata":
        return s.get("answer_precision") == 1.0 and s.get("answer_recall") == 1.0
    return (s.get("key_facts") in (None, 1.0) and s.get("yes_no") in (None, 1.0)
            and s.get("gold_cited") in (None, 1.0))


def failures(q: Question, result: Answer, s: Mapping[str, float | None],
             facts: Sequence[FactResult]) -> list[dict[str, Any]]:
    """Why the answer is not right, one reason each: answered the unanswerable, false abstention,
    wrong verdict, fact missing / negated / wrong quantity / unsupported / wrong paper."""
    if q.type == "unanswerable":
        return [] if result.abstained else [{"code": "answered the unanswerable", "detail": ""}]
    if result.abstained:
        return [{"code": "false abstention", "detail": result.abstain_reason or ""}]
    out: list[dict[str, Any]] = []
    if q.yes_no and not s.get("yes_no_verdict"):
        said = leading_verdict(result.text)
        out.append({"code": "wrong verdict", "detail": f"expected {q.yes_no!r}, the answer opens with "
                    f"{said!r}" if said else f"expected {q.yes_no!r}, the answer gives no verdict"})
    for f in facts:
        if f.state != "stated":
            code = "fact missing" if f.state == "missing" else f"fact {f.state}"
            out.append({"code": code, "detail": f.label, "papers": list(f.papers)})
    extra = [c.paper_id for c in result.citations if c.paper_id not in q.gold_papers]
    if q.gold_papers and (not s.get("citation_recall") or (q.type in ("list", "metadata") and extra)):
        out.append({"code": "wrong paper", "detail": "cites " + (", ".join(extra) or "no gold paper")})
    return out
