"""The hand-written evaluation questions, both splits (eval/datasets/dev.jsonl, tuned on, and
eval/datasets/test.jsonl, held out), are well formed and agree with the bundled corpus: gold ids
exist, every key fact is stated in a gold abstract sentence (not under a negation, with its near
word) and not already in the question, author questions point at records that have authors, the
splits share no question and are as large as issue 17 asks. Bad lines are reported by line number."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from eval.dataset import NEAR_DOMAIN_TAGS, Fact
from eval.metrics import fact_covered, fact_state
from rag.ingest.formats import Problem, read_file
from rag.settings import BUNDLED_CORPUS, PROJECT_ROOT
from rag.text.clean import split_sentences
from rag.types import Paper

SPLITS = {"dev": PROJECT_ROOT / "eval" / "datasets" / "dev.jsonl",
          "test": PROJECT_ROOT / "eval" / "datasets" / "test.jsonl"}

REQUIRED_KEYS = frozenset({"id", "question", "gold_papers", "reference_answer", "key_facts", "type",
                           "tags"})
OPTIONAL_KEYS: frozenset[str] = frozenset({"yes_no", "figures", "near_papers", "invented"})
TYPES = frozenset({"single", "multi", "list", "metadata", "unanswerable"})
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


def _is_fact(value: object) -> bool:
    """A list of alternatives, or {"any": [...], "near": [...], "role": [...]}."""
    if isinstance(value, dict):
        return set(value) <= {"any", "near", "role"} and _is_str_list(value.get("any")) and bool(value["any"]) \
            and _is_str_list(value.get("near", [])) and _is_str_list(value.get("role", []))
    return _is_str_list(value) and bool(value)


def _fact(value: Any) -> Fact:
    if isinstance(value, dict):
        return Fact(tuple(value["any"]), tuple(value.get("near", ())), tuple(value.get("role", ())))
    return Fact(tuple(value))


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
        if not isinstance(facts, list) or not all(_is_fact(a) for a in facts):
            bad.append(f"line {n}: key_facts must be a list of facts (lists of strings or any/near objects)")
        figures = q.get("figures", {})
        if not isinstance(figures, dict) or not all(isinstance(v, list) and all(_is_fact(f) for f in v)
                                                    for v in figures.values()):
            bad.append(f"line {n}: figures must map paper ids to lists of facts")
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


def _rows(split: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in SPLITS[split].read_text().splitlines() if line.strip()]


def _shape_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    unanswerable = [r for r in rows if r["type"] == "unanswerable"]
    return {"questions": len(rows), "yes/no": sum("yes_no" in r for r in rows),
            "yes/no 'no'": sum(r.get("yes_no") == "no" for r in rows),
            "unanswerable": len(unanswerable),
            "near-domain": sum(bool(NEAR_DOMAIN_TAGS & set(r["tags"])) for r in unanswerable),
            "list": sum(r["type"] == "list" for r in rows), "two-part": sum("two-part" in r["tags"] for r in rows)}


def test_the_test_split_is_as_large_as_issue_17_asks():
    counts = _shape_counts(_rows("test"))
    need = {"questions": 300, "yes/no": 40, "unanswerable": 60, "near-domain": 40, "list": 40, "two-part": 30}
    assert not {k: counts[k] for k, v in need.items() if counts[k] < v}, counts
    assert counts["yes/no 'no'"] * 2 == counts["yes/no"], "half the yes/no questions are 'no'"


def test_the_dev_split_grew_the_same_way():
    counts = _shape_counts(_rows("dev"))
    need = {"yes/no": 40, "list": 40, "two-part": 30}
    assert not {k: counts[k] for k, v in need.items() if counts[k] < v}, counts


def test_the_test_split_covers_every_question_shape():
    tags = Counter(t for r in _rows("test") for t in r["tags"])
    shapes = ("paraphrase", "two-part", "yes-no", "how", "number-unit", "comparison", "multi-topic",
              "author", "venue", "year", "out-of-scope", "near-domain", "missing-attribute",
              "invented-name", "adjacent-topic")
    assert not [s for s in shapes if tags[s] == 0], tags


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def test_the_splits_share_no_question_word_for_word_or_nearly():
    dev, test = _rows("dev"), _rows("test")
    def text(r: dict[str, Any]) -> str:
        return " ".join(r["question"].lower().split())

    same = {text(r) for r in dev} & {text(r) for r in test}
    assert not same, same
    near = [(a["id"], b["id"]) for a in dev for b in test
            if len(_words(a["question"]) & _words(b["question"]))
            >= 0.8 * len(_words(a["question"]) | _words(b["question"]))]
    assert not near, f"near-duplicates across the splits (token Jaccard >= 0.8): {near}"


def test_the_splits_are_what_build_splits_writes():
    script = PROJECT_ROOT / "eval" / "datasets" / "build_splits.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ids_are_unique_across_the_splits():
    ids = Counter(r["id"] for split in SPLITS for r in _rows(split))
    assert not [i for i, n in ids.items() if n > 1]


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


def _stated_in(fact: Fact, papers: list[Paper]) -> bool:
    return any(fact_state(fact, s) == "stated" for p in papers for s in split_sentences(p.text))


def test_every_key_fact_is_stated_in_its_gold_abstract(questions, corpus):
    """So that the metric can credit it: an alternative in one sentence of a gold abstract, not
    denied in its clause, with its role in that clause and its near word within reach. A list question's i-th fact is in
    its i-th gold paper; a figure is in the paper it is listed under."""
    bad = []
    for n, q in questions:
        if q.get("type") not in ("single", "multi", "list"):
            continue
        gold = q.get("gold_papers", [])
        for i, raw in enumerate(q.get("key_facts", [])):
            papers = [gold[i]] if q["type"] == "list" else gold
            if not _stated_in(_fact(raw), [corpus[g] for g in papers if g in corpus]):
                bad.append(f"line {n}: key fact {raw!r} is stated in no sentence of {papers}")
        for pid, facts in q.get("figures", {}).items():
            bad += [f"line {n}: figure {raw!r} is stated in no sentence of {pid}" for raw in facts
                    if pid not in gold or not _stated_in(_fact(raw), [corpus[pid]])]
    assert not bad, "\n".join(bad)


def test_list_questions_have_one_fact_per_gold_paper(questions):
    bad = [f"line {n}: {len(q['key_facts'])} facts for {len(q['gold_papers'])} gold papers"
           for n, q in _of_type(questions, "list") if len(q["key_facts"]) != len(q["gold_papers"])]
    bad += [f"line {n}: a list with {len(q['gold_papers'])} gold paper(s)" for n, q in _of_type(questions, "list")
            if len(q["gold_papers"]) < 2]
    assert not bad, "\n".join(bad)


def test_metadata_questions_must_list_every_gold_paper(questions):
    """Their key facts are the gold ids, in gold order (build_splits.py fills them from the catalogue)."""
    bad = [f"line {n}: key facts {q['key_facts']} are not the gold ids" for n, q in _of_type(questions, "metadata")
           if q["key_facts"] != [[g] for g in q["gold_papers"]]]
    assert not bad, "\n".join(bad)


def test_invented_names_are_in_no_abstract_and_near_papers_exist(questions, corpus):
    bad = []
    for n, q in questions:
        if q.get("invented") and any(fact_covered([q["invented"]], p.text) for p in corpus.values()):
            bad.append(f"line {n}: the invented name {q['invented']!r} is in an abstract")
        bad += [f"line {n}: unknown near paper {p}" for p in q.get("near_papers", []) if p not in corpus]
    assert not bad, "\n".join(bad)


def test_no_key_fact_is_already_in_its_question(questions):
    """A fact the question gives away is free: it would make the score flatter the answerer."""
    bad = [f"line {n}: key fact {raw!r} is already in the question"
           for n, q in questions for raw in q.get("key_facts", [])
           if fact_covered(_fact(raw).any, q.get("question", ""))]
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
