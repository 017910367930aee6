"""Questions about a method by its name: is the answer read from the paper that introduces it?

    .venv/bin/python benchmarks/named_methods.py [--data-dir .rag-data] [--limit N] [--invented-only]

Every coined name exactly one bundled abstract introduces ("we propose X", "named X") and no other
abstract mentions is asked about twice, offline and in process:
- "What does X do?": right when the answer's first cited paper is X's own;
- "What results does X report?": right when the first cited paper is X's own, and never led by
  another paper's figure (a bold lead span cited to someone else);
- "What problem does X address?" (read as asking for a name), "How does X work?" and "What are
  the main findings of X?": the same.
An abstention counts as wrong for the first (X's paper is in the index and says what it does) and
is reported apart for the second. The same is then measured on an invented library of short,
titled abstracts (one-sentence abstracts included) whose coined names exist nowhere else."""

from __future__ import annotations

import argparse
import random
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from common import index_rows, indexed_settings

from rag.engine import answer, build_engine
from rag.index.library import open_library
from rag.settings import Settings
from rag.text.names import method_name, name_pattern
from rag.types import Answer

TEMPLATES = ("What does {} do?", "What results does {} report?", "What problem does {} address?",
             "How does {} work?", "What are the main findings of {}?")
BOLD = re.compile(r"^\s*\*\*[^*]+\*\*:")


@dataclass
class Tally:
    asked: int = 0
    own_first: int = 0
    abstained: int = 0
    other_figure: int = 0
    misses: list[str] | None = None

    def add(self, name: str, question: str, reply: Answer, own: str) -> None:
        self.asked += 1
        first = reply.citations[0].paper_id if reply.citations else None
        self.abstained += reply.abstained
        self.own_first += first == own
        if reply.citations and first != own and BOLD.match(reply.text):
            self.other_figure += 1
        if first != own and self.misses is not None and len(self.misses) < 8:
            self.misses.append(f"{question} -> {first or 'abstained'}: {reply.text[:110]!r}")

    def line(self, label: str) -> str:
        share = self.own_first / max(1, self.asked)
        return (f"{label:<34} asked {self.asked:4d}  own paper first {self.own_first:4d} ({share:.3f})  "
                f"abstained {self.abstained:3d}  led by another paper's figure {self.other_figure:3d}")


def named(papers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(name, paper id) for each coined name exactly one abstract introduces and no other mentions."""
    papers = list(papers)
    out = []
    for pid, text in papers:
        name = method_name(text)
        if not name or len(name) < 3:
            continue
        pattern = name_pattern(name)
        if sum(bool(pattern.search(t)) for _, t in papers) == 1:
            out.append((name, pid))
    return sorted(set(out))


def measure(settings: Settings, names: Sequence[tuple[str, str]], show: bool) -> list[Tally]:
    engine = build_engine(settings)
    tallies = [Tally(misses=[] if show else None) for _ in TEMPLATES]
    try:
        for name, pid in names:
            for template, tally in zip(TEMPLATES, tallies, strict=True):
                question = template.format(name)
                tally.add(name, question, answer(engine, question), pid)
    finally:
        engine.close()
    return tallies


def report(label: str, tallies: Sequence[Tally]) -> None:
    for template, tally in zip(TEMPLATES, tallies, strict=True):
        print(tally.line(f"{label}: {template.format('X')}"))
        for miss in tally.misses or ():
            print("    miss:", miss)


SYLLABLES = ("quar", "ry", "stone", "vel", "dra", "mo", "tix", "lum", "zen", "bra", "kor", "fen", "ith", "sol")
TOPICS = (("sonar archive compression", "storage per hour of recordings", "{}% less storage than the prior codec"),
          ("glacier melt forecasting", "forecast error at a ten-day horizon", "an error {}% below the best baseline"),
          ("protein loop design", "designs that fold as intended", "{}% of designs folding as intended"),
          ("legal clause retrieval", "recall at ten on contract queries", "recall at ten of {}%"),
          ("bird song segmentation", "syllable boundary F1", "a boundary F1 of {}%"),
          ("traffic signal control", "average waiting time at junctions", "waiting times cut by {}%"))


def invented_library(count: int, seed: int = 5) -> tuple[list[dict], list[tuple[str, str]]]:
    """Short titled abstracts, each introducing one coined name; a third are one sentence long.
    Topics repeat, so several papers compete for every question; only the name tells them apart."""
    rng = random.Random(seed)
    rows, names = [], []
    for i in range(count):
        name = "".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize()
        if name in {n for n, _ in names}:
            continue
        topic, measure_, result = TOPICS[i % len(TOPICS)]
        figure = rng.randint(4, 60)
        sentences = [f"We propose {name}, a method for {topic} that improves {measure_}, "
                     f"reaching {result.format(figure)}."]
        if i % 3:
            sentences.insert(0, f"Existing approaches to {topic} trade {measure_} against cost.")
            sentences.append(f"On public benchmarks, competing methods for {topic} report "
                             f"{rng.randint(61, 90)}% on the same measure only with far larger models.")
        pid = f"inv-{i:03d}"
        rows.append({"id": pid, "title": f"{name}: {topic} made simple", "abstract": " ".join(sentences),
                     "authors": [f"Author {i}"], "year": 2020 + i % 5})
        names.append((name, pid))
    return rows, names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--limit", type=int, help="ask about the first N names only")
    parser.add_argument("--show", action="store_true", help="print up to 8 misses per question shape")
    parser.add_argument("--invented-only", action="store_true")
    args = parser.parse_args()
    if not args.invented_only:
        with indexed_settings(args.data_dir) as settings:
            lib = open_library(settings)
            try:
                papers = [(p.id, p.text) for p in lib.catalog.papers()]
            finally:
                lib.close()
            names = named(papers)[: args.limit]
            report(f"bundled ({len(names)} names)", measure(settings, names, args.show))
    with tempfile.TemporaryDirectory() as tmp:
        rows, names = invented_library(60)
        names = names[: args.limit]
        settings = index_rows(Path(tmp), rows, "invented")
        report(f"invented ({len(names)} names)", measure(settings, names, args.show))


if __name__ == "__main__":
    main()
