"""Hybrid retrieval on a real Chroma + FTS5 index of the bundled corpus (fake embedder):
the keyword index stays in step with ingest, filters and author questions work, papers come
back once each, and follow-ups are rewritten to stand alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.metrics import leading_verdict
from rag.engine import answer, build_engine, search
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.retrieve.fusion import Filters
from rag.retrieve.keyword import keyword_search, match_expression
from rag.retrieve.query import RuleRewriter, author_in_question, clean_question
from rag.settings import BUNDLED_CORPUS, Settings
from rag.testing.fakes import FakeEmbedder
from tests.support import write_papers


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    settings = Settings(data_dir=tmp_path_factory.mktemp("hybrid") / "index")
    lib = open_library(settings, embedder=FakeEmbedder())
    ingest(lib, [BUNDLED_CORPUS])
    built = build_engine(settings, library=lib)
    yield built
    built.close()


@pytest.fixture(scope="module")
def library_files(tmp_path_factory):
    return [write_papers(tmp_path_factory.mktemp("invented") / "papers.jsonl")]


@pytest.fixture(scope="module")
def invented(library):
    """An engine over the invented corpus of tests/support.py (fake embedder)."""
    return build_engine(library.settings, library=library)


def keyword_ids(lib, query: str) -> list[str]:
    return [h.chunk.paper_id for h in keyword_search(lib.catalog, query, 20)]


def test_keyword_index_follows_add_change_and_delete(tmp_path: Path):
    settings = Settings(data_dir=tmp_path / "index")
    corpus = tmp_path / "mine.jsonl"
    corpus.write_text('{"id": "a", "abstract": "We train zebrafish detectors with sonar."}\n'
                      '{"id": "b", "abstract": "We compress transformers with pruning."}\n')
    lib = open_library(settings, embedder=FakeEmbedder())
    ingest(lib, [corpus])
    assert keyword_ids(lib, "zebrafish") == ["a"]
    assert lib.catalog.keyword_count() == lib.vectors.count() == 2

    corpus.write_text('{"id": "a", "abstract": "We train octopus detectors with sonar."}\n'
                      '{"id": "b", "abstract": "We compress transformers with pruning."}\n')
    ingest(lib, [corpus])
    assert keyword_ids(lib, "zebrafish") == [] and keyword_ids(lib, "octopus") == ["a"]

    corpus.write_text('{"id": "a", "abstract": "We train octopus detectors with sonar."}\n')
    ingest(lib, [corpus])
    assert keyword_ids(lib, "pruning") == []
    ingest(lib, [corpus])  # an unchanged re-ingest writes nothing twice
    assert lib.catalog.keyword_count() == lib.vectors.count() == 1
    lib.close()


def test_keyword_queries_are_quoted_so_user_text_is_never_fts_syntax(engine):
    assert match_expression('KV-cache "memory" AND (NOT x*') == '"kv" OR "cache" OR "memory" OR "x"'
    assert keyword_ids(engine.library, 'NEAR( "SupReMix" ) OR *')[0] == "000-0001"
    assert keyword_ids(engine.library, "the of and ?") == []


def test_rare_method_names_are_found_by_the_keyword_side(engine):
    found = search(engine, "SupReMix hard negatives", k=3)
    assert found[0].paper.id == "000-0001"
    assert ("keyword", 1) in [(name, rank) for name, rank, _ in found[0].ranks]
    assert ("name", 1) in [(name, rank) for name, rank, _ in found[0].ranks]


def test_each_paper_comes_back_once_and_merged_duplicates_never(engine):
    found = search(engine, "compress BERT by progressive module replacing", k=10)
    ids = [p.paper.id for p in found]
    assert len(ids) == len(set(ids)) == 10
    assert ids[0] == "000-0061" and "003-0365" not in ids


def test_filters_restrict_both_retrievers(engine):
    found = search(engine, "language model syntactic structure", k=10,
                   filters=Filters(author="Zhouhan Lin"))
    assert found and all(any("Zhouhan Lin" in a for a in p.paper.authors) for p in found)
    assert search(engine, "language models", k=5, filters=Filters(source="004")) != []
    assert all(p.paper.source.startswith("004")
               for p in search(engine, "language models", k=5, filters=Filters(source="004")))


def test_metadata_only_papers_take_part_in_filtered_search_marked_as_such(engine):
    found = search(engine, "papers", k=20, filters=Filters(author="Wangchunshu Zhou"))
    assert found
    assert all(not p.paper.has_abstract for p in found)  # he is only in the listed-only records
    assert {p.paper.year for p in found} <= {2021, 2023, 2024, 2025}


@pytest.mark.parametrize("question", [
    "Which papers did Mirela Okonkwo co-author?", "papers by Mirela Okonkwo",
    "Show me work from Mirela Okonkwo",
])
def test_author_questions_are_answered_from_the_author_lists(invented, question):
    result = answer(invented, question)
    assert result.generator.startswith("metadata")
    assert [c.paper_id for c in result.citations] == ["inv-1", "inv-2", "inv-3"]
    assert result.text.startswith("Mirela Okonkwo is among the listed authors of 3 indexed papers:")
    assert all(f"[{c.key}]" in result.text for c in result.citations)


def test_author_answers_include_papers_listed_without_an_abstract(engine):
    result = answer(engine, "What did Wangchunshu Zhou publish?")
    assert len(result.citations) == 10
    assert "without an abstract" in result.text
    assert all(c.venue and c.year for c in result.citations)


def test_an_unknown_author_falls_back_to_ordinary_retrieval(engine):
    assert author_in_question("papers by Ada Lovelace") == "Ada Lovelace"
    result = answer(engine, "papers by Ada Lovelace")
    assert not result.generator.startswith("metadata")


def test_chatter_is_stripped_and_names_and_numbers_kept():
    assert clean_question("Hi, can you tell me about SupReMix please?") == "SupReMix"
    assert clean_question("I'd like to know what ViT5 scores on 3 tasks") == "What ViT5 scores on 3 tasks"
    assert clean_question("Which papers use LoRA?") == "Which papers use LoRA?"


@pytest.mark.parametrize("request_, imperative", [
    ("Could you list the papers on mixture-of-experts routing?", "List the papers on mixture-of-experts routing?"),
    ("can you please explain what SupReMix uses as hard negatives", "Explain what SupReMix uses as hard negatives"),
    ("Would you compare LoRA and DoRA?", "Compare LoRA and DoRA?"),
    ("Can you show me papers on watermarking?", "Show me papers on watermarking?"),
])
def test_a_polite_request_is_read_as_the_request_not_as_a_yes_no_question(request_, imperative):
    assert clean_question(request_) == imperative


@pytest.mark.parametrize("question", ["Can you get BERT-level quality in a day on one GPU?",
                                      "Can you show that the bound is tight?"])
def test_a_question_about_what_can_be_done_stays_a_yes_no_question(question):
    assert clean_question(question) == question


def test_a_polite_request_gets_the_answer_of_its_imperative_with_no_yes_or_no(engine):
    asked = answer(engine, "Could you list the papers on mixture-of-experts routing?")
    plain = answer(engine, "List the papers on mixture-of-experts routing?")
    assert not asked.abstained and asked.text == plain.text
    assert leading_verdict(asked.text) is None and asked.text.startswith("- ")


@pytest.mark.parametrize("question, history, expected", [
    ("And what does it use as hard positives?", ["What does SupReMix use as hard negatives?"],
     "And what does it use as hard positives? (SupReMix)"),
    ("What about datasets?", ["How does Q7 handle tools?"], "What about datasets? (Q7)"),
    ("How big is the model?", ["Which LLM was built for geoscience research?"],
     "How big is the model? (LLM built geoscience research)"),
    ("Which papers show that pruning helps?", ["What is Q7?"],
     "Which papers show that pruning helps?"),
    ("What is Q7?", ["What does GlimmerMix use?"], "What is Q7?"),
    ("What about datasets?", [], "What about datasets?"),
])
def test_follow_ups_are_rewritten_to_stand_alone(question, history, expected):
    assert RuleRewriter().rewrite(question, history) == expected


def test_a_follow_up_in_a_conversation_retrieves_the_earlier_subject(invented):
    result = answer(invented, "And what does it take as hard positive pairs?",
                    history=["What does GlimmerMix use as hard negatives?"])
    assert result.standalone_question == "And what does it take as hard positive pairs? (GlimmerMix)"
    assert result.retrieved[0].paper_id == "inv-1"


def test_words_most_chunks_say_are_left_out_of_the_keyword_query_while_a_rarer_one_remains(engine, monkeypatch):
    import rag.retrieve.keyword

    catalog = engine.library.catalog
    assert match_expression("language models zebra", catalog) == '"language" OR "models" OR "zebra"'
    monkeypatch.setattr(rag.retrieve.keyword, "COMMON_FLOOR", 20)  # as if the index were much larger
    assert match_expression("language models SupReMix", catalog) == '"supremix"'
    assert match_expression("language models", catalog) == '"language" OR "models"'


def test_a_one_author_filter_searched_chunk_by_chunk_finds_what_the_join_finds(engine, monkeypatch):
    import rag.index.catalog

    catalog = engine.library.catalog
    filters = Filters(author="Zhouhan Lin")
    statements: list[str] = []
    catalog.db.set_trace_callback(statements.append)
    by_chunk = catalog.keyword_search('"language" OR "models" OR "parsing"', 20, filters)
    catalog.db.set_trace_callback(None)
    assert any("json_each" in s for s in statements)  # the chunk-by-chunk path was taken
    monkeypatch.setattr(rag.index.catalog, "_FEW_PAPERS", 0)  # as if the author had many papers: the join
    by_join = catalog.keyword_search('"language" OR "models" OR "parsing"', 20, filters)
    assert by_chunk and [r[0] for r in by_chunk] == [r[0] for r in by_join]
