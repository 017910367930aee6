"""The hand-written evaluation questions, both splits (eval/datasets/dev.jsonl, tuned on, and
eval/datasets/test.jsonl, held out), are well formed and agree with the bundled corpus: gold ids
exist, key facts are really in the gold abstracts and not already in the question, author
questions point at records that have authors. Bad lines are reported by line number."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from eval.metrics import fact_covered
from rag.ingest.formats import Problem, read_file
from rag.settings import BUNDLED_CORPUS, PROJECT_ROOT
from rag.types import Paper

SPLITS = {"dev": PROJECT_ROOT / "eval" / "datasets" / "dev.jsonl",
          "test": PROJECT_ROOT / "eval" / "datasets" / "test.jsonl"}

REQUIRED_KEYS = frozenset({"id", "question", "gold_papers", "reference_answer", "key_facts", "type",
                           "tags"})
OPTIONAL_KEYS: frozenset[str] = frozenset({"yes_no"})
TYPES = frozenset({"single", "multi", "metadata", "unanswerable"})
# Near-duplicates merged into another record: a gold set must name the kept copy.
MERGED_DUPLICATES = {"003-0365": "000-0061"}

MIN_QUESTIONS = 40
MIN_PER_TYPE = {"multi": 8, "metadata": 6, "unanswerable": 6}


@dataclass(frozen=True)
class Line:
    number: int
    raw: str
    record: Any  # the decoded JSON value, or None when the line is not valid JSON
    error: str | None


@pytest.fixture(scope="module", params=sorted(SPLITS))
def lines(request) -> list[Line]:
    out: list[Line] = []
    path = SPLITS[request.param]
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            out.append(Line(number, raw, json.loads(raw), None))
        except json.JSONDecodeError as exc:
            out.append(Line(number, raw, None, str(exc)))
    return out


@pytest.fixture(scope="module")
def questions(lines: list[Line]) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) for every line that decoded to a JSON object."""
    return [(ln.number, ln.record) for ln in lines if isinstance(ln.record, dict)]


@pytest.fixture(scope="module")
def corpus() -> dict[str, Paper]:
    papers: dict[str, Paper] = {}
    for path in sorted(BUNDLED_CORPUS.glob("0*.txt")):
        for item in read_file(path):
            if isinstance(item, Problem):
                continue
            papers[item.id] = item
    assert papers, f"no papers parsed from {BUNDLED_CORPUS}"
    return papers


def _of_type(questions, kind: str):
    return [(n, q) for n, q in questions if q.get("type") == kind]


def _is_str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


def test_every_line_is_a_json_object(lines):
    bad = [
        f"line {ln.number}: {ln.error or 'not a JSON object'}"
        for ln in lines
        if not isinstance(ln.record, dict)
    ]
    assert not bad, "invalid lines:\n" + "\n".join(bad)


def test_every_question_has_exactly_the_known_keys(questions):
    bad = []
    for n, q in questions:
        keys = set(q)
        missing = REQUIRED_KEYS - keys
        unknown = keys - REQUIRED_KEYS - OPTIONAL_KEYS
        if missing or unknown:
            bad.append(f"line {n}: missing {sorted(missing)}, unknown {sorted(unknown)}")
    assert not bad, "\n".join(bad)


def test_every_field_has_the_right_shape(questions):
    bad = []
    for n, q in questions:
        if not (isinstance(q.get("id"), str) and q["id"].strip()):
            bad.append(f"line {n}: id must be a non-empty string")
        if not (isinstance(q.get("question"), str) and q["question"].strip()):
            bad.append(f"line {n}: question must be a non-empty string")
        if not isinstance(q.get("gold_papers"), list) or not all(
            isinstance(g, str) for g in q["gold_papers"]
        ):
            bad.append(f"line {n}: gold_papers must be a list of ids")
        if not isinstance(q.get("reference_answer"), str):
            bad.append(f"line {n}: reference_answer must be a string")
        facts = q.get("key_facts")
        if not isinstance(facts, list) or not all(_is_str_list(a) and a for a in facts):
            bad.append(f"line {n}: key_facts must be a list of non-empty lists of strings")
        if q.get("type") not in TYPES:
            bad.append(f"line {n}: type {q.get('type')!r} is not one of {sorted(TYPES)}")
        if not _is_str_list(q.get("tags")):
            bad.append(f"line {n}: tags must be a list of non-empty strings")
    assert not bad, "\n".join(bad)


def test_question_ids_are_unique(questions):
    seen: dict[str, int] = {}
    bad = []
    for n, q in questions:
        qid = q.get("id")
        if qid in seen:
            bad.append(f"line {n}: id {qid!r} already used on line {seen[qid]}")
        else:
            seen[qid] = n
    assert not bad, "\n".join(bad)


def test_the_set_has_at_least_40_questions(questions):
    assert len(questions) >= MIN_QUESTIONS, f"only {len(questions)} questions"


def test_the_test_split_is_large_and_covers_every_question_shape():
    rows = [json.loads(line) for line in SPLITS["test"].read_text().splitlines() if line.strip()]
    tags = Counter(t for r in rows for t in r["tags"])
    assert len(rows) >= 120
    assert sum(r["type"] == "unanswerable" for r in rows) >= 25
    shapes = ("paraphrase", "two-part", "yes-no", "how", "number-unit", "comparison", "multi-topic",
              "author", "venue", "year", "out-of-scope", "near-domain", "missing-attribute",
              "invented-name")
    assert not [s for s in shapes if tags[s] == 0], tags


def test_the_splits_share_no_question():
    def texts(path):
        return {" ".join(json.loads(line)["question"].lower().split())
                for line in path.read_text().splitlines() if line.strip()}
    assert not texts(SPLITS["dev"]) & texts(SPLITS["test"])


def test_the_set_mixes_multi_metadata_and_unanswerable_questions(questions):
    counts = Counter(q.get("type") for _, q in questions)
    short = {kind: counts[kind] for kind, need in MIN_PER_TYPE.items() if counts[kind] < need}
    assert not short, f"too few questions of type {short} (need {MIN_PER_TYPE})"


def test_every_gold_paper_exists_in_the_corpus(questions, corpus):
    bad = [
        f"line {n}: unknown gold paper {g!r}"
        for n, q in questions
        for g in q.get("gold_papers", [])
        if g not in corpus
    ]
    assert not bad, "\n".join(bad)


def test_gold_papers_name_the_kept_copy_of_merged_duplicates(questions):
    bad = [
        f"line {n}: gold paper {g} is a merged duplicate, use {MERGED_DUPLICATES[g]}"
        for n, q in questions
        for g in q.get("gold_papers", [])
        if g in MERGED_DUPLICATES
    ]
    assert not bad, "\n".join(bad)


def test_content_questions_have_a_gold_paper_with_an_abstract(questions, corpus):
    bad = []
    for n, q in questions:
        if q.get("type") not in ("single", "multi"):
            continue
        gold = [corpus[g] for g in q.get("gold_papers", []) if g in corpus]
        if not any(p.has_abstract for p in gold):
            bad.append(f"line {n}: no gold paper with an abstract")
    assert not bad, "\n".join(bad)


def test_key_facts_appear_in_a_gold_abstract(questions, corpus):
    """Each fact has an alternative that a gold abstract states (at word boundaries)."""
    bad = []
    for n, q in questions:
        if q.get("type") not in ("single", "multi"):
            continue
        gold = [corpus[g] for g in q.get("gold_papers", []) if g in corpus]
        for alternatives in q.get("key_facts", []):
            if not any(fact_covered(alternatives, p.text) or fact_covered(alternatives, p.abstract)
                       for p in gold):
                bad.append(f"line {n}: key fact {alternatives!r} is in no gold abstract")
    assert not bad, "\n".join(bad)


def test_no_key_fact_is_already_in_its_question(questions):
    """A fact the question gives away is free: it would make the score flatter the answerer."""
    bad = [f"line {n}: key fact {alternatives!r} is already in the question"
           for n, q in questions for alternatives in q.get("key_facts", [])
           if fact_covered(alternatives, q.get("question", ""))]
    assert not bad, "\n".join(bad)


def test_yes_no_questions_say_which(questions):
    bad = [f"line {n}: yes_no must be 'yes' or 'no'" for n, q in questions
           if "yes_no" in q and q["yes_no"] not in ("yes", "no")]
    bad += [f"line {n}: a yes-no question without yes_no" for n, q in questions
            if "yes-no" in q.get("tags", []) and "yes_no" not in q]
    assert not bad, "\n".join(bad)


def test_metadata_questions_point_at_papers_with_authors(questions, corpus):
    bad = []
    for n, q in _of_type(questions, "metadata"):
        gold = q.get("gold_papers", [])
        if not gold:
            bad.append(f"line {n}: metadata question without gold papers")
        for g in gold:
            if g in corpus and not corpus[g].authors:
                bad.append(f"line {n}: gold paper {g} has no authors")
    assert not bad, "\n".join(bad)


def test_multi_questions_have_two_or_more_gold_papers(questions):
    bad = [
        f"line {n}: multi question with {len(q.get('gold_papers', []))} gold paper(s)"
        for n, q in _of_type(questions, "multi")
        if len(set(q.get("gold_papers", []))) < 2
    ]
    assert not bad, "\n".join(bad)


def test_unanswerable_questions_have_no_key_facts(questions):
    bad = [
        f"line {n}: unanswerable question lists key facts"
        for n, q in _of_type(questions, "unanswerable")
        if q.get("key_facts")
    ]
    assert not bad, "\n".join(bad)
