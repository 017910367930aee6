"""Words of any script are words: a question saying "Sámi", "Ωμέγα" or "王小明" reaches the
abstracts and authors that say them, through the keyword index and the author filter; and a
question in Chinese, written without spaces, is answered from the Chinese abstract that answers it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.engine import answer, build_engine
from rag.index.catalog import Catalog
from rag.index.catalog_schema import SCHEMA_VERSION
from rag.index.chunking import Chunker
from rag.index.filters import Filters
from rag.ingest.papers import make_paper, text_hash
from rag.retrieve.keyword import keyword_search
from rag.settings import ChunkingSettings, Settings
from rag.text.lexicon import alnum_words, content_terms, spaced, tokens, word_count
from rag.text.names import capitalised_terms, method_name, name_pattern, names
from tests.support import index_papers

SAMI = make_paper("sami", "We release an open generative language model for Norwegian Bokmål, Nynorsk "
                  "and Northern Sámi, trained in three continual stages.")
GREEK = make_paper("greek", "Ωμέγα is a tokenizer for Greek legal text that keeps accents intact.",
                   authors=("王小明", "Νίκος Παπαδόπουλος"))
UMLAUT = make_paper("umlaut", "We present Ümlaut-Net, a tokenizer for German compounds.")
CHINESE = [
    ("zh-mt", "机器翻译的数据增强", "数据增强可以提高机器翻译的质量。"
                                 "我们使用回译生成更多的训练数据，使翻译得分提高了三分。"),
    ("zh-attn", "稀疏注意力用于长文本", "我们提出了一种稀疏注意力方法，用于处理长文本。该方法将计算量降低了一半。"
                                   "在三个基准上的实验表明其效果优于现有方法。"),
    ("zh-seg", "医学图像分割", "本文研究医学图像分割问题。"
                              "我们设计了一个新的网络结构，在两个数据集上取得了最好的结果。"),
]
OTHERS = [make_paper(f"o{i}", f"A language model for legal text in many languages, variant {i}, trained "
                     "in stages on open data.") for i in range(4)]


def _catalog(path: Path) -> Catalog:
    catalog = Catalog(path / "papers.sqlite")
    chunker = Chunker(ChunkingSettings())
    papers = [SAMI, GREEK, UMLAUT, *OTHERS, *(make_paper(pid, text, title=title) for pid, title, text in CHINESE)]
    catalog.save([(p, text_hash(p)) for p in papers], chunks=[c for p in papers for c in chunker.chunks(p)])
    return catalog


def test_a_word_with_an_accent_or_of_another_script_is_one_word() -> None:
    assert tokens("the indigenous Sámi language, KV-cache, doesn't") == ["the", "indigenous", "Sámi",
                                                                        "language", "KV-cache", "doesn't"]
    assert alnum_words("Ωμέγα and 王小明 read GPT-4o") == ["Ωμέγα", "and", "王小明", "read", "GPT", "4o"]
    assert "sámi" in {t.lower() for t in content_terms("Northern Sámi")}


def test_a_name_with_letters_of_any_script_is_one_name() -> None:
    assert method_name("We present Ümlaut-Net, a tokenizer for German compounds.") == "Ümlaut-Net"
    assert method_name("We introduce ΩμέγαNet, a model of Greek legal text.") == "ΩμέγαNet"
    assert names("We propose ÉLAN and compare it with GPT-4o.") == ["ÉLAN", "GPT-4o"], "not 'LAN'"
    assert capitalised_terms("the languages of Norway and of Sámi people") == ["Norway", "Sámi"]


def test_a_name_without_latin_letters_is_found_only_where_it_is_said() -> None:
    assert name_pattern("Ωμέγα").search("Παρουσιάζουμε το Ωμέγα, έναν tokenizer")
    assert not name_pattern("Ωμέγα").search("A tokenizer for Greek legal text.")
    assert not name_pattern("—").search("any text at all"), "no letter or digit: no match, not every match"


def test_a_run_of_chinese_is_read_as_its_character_pairs_and_counted_by_characters() -> None:
    assert tokens("回译如何提高质量？ GPT-4o") == ["回译", "译如", "如何", "何提", "提高", "高质", "质量", "GPT-4o"]
    assert spaced("使用回译, GPT-4o") == "使 用 回 译, GPT-4o"
    assert word_count("该方法将计算量降低了一半。") == 12 and word_count("It halves the cost.") == 4


def _found(tmp_path: Path, *queries: str) -> list[list[str]]:
    """The papers keyword search puts first for each query, best first."""
    catalog = _catalog(tmp_path)
    found = [[h.chunk.paper_id for h in keyword_search(catalog, q, 3)] for q in queries]
    catalog.close()
    return found


def test_keyword_search_finds_the_abstract_that_says_an_accented_or_greek_word(tmp_path: Path) -> None:
    sami, greek = _found(tmp_path, "a language model for Sámi", "what is Ωμέγα?")
    assert sami[0] == "sami", "'Sámi' was cut into 'S' and 'mi', which no abstract says"
    assert greek == ["greek"]


def test_keyword_search_finds_the_chinese_abstract_by_words_inside_its_sentences(tmp_path: Path) -> None:
    found, by_title = _found(tmp_path, "回译如何提高翻译质量？", "注意力")
    assert found[0] == "zh-mt", "a sentence is one run of characters: the whole run was one word"
    assert by_title[0] == "zh-attn"


def test_the_author_filter_finds_a_name_written_in_chinese_or_greek(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    chinese = catalog.count_matching(Filters(author="王小明"))
    greek = catalog.count_matching(Filters(author="Παπαδόπουλος"))
    nobody = catalog.count_matching(Filters(author="李雷"))
    catalog.close()
    assert (chinese, greek, nobody) == (1, 1, 0)


def test_a_schema_5_catalogue_indexes_its_chinese_chunks_by_character_in_place(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    # what version 5 stored: no fts columns, each chunk indexed as its text
    db = catalog.db
    db.execute("DROP TRIGGER chunks_added")
    db.execute("DROP TRIGGER chunks_removed")
    db.execute("DELETE FROM chunk_fts")
    db.execute("ALTER TABLE chunks DROP COLUMN fts_text")
    db.execute("ALTER TABLE chunks DROP COLUMN fts_title")
    db.execute("INSERT INTO chunk_fts (chunk_fts) VALUES ('rebuild')")
    db.execute("UPDATE papers SET method = NULL, record = json_remove(record, '$.method') WHERE id = 'umlaut'")
    db.execute("DROP TABLE sentence_vectors")  # version 7's
    db.execute("PRAGMA user_version = 5")
    db.commit()
    before = [h.chunk.paper_id for h in keyword_search(catalog, "回译", 3)]
    catalog.close()

    catalog = Catalog(tmp_path / "papers.sqlite")
    version = catalog.db.execute("PRAGMA user_version").fetchone()[0]
    after = [h.chunk.paper_id for h in keyword_search(catalog, "回译", 3)]
    english = [h.chunk.paper_id for h in keyword_search(catalog, "Sámi", 3)]
    named = catalog.get("umlaut")
    catalog.remove(["zh-mt"])  # its index rows go with it: the 'delete' gives what was indexed
    gone = [h.chunk.paper_id for h in keyword_search(catalog, "回译", 3)]
    catalog.close()
    assert before == [] and version == SCHEMA_VERSION
    assert after == ["zh-mt"] and english == ["sami"] and gone == []
    assert named is not None and named.method == "Ümlaut-Net", "read again from its abstract"


def test_a_schema_4_catalogue_indexes_its_authors_of_any_script_in_place(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    # what version 4 stored: no token for a name without Latin letters
    catalog.db.execute("DELETE FROM author_tokens WHERE paper_id = 'greek'")
    catalog.db.execute("INSERT INTO author_tokens (token, paper_id, pos) VALUES ('nikos', 'greek', 1)")
    catalog.db.execute("PRAGMA user_version = 4")
    catalog.db.commit()
    catalog.close()

    catalog = Catalog(tmp_path / "papers.sqlite")
    version = catalog.db.execute("PRAGMA user_version").fetchone()[0]
    found = catalog.count_matching(Filters(author="王小明"))
    stale = catalog.count_matching(Filters(author="nikos"))
    catalog.close()
    assert version == SCHEMA_VERSION
    assert (found, stale) == (1, 0)


@pytest.fixture(scope="module")
def chinese_engine(tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("chinese")
    rows = [{"id": pid, "title": title, "abstract": text} for pid, title, text in CHINESE]
    engine = build_engine(index_papers(Settings(data_dir=folder / "index"), folder, rows))
    yield engine
    engine.close()


@pytest.mark.parametrize(("question", "paper", "says"), [
    ("回译如何提高翻译质量？", "zh-mt", "回译"),
    ("稀疏注意力方法把计算量降低了多少？", "zh-attn", "降低了一半"),
    ("哪篇论文研究医学图像分割？", "zh-seg", "医学图像分割"),
])
def test_a_chinese_question_is_answered_from_the_chinese_abstract_that_answers_it(chinese_engine, question,
                                                                                 paper, says) -> None:
    reply = answer(chinese_engine, question)
    assert not reply.abstained, reply.abstain_reason
    assert reply.citations[0].paper_id == paper and says in reply.text.split("[")[0]


def test_a_chinese_question_the_collection_does_not_answer_is_declined(chinese_engine) -> None:
    reply = answer(chinese_engine, "强化学习如何用于机器人控制？")
    assert reply.abstained
