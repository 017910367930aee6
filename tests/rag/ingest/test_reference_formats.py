"""Reference-manager exports and scholarly dumps, read from the shipped real-shaped fixtures
(``tests/fixtures/formats``): a Zotero RIS export saved as ``.txt``, a Zotero CSL-JSON export, a
BibLaTeX library with ``@string`` and ``crossref``, and OpenAlex works as JSON Lines. Each gives
readable titles and author names, its links (DOI, arXiv, URL), and file:line for bad records
while the good ones are kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.errors import FormatError
from rag.ingest.formats import Problem, input_files, read_file
from rag.ingest.formats.detect import format_of
from rag.ingest.formats.openalex import rebuild_abstract
from rag.types import Paper
from tests.support import FIXTURES


def read_all(path: Path) -> tuple[dict[str, Paper], list[str]]:
    items = list(read_file(path))
    papers = {i.title or i.id: i for i in items if isinstance(i, Paper)}
    return papers, [str(i) for i in items if isinstance(i, Problem)]


def test_a_zotero_ris_export_saved_as_txt_is_read_as_ris() -> None:
    papers, problems = read_all(FIXTURES / "zotero_export.txt")

    assert format_of(FIXTURES / "zotero_export.txt") == "ris"
    glacier = papers["Glacier Codes for Ice: Error-Correcting Layouts for Cold Storage"]
    assert glacier.authors == ("Chinwe Obi", "Hans Müller", "Åsa Lindqvist")
    assert (glacier.year, glacier.venue) == (2024, "Journal of Cryospheric Computing")
    assert glacier.link == "https://doi.org/10.5555/jcc.2024.0042"
    assert glacier.label == "Glacier Codes for Ice: Error-Correcting Layouts for Cold Storage (Obi et al., 2024)"
    snow = papers["Snowpack Density from Smartphone Barometers"]
    assert snow.arxiv_id == "2401.04567" and "38 kg/m^3, a 3× improvement" in snow.abstract
    assert "$" not in snow.abstract and snow.original and "$3\\times$" in snow.original
    assert papers["Lake-Ice Phenology from Citizen Photographs"].abstract.count("81%") == 1
    assert "Avalanche Warnings from Seismic Noise" in papers, "read after a record that never ends"
    assert problems == [
        "zotero_export.txt:67: Permafrost Thaw Alerts for Pipeline Operators: no 'abstract' text; skipped",
        "zotero_export.txt:73: record never ends (no 'ER  -' line before line 77); skipped"]


def test_a_zotero_csl_json_export_gives_names_years_venues_and_links() -> None:
    papers, problems = read_all(FIXTURES / "zotero_csl.json")

    grounding = papers["Learning Grounding-Line Dynamics with Neural Surrogates"]
    assert grounding.authors == ("Sigrid Ødegaard", "Pieter van der Berg", "Wei Chen")
    assert (grounding.year, grounding.venue) == (2023, "The Cryosphere Letters")
    assert grounding.doi == "10.5555/tcl.2023.118"
    rain = papers["Freezing Rain Detection from Dual-Polarisation Radar"]
    assert (rain.arxiv_id, rain.year, rain.venue) == ("2402.11111", 2024, None)
    snowmaking = papers["Scheduling Snowmaking with Reinforcement Learning"]
    assert snowmaking.authors == ("Lukas Gruber", "Alpine Operations Lab") and snowmaking.link is None
    assert papers["Counting Calving Events in Time-Lapse Imagery"].authors[1] == "Mark Peters, Jr."
    assert papers["Counting Calving Events in Time-Lapse Imagery"].label.endswith("(Jónsdóttir et al., 2021)")
    assert len(papers) == 8
    assert problems == ["zotero_csl.json:226: http://zotero.org/users/local/kL2Fh1Qn/items/NOABSTR1: "
                        "no 'abstract' text; skipped"]


def test_a_biblatex_library_resolves_strings_inherits_crossref_and_reads_latex() -> None:
    papers, problems = read_all(FIXTURES / "library.bib")

    permafrost = papers["Permafrost Carbon Feedbacks Learned from Borehole Temperatures"]
    assert permafrost.id == "mueller2024permafrost"
    assert permafrost.authors == ("Hans Müller", "Ludwig Schön", "María García")
    assert permafrost.authors_truncated, "'and others' is et al."
    # inherited from @proceedings{icml2024}: its title as the venue, its date as the year
    assert permafrost.venue == "Proceedings of the 41st International Conference on Machine Learning"
    assert permafrost.year == 2024
    assert permafrost.link == "https://doi.org/10.5555/icml.2024.1021", "the parent's fields, not its links"
    assert "an 82.8% reduction" in permafrost.abstract and "×40 faster" in permafrost.abstract
    assert "ThawNet" in permafrost.abstract and permafrost.method == "ThawNet"
    assert "\\" not in permafrost.abstract + permafrost.text and "\\%" in (permafrost.original or "")
    snowline = papers["Snow-Line Altitude from Sentinel-2 with Weak Labels"]
    assert snowline.link == "https://arxiv.org/abs/2405.05555"
    assert snowline.authors == ("Lan Zhou", "Erik Bjørnstad") and "– within 2% " in snowline.abstract
    icebreaker = papers["Icebreaker Routing under Uncertain Ice Charts"]
    assert icebreaker.venue == "Cryospheric Operations Research", "@string # {...} joined"
    assert (icebreaker.year, icebreaker.authors[1]) == (2023, "Pilar Díaz")
    assert "2019–2021 seasons" in icebreaker.abstract
    assert papers["Frost Prediction for Vineyards with LoRa Sensor Meshes"].authors == ("Zsófia Varga",)
    assert len(papers) == 4, "the @proceedings parent is not a paper, nor a problem"
    assert [p.split(": ")[0] for p in problems] == ["library.bib:71", "library.bib:77"]
    assert "unbalanced" in problems[0] and "nocontent2019" in problems[1]


def test_an_openalex_jsonl_dump_rebuilds_abstracts_from_the_inverted_index() -> None:
    papers, problems = read_all(FIXTURES / "openalex_works.jsonl")

    iceberg = papers["Iceberg Detection in SAR Imagery with Contrastive Pretraining"]
    assert iceberg.id == "W4390000001"
    assert iceberg.abstract.startswith("Icebergs endanger shipping lanes. We pretrain a SAR encoder")
    assert iceberg.abstract.endswith("against 81% for a detector trained from scratch.")
    assert (iceberg.year, iceberg.venue) == (2023, "Arctic Sensing Transactions")
    assert iceberg.authors == ("Freya Halvorsen", "Tomasz Wójcik")
    assert iceberg.link == "https://doi.org/10.5555/ast.2023.404"
    turbine = papers["Ice Accretion on Wind Turbine Blades Forecast from SCADA Data"]
    assert (turbine.doi, turbine.arxiv_id) == (None, "2204.00321")
    assert problems == ["openalex_works.jsonl:4: W4390000004: no 'abstract' text; skipped"]


def test_an_inverted_index_with_positions_that_are_not_numbers_is_a_problem(tmp_path: Path) -> None:
    good = {"id": "https://openalex.org/W1", "title": "T", "abstract_inverted_index": {"b": [1], "a": [0]}}
    bad = {"id": "https://openalex.org/W2", "abstract_inverted_index": {"a": ["zero"]}}
    path = tmp_path / "works.jsonl"
    path.write_text("\n".join(json.dumps(w) for w in (good, bad)) + "\n", encoding="utf-8")

    papers, problems = read_all(path)

    assert papers["T"].abstract == "a b" and rebuild_abstract({"x": [2], "y": [0, 1]}) == "y y x"
    assert len(problems) == 1 and problems[0].startswith("works.jsonl:2: ") and "'a'" in problems[0]


def test_an_openalex_results_page_and_a_csl_array_are_read_whatever_their_extension(tmp_path: Path) -> None:
    work = json.loads((FIXTURES / "openalex_works.jsonl").read_text(encoding="utf-8").splitlines()[0])
    page = tmp_path / "page.jsonl"
    page.write_text(json.dumps({"meta": {"count": 1}, "results": [work]}, indent=2), encoding="utf-8")
    csl = tmp_path / "export.jsonl"
    csl.write_text((FIXTURES / "zotero_csl.json").read_text(encoding="utf-8"), encoding="utf-8")

    assert format_of(page) == "json" and format_of(csl) == "json"
    assert [p.id for p in read_all(page)[0].values()] == ["W4390000001"]
    assert len(read_all(csl)[0]) == 8


def test_a_csl_array_reports_each_bad_item_with_the_line_it_starts_on(tmp_path: Path) -> None:
    items = [{"id": "a", "title": "A", "abstract": "First abstract.", "issued": {"date-parts": [[2020]]}},
             {"id": "b", "title": "B", "issued": {"date-parts": [["someday"]]}, "abstract": "Text."},
             {"id": "c", "title": "C", "abstract": "Third abstract.", "DOI": "https://doi.org/10.5555/c"}]
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items, indent=1) + "\n", encoding="utf-8")

    papers, problems = read_all(path)

    assert [(p.id, p.year, p.doi) for p in papers.values()] == [("a", 2020, None), ("c", None, "10.5555/c")]
    assert len(problems) == 1 and problems[0].startswith("items.json:14: b: year 'someday'")


def test_a_json_array_cut_short_keeps_the_records_before_the_cut(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text('[\n {"id": "a", "abstract": "One.", "DOI": "10.1/a"},\n {"id": "b", "abst',
                    encoding="utf-8")

    papers, problems = read_all(path)

    assert [p.id for p in papers.values()] == ["a"]
    assert len(problems) == 1 and problems[0].startswith("cut.json:3: not valid JSON")


def test_a_file_without_a_known_extension_is_read_by_its_content(tmp_path: Path) -> None:
    path = tmp_path / "export-from-endnote"
    path.write_text("TY  - JOUR\nTI  - A Title\nAB  - An abstract.\nAU  - Doe, Jane\nER  - \n",
                    encoding="utf-8")

    assert input_files(path) == [path]
    [paper] = read_all(path)[0].values()
    assert (paper.title, paper.authors) == ("A Title", ("Jane Doe",))


def test_a_folder_still_reads_only_known_extensions(tmp_path: Path) -> None:
    (tmp_path / "export.ris").write_text("TY  - JOUR\nAB  - An abstract.\nER  - \n", encoding="utf-8")
    (tmp_path / "notes").write_text("TY  - JOUR\nAB  - Not read.\nER  - \n", encoding="utf-8")

    assert [p.name for p in input_files(tmp_path)] == ["export.ris"]


def test_a_file_whose_extension_and_content_are_both_unknown_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.xyz"
    path.write_text("hello", encoding="utf-8")

    with pytest.raises(FormatError, match="unknown format"):
        input_files(path)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "/local/path.pdf"])
def test_a_link_that_is_not_http_is_dropped(tmp_path: Path, url: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"id": "x", "abstract": "Text.", "url": url, "doi": "not a doi"}) + "\n",
                    encoding="utf-8")

    [paper] = read_all(path)[0].values()

    assert (paper.url, paper.doi, paper.link) == (None, None, None)


@pytest.mark.parametrize(("value", "arxiv"), [
    ("arXiv:2101.00001v2", "2101.00001"), ("https://arxiv.org/pdf/2101.00001v1.pdf", "2101.00001"),
    ("10.48550/arXiv.2101.00001", "2101.00001"), ("hep-th/9901001", "hep-th/9901001"),
    ("https://example.org/2101.00001", None)])
def test_arxiv_ids_are_found_in_ids_addresses_and_arxiv_dois(value: str, arxiv: str | None) -> None:
    from rag.ingest.formats.records import arxiv_id_of

    assert arxiv_id_of(value) == arxiv
