"""What a file holds decides how it is read (issue 27, items 10-11 and the PNG named .bib): an
author list written "Last, First; ..." is two authors, a CSV saved as .txt is read as a table,
and a file that is not text is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.ingest.formats import Problem, read_file
from rag.ingest.papers import split_authors
from rag.types import Paper

ABSTRACT = ("We measure how quickly coastal dunes move after storms using drone surveys flown "
            "every month for three years, and relate the motion to wind records.")


@pytest.mark.parametrize("raw, names", [
    ("Lee, Ann; Ray, Bob", ("Ann Lee", "Bob Ray")),
    ("Lee, Ann", ("Ann Lee",)),
    ("Lee, A. and Ray, B.", ("A. Lee", "B. Ray")),
    ("Ann Lee, Bob Ray, Cy Oduya", ("Ann Lee", "Bob Ray", "Cy Oduya")),
])
def test_an_author_list_is_split_into_people(raw, names):
    assert split_authors(raw)[0] == names


def test_a_csv_saved_as_txt_is_read_as_a_table(tmp_path: Path):
    path = tmp_path / "export.txt"
    path.write_text(f'id,title,abstract,authors\nd1,Dunes,"{ABSTRACT}","Lee, Ann; Ray, Bob"\n', encoding="utf-8")

    items = list(read_file(path))

    assert [type(i) for i in items] == [Paper]
    paper = items[0]
    assert (paper.id, paper.title, paper.abstract, paper.authors) == ("d1", "Dunes", ABSTRACT, ("Ann Lee", "Bob Ray"))


def test_a_png_named_bib_is_refused_as_not_a_bibtex_file(tmp_path: Path):
    path = tmp_path / "library.bib"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (problem,) = list(read_file(path))
    assert isinstance(problem, Problem) and problem.line is None
    assert str(problem) == "library.bib: not a BibTeX file: it is a PNG image; nothing was read from it"


def test_a_plain_text_file_is_still_read_as_abstracts(tmp_path: Path):
    path = tmp_path / "notes.txt"
    path.write_text(" ".join(["word"] * 50) + ", abstract, here.\n", encoding="utf-8")
    assert [type(i) for i in read_file(path)] in ([Paper], [Problem])
