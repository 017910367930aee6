"""Keyword retrieval on a titled corpus, by the weight of a title word (BM25 column weight,
``RAG_RETRIEVAL__TITLE_WEIGHT``): weight 0 is "titles not searched", 1 "a title word counts as
an abstract word".

The corpus is the 18 titled papers of the shipped format fixtures (``tests/fixtures/formats``:
RIS, CSL-JSON, BibLaTeX, OpenAlex) among the 578 untitled bundled abstracts as distractors. The
36 queries (``title_queries.jsonl``) ask for each titled paper twice: by words of its title
(as a user who remembers a title types it) and by words of its abstract only (which a title
weight must not hurt). Only the keyword index is built (no embedding): this measures BM25.

    .venv/bin/python benchmarks/titles.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from rag.index.catalog import Catalog
from rag.index.chunking import Chunker
from rag.ingest.formats import input_files, read_file
from rag.ingest.papers import text_hash
from rag.retrieve.keyword import match_expression
from rag.settings import Settings
from rag.types import Paper

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
WEIGHTS = (0.0, 1.0, 2.0, 3.0, 5.0, 10.0)


def build(catalog: Catalog, settings: Settings) -> dict[str, str]:
    """Index every paper's chunks; returns title -> paper id of the titled papers."""
    chunker = Chunker(settings.chunking)
    exports = sorted(f for f in FIXTURES.iterdir() if f.name != "title_queries.jsonl")
    papers = [p for f in input_files(settings.corpus_dir) + exports
              for p in read_file(f) if isinstance(p, Paper)]
    catalog.save([(p, text_hash(p)) for p in papers], chunks=[c for p in papers for c in chunker.chunks(p)])
    return {p.title: p.id for p in papers if p.title}


def ranked(catalog: Catalog, query: str, weight: float) -> list[str]:
    rows = catalog.keyword_search(match_expression(query, catalog), 30, None, weight)
    return list(dict.fromkeys(pid for _, pid, _, _ in rows))


def main() -> None:
    settings = Settings()
    queries = [json.loads(line) for line in (FIXTURES / "title_queries.jsonl").read_text().splitlines()]
    with tempfile.TemporaryDirectory(prefix="rag-titles-") as tmp:
        catalog = Catalog(Path(tmp) / "papers.sqlite")
        ids = build(catalog, settings)
        print(f"{catalog.count()} papers ({len(ids)} titled), {catalog.chunk_count()} chunks; "
              f"{len(queries)} queries\n")
        print(f"{'title weight':>12}  {'queries':<8} {'hit@1':>6} {'hit@5':>6} {'MRR@10':>7}")
        for weight in WEIGHTS:
            for kind in ("title", "content"):
                ranks = []
                for q in (q for q in queries if q["kind"] == kind):
                    found = ranked(catalog, q["query"], weight)[:10]
                    gold = ids[q["gold"]]
                    ranks.append(found.index(gold) + 1 if gold in found else None)
                n = len(ranks)
                hit1 = sum(r == 1 for r in ranks) / n
                hit5 = sum(r is not None and r <= 5 for r in ranks) / n
                mrr = sum(1 / r for r in ranks if r) / n
                print(f"{weight:>12g}  {kind:<8} {hit1:>6.3f} {hit5:>6.3f} {mrr:>7.3f}")
        catalog.close()


if __name__ == "__main__":
    main()
