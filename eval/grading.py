"""Grading one answer against one question: which of its sentences can earn credit, which key
facts they state, and what went wrong. Pure: the answer, the question and the catalogue records
of the papers involved in, scores and reasons out.

A key fact counts only when it is stated in a *claim*: a sentence of the answer that cites a
paper and that the engine kept as supported (for metadata answers: that the catalogue backs,
checked here), not denied in its clause, with its "near" word and its role in that clause. The
claim must cite a gold paper (for list and metadata questions: the fact's own paper).

Concise or wrong: a fact counts only in the answer's *lead*, the first two sentences or the
first LEAD_WORDS words, whichever is longer; in a list or metadata answer, only on its paper's
line, and a line longer than LINE_WORDS words earns nothing. A lead span ("**38.8%**: ...") is
the first thing a reader reads: when it states none of the question's facts, its sentence earns
none either."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from eval.dataset import Fact, Question
from eval.metrics import (
    answer_words,
    citation_precision,
    citation_recall,
    countable_facts,
    fact_state,
    fact_tokens,
    is_verbatim,
    leading_verdict,
    token_f1,
    within_words,
)
from rag.text.lexicon import tokens
from rag.types import Answer, Paper

_PREFIX = re.compile(r"(?:- [^\n]*?: )?(?:\*\*[^*\n]+\*\*: )?$")
_SPAN = re.compile(r"\*\*([^*\n]+)\*\*: $")
LEAD_WORDS = 60  # a prose answer's lead: its first two sentences, or this many words if longer
LINE_WORDS = 40  # a list answer's line for one paper: at most this many words


@dataclass(frozen=True)
class Claim:
    """One cited sentence as shown (with its "- Label: " or "**span**: " lead), its papers, and
    whether it may earn credit."""

    text: str
    body: str
    papers: tuple[str, ...]
    supported: bool
    limit: int | None = None  # how many characters of ``text`` are in the lead (None: all of it)
    span: str = ""  # the "**span**" that leads it, if any
    wrong_lead: bool = False  # its span says none of the question's facts: it earns nothing


@dataclass(frozen=True)
class FactResult:
    fact: Fact
    state: str  # stated, negated, wrong quantity, unsupported, wrong paper, under a wrong lead,
    #             beyond the lead (after the lead, or on a list line over LINE_WORDS), missing
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


def _lead_end(result: Answer) -> int:
    """How many words of the answer are its lead: its first two sentences or LEAD_WORDS words,
    whichever is longer."""
    cursor = 0
    for sentence in result.sentences[:2]:
        at = result.text.find(sentence.text.rstrip(), cursor)
        if at >= 0:
            cursor = at + len(sentence.text.rstrip())
    return max(answer_words(result.text[:cursor]), LEAD_WORDS)


def _limit(result: Answer, start: int, shown: str, listing: bool, lead: int) -> int | None:
    """How much of a claim (``shown``, at ``start`` in the answer) can earn credit."""
    if listing:
        line_start = result.text.rfind("\n", 0, start) + 1
        line_end = result.text.find("\n", start)
        line = result.text[line_start:line_end if line_end >= 0 else len(result.text)]
        return 0 if answer_words(line) > LINE_WORDS else None
    return within_words(shown, lead - answer_words(result.text[:start]))


def claims(result: Answer, catalogue: Mapping[str, Paper], listing: bool = False) -> list[Claim]:
    """The answer's cited sentences in order, each with the lead the reader sees before it and
    how much of it is within the answer's lead (``listing``: a list or metadata question, whose
    lines are graded one by one)."""
    by_key = {c.key: c.paper_id for c in result.citations}
    out, cursor = [], 0
    lead_words = _lead_end(result)
    for sentence in result.sentences:
        body = sentence.text.rstrip()
        at = result.text.find(body, cursor)
        lead, limit = "", None
        if at >= 0:
            start = max(cursor, result.text.rfind("\n", 0, at) + 1)
            match = _PREFIX.search(result.text[start:at])
            lead = match.group(0) if match else ""
            cursor = at + len(body)
            limit = _limit(result, at - len(lead), lead + body, listing, lead_words)
        papers = tuple(by_key[k] for k in sentence.keys if k in by_key)
        supported = sentence.supported and bool(papers)
        if result.route == "metadata":
            supported = bool(papers) and all(catalogue_backs(body, lead, catalogue.get(p)) for p in papers)
        span = _SPAN.search(lead)
        out.append(Claim(lead + body, body, papers, supported, limit, span.group(1) if span else ""))
    return out


def asked_words(question: str) -> frozenset[str]:
    """The question's words: a negation it says itself ("works without labels?") denies nothing."""
    return frozenset(w.lower() for w in tokens(question))


def fact_result(fact: Fact, allowed: Sequence[str], found: Sequence[Claim],
                asked: frozenset[str] = frozenset()) -> FactResult:
    """The best state the fact reaches in the answer's claims (see FactResult.state)."""
    states: set[str] = set()
    for claim in found:
        state = fact_state(fact, claim.text, asked, claim.limit)
        right_paper = not allowed or bool(set(claim.papers) & set(allowed))
        if state == "missing":
            if right_paper and claim.supported and claim.limit is not None \
                    and fact_state(fact, claim.text, asked) == "stated":
                states.add("under a wrong lead" if claim.wrong_lead else "beyond the lead")
            continue
        if not right_paper:
            states.add("wrong paper" if state == "stated" else state)
        elif not claim.supported:
            states.add("unsupported" if state == "stated" else state)
        else:
            states.add(state)
    order = ("stated", "negated", "wrong quantity", "unsupported", "wrong paper", "under a wrong lead",
             "beyond the lead")
    return FactResult(fact, next((s for s in order if s in states), "missing"), tuple(allowed))


def _wrong_lead(claim: Claim, facts: Sequence[Fact], asked: frozenset[str]) -> bool:
    """A lead span that is not a verdict and says none of the question's facts, nor a part of
    one ("**six**" for "six existing methods"; its measure is the sentence's to say): the
    reader's first words are not the answer, so its sentence earns nothing."""
    if not claim.span or not facts or leading_verdict(claim.span):
        return False
    said = " ".join(fact_tokens(claim.span))
    return not any(fact_state(Fact(f.any), claim.span, asked) == "stated"
                   or any(said and said in " ".join(fact_tokens(alt)) for alt in f.any) for f in facts)


def checked_claims(q: Question, found: Sequence[Claim]) -> list[Claim]:
    """The claims with those under a wrong lead span (see ``_wrong_lead``) earning nothing."""
    asked = asked_words(q.question)
    facts = [*q.key_facts, *(f for _, fs in q.figures for f in fs)]
    return [replace(c, limit=0, wrong_lead=True) if _wrong_lead(c, facts, asked) else c for c in found]


def fact_results(q: Question, found: Sequence[Claim]) -> list[FactResult]:
    """Every countable key fact; a list or metadata question's i-th fact belongs to its i-th gold
    paper, any other fact to any gold paper."""
    aligned = q.type in ("list", "metadata") and len(q.key_facts) == len(q.gold_papers)
    asked = asked_words(q.question)
    out = []
    for i, fact in enumerate(q.key_facts):
        if fact not in countable_facts([fact], q.question):
            continue
        allowed = (q.gold_papers[i],) if aligned else q.gold_papers
        out.append(fact_result(fact, allowed, found, asked))
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
    credited = {p for c in found if c.supported for p in c.papers}  # every paper it lists
    earning = [c for c in found if c.supported and c.limit != 0]  # within the lead, lines not too long
    s["key_facts"] = _share([f.state == "stated" for f in facts])
    s["token_f1"] = token_f1(result.text, q.reference_answer) if q.reference_answer else None
    if q.gold_papers:
        s["citation_precision"] = citation_precision(cited, q.gold_papers)
        s["citation_recall"] = citation_recall(cited, q.gold_papers)
        gold_claims = [c for c in earning if set(c.papers) & set(q.gold_papers)]
        with_fact = any(f.state == "stated" for f in facts) if facts else bool(gold_claims)
        s["gold_cited"] = float(bool(gold_claims) and with_fact) if q.type in ("single", "multi") else None
    if q.type in ("list", "metadata") and q.gold_papers:
        s["answer_precision"] = citation_precision(sorted(credited), q.gold_papers) or 0.0
        s["answer_recall"] = citation_recall({p for c in earning for p in c.papers}, q.gold_papers)
    if q.figures:
        asked = asked_words(q.question)
        figures = [fact_result(f, (pid,), found, asked) for pid, fs in q.figures for f in fs]
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
    wrong verdict, fact missing / negated / wrong quantity / unsupported / wrong paper / under a
    wrong lead / beyond the lead."""
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
