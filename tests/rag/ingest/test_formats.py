"""Tests for the input-format readers in ``rag.ingest.formats``.

Each test writes a small input file into ``tmp_path`` and reads it back with
``read_file`` (or lists it with ``input_files``). Readers yield ``Paper`` records for good
rows and ``Problem`` records (source, 1-based line, reason) for bad ones, without stopping.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import rag.ingest.formats.records as records
from rag.errors import FormatError
from rag.ingest.formats import Problem, input_files, read_file
from rag.text.clean import normalise
from rag.types import Paper

ABSTRACT = (
    "We propose SupReMix, a simple mixup method for regression. "
    "It improves calibration on five benchmarks."
)
OTHER_ABSTRACT = "Graph neural networks are studied under label noise. Results are mixed."


# --------------------------------------------------------------------------- helpers


def write_jsonl(path: Path, rows: list[object]) -> Path:
    """One line per row: dicts and lists are dumped as JSON, strings are written verbatim."""
    lines = [row if isinstance(row, str) else json.dumps(row, ensure_ascii=False) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_all(path: Path) -> tuple[list[Paper], list[Problem]]:
    items = list(read_file(path))
    assert all(isinstance(item, Paper | Problem) for item in items)
    papers = [item for item in items if isinstance(item, Paper)]
    problems = [item for item in items if isinstance(item, Problem)]
    return papers, problems


def only_paper(path: Path) -> Paper:
    papers, problems = read_all(path)
    assert problems == []
    assert len(papers) == 1
    return papers[0]


# --------------------------------------------------------------------------- JSON Lines


def test_jsonl_row_with_every_field_becomes_a_full_paper(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [{
        "id": "paper-1",
        "title": "SupReMix: Mixup for Regression",
        "abstract": ABSTRACT,
        "authors": ["Jane Doe", "John Smith"],
        "year": 2023,
        "venue": "NeurIPS",
        "url": "https://example.org/supremix",
    }])

    paper = only_paper(path)

    assert paper.id == "paper-1"
    assert paper.title == "SupReMix: Mixup for Regression"
    assert paper.abstract == ABSTRACT
    assert paper.text == normalise(ABSTRACT)
    assert paper.authors == ("Jane Doe", "John Smith")
    assert paper.authors_truncated is False
    assert paper.year == 2023
    assert paper.venue == "NeurIPS"
    assert paper.url == "https://example.org/supremix"
    assert paper.source == "papers.jsonl"
    assert paper.line == 1
    assert paper.method == "SupReMix"


@pytest.mark.parametrize("authors", ["Jane Doe; John Smith", "Jane Doe and John Smith"])
def test_jsonl_author_string_is_split_into_names(tmp_path: Path, authors: str) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [{"abstract": ABSTRACT, "authors": authors}])

    assert only_paper(path).authors == ("Jane Doe", "John Smith")


@pytest.mark.parametrize("year", [2021, "2021", "2021-05-03"])
def test_jsonl_year_is_read_from_int_or_string(tmp_path: Path, year: object) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [{"abstract": ABSTRACT, "year": year}])

    assert only_paper(path).year == 2021


def test_jsonl_row_with_only_an_abstract_gets_a_content_id(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [{"abstract": ABSTRACT}])

    paper = only_paper(path)

    assert paper.id.startswith("h-")
    assert len(paper.id) > len("h-")
    assert paper.title is None
    assert paper.authors == ()
    assert paper.year is None
    assert paper.venue is None
    assert paper.url is None


def test_content_id_is_the_same_for_the_same_abstract_in_two_files(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "first.jsonl", [{"abstract": ABSTRACT}])
    second = write_jsonl(tmp_path / "second.jsonl", [{"abstract": OTHER_ABSTRACT},
                                                     {"abstract": ABSTRACT}])

    [paper_a] = read_all(first)[0]
    other, paper_b = read_all(second)[0]

    assert paper_a.id == paper_b.id
    assert paper_a.source != paper_b.source
    assert other.id != paper_a.id
    assert other.id.startswith("h-")


def test_jsonl_paper_keeps_original_abstract_shows_it_readable_and_normalises_text(tmp_path: Path) -> None:
    raw = r"We study \textbf{robust} training.It costs $\mathcal{O}(n)$ time."
    path = write_jsonl(tmp_path / "papers.jsonl", [{"id": "p", "abstract": raw}])

    paper = only_paper(path)

    assert paper.original == raw
    assert paper.abstract == "We study robust training.It costs O(n) time."
    assert paper.text == normalise(raw)
    assert "\\" not in paper.text and "$" not in paper.text
    assert "training. It" in paper.text


def test_malformed_jsonl_row_is_reported_with_its_line_and_skipped(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [
        {"id": "good-1", "abstract": ABSTRACT},
        '{"id": "broken", "abstract": "no closing brace"',
        {"id": "good-2", "abstract": OTHER_ABSTRACT},
    ])

    papers, problems = read_all(path)

    assert [p.id for p in papers] == ["good-1", "good-2"]
    assert [p.line for p in papers] == [1, 3]
    assert len(problems) == 1
    assert (problems[0].source, problems[0].line) == ("papers.jsonl", 2)
    assert "JSON" in problems[0].reason


@pytest.mark.parametrize("row", ['["a", "list"]', '"just a string"', "42", "null"])
def test_jsonl_line_that_is_not_an_object_is_reported_and_skipped(
    tmp_path: Path, row: str
) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [
        {"id": "good-1", "abstract": ABSTRACT},
        row,
        {"id": "good-2", "abstract": OTHER_ABSTRACT},
    ])

    papers, problems = read_all(path)

    assert [p.id for p in papers] == ["good-1", "good-2"]
    assert [(p.line, "object" in p.reason) for p in problems] == [(2, True)]


@pytest.mark.parametrize("row", [
    {"id": "x", "title": "No abstract key"},
    {"id": "x", "abstract": ""},
    {"id": "x", "abstract": "   "},
    {"id": "x", "abstract": None},
    {"id": "x", "abstract": ["not", "text"]},
])
def test_jsonl_row_without_abstract_text_is_reported_and_skipped(
    tmp_path: Path, row: dict[str, object]
) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [
        {"id": "good-1", "abstract": ABSTRACT},
        row,
        {"id": "good-2", "abstract": OTHER_ABSTRACT},
    ])

    papers, problems = read_all(path)

    assert [p.id for p in papers] == ["good-1", "good-2"]
    assert [(p.line, "abstract" in p.reason) for p in problems] == [(2, True)]


def test_jsonl_row_whose_year_is_not_a_year_is_reported_and_skipped(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "papers.jsonl", [
        {"id": "good-1", "abstract": ABSTRACT, "year": 2020},
        {"id": "bad", "abstract": ABSTRACT, "year": "forthcoming"},
        {"id": "good-2", "abstract": OTHER_ABSTRACT, "year": "2019"},
    ])

    papers, problems = read_all(path)

    assert [(p.id, p.year) for p in papers] == [("good-1", 2020), ("good-2", 2019)]
    assert len(problems) == 1
    assert problems[0].line == 2
    assert "forthcoming" in problems[0].reason


@pytest.mark.parametrize("year", [9223372036854775808, 20211, -5])
def test_jsonl_row_whose_year_is_a_number_no_year_has_is_reported_and_skipped(tmp_path: Path, year: int) -> None:
    """2**63 once reached the catalogue and stopped the whole ingest ("Python int too large to
    convert to SQLite INTEGER")."""
    path = write_jsonl(tmp_path / "papers.jsonl", [
        {"id": "bad", "abstract": ABSTRACT, "year": year},
        {"id": "good", "abstract": OTHER_ABSTRACT, "year": 2019},
    ])

    papers, problems = read_all(path)

    assert [(p.id, p.year) for p in papers] == [("good", 2019)]
    assert len(problems) == 1 and str(year) in problems[0].reason


def test_jsonl_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    path.write_text(
        "\n"
        + json.dumps({"id": "a", "abstract": ABSTRACT}) + "\n"
        + "\n   \n"
        + "{oops}\n"
        + json.dumps({"id": "b", "abstract": OTHER_ABSTRACT}) + "\n",
        encoding="utf-8",
    )

    papers, problems = read_all(path)

    assert [(p.id, p.line) for p in papers] == [("a", 2), ("b", 6)]
    assert [p.line for p in problems] == [5]
    assert str(problems[0]).startswith("papers.jsonl:5: ")


def test_ndjson_extension_is_read_as_json_lines(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "papers.ndjson", [{"id": "n1", "abstract": ABSTRACT}])

    assert only_paper(path).id == "n1"


# --------------------------------------------------------------------------- arXiv snapshot

ARXIV_ROW = {
    "id": "0704.0001",
    "submitter": "Pavel Nadolsky",
    "authors": "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
    "title": "Calculation of prompt diphoton production cross sections at Tevatron and\n"
             "  LHC energies",
    "comments": "37 pages, 15 figures; published version",
    "journal-ref": "Phys.Rev.D76:013009,2007",
    "doi": "10.1103/PhysRevD.76.013009",
    "categories": "hep-ph",
    "abstract": "  A fully differential calculation in perturbative quantum chromodynamics is\n"
                "presented for the production of massive photon pairs at hadron colliders.\n",
    "versions": [
        {"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"},
        {"version": "v2", "created": "Tue, 24 Jul 2007 20:10:27 GMT"},
    ],
    "update_date": "2008-11-13",
    "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""]],
}


def test_arxiv_snapshot_line_is_mapped_onto_paper_fields(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "arxiv-metadata-oai-snapshot.json", [ARXIV_ROW])

    paper = only_paper(path)

    assert paper.id == "arxiv:0704.0001"
    assert paper.authors == ("C. Balázs", "E. L. Berger")
    assert paper.year == 2007
    assert paper.venue == "Phys.Rev.D76:013009,2007"
    assert paper.url == "https://arxiv.org/abs/0704.0001"
    assert paper.title == (
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    )
    assert paper.text.startswith("A fully differential calculation")
    assert paper.text.endswith("at hadron colliders.")
    assert paper.source == "arxiv-metadata-oai-snapshot.json"
    assert paper.line == 1


def test_arxiv_snapshot_without_versions_takes_year_from_update_date(tmp_path: Path) -> None:
    row = {k: v for k, v in ARXIV_ROW.items() if k != "versions"}
    path = write_jsonl(tmp_path / "snapshot.json", [row])

    assert only_paper(path).year == 2008


def test_arxiv_snapshot_bad_lines_are_reported_and_good_lines_kept(tmp_path: Path) -> None:
    second = dict(ARXIV_ROW, id="0704.0002", abstract="")
    third = dict(ARXIV_ROW, id="0704.0003")
    path = write_jsonl(tmp_path / "snapshot.json", [ARXIV_ROW, second, third])

    papers, problems = read_all(path)

    assert [p.id for p in papers] == ["arxiv:0704.0001", "arxiv:0704.0003"]
    assert [p.line for p in problems] == [2]


# --------------------------------------------------------------------------- CSV and TSV


def test_csv_with_header_reads_all_fields_and_quoted_abstracts(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text(
        "id,title,abstract,authors,year,venue,url\n"
        'c1,First,"We study graphs, trees, and paths.\nThe second line is here.",'
        "Jane Doe; John Smith,2022,ICML,https://example.org/c1\n"
        "c2,Second,A plain abstract without commas.,,,,\n",
        encoding="utf-8",
    )

    papers, problems = read_all(path)

    assert problems == []
    first, second = papers
    assert first.id == "c1"
    assert first.title == "First"
    assert first.text == "We study graphs, trees, and paths. The second line is here."
    assert "graphs, trees, and paths." in first.abstract
    assert first.authors == ("Jane Doe", "John Smith")
    assert first.year == 2022
    assert first.venue == "ICML"
    assert first.url == "https://example.org/c1"
    assert first.source == "papers.csv"
    # Empty cells are absent values, not empty strings.
    assert second.id == "c2"
    assert (second.authors, second.year, second.venue, second.url) == ((), None, None, None)


def test_csv_record_spanning_lines_is_numbered_by_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text(
        "id,abstract\n"
        'c1,"First line of the abstract.\nSecond line of the abstract."\n'
        "c2,A one-line abstract.\n",
        encoding="utf-8",
    )

    papers, _ = read_all(path)

    assert [(p.id, p.line) for p in papers] == [("c1", 2), ("c2", 4)]


def test_tsv_with_header_is_read_with_tabs(tmp_path: Path) -> None:
    path = tmp_path / "papers.tsv"
    path.write_text(
        "id\tabstract\tyear\n"
        't1\t"Tabs, commas, and a\nline break inside quotes."\t2020\n'
        "t2\tAnother abstract, with a comma.\t2021\n",
        encoding="utf-8",
    )

    papers, problems = read_all(path)

    assert problems == []
    assert [(p.id, p.year) for p in papers] == [("t1", 2020), ("t2", 2021)]
    assert papers[0].text == "Tabs, commas, and a line break inside quotes."
    assert papers[1].text == "Another abstract, with a comma."
    assert papers[1].source == "papers.tsv"


def test_csv_without_abstract_column_is_one_problem_for_the_file(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text("id,title,summary\na,b,c\nd,e,f\n", encoding="utf-8")

    papers, problems = read_all(path)

    assert papers == []
    assert len(problems) == 1
    assert (problems[0].source, problems[0].line) == ("papers.csv", 1)
    assert "abstract" in problems[0].reason


def test_empty_csv_file_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("", encoding="utf-8")

    papers, problems = read_all(path)

    assert papers == []
    assert [p.line for p in problems] == [1]


def test_csv_row_with_more_cells_than_header_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text(
        "id,abstract\n"
        "c1,A good first abstract.\n"
        "c2,An abstract,with an unquoted comma\n"
        "c3,A good third abstract.\n",
        encoding="utf-8",
    )

    papers, problems = read_all(path)

    assert [p.id for p in papers] == ["c1", "c3"]
    assert [p.line for p in papers] == [2, 4]
    assert len(problems) == 1
    assert problems[0].line == 3
    assert "more cells" in problems[0].reason


def test_csv_row_without_abstract_or_with_bad_year_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text(
        "id,abstract,year\n"
        "c1,,2020\n"
        "c2,Has text.,someday\n"
        "c3,Fine.,2020\n",
        encoding="utf-8",
    )

    papers, problems = read_all(path)

    assert [p.id for p in papers] == ["c3"]
    assert [p.line for p in problems] == [2, 3]


def test_csv_header_names_are_matched_ignoring_case_and_spaces(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text(
        "ID, Title ,Abstract,YEAR\n"
        "c1,My Title,An abstract in a capitalised column.,2018\n",
        encoding="utf-8",
    )

    paper = only_paper(path)

    assert (paper.id, paper.title, paper.year) == ("c1", "My Title", 2018)
    assert paper.text == "An abstract in a capitalised column."


def test_csv_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    # Excel's "CSV UTF-8" starts the file with a BOM; the first header must still match.
    path = tmp_path / "excel.csv"
    path.write_text("abstract,id\nAn abstract from a spreadsheet.,x1\n", encoding="utf-8-sig")

    paper = only_paper(path)

    assert (paper.id, paper.text) == ("x1", "An abstract from a spreadsheet.")


# --------------------------------------------------------------------------- BibTeX

BIBTEX = r"""% A comment line outside any entry.
@string{acl = "Association for Computational Linguistics"}

@comment{This whole block is ignored, even with an abstract = {x} inside.}

@article{doe2021graphs,
  title = {A {GPU}-Friendly {Graph} Method},
  author = {Doe, Jane and John Smith},
  journal = {Journal of Graph Learning},
  year = {2021},
  doi = {10.1000/jgl.2021.7},
  abstract = {We propose GraphFast, a method for graphs.
              It runs on one GPU.}
}

@InProceedings{smith2019quoted,
  Title = "Quoted Values Work Too",
  Author = "Smith, John",
  BookTitle = "Proceedings of the Workshop",
  Year = 2019,
  Abstract = "An abstract given in double quotes, with a comma."
}

@misc{nokey2020,
  title = {Listed Without an Abstract},
  year = {2020}
}
"""


def test_bibtex_entries_become_papers_keyed_by_citation_key(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(BIBTEX, encoding="utf-8")

    papers, _ = read_all(path)

    assert [p.id for p in papers] == ["doe2021graphs", "smith2019quoted"]
    article, proceedings = papers

    assert article.title == "A GPU-Friendly Graph Method"
    assert article.authors == ("Jane Doe", "John Smith")
    assert article.year == 2021
    assert article.venue == "Journal of Graph Learning"
    assert article.url is None and article.doi == "10.1000/jgl.2021.7"
    assert article.link == "https://doi.org/10.1000/jgl.2021.7"
    assert article.text == "We propose GraphFast, a method for graphs. It runs on one GPU."
    assert article.method == "GraphFast"
    assert article.source == "refs.bib"
    assert article.line == 6

    assert proceedings.title == "Quoted Values Work Too"
    assert proceedings.authors == ("John Smith",)
    assert proceedings.year == 2019
    assert proceedings.venue == "Proceedings of the Workshop"
    assert proceedings.url is None
    assert proceedings.text == "An abstract given in double quotes, with a comma."
    assert proceedings.line == 16


def test_bibtex_string_and_comment_blocks_are_skipped_silently(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(BIBTEX, encoding="utf-8")

    _, problems = read_all(path)

    # Only the real entry without an abstract is reported; @string/@comment are not.
    assert len(problems) == 1
    assert "nokey2020" in problems[0].reason
    assert "abstract" in problems[0].reason
    assert problems[0].line == 24


def test_bibtex_explicit_url_wins_over_doi(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{k,\n  url = {https://example.org/k},\n  doi = {10.1/x},\n"
        "  abstract = {Some abstract.}\n}\n",
        encoding="utf-8",
    )

    assert only_paper(path).url == "https://example.org/k"


def test_bibtex_unbalanced_entry_at_end_is_reported_with_its_start_line(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{good1,\n"
        "  abstract = {The first good abstract.}\n"
        "}\n"
        "@article{good2, abstract = {The second good abstract.}}\n"
        "\n"
        "@article{broken,\n"
        "  abstract = {This brace is never closed.\n"
        "  year = {2020}\n",
        encoding="utf-8",
    )

    papers, problems = read_all(path)

    assert [(p.id, p.line) for p in papers] == [("good1", 1), ("good2", 4)]
    assert len(problems) == 1
    assert (problems[0].source, problems[0].line) == ("refs.bib", 6)
    assert "unbalanced" in problems[0].reason


def test_bibtex_abstract_with_latex_commands_keeps_their_words(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{tex,\n"
        r"  abstract = {We use \emph{robust} training and \textbf{sparse} attention.}" "\n"
        "}\n",
        encoding="utf-8",
    )

    paper = only_paper(path)

    assert paper.text == "We use robust training and sparse attention."


# --------------------------------------------------------------------------- files and folders


def test_unknown_extension_is_a_format_error_listing_known_formats(tmp_path: Path) -> None:
    path = tmp_path / "paper.docx"
    path.write_bytes(b"PK\x03\x04 not really a docx")

    with pytest.raises(FormatError) as excinfo:
        input_files(path)

    message = str(excinfo.value)
    assert "paper.docx" in message
    assert ".docx" in message
    for ext in (".jsonl", ".csv", ".bib"):
        assert ext in message


def test_file_without_extension_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "README"
    path.write_text("hello", encoding="utf-8")

    with pytest.raises(FormatError, match="no extension"):
        input_files(path)


def test_missing_path_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="does not exist"):
        input_files(tmp_path / "nowhere.jsonl")


def test_known_file_is_listed_as_itself_whatever_the_case_of_its_extension(
    tmp_path: Path,
) -> None:
    path = tmp_path / "PAPERS.JSONL"
    write_jsonl(path, [{"id": "upper", "abstract": ABSTRACT}])

    assert input_files(path) == [path]
    assert only_paper(path).id == "upper"


def test_folder_lists_only_known_files_sorted(tmp_path: Path) -> None:
    for name in ("b.csv", "a.jsonl", "notes.md", "c.bib", "picture.png", "d.tsv", "z.docx"):
        (tmp_path / name).write_text("", encoding="utf-8")

    assert [p.name for p in input_files(tmp_path)] == ["a.jsonl", "b.csv", "c.bib", "d.tsv"]


def test_folder_without_known_files_is_a_format_error(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# notes", encoding="utf-8")

    with pytest.raises(FormatError, match="no file in a known format"):
        input_files(tmp_path)


@pytest.mark.parametrize("name", ["bad.jsonl", "bad.json", "bad.csv", "bad.tsv", "bad.bib",
                                  "bad.txt"])
def test_a_file_that_is_not_utf8_at_all_gives_problems_not_an_exception(tmp_path: Path,
                                                                         name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xff\xfe\x00bad")

    papers, problems = read_all(path)

    assert papers == [] and all(p.source == name for p in problems)


# --------------------------------------------------------------------------- streaming

ROWS = 20_000


@pytest.fixture
def big_jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(ROWS):
            row = {"id": f"p{i:05d}", "abstract": f"Row {i} studies graphs.", "year": 2000 + i % 20}
            handle.write(json.dumps(row) + "\n")
    return path


def test_read_file_returns_a_generator(big_jsonl: Path) -> None:
    items = read_file(big_jsonl)
    try:
        assert inspect.isgenerator(items)
    finally:
        items.close()


def test_large_jsonl_yields_its_first_paper_without_reading_the_rest(
    big_jsonl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    real_make_paper = records.make_paper

    def counting_make_paper(paper_id: str, abstract: str, **meta: object) -> Paper:
        built.append(paper_id)
        return real_make_paper(paper_id, abstract, **meta)

    monkeypatch.setattr(records, "make_paper", counting_make_paper)

    items = read_file(big_jsonl)
    first = next(items)
    second = next(items)
    items.close()

    assert isinstance(first, Paper)
    assert (first.id, first.text, first.year, first.line) == ("p00000", "Row 0 studies graphs.",
                                                             2000, 1)
    assert (second.id, second.line) == ("p00001", 2)
    assert built == ["p00000", "p00001"]


def test_large_jsonl_is_decoded_lazily(big_jsonl: Path) -> None:
    # Spoil the very end of the file: an eager reader would fail before the first paper.
    with big_jsonl.open("ab") as handle:
        handle.write(b'{"abstract": "\xff"}\n')

    items = read_file(big_jsonl)
    first = next(items)
    items.close()

    assert isinstance(first, Paper)
    assert first.id == "p00000"
