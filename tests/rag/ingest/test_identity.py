"""A paper's id survives edits of its file, two files never mint the same id, duplicate ids are
reported and kept apart, and records in any script keep ids and keys of their own
(issue 27, items 1-4; the rule is docs/ingest.md, "Identity")."""

from __future__ import annotations

import json
from pathlib import Path

from rag.index.library import open_library
from rag.ingest.formats import Problem, read_file
from rag.ingest.identity import BUNDLED_IDS, paragraph_key
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder
from rag.text.clean import dedupe_key
from tests.conftest import SEED_FILES
from tests.support import SUPREMIX_FILE, ingest_with_fake_embedder

NEW_ABSTRACT = (
    "We describe Velquorin, a method for estimating river sediment load from drone imagery with a "
    "compact segmentation network and a physically informed regression head, trained on four "
    "seasons of field samples collected at eleven gauging stations along two alpine rivers, and "
    "show that it halves the error of the rating-curve baseline used by hydrologists today.")


CLAUSES = ["a small model trained on public data", "a survey of field records from many sites",
           "a simulator calibrated on decades of measurements", "a benchmark assembled by volunteers",
           "a causal analysis of observational logs", "a crowd-sourced annotation campaign",
           "an ensemble of physics-based and learned forecasters", "a controlled laboratory study"]


def abstract(topic: str) -> str:
    """An invented abstract about ``topic``; different topics share few five-word runs."""
    seed = sum(map(ord, topic))
    parts = [CLAUSES[(seed + k) % len(CLAUSES)] for k in (0, 3, 5)]
    return (f"We study {topic} using {parts[0]}. Our {topic} results rest on {parts[1]}, and "
            f"we check every {topic} finding against {parts[2]}. Compared with earlier work on "
            f"{topic}, the approach is cheaper, and the code and data for {topic} are released.")


def catalogue(settings: Settings) -> dict[str, str]:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        return {p.id: p.abstract for p in lib.catalog.papers()}
    finally:
        lib.close()


def test_the_bundled_files_keep_their_line_number_ids():
    lines = {f.name[:3]: f.read_text(encoding="utf-8").split("\n") for f in SEED_FILES}
    table = [row.split("\t") for row in BUNDLED_IDS.read_text(encoding="utf-8").splitlines()]
    assert len(table) == 590
    for paper_id, key in table:  # each frozen id is the line its paragraph is on today
        prefix, line = paper_id.split("-")
        assert paragraph_key(lines[prefix][int(line) - 1]) == key
    ids = [item.id for path in SEED_FILES for item in read_file(path)]
    assert ids == [paper_id for paper_id, _ in table]
    assert "000-0001" in ids


def test_prepending_an_abstract_keeps_every_id_and_loses_no_paper(settings, tmp_path):
    path = tmp_path / SUPREMIX_FILE.name
    path.write_text(SUPREMIX_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    _, before = ingest_with_fake_embedder(settings, path)

    path.write_text(NEW_ABSTRACT + "\n\n" + SUPREMIX_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    report, after = ingest_with_fake_embedder(settings, path)

    assert before < after and len(after - before) == 1
    assert report.removed == 0 and report.indexed == 1
    assert {"000-0009", "000-0019", "000-0037", "000-0051", "000-0057"} <= after
    again, clean = ingest_with_fake_embedder(Settings(data_dir=tmp_path / "clean"), path)
    assert clean == after, "an incremental ingest of the edit gives the ids of a clean build"
    assert ingest_with_fake_embedder(settings, path)[1] == after


def test_two_plain_text_files_with_one_prefix_never_share_an_id(settings, tmp_path):
    for year in (2023, 2024):
        (tmp_path / f"lab_{year}.txt").write_text(
            f"{abstract(f'crop yields in {year}')}\n\n{abstract(f'river floods in {year}')}\n", encoding="utf-8")

    report, ids = ingest_with_fake_embedder(settings, tmp_path / "lab_2023.txt", tmp_path / "lab_2024.txt")

    assert len(ids) == 4 and report.indexed == 4
    assert sum(i.startswith("lab_2023-") for i in ids) == 2


NON_LATIN = [
    "我们提出一种新的方法，用于从卫星图像中估计湖冰厚度，并在三个冬季的实地测量数据上进行训练和评估。",
    "我们研究大型语言模型在法律问答中的表现，并发布了一个包含五千个问题的新基准数据集供研究使用。",
    "Мы предлагаем метод оценки толщины льда на озёрах по спутниковым снимкам и проверяем его на трёх зимах.",
    "Мы изучаем, как языковые модели отвечают на юридические вопросы, и выпускаем новый набор данных.",
    "نقترح طريقة لتقدير سماكة الجليد في البحيرات من صور الأقمار الصناعية ونختبرها على ثلاثة فصول شتاء.",
    "Προτείνουμε μια μέθοδο για την εκτίμηση του πάχους του πάγου σε λίμνες από δορυφορικές εικόνες.",
    "Μελετάμε πώς τα γλωσσικά μοντέλα απαντούν σε νομικές ερωτήσεις και δημοσιεύουμε ένα νέο σύνολο.",
]


def test_non_latin_abstracts_keep_ids_and_keys_of_their_own(settings, tmp_path):
    path = tmp_path / "world.jsonl"
    path.write_text("".join(json.dumps({"abstract": text}, ensure_ascii=False) + "\n" for text in NON_LATIN),
                    encoding="utf-8")

    report, ids = ingest_with_fake_embedder(settings, path)

    assert len(ids) == 7 and report.duplicates_merged == 0
    assert "h-e3b0c44298fc" not in ids
    assert len({dedupe_key(t) for t in NON_LATIN}) == 7
    assert dedupe_key("!!! ???") != dedupe_key("") and dedupe_key("…") != dedupe_key("—")


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_duplicate_id_in_one_file_is_reported_and_kept_apart(settings, tmp_path):
    path = jsonl(tmp_path / "a.jsonl", [{"id": "p1", "abstract": abstract("tides")},
                                        {"id": "p2", "abstract": abstract("glaciers")},
                                        {"id": "p1", "abstract": abstract("volcanoes")}])

    report, ids = ingest_with_fake_embedder(settings, path)

    assert len(ids) == 3 and "p1" in ids
    clash = [str(n) for n in report.notices]
    assert len(clash) == 1 and "a.jsonl:3" in clash[0] and "a.jsonl:1" in clash[0]
    texts = catalogue(settings)
    assert texts["p1"] == abstract("tides") and abstract("volcanoes") in texts.values()


def test_a_duplicate_ris_id_is_reported_and_kept_apart(settings, tmp_path):
    record = "TY  - JOUR\nID  - r1\nTI  - {title}\nAB  - {text}\nER  - \n\n"
    path = tmp_path / "refs.ris"
    path.write_text(record.format(title="Tides and moons", text=abstract("tides"))
                    + record.format(title="Volcano gases", text=abstract("volcanoes")), encoding="utf-8")

    report, ids = ingest_with_fake_embedder(settings, path)

    assert len(ids) == 2 and len(report.notices) == 1 and "refs.ris" in str(report.notices[0])


def test_a_duplicate_id_across_files_never_replaces_the_first_and_does_not_flip(settings, tmp_path):
    a = jsonl(tmp_path / "a.jsonl", [{"id": "p3", "abstract": abstract("tides")}])
    b = jsonl(tmp_path / "b.jsonl", [{"id": "p3", "abstract": abstract("volcanoes")}])

    report, ids = ingest_with_fake_embedder(settings, a, b)
    first = catalogue(settings)
    report_again, _ = ingest_with_fake_embedder(settings, a, b)

    assert len(ids) == 2 and first["p3"] == abstract("tides")
    assert any("b.jsonl:1" in str(n) and "a.jsonl:1" in str(n) for n in report.notices)
    assert catalogue(settings) == first and report_again.indexed == 0


def test_identical_rows_under_one_id_are_one_paper_not_a_clash(settings, tmp_path):
    row = {"id": "p1", "abstract": abstract("tides")}
    report, ids = ingest_with_fake_embedder(settings, jsonl(tmp_path / "a.jsonl", [row, row]))
    assert ids == {"p1"} and not [p for p in report.problems if isinstance(p, Problem)]


def test_reingesting_a_library_with_a_fresh_library_object_changes_nothing(settings, tmp_path):
    path = jsonl(tmp_path / "a.jsonl", [{"abstract": abstract("tides")}, {"abstract": abstract("dunes")}])
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        first = ingest(lib, [path])
        second = ingest(lib, [path])
    finally:
        lib.close()
    assert first.indexed == 2 and second.unchanged == 2 and second.indexed == 0
