"""The bundled corpus is parsed exactly as data/README.md describes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.ingest.formats import Problem, read_file
from rag.types import Paper
from tests.conftest import SEED_FILES


@pytest.fixture(scope="module")
def parsed() -> dict[str, Paper]:
    papers: dict[str, Paper] = {}
    for path in SEED_FILES:
        for item in read_file(path):
            assert not isinstance(item, Problem), f"unexpected problem in seed file: {item}"
            papers[item.id] = item
    return papers


def test_the_corpus_has_578_abstracts_and_12_metadata_only_records(parsed):
    with_abstract = [p for p in parsed.values() if p.has_abstract]
    metadata_only = [p for p in parsed.values() if not p.has_abstract]
    assert len(with_abstract) == 578
    assert len(metadata_only) == 12
    assert sorted(p.source[:3] for p in metadata_only) == ["000"] * 10 + ["002"] * 2


def test_ids_are_file_prefix_and_line_number(parsed):  # frozen in rag/assets/bundled_ids.tsv
    supremix = parsed["000-0001"]
    assert "SupReMix" in supremix.abstract
    assert supremix.line == 1 and supremix.source == "000_571e57f18ef84a00.txt"
    assert all(p.id == f"{p.source[:3]}-{p.line:04d}" for p in parsed.values())


def test_ids_do_not_change_between_runs(parsed):
    again = [item.id for path in SEED_FILES for item in read_file(path)]
    assert again == list(parsed)


def test_author_line_of_k2_lands_on_k2(parsed):
    k2 = parsed["001-0005"]
    assert "K2" in k2.abstract and "geoscience" in k2.abstract
    assert k2.authors == ("Cheng Deng", "Tianhang Zhang", "Zhongmou He")
    assert k2.authors_truncated
    assert k2.method == "K2"
    assert k2.label == "K2, Deng et al. (001-0005)"


def test_author_line_of_rasat_lands_on_rasat(parsed):
    rasat = parsed["001-0009"]
    assert "RASAT" in rasat.abstract
    assert rasat.authors[0] == "Jiexing Qi"


def test_every_abstract_in_file_001_has_its_author_line_and_no_site_labels(parsed):
    file_001 = [p for p in parsed.values() if p.source.startswith("001")]
    assert len(file_001) == 50
    assert all(p.authors for p in file_001)
    assert not any("·" in a or "mila" in a or "meta-ai" in a for p in file_001 for a in p.authors)


def test_headers_are_skipped(parsed):
    assert not any(p.abstract in ("Daily Papers", "Zhouhan Lin") for p in parsed.values())
    assert "003-0001" not in parsed and "001-0001" not in parsed
    daily = [p for p in parsed.values() if p.source.startswith(("003", "004"))]
    assert not any(p.authors for p in daily), "a header was taken for an author line"


def test_stand_alone_author_venue_lines_are_metadata_only_records(parsed):
    record = parsed["002-0003"]
    assert not record.has_abstract and record.text == ""
    assert record.authors[:2] == ("Zican Dong", "Junyi Li")
    assert record.venue is not None and record.venue.startswith("Proceedings of the 63rd Annual")
    assert record.year == 2025
    neighbour = parsed["002-0005"]
    assert neighbour.authors == (), "a stand-alone author line must not attach to a neighbour"


def test_display_text_is_kept_and_embedding_text_is_normalised(parsed):
    theseus = parsed["000-0061"]
    assert "replacing.Our approach" in theseus.abstract
    assert "replacing. Our approach" in theseus.text


def test_no_label_is_an_invented_title(parsed):
    assert all(p.title is None for p in parsed.values())
    assert all(p.label == p.id or p.label.endswith(f"({p.id})") for p in parsed.values())


def test_a_stray_short_line_is_reported_with_its_line_and_the_rest_is_kept(tmp_path: Path):
    abstract = " ".join(["word"] * 80) + "."
    path = tmp_path / "900_custom.txt"
    path.write_text(f"Daily Papers\n\n{abstract}\n\nthis line is junk: 42 ???\n\n{abstract} again.\n")
    items = list(read_file(path))
    problems = [i for i in items if isinstance(i, Problem)]
    assert [p.line for p in problems] == [5]
    assert [(i.id[:11], i.line) for i in items if isinstance(i, Paper)] == [("900_custom-", 3), ("900_custom-", 7)]
