"""Ingest loses nothing it was not asked to drop: a source is its resolved path (two files
named alike in different folders are different sources), bad rows and bad files are reported
and skipped while the rest is kept."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import ingest_with_fake_embedder as run


def rows(prefix: str, n: int) -> list[dict]:
    return [{"id": f"{prefix}-{i}", "abstract": f"{prefix} paper {i} studies {prefix} graphs "
             f"with method {prefix}{i}Net on benchmark {i}."} for i in range(n)]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_file_named_like_another_in_a_second_folder_removes_none_of_its_papers(settings, tmp_path):
    a = write_jsonl(tmp_path / "A" / "papers.jsonl", rows("alpha", 3))
    b = write_jsonl(tmp_path / "B" / "papers.jsonl", rows("beta", 2))
    run(settings, a)
    report, ids = run(settings, b)
    assert report.removed == 0
    assert ids == {"alpha-0", "alpha-1", "alpha-2", "beta-0", "beta-1"}


def test_a_row_dropped_from_a_file_is_removed_but_papers_of_a_namesake_file_stay(settings, tmp_path):
    a = write_jsonl(tmp_path / "A" / "papers.jsonl", rows("alpha", 3))
    b = write_jsonl(tmp_path / "B" / "papers.jsonl", rows("beta", 2))
    run(settings, a, b)
    write_jsonl(a, rows("alpha", 2))
    report, ids = run(settings, a)
    assert report.removed == 1
    assert ids == {"alpha-0", "alpha-1", "beta-0", "beta-1"}


def test_a_paper_given_by_two_files_stays_while_one_of_them_still_has_it(settings, tmp_path):
    shared = rows("gamma", 1)
    a = write_jsonl(tmp_path / "A" / "one.jsonl", shared + rows("alpha", 1))
    b = write_jsonl(tmp_path / "B" / "two.jsonl", shared)
    run(settings, a, b)
    write_jsonl(a, rows("alpha", 1))
    report, ids = run(settings, a)
    assert report.removed == 0 and "gamma-0" in ids
    write_jsonl(b, rows("beta", 1))
    report, ids = run(settings, b)
    assert report.removed == 1 and ids == {"alpha-0", "beta-0"}
