"""Write eval/training/pairs.jsonl: the cross-encoder's training groups, from the bundled
abstracts (templates and the local model's questions) and the dev split (tagged by question id, so
a fold's own questions can be left out). Every group that overlaps a test question by content is
refused (eval.training.corpus.Guard) and counted.

A group is one question with texts and labels for one head:
- ``answers``: sentences of the target abstract and of its nearest neighbours, the ones that
  answer labelled 1 (ranking; also teaches ``answerable``);
- ``absent``: a near miss, sentences that look like an answer and are not (all labelled 0);
- ``yes``: one sentence, labelled 1 when it says yes to the question;
- ``qualifies``: abstracts, labelled 1 when the abstract meets the question's criterion.

    .venv/bin/python -m eval.training.build [--llm eval/training/llm_questions.jsonl]"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from eval.dataset import SPLITS, Question, load
from eval.generate_training import name_questions
from eval.train_reader import label
from eval.training import templates
from eval.training.corpus import Guard, Sentence, bundled_papers, sentences_of
from eval.training.llm_questions import OUT as LLM_FILE
from rag.text.lexicon import STOPWORDS, alnum_words
from rag.text.numbers import number_spans
from rag.types import Paper

OUT = LLM_FILE.parent / "pairs.jsonl"
SAME_PAPER, NEIGHBOURS = 5, 3  # negatives beside a target: sentences of its abstract, of neighbours


class Builder:
    def __init__(self, papers: Sequence[Paper], vectors: np.ndarray) -> None:
        self.papers = list(papers)
        self.by_id = {p.id: p for p in self.papers}
        self.sentences = {p.id: sentences_of(p) for p in self.papers}
        self.vectors = vectors
        self.guard = Guard.test_split()
        self.refused: Counter[str] = Counter()
        self.methods = sorted({p.method for p in self.papers if p.method})

    def neighbours(self, pid: str, k: int = 2) -> list[str]:
        i = next(n for n, p in enumerate(self.papers) if p.id == pid)
        order = np.argsort(-(self.vectors @ self.vectors[i]))
        return [self.papers[int(j)].id for j in order[1 : k + 1]]

    def rank(self, kind: str, question: str, positives: Sequence[Sentence], **extra: object) -> dict | None:
        if self.guard.refuses(question, [(s.paper, s.text) for s in positives]):
            self.refused[kind] += 1
            return None
        pid = positives[0].paper
        said = {s.text for s in positives}
        others = [s for s in self.sentences[pid] if s.text not in said][:SAME_PAPER]
        others += [s for n in self.neighbours(pid) for s in self.sentences[n][:NEIGHBOURS]]
        texts = [s.text for s in positives] + [s.text for s in others]
        papers = [s.paper for s in positives] + [s.paper for s in others]
        return {"head": "answers", "kind": kind, "question": question, "texts": texts, "papers": papers,
                "labels": [1] * len(positives) + [0] * len(others), **extra}

    def absent(self, kind: str, question: str, pid: str, **extra: object) -> dict | None:
        if self.guard.question_overlaps(question):
            self.refused[kind] += 1
            return None
        mine = self.sentences[pid]
        texts = ([s.text for s in mine if number_spans(s.text)] + [s.text for s in mine])[: SAME_PAPER + 1]
        texts = list(dict.fromkeys(texts))
        return {"head": "absent", "kind": kind, "question": question, "texts": texts, "papers": [pid] * len(texts),
                "labels": [0] * len(texts), **extra}

    def yes(self, kind: str, question: str, sentence: Sentence, answer: bool, **extra: object) -> dict | None:
        if self.guard.refuses(question, [(sentence.paper, sentence.text)]):
            self.refused[kind] += 1
            return None
        return {"head": "yes", "kind": kind, "question": question, "texts": [sentence.text],
                "papers": [sentence.paper], "labels": [int(answer)], **extra}

    def qualifies(self, kind: str, question: str, gold: Sequence[str], others: Sequence[str],
                  **extra: object) -> dict | None:
        if self.guard.question_overlaps(question):
            self.refused[kind] += 1
            return None
        ids = list(gold) + [o for o in others if o not in gold]
        return {"head": "qualifies", "kind": kind, "question": question,
                "texts": [self.by_id[i].text for i in ids], "papers": ids,
                "labels": [1] * len(gold) + [0] * (len(ids) - len(gold)), **extra}


def from_templates(b: Builder, papers: Sequence[Paper] | None = None) -> Iterator[dict | None]:
    """Template groups for ``papers`` (default: all of the builder's), their negatives drawn from
    the builder's whole collection."""
    for paper in b.papers if papers is None else papers:
        mine = b.sentences[paper.id]
        for q, s in templates.describe(paper, mine):
            yield b.rank("describe", q, [s])
            swapped = templates.sibling_entity(q, paper, b.methods[len(q) % 7 :: 7])
            if swapped:
                yield b.absent("near-entity", swapped, paper.id)
        for row in name_questions(paper):
            held = [s for s in mine if paper.method and paper.method in s.text][:1]
            if held:
                yield b.rank("name", row["question"], held)
        for q, found in templates.figures(paper, mine):
            yield b.rank("figure", q, [found]) if found else b.absent("near-measure", q, paper.id)
        for q in list(templates.missing(paper))[:2]:
            yield b.absent("near-missing", q, paper.id)
        for s in mine:
            for q, answer in templates.yes_no(s):
                yield b.yes("yes-template", q, s, answer)


def from_llm(b: Builder, path: Path | None) -> Iterator[dict | None]:
    if path is None or not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        paper = b.by_id.get(row["paper"])
        target = next((s for s in b.sentences.get(row["paper"], ()) if s.text == row["sentence"]), None)
        if not row["kept"] or paper is None or target is None:
            continue
        yield b.rank("llm", row["question"], [target])
        swapped = templates.sibling_entity(row["question"], paper, b.methods[len(row["question"]) % 7 :: 7])
        if swapped:
            yield b.absent("near-entity", swapped, paper.id)


def from_dev(b: Builder, questions: Sequence[Question], qvectors: np.ndarray) -> Iterator[dict | None]:
    """Dev questions as they are, tagged with their id so a fold can leave its own out."""
    for q, v in zip(questions, qvectors, strict=True):
        top = [b.papers[int(j)].id for j in np.argsort(-(b.vectors @ v))[:10]]
        if q.type == "list":
            ids = [i for i in dict.fromkeys([*q.gold_papers, *top]) if i in b.by_id]
            yield {"head": "qualifies", "kind": "dev-list", "question": q.question, "qid": q.id,
                   "texts": [b.by_id[i].text for i in ids], "papers": ids,
                   "labels": [int(i in q.gold_papers) for i in ids]}
            continue
        pool = [s for pid in dict.fromkeys([*q.gold_papers, *top[:5]]) if pid in b.by_id for s in b.sentences[pid]]
        labels = [int(label(q, s.text, s.paper)) for s in pool]
        if q.type == "unanswerable":
            yield {"head": "absent", "kind": "dev-unanswerable", "question": q.question, "qid": q.id,
                   "texts": [s.text for s in pool[:12]], "papers": [s.paper for s in pool[:12]],
                   "labels": [0] * len(pool[:12])}
        elif any(labels):
            yield {"head": "answers", "kind": "dev", "question": q.question, "qid": q.id,
                   "texts": [s.text for s in pool], "papers": [s.paper for s in pool], "labels": labels}
            if q.yes_no:
                s = pool[labels.index(1)]
                yield {"head": "yes", "kind": "dev-yes", "question": q.question, "qid": q.id, "texts": [s.text],
                       "papers": [s.paper], "labels": [int(q.yes_no == "yes")]}


def topics(b: Builder, limit: int = 200) -> Iterator[dict | None]:
    """"Which papers study <phrase>?" for two-word phrases that 3 to 8 abstracts say; the
    abstracts that say it qualify, their nearest neighbours that do not are the negatives."""
    said: dict[str, set[str]] = {}
    for p in b.papers:
        words = [w.lower() for w in alnum_words(p.text)]
        for a, c in zip(words, words[1:], strict=False):
            if a not in STOPWORDS and c not in STOPWORDS and len(a) > 3 and len(c) > 3 and a.isalpha() and c.isalpha():
                said.setdefault(f"{a} {c}", set()).add(p.id)
    phrases = sorted(k for k, v in said.items() if 3 <= len(v) <= 8)[:: 7][:limit]
    for n, phrase in enumerate(phrases):
        gold = sorted(said[phrase])
        near = [x for g in gold for x in b.neighbours(g, 3)
                if not re.search(rf"\b{phrase}\b", b.by_id[x].text, re.IGNORECASE)]
        ask = ("Which papers study {p}?", "Are there papers on {p}?", "List the work about {p}.")[n % 3]
        yield b.qualifies("topic", ask.format(p=phrase), gold, list(dict.fromkeys(near))[:6])


def build(out: Path, llm_file: Path, dev: Path) -> Counter[str]:
    from rag.index.embedding import MiniLMOnnxEmbedder
    from rag.settings import Settings

    papers = bundled_papers()
    embedder = MiniLMOnnxEmbedder(Settings().embedding)
    b = Builder(papers, embedder.embed([p.text for p in papers]))
    questions = [q for q in load(dev) if q.type != "metadata"]
    qvectors = embedder.embed([q.question for q in questions])
    counts: Counter[str] = Counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for row in [*from_templates(b), *from_llm(b, llm_file), *from_dev(b, questions, qvectors), *topics(b)]:
            if row and row["texts"] and len(row["texts"]) == len(row["labels"]):
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                counts[f"{row['head']}/{row['kind']}"] += 1
    counts.update({f"refused (overlaps test)/{k}": v for k, v in b.refused.items()})
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--llm", type=Path, default=LLM_FILE)
    parser.add_argument("--dev", type=Path, default=SPLITS["dev"])
    args = parser.parse_args()
    if args.dev.resolve() == SPLITS["test"].resolve():
        raise SystemExit("the test split is never trained on")
    for key, n in sorted(build(args.out, args.llm, args.dev).items()):
        print(f"{key:45} {n}")


if __name__ == "__main__":
    main()
