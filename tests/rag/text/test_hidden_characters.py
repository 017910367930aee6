"""NUL, U+202E (right-to-left override) and zero-width characters never reach a stored title
or abstract, and a NUL does not cut a BibTeX title short (issue 27, Low)."""

from __future__ import annotations

from pathlib import Path

from rag.ingest.formats import read_file
from rag.ingest.papers import make_paper

HIDDEN = "\x00\u202e\u200b\u2066\ufeff"


def test_hidden_characters_are_stripped_from_title_abstract_and_authors():
    paper = make_paper("p", f"We stu{HIDDEN}dy dunes.", title=f"Dunes\u202e and{HIDDEN} storms",
                       authors=("Ann\u200b Lee",))
    for text in (paper.abstract, paper.text, paper.title, *paper.authors, paper.original or ""):
        assert not set(text) & set(HIDDEN), repr(text)
    assert paper.abstract.startswith("We stu") and "dy dunes." in paper.abstract


def test_a_nul_in_a_bibtex_title_does_not_cut_it(tmp_path: Path):
    path = tmp_path / "refs.bib"
    path.write_text("@article{k1, title={Moving\x00 dunes after storms}, abstract={We measure how "
                    "dunes move after storms with drones.}}\n", encoding="utf-8")
    (paper,) = list(read_file(path))
    assert paper.title == "Moving dunes after storms"
