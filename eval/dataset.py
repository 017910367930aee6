"""Question sets: the bundled splits and your own (JSON Lines or CSV), read into Questions. A bad
row is reported as file:line and a reason, all of them at once, and nothing is run.

Columns (JSONL keys or a CSV header row); only ``question`` is required:
- ``question``
- ``reference_answer``: free text (scored by token F1 only)
- ``key_facts``: what a right answer must state. JSONL: a list of facts, each a list of
  alternatives or ``{"any": [...], "near": [...], "role": [...]}`` (the figure counts only in a
  clause that also says a near word; the thing only in a clause that gives it its role).
  CSV: facts separated by ``;``, alternatives by ``|``, or a JSON list.
- ``gold_papers``: paper ids that answer it (CSV: separated by ``;``)
- ``gold_phrases``: when you do not know the ids: phrases of the abstracts that answer it;
  every indexed paper whose abstract says one is gold (CSV: separated by ``;``)
- ``type``: single (default), multi, list, metadata or unanswerable; ``yes_no``: yes or no;
  ``id`` (default: file name and line); ``tags`` (CSV: separated by ``;``)."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.errors import InputError
from rag.settings import PROJECT_ROOT
from rag.text.lexicon import alnum_words

DATASETS = PROJECT_ROOT / "eval" / "datasets"
DEFAULT_DATASET = DATASETS / "dev.jsonl"  # what is tuned on
SPLITS = {"dev": DATASETS / "dev.jsonl", "test": DATASETS / "test.jsonl"}
TYPES = ("single", "multi", "list", "metadata", "unanswerable")
NEAR_DOMAIN_TAGS = frozenset({"near-domain", "missing-attribute", "invented-name", "adjacent-topic",
                              "false-premise"})


# One hash per test question (written by build_splits.py): what "test content" is, so that the
# test split is recognised under any file name without opening it.
TEST_FINGERPRINTS = DATASETS / "test_fingerprints.txt"
HANDFUL = 5  # a question file sharing more test questions than this is a look at test


def fingerprint(question: str) -> str:
    """A question's identity, blind to case, spacing and punctuation."""
    words = " ".join(alnum_words(question.lower()))
    return hashlib.sha256(words.encode()).hexdigest()[:16]


def shared_with_test(questions: Sequence[Question]) -> int:
    """How many of ``questions`` are test questions (by content, not by file name)."""
    if not TEST_FINGERPRINTS.exists():
        raise InputError(f"{TEST_FINGERPRINTS} is missing: run eval/datasets/build_splits.py")
    sealed = set(TEST_FINGERPRINTS.read_text(encoding="utf-8").split())
    return sum(fingerprint(q.question) in sealed for q in questions)


def is_test_content(questions: Sequence[Question]) -> bool:
    return shared_with_test(questions) > HANDFUL


def refuse_test(questions: Sequence[Question], doing: str) -> None:
    """InputError when the questions are test content: nothing is chosen on test."""
    shared = shared_with_test(questions)
    if shared > HANDFUL:
        raise InputError(f"{shared} of these {len(questions)} questions are test questions: the test split "
                         f"is never {doing}; pass dev or your own questions.")


class DatasetError(InputError):
    """A question file has bad rows; the message lists each as file:line: reason."""


@dataclass(frozen=True)
class Fact:
    """One thing a right answer states: any of ``any``; with ``near`` (and ``role``), only in a
    clause that also says one of the near words (and one of the roles)."""

    any: tuple[str, ...]
    near: tuple[str, ...] = ()  # the measure a figure is of ("parameters", "F1")
    role: tuple[str, ...] = ()  # the part a thing plays ("hard negative")


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold_papers: tuple[str, ...]
    reference_answer: str
    key_facts: tuple[Fact, ...]
    type: str
    tags: tuple[str, ...]
    yes_no: str | None = None  # "yes" or "no": the answer's leading verdict must say it
    figures: tuple[tuple[str, tuple[Fact, ...]], ...] = ()  # list questions: each paper's figures
    gold_phrases: tuple[str, ...] = ()
    near_papers: tuple[str, ...] = field(default=(), compare=False)

    @property
    def near_domain(self) -> bool:
        return self.type == "unanswerable" and bool(NEAR_DOMAIN_TAGS & set(self.tags))


def _fact(value: Any) -> Fact:
    if isinstance(value, dict):
        if set(value) - {"any", "near", "role"} or not value.get("any"):
            raise ValueError('a fact object has "any" (and optionally "near" and "role") lists')
        role = value.get("role", [])
        return Fact(_strings(value["any"], "a fact's any"), _strings(value.get("near", []), "near"),
                    _strings([role] if isinstance(role, str) else role, "role"))
    if isinstance(value, str):
        value = [value]
    return Fact(_strings(value, "a key fact"))


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{what} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _split(text: str, sep: str = ";") -> list[str]:
    return [part.strip() for part in text.split(sep) if part.strip()]


def _csv_facts(text: str) -> Any:
    if text.strip().startswith("["):
        return json.loads(text)
    return [_split(group, "|") for group in _split(text)]


def from_record(row: dict[str, Any], default_id: str, csv_row: bool = False) -> Question:
    """One question from a JSONL object or a CSV row; ValueError with the reason when bad."""
    if not isinstance(row.get("question"), str) or not row["question"].strip():
        raise ValueError("no 'question' text")
    get = (lambda k: row.get(k) or "") if csv_row else (lambda k: row.get(k))
    facts = _csv_facts(str(get("key_facts"))) if csv_row else get("key_facts") or []
    if not isinstance(facts, list):
        raise ValueError("key_facts must be a list")
    kind = (get("type") or "single").strip()
    if kind not in TYPES:
        raise ValueError(f"type {kind!r} is not one of {', '.join(TYPES)}")
    yes_no = (get("yes_no") or "").strip().lower() or None
    if yes_no not in (None, "yes", "no"):
        raise ValueError(f"yes_no must be 'yes' or 'no', not {yes_no!r}")
    lists = {k: (_split(str(get(k))) if csv_row else get(k) or []) for k in ("gold_papers", "gold_phrases", "tags")}
    for key, value in lists.items():
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ValueError(f"{key} must be a list of non-empty strings")
    figures = get("figures") or {}
    if not isinstance(figures, dict):
        raise ValueError("figures must map paper ids to lists of facts")
    question = Question(
        id=str(get("id") or default_id), question=row["question"].strip(),
        gold_papers=tuple(lists["gold_papers"]), reference_answer=str(get("reference_answer") or ""),
        key_facts=tuple(_fact(f) for f in facts), type=kind, tags=tuple(lists["tags"]), yes_no=yes_no,
        figures=tuple((pid, tuple(_fact(f) for f in fs)) for pid, fs in figures.items()),
        gold_phrases=tuple(lists["gold_phrases"]), near_papers=tuple(get("near_papers") or ()))
    if kind == "list" and question.key_facts and len(question.key_facts) != len(question.gold_papers):
        raise ValueError("a list question has one key fact per gold paper, in gold order")
    if kind == "unanswerable" and question.key_facts:
        raise ValueError("an unanswerable question has no key facts (its gold papers, if any, are the "
                         "papers it is close to)")
    return question


def _rows(path: Path) -> list[tuple[int, Any, bool]]:
    """(line number, record or error text, is CSV) for every non-empty row."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() in (".csv", ".tsv"):
        reader = csv.DictReader(text.splitlines(), delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
        return [(reader.line_num, row, True) for row in reader]
    out: list[tuple[int, Any, bool]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append((number, json.loads(line), False))
            except json.JSONDecodeError as exc:
                out.append((number, f"not valid JSON ({exc.msg})", False))
    return out


def load(path: Path = DEFAULT_DATASET) -> list[Question]:
    """Every question of a .jsonl, .csv or .tsv file; DatasetError listing every bad row."""
    try:
        rows = _rows(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from exc
    questions: list[Question] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, row, csv_row in rows:
        try:
            if isinstance(row, str):
                raise ValueError(row)
            if not isinstance(row, dict):
                raise ValueError("not a JSON object")
            q = from_record(row, f"{path.stem}:{number}", csv_row)
            if q.id in seen:
                raise ValueError(f"id {q.id!r} already used on line {seen[q.id]}")
            seen[q.id] = number
            questions.append(q)
        except (ValueError, TypeError, json.JSONDecodeError) as exc:
            problems.append(f"{path.name}:{number}: {exc}")
    if problems:
        raise DatasetError(f"{len(problems)} bad row(s) in {path}; nothing was run:\n  " + "\n  ".join(problems))
    if not questions:
        raise DatasetError(f"{path} holds no questions (columns: question, reference_answer, key_facts, "
                           "gold_papers or gold_phrases)")
    return questions
