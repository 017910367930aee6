"""Write eval/datasets/train_generated.jsonl: training questions for the reader, made from the
bundled abstracts by templates (the local 1.5B model writes about one question per 10-30 s on two
busy cores, too slow for hundreds; see the README). Never used for evaluation.

Three kinds, each labelled by construction:
- name: "What is the name of the <what the abstract says it is>?" from an abstract's "we propose
  X, a ..." sentence; the key fact is X, the gold paper that abstract;
- figure: "<What is measured> for <method>?" from a sentence that names the paper's method and
  gives a figure; the key fact is the figure (with a near word from the sentence);
- unanswerable near misses: a name question about an invented name, and a figure question about a
  real method asking for a quantity its abstract never gives (parameters, training time, ...);
- counted: the answerable twin of that near miss, "How many datasets is <method> evaluated on?"
  where the abstract counts them ("six datasets"); the key fact is the count, near the noun. Only
  for half the papers (``trains_on``: the first byte of the id's sha256 is even), so
  ``benchmarks/counted_questions.py`` can be read on the other half too. Without it the only
  "How many ... is X evaluated on?" the reader saw was a near miss. Tagged ``gate-only``: they
  teach whether the abstracts answer, not which sentence does (``rag train-reader`` leaves them
  out of the sentence data).

    .venv/bin/python -m eval.generate_training [--seed 3] [--per-kind 150]"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from eval.dataset import DATASETS
from rag.ingest.formats import Problem, read_file
from rag.settings import BUNDLED_CORPUS
from rag.text.clean import split_sentences
from rag.text.lexicon import tokens
from rag.text.numbers import number_spans
from rag.types import Paper

OUT = DATASETS / "train_generated.jsonl"
_APPOSITIVE = re.compile(r"\b(?:propose|present|introduce)s?\s+(?:the\s+|a\s+|an\s+)?([A-Z][\w-]+)"
                         r"(?:\s*\([^)]*\))?,\s+(?:a|an|the)\s+([^.;]{25,160})(?=[.;])")
_MISSING = (("parameters", "How many parameters does {m} have?"),
            ("GPU hours", "How many GPU hours does training {m} take?"),
            ("languages", "How many languages is {m} evaluated on?"),
            ("hospitals", "In how many hospitals was {m} tested?"))
_SYLLABLES = "zor vex qua lim tor fen dra mok sil pra nex ula bri cor tan vel".split()


def papers() -> list[Paper]:
    return [p for path in sorted(BUNDLED_CORPUS.glob("0*.txt")) for p in read_file(path)
            if not isinstance(p, Problem) and p.has_abstract]


def name_questions(paper: Paper) -> Iterator[dict]:
    m = _APPOSITIVE.search(paper.text)
    if m and paper.method and m.group(1).startswith(paper.method[:3]):
        what = m.group(2).strip().rstrip(",")
        if paper.method.lower() not in what.lower():
            yield {"question": f"What is the name of the {what}?", "gold_papers": [paper.id],
                   "key_facts": [[paper.method]], "type": "single", "tags": ["generated", "name"]}


def figure_questions(paper: Paper) -> Iterator[dict]:
    for sentence in split_sentences(paper.text):
        if not paper.method or paper.method not in sentence:
            continue
        spans = [s.group(0) for s in number_spans(sentence) if "%" in s.group(0) or "x" in s.group(0).lower()]
        words = [w for w in tokens(sentence) if w[0].isalpha() and len(w) > 5 and w != paper.method]
        if spans and words:
            near = words[-1]
            yield {"question": f"What figure does {paper.method} report for {near}?", "gold_papers": [paper.id],
                   "key_facts": [{"any": [spans[0]], "near": [near]}], "type": "single",
                   "tags": ["generated", "number"]}
            return


def unanswerable(paper: Paper, rng: random.Random) -> Iterator[dict]:
    text = paper.text.lower()
    absent = [template for unit, template in _MISSING if unit.split()[0] not in text]
    if paper.method and absent:
        yield {"question": rng.choice(absent).format(m=paper.method), "gold_papers": [], "key_facts": [],
               "type": "unanswerable", "tags": ["generated", "near-domain", "missing-attribute"]}
    m = _APPOSITIVE.search(paper.text)
    if m:
        invented = "".join(rng.sample(_SYLLABLES, 3)).capitalize() + rng.choice(["Net", "Former", "GPT", ""])
        what = m.group(2).strip()
        article = "an" if what[0].lower() in "aeiou" else "a"
        yield {"question": f"How does {invented}, {article} {what}, work?", "gold_papers": [],
               "key_facts": [], "type": "unanswerable", "tags": ["generated", "near-domain", "invented-name"]}


GATE_ONLY = "gate-only"
COUNTED = ("datasets", "benchmarks", "tasks", "languages")
_COUNT_WORDS = "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\d+"
COUNT = re.compile(rf"\b({_COUNT_WORDS})\s+(?:[\w-]+\s+){{0,2}}?({'|'.join(COUNTED)})\b", re.IGNORECASE)


def trains_on(paper_id: str) -> bool:
    """The half of the papers whose counted questions are training data."""
    return hashlib.sha256(paper_id.encode()).digest()[0] % 2 == 0


def counted_questions(paper: Paper) -> Iterator[dict]:
    if not paper.method or not trains_on(paper.id):
        return
    seen: set[str] = set()
    for m in COUNT.finditer(paper.text):
        noun = m.group(2).lower()
        if noun not in seen:
            seen.add(noun)
            yield {"question": f"How many {noun} is {paper.method} evaluated on?", "gold_papers": [paper.id],
                   "key_facts": [{"any": [m.group(1)], "near": [noun]}], "type": "single",
                   "tags": ["generated", "number", "counted", GATE_ONLY]}


def generate(seed: int, per_kind: int) -> list[dict]:
    rng = random.Random(seed)
    corpus = papers()
    rng.shuffle(corpus)
    kinds: dict[str, list[dict]] = {"name": [], "number": [], "unanswerable": [], "counted": []}
    for paper in corpus:
        kinds["name"] += name_questions(paper)
        kinds["number"] += figure_questions(paper)
        kinds["unanswerable"] += unanswerable(paper, rng)
        kinds["counted"] += counted_questions(paper)
    rows = [q for qs in kinds.values() for q in qs[:per_kind]]
    for i, row in enumerate(rows, start=1):
        row.update(id=f"g{i:04d}", reference_answer="")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--per-kind", type=int, default=150)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = generate(args.seed, args.per_kind)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    counts = {t: sum(t in r["tags"] for r in rows) for t in ("name", "number", "missing-attribute", "invented-name",
                                                             "counted")}
    print(f"wrote {len(rows)} questions to {args.out}: {counts}")


if __name__ == "__main__":
    main()
