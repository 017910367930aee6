"""Every bad row reported and the rest kept, for every reader (issue 27): hypothesis builds files
of each format from good records (random text in any script) and bad ones (no abstract, a field
of the wrong shape, a broken line), shuffled together. For each file: reading never raises,
every bad row is a Problem at its own line, every good row is a Paper, and ingesting the file
indexes every good row (findable by its id). Example counts are kept small for CI time
(``EXAMPLES`` per format; the run prints them)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag.index.library import open_library
from rag.ingest.formats import Problem, read_file
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder
from rag.types import Paper

EXAMPLES = 15
# words of any script, no markup characters of the formats themselves
WORD = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12)
PHRASE = st.lists(WORD, min_size=1, max_size=6).map(" ".join)


@dataclass
class Row:
    good: bool
    lines: list[str]  # the row as written (a line format: one line; RIS: several)
    paper_id: str | None = None


def _abstract(i: int, words: str) -> str:
    return f"Record {i} studies {words} with new measurements and a new model of {words}."


def jsonl_row(i: int, good: bool, words: str, bad: int) -> Row:
    if good:
        return Row(True, [json.dumps({"id": f"g{i}", "title": words, "abstract": _abstract(i, words),
                                      "authors": [words]}, ensure_ascii=i % 2 == 0)], f"g{i}")
    return Row(False, [[json.dumps({"id": f"b{i}", "title": words}), "{broken " + words,
                        json.dumps([words]), json.dumps({"abstract": _abstract(i, words), "year": words + "x"}),
                        json.dumps({"abstract": {"text": words}})][bad % 5]])


def arxiv_row(i: int, good: bool, words: str, bad: int) -> Row:
    arxiv_id = f"0704.{i:04d}"
    row = {"id": arxiv_id, "title": words, "abstract": _abstract(i, words),
           "versions": [{"created": "Mon, 2 Apr 2007 19:18:42 GMT"}]}
    if good:
        names = [[words, "Ann", ""], [words]][i % 2]
        return Row(True, [json.dumps({**row, "authors_parsed": [names]})], f"arxiv:{arxiv_id}")
    broken = [[["Solo", 1]], [[1, 2, ""]], "Lee, Ann", [None], {"a": 1}][bad % 5]
    return Row(False, [json.dumps({**row, "authors_parsed": broken})])


def table_row(delimiter: str) -> Callable[[int, bool, str, int], Row]:
    def row(i: int, good: bool, words: str, bad: int) -> Row:
        cells = [f"t{i}", words, _abstract(i, words) if good or bad % 2 else "", words]
        if not good and bad % 2:
            cells.append("one cell too many")
        return Row(good, [delimiter.join(cells)], f"t{i}" if good else None)
    return row


def bib_row(i: int, good: bool, words: str, bad: int) -> Row:
    abstract = f", abstract = {{{_abstract(i, words)}}}" if good else ""
    return Row(good, [f"@article{{k{i}, title = {{{words}}}{abstract}}}"], f"k{i}" if good else None)


def ris_row(i: int, good: bool, words: str, bad: int) -> Row:
    lines = ["TY  - JOUR", f"ID  - r{i}", f"TI  - {words}"]
    lines += [f"AB  - {_abstract(i, words)}"] if good else []
    return Row(good, [*lines, "ER  - ", ""], f"r{i}" if good else None)


def seed_row(i: int, good: bool, words: str, bad: int) -> Row:
    if good:
        return Row(True, [" ".join([_abstract(i, words)] * 4), ""])
    return Row(False, [f"junk {i}: {words} ???", ""])


def csl_row(i: int, good: bool, words: str, bad: int) -> Row:
    item = {"id": f"http://zotero.org/users/1/items/I{i}", "type": "article-journal", "title": words,
            "container-title": words}
    if good:
        return Row(True, [json.dumps({**item, "abstract": _abstract(i, words)})], item["id"])
    return Row(False, [json.dumps([item, 7, {**item, "abstract": [words]}][bad % 3])])


FORMATS: dict[str, tuple[str, Callable[[int, bool, str, int], Row]]] = {
    "jsonl": (".jsonl", jsonl_row), "arxiv": (".jsonl", arxiv_row), "csv": (".csv", table_row(",")),
    "tsv": (".tsv", table_row("\t")), "bibtex": (".bib", bib_row), "ris": (".ris", ris_row),
    "plain": (".txt", seed_row), "csl-json": (".json", csl_row),
}
HEADERS = {"csv": "id,title,abstract,authors", "tsv": "id\ttitle\tabstract\tauthors"}
rows_strategy = st.lists(st.tuples(st.booleans(), PHRASE, st.integers(0, 99)), min_size=1, max_size=8)


def write(fmt: str, rows: list[Row], folder: Path) -> tuple[Path, dict[int, Row]]:
    """The file, and each row by the line it starts on."""
    extension, _ = FORMATS[fmt]
    lines = [HEADERS[fmt]] if fmt in HEADERS else ["["] if fmt == "csl-json" else []
    starts = {}
    for k, row in enumerate(rows):
        starts[len(lines) + 1] = row
        written = row.lines if fmt != "csl-json" else [row.lines[0] + ("," if k < len(rows) - 1 else "")]
        lines += written
    lines += ["]"] if fmt == "csl-json" else []
    path = folder / f"fuzz{extension}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, starts


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_bad_row_is_named_and_every_good_row_indexed(fmt):
    print(f"{fmt}: {EXAMPLES} hypothesis examples")

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(rows_strategy)
    def check(drawn):  # type: ignore[no-untyped-def]
        make = FORMATS[fmt][1]
        good_first = [(True, "dunes", 0), *drawn] if fmt == "plain" else drawn  # a first short line is a header
        rows = [make(i, good, words, bad) for i, (good, words, bad) in enumerate(good_first)]
        with tempfile.TemporaryDirectory() as folder:
            path, starts = write(fmt, rows, Path(folder))
            items = list(read_file(path))
            papers = {p.line: p for p in items if isinstance(p, Paper)}
            problems = {p.line for p in items if isinstance(p, Problem)}
            assert problems == {line for line, row in starts.items() if not row.good}, items
            assert set(papers) == {line for line, row in starts.items() if row.good}, items
            for line, row in starts.items():
                assert row.paper_id is None or papers[line].id == row.paper_id
            settings_ = Settings(data_dir=Path(folder) / "index")
            lib = open_library(settings_, embedder=FakeEmbedder(dim=32))
            try:
                report = ingest(lib, [path])
                assert all(lib.catalog.get(p.id) is not None for p in papers.values())
            finally:
                lib.close()
            assert len(report.problems) == len(problems)

    check()
