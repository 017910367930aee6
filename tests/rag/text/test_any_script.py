"""Words of any script are words: a question saying "Sámi", "Ωμέγα" or "王小明" reaches the
abstracts and authors that say them, through the keyword index and the author filter."""

from __future__ import annotations

from pathlib import Path

from rag.index.catalog import Catalog
from rag.index.catalog_schema import SCHEMA_VERSION
from rag.index.chunking import Chunker
from rag.index.filters import Filters
from rag.ingest.papers import make_paper, text_hash
from rag.retrieve.keyword import keyword_search
from rag.settings import ChunkingSettings
from rag.text.lexicon import alnum_words, content_terms, tokens

SAMI = make_paper("sami", "We release an open generative language model for Norwegian Bokmål, Nynorsk "
                  "and Northern Sámi, trained in three continual stages.")
GREEK = make_paper("greek", "Ωμέγα is a tokenizer for Greek legal text that keeps accents intact.",
                   authors=("王小明", "Νίκος Παπαδόπουλος"))
OTHERS = [make_paper(f"o{i}", f"A language model for legal text in many languages, variant {i}, trained "
                     "in stages on open data.") for i in range(4)]


def _catalog(path: Path) -> Catalog:
    catalog = Catalog(path / "papers.sqlite")
    chunker = Chunker(ChunkingSettings())
    papers = [SAMI, GREEK, *OTHERS]
    catalog.save([(p, text_hash(p)) for p in papers], chunks=[c for p in papers for c in chunker.chunks(p)])
    return catalog


def test_a_word_with_an_accent_or_of_another_script_is_one_word() -> None:
    assert tokens("the indigenous Sámi language, KV-cache, doesn't") == ["the", "indigenous", "Sámi",
                                                                        "language", "KV-cache", "doesn't"]
    assert alnum_words("Ωμέγα and 王小明 read GPT-4o") == ["Ωμέγα", "and", "王小明", "read", "GPT", "4o"]
    assert "sámi" in {t.lower() for t in content_terms("Northern Sámi")}


def test_keyword_search_finds_the_abstract_that_says_an_accented_or_greek_word(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    sami = [h.chunk.paper_id for h in keyword_search(catalog, "a language model for Sámi", 3)]
    greek = [h.chunk.paper_id for h in keyword_search(catalog, "what is Ωμέγα?", 3)]
    catalog.close()
    assert sami[0] == "sami", "'Sámi' was cut into 'S' and 'mi', which no abstract says"
    assert greek == ["greek"]


def test_the_author_filter_finds_a_name_written_in_chinese_or_greek(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    chinese = catalog.count_matching(Filters(author="王小明"))
    greek = catalog.count_matching(Filters(author="Παπαδόπουλος"))
    nobody = catalog.count_matching(Filters(author="李雷"))
    catalog.close()
    assert (chinese, greek, nobody) == (1, 1, 0)


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
    assert version == SCHEMA_VERSION == 5
    assert (found, stale) == (1, 0)
