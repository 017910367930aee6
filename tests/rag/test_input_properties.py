"""Property tests (hypothesis) for everything that reads outside input: the question check,
the text clean-up, every file reader, and ingest. Random bytes, huge lines, invalid UTF-8, lone
surrogates, nested JSON, stray quotes and braces: no crash, only Papers and Problems, no bad
text in a Paper, and no half-written paper in the index."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from rag.engine import question_text
from rag.errors import InputError
from rag.index.library import open_library
from rag.ingest.formats import Problem, read_file
from rag.ingest.pipeline import ingest
from rag.settings import IngestSettings, Settings
from rag.testing.fakes import FakeEmbedder
from rag.text.check import bad_text, tidy
from rag.types import Paper

SETTINGS = Settings(data_dir=Path(tempfile.gettempdir()) / "unused")
EXTENSIONS = [".jsonl", ".json", ".csv", ".tsv", ".bib", ".txt"]
CAP = 2_000
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=300)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12)
noise = st.sampled_from(['"', "'", "{", "}", "[", "]", ",", "@article{", "\\", "\n", "\r", "\x00",
                         "\\ud800", "abstract", "=", "\t", "\xff"])
noisy = st.lists(noise | any_text, max_size=30).map("".join)


@FAST
@given(any_text)
def test_the_question_check_refuses_with_an_input_error_or_returns_clean_text(text):
    try:
        clean = question_text(text, SETTINGS)
    except InputError:
        return
    assert clean and clean == clean.strip() and bad_text(clean) is None
    assert tidy(clean) == clean and len(clean) <= SETTINGS.answer.max_question_chars


@FAST
@given(any_text)
def test_tidy_leaves_no_control_characters_and_keeps_surrogates_visible_to_the_check(text):
    out = tidy(text)
    assert not any(ord(c) < 32 and c not in "\t\n\r" for c in out)
    assert (bad_text(out) is None) == (bad_text(text) is None)


def lines_of_json(rows: list[object], junk: list[str]) -> bytes:
    out = [json.dumps(r, ensure_ascii=bool(i % 2)) for i, r in enumerate(rows)]
    return ("\n".join(out + junk) + "\n").encode("utf-8", "surrogatepass")


def raw(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def bib(entries: list[tuple[str, str, str]]) -> bytes:
    return raw("".join(f"@article{{k{i}, title = {{{t}}}, abstract = {{{a}}},\n  year={y}}}\n"
                       for i, (t, a, y) in enumerate(entries)))


records = st.fixed_dictionaries({"abstract": any_text}, optional={
    "id": json_values, "year": json_values, "authors": json_values, "title": json_values})
file_contents = st.one_of(
    st.binary(max_size=2_000),
    st.builds(lines_of_json, st.lists(json_values, max_size=6), st.lists(noisy, max_size=4)),
    st.builds(lines_of_json, st.lists(records, max_size=6), st.just([])),
    st.builds(lambda body, n: raw(body * n), noisy.filter(bool), st.integers(1, 400)),
    st.builds(lambda words: raw('abstract,id\n"' + " ".join(words) + '",x\n'),
              st.lists(any_text, max_size=20)),
    st.builds(bib, st.lists(st.tuples(noisy, noisy | any_text, noisy), max_size=5)),
)


def check_items(items: list[Paper | Problem]) -> None:
    for item in items:
        assert isinstance(item, Paper | Problem)
        if isinstance(item, Paper):
            assert bad_text(item.id) is None and bad_text(item.abstract) is None
            assert bad_text(item.title or "") is None and all(bad_text(a) is None for a in item.authors)
            assert len(item.abstract) <= CAP


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=file_contents, extension=st.sampled_from(EXTENSIONS))
@example(content=b"@a{,a=}", extension=".bib")  # found by this test: a field with no value
def test_every_reader_yields_papers_and_problems_and_never_raises(content, extension):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{extension}"
        path.write_bytes(content)
        check_items(list(read_file(path, CAP)))


@FAST
@given(size=st.integers(CAP + 1, 200_000), extension=st.sampled_from(EXTENSIONS))
def test_a_huge_line_is_one_problem_not_a_crash(size, extension):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{extension}"
        word = "long " * (size // 5 + 1)
        text = {".jsonl": json.dumps({"abstract": word}), ".json": json.dumps({"abstract": word}),
                ".csv": f"abstract\n{word}", ".tsv": f"abstract\n{word}",
                ".bib": "@article{k, abstract={" + word + "}}", ".txt": word}[extension]
        path.write_text(text + "\n", encoding="utf-8")
        items = list(read_file(path, CAP))
        check_items(items)
        assert [type(i) for i in items] == [Problem]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(content=file_contents, extension=st.sampled_from([".jsonl", ".csv", ".bib", ".txt"]))
def test_ingest_of_any_file_leaves_no_half_written_paper(content, extension):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{extension}"
        path.write_bytes(content)
        settings_ = Settings(data_dir=Path(folder) / "index",
                             ingest=IngestSettings(max_abstract_chars=CAP))
        expected = [i for i in read_file(path, CAP) if isinstance(i, Paper)]
        assume(len(expected) < 50)
        lib = open_library(settings_, embedder=FakeEmbedder(dim=32))
        try:
            report = ingest(lib, [path])
            papers = list(lib.catalog.papers())
            with_text = [p.id for p in papers if p.has_abstract]
            chunks = lib.vectors.chunk_ids(with_text)
            assert {c.split("#")[0] for c in chunks} == set(with_text), "every paper has its vectors"
            assert lib.vectors.count() == len(chunks), "no vectors of papers not in the catalogue"
            assert lib.catalog.keyword_count() == len(chunks), "keyword rows match the vectors"
            assert report.papers == len(expected)
        finally:
            lib.close()
