""""How many datasets was X evaluated on?": answered where X's abstract counts them, declined where it does not.

Questions written from the bundled abstracts by one template, before any reader was run on them.
For every coined name exactly one abstract introduces (benchmarks/named_methods.py), each count
the abstract gives of datasets, benchmarks, tasks or languages ("six datasets", "12 tasks") makes
a *stated* question: "How many datasets was X evaluated on?". It is right when the answer is not
a decline, cites X's paper first, and its lead (first two sentences) says the count. Each noun the
abstract never uses makes an *absent* question ("How many languages was X evaluated on?"): right
when declined. Offline and in process, on the index in --data-dir (or a fresh one). The absent
questions have the shape of the generated near misses the reader is fitted on
(eval/generate_training.py: "How many languages is X evaluated on?"), so their figure flatters it;
the stated ones have twins for half the papers (``eval.generate_training.trains_on``: "How many
datasets is X evaluated on?", gate-only), so the figures are printed for all papers and for the
other half alone.

    .venv/bin/python benchmarks/counted_questions.py [--data-dir .rag-data] [--reader FILE ...]

``--reader`` names reader.json files (``rag train-reader --out FILE``) to compare; by default the
shipped one."""

from __future__ import annotations

import argparse
from pathlib import Path

from common import indexed_settings
from named_methods import named

from eval.generate_training import COUNT, COUNTED, trains_on
from rag.answer.model import MODEL_FILE
from rag.answer.reader import load_model
from rag.engine import answer, build_engine
from rag.index.library import open_library
from rag.text.injection import sentences as split_sentences

QUESTION = "How many {noun} was {name} evaluated on?"


def questions(papers: dict[str, str]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(question, paper id, count) stated, and (question, paper id) absent."""
    stated, absent = [], []
    for name, pid in named(papers.items()):
        text = papers[pid]
        counts = {m.group(2).lower(): m.group(1) for m in COUNT.finditer(text)}
        for noun in COUNTED:
            if noun in counts:
                stated.append((QUESTION.format(noun=noun, name=name), pid, counts[noun]))
            elif noun.rstrip("s") not in text.lower():
                absent.append((QUESTION.format(noun=noun, name=name), pid))
    return stated, absent


def lead(text: str) -> str:
    return " ".join(split_sentences(text)[:2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--reader", type=Path, nargs="*", default=[MODEL_FILE])
    parser.add_argument("--show", action="store_true", help="print the stated questions answered wrong")
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        lib = open_library(settings)
        try:
            papers = {p.id: p.text for p in lib.catalog.papers() if p.has_abstract}
        finally:
            lib.close()
        stated, absent = questions(papers)
        print(f"{len(stated)} stated questions, {len(absent)} absent ones, from {len(papers)} abstracts")
        for path in args.reader:
            engine = build_engine(settings, reader_model=load_model(path))
            try:
                got = {q: answer(engine, q) for q, *_ in stated + absent}
            finally:
                engine.close()
            for label, keep in (("all papers", lambda pid: True),
                                ("papers whose count twins were never trained on", lambda pid: not trains_on(pid))):
                ours = [(q, pid, count) for q, pid, count in stated if keep(pid)]
                right = [q for q, pid, count in ours if not got[q].abstained and got[q].citations
                         and got[q].citations[0].paper_id == pid and count.lower() in lead(got[q].text).lower()]
                declined = sum(got[q].abstained for q, *_ in ours)
                missing = [q for q, pid in absent if keep(pid)]
                kept = sum(got[q].abstained for q in missing)
                print(f"{path} ({label}): stated answered with the count {len(right)}/{len(ours)} "
                      f"({len(right) / max(1, len(ours)):.3f}), declined {declined}; absent declined "
                      f"{kept}/{len(missing)} ({kept / max(1, len(missing)):.3f})")
            misses = [f"{q} -> {'declined' if got[q].abstained else got[q].text[:100]!r}" for q, _, count in stated
                      if got[q].abstained or count.lower() not in lead(got[q].text).lower()]
            for miss in misses[:12] if args.show else ():
                print("    miss:", miss)


if __name__ == "__main__":
    main()
