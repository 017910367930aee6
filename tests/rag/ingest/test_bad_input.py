"""Bad input costs a row, never a file or a run: bytes that are not UTF-8, JSON's lone
surrogates, huge abstracts, BibTeX entries that never close, unknown files in a folder. Each is
reported as file:line and the good rows around it are read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.ingest.formats import Problem, read_file, scan
from rag.settings import IngestSettings
from rag.types import Paper
from tests.support import ingest_with_fake_embedder as run

GOOD = "We propose GraphFast, a method that trains graph networks quickly on one GPU."
OTHER = "We study label noise in node classification and propose a robust loss for it."
THIRD = "Protein folding is predicted from sequence alone by a diffusion model named FoldDiff."
FIFTH = "Speech recognition for low resource dialects improves with synthetic accents."


def read_all(path: Path, cap: int = 20_000) -> tuple[list[Paper], list[Problem]]:
    items = list(read_file(path, cap))
    return ([i for i in items if isinstance(i, Paper)], [i for i in items if isinstance(i, Problem)])


BAD_BYTE_FILES = {
    "rows.jsonl": b'{"id": "a", "abstract": "' + GOOD.encode() + b'"}\n'
                  b'{"id": "b", "abstract": "caf\xe9 au lait \xff"}\n'
                  b'{"id": "c", "abstract": "' + OTHER.encode() + b'"}\n',
    "rows.csv": b'id,abstract\na,"' + GOOD.encode() + b'"\nb,caf\xe9 \xff\nc,"' + OTHER.encode() + b'"\n',
    "rows.bib": b"@article{a, abstract={" + GOOD.encode() + b"}}\n"
                b"@article{b, abstract={caf\xe9 \xff}}\n"
                b"@article{c, abstract={" + OTHER.encode() + b"}}\n",
    "rows.txt": (GOOD + " " * 3 + "x " * 40).encode() + b"\n\n"
                + b"caf\xe9 " + b"word " * 45 + b"\n\n" + (OTHER + " y" * 40).encode() + b"\n",
}


@pytest.mark.parametrize("name", sorted(BAD_BYTE_FILES))
def test_a_row_that_is_not_utf8_is_reported_with_its_line_and_the_rest_is_read(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(BAD_BYTE_FILES[name])
    papers, problems = read_all(path)
    assert len(papers) == 2
    assert [(p.source, p.line) for p in problems] == [(name, 3 if name in {"rows.txt", "rows.csv"} else 2)]
    assert "not UTF-8" in problems[0].reason and "0xe9" in problems[0].reason


def test_a_jsonl_row_with_a_lone_surrogate_is_reported_and_skipped(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"id": "a", "abstract": GOOD}) + "\n"
                    + '{"id": "b", "abstract": "broken \\ud800 text"}\n'
                    + '{"id": "c", "title": "\\udfff", "abstract": "' + OTHER + '"}\n'
                    + json.dumps({"id": "d", "abstract": OTHER + " Again."}) + "\n", encoding="utf-8")
    papers, problems = read_all(path)
    assert [p.id for p in papers] == ["a", "d"]
    assert [(p.line, "surrogate" in p.reason) for p in problems] == [(2, True), (3, True)]


@pytest.mark.parametrize("name, template", [
    ("rows.jsonl", '{{"id": "{id}", "abstract": "{text}"}}\n'),
    ("rows.csv", None),
    ("rows.bib", "@article{{{id}, abstract={{{text}}}}}\n"),
    ("rows.txt", "{text}\n\n"),
])
def test_an_abstract_over_the_cap_is_reported_and_the_rest_of_the_file_kept(tmp_path, name, template):
    texts = {"a": GOOD + " x" * 40, "big": "words " * 2_000, "c": OTHER + " y" * 40}
    path = tmp_path / name
    if template is None:
        path.write_text("id,abstract\n" + "".join(f'{k},"{v}"\n' for k, v in texts.items()))
    else:
        path.write_text("".join(template.format(id=k, text=v) for k, v in texts.items()))
    papers, problems = read_all(path, cap=5_000)
    assert len(papers) == 2
    assert len(problems) == 1 and "over the cap of 5,000" in problems[0].reason


def test_a_bibtex_entry_with_an_unclosed_brace_does_not_swallow_the_next_entry(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text("@article{broken,\n"
                    "  title = {A {broken title},\n"
                    "  abstract = {" + OTHER + "}\n"
                    "}\n"
                    "\n"
                    "@article{good,\n"
                    "  abstract = {" + GOOD + "}\n"
                    "}\n", encoding="utf-8")
    papers, problems = read_all(path)
    assert [p.id for p in papers] == ["good"]
    assert [(p.line, "unbalanced" in p.reason) for p in problems] == [(1, True)]


def test_a_folder_reports_what_it_does_not_read(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps({"abstract": GOOD}) + "\n")
    (tmp_path / "notes.md").write_text("# notes")
    (tmp_path / "paper.pdf").write_bytes(b"%PDF")
    (tmp_path / "more").mkdir()
    (tmp_path / ".DS_Store").write_bytes(b"\x00")
    files, ignored = scan(tmp_path)
    assert [f.name for f in files] == ["a.jsonl"]
    assert [(p.source, p.line) for p in ignored] == [("more", None), ("notes.md", None), ("paper.pdf", None)]
    assert "unknown extension '.md'" in str(ignored[1]) and str(ignored[1]).startswith("notes.md: ")


def test_ingest_of_a_folder_with_bad_rows_and_an_unreadable_file_keeps_everything_good(settings, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(BAD_BYTE_FILES["rows.jsonl"] + b'{"id": "s", "abstract": "\\ud800"}\n')
    (folder / "b.jsonl").write_text(json.dumps({"id": "big", "abstract": "word " * 5_000}) + "\n"
                                    + json.dumps({"id": "e", "abstract": THIRD}) + "\n")
    (folder / "c.jsonl").symlink_to(tmp_path / "moved-away.jsonl")  # listed, then unreadable
    (folder / "d.bib").write_text("@article{x, abstract={" + FIFTH + "}}\n")
    (folder / "notes.md").write_text("hello")
    small = settings.model_copy(update={"ingest": IngestSettings(max_abstract_chars=10_000)})
    report, ids = run(small, folder)
    assert ids == {"a", "c", "e", "x"}
    where = sorted(str(p).split(": ")[0] for p in report.problems)
    assert where == ["a.jsonl:2", "a.jsonl:4", "b.jsonl:1", "c.jsonl", "notes.md"]
    assert report.files == 4


@pytest.mark.integration
def test_rag_ask_with_bytes_that_are_not_utf8_is_one_line_of_error(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "idx")}
    done = subprocess.run([sys.executable, "-m", "cli", "ask", b"caf\xe9 \xff?"], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 2, done.stderr
    error = done.stderr.decode("utf-8").strip()
    assert error.startswith("error: the question holds a byte that is not UTF-8 (0xe9)")
    assert len(error.splitlines()) == 1


@pytest.mark.slow
def test_control_characters_around_a_known_question_do_not_make_it_abstain(real_index):
    from rag.engine import answer, build_engine

    question = "How can knowledge be distilled from a masked autoencoder cheaply?"
    engine = build_engine(real_index)
    try:
        plain = answer(engine, question)
        noisy = answer(engine, f"\x00\x1b\x07 {question}\x7f\u200b\x00\x0c")
    finally:
        engine.close()
    assert not plain.abstained and noisy.text == plain.text


def test_a_folders_own_readme_and_licence_are_not_reported(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps({"abstract": GOOD}) + "\n")
    for name in ("README.md", "LICENSE", "notes.md"):
        (tmp_path / name).write_text("x")
    assert [p.source for p in scan(tmp_path)[1]] == ["notes.md"]
