"""Answer quality on the bundled question set, for whichever generator the settings choose
(the offline answerer by default; an LLM when RAG_LLM__BASE_URL is set).

    .venv/bin/python benchmarks/answers.py [--data-dir DIR] [--limit N]
    RAG_LLM__BASE_URL=http://127.0.0.1:8080/v1 RAG_LLM__MODEL=smollm2 .venv/bin/python benchmarks/answers.py

Prints key-fact accuracy (answerable questions whose every key fact is stated, as `rag eval`
grades it: in a supported sentence citing a gold paper, not negated), gold papers
cited, citation validity (keys that pointed at a real source / all keys the generator wrote),
share of generated sentences that passed the support check, abstention accuracy
(unanswerable abstained + answerable answered, over all questions) and latency."""

from __future__ import annotations

import argparse
from pathlib import Path

from common import indexed_settings

from eval.dataset import DEFAULT_DATASET, load
from eval.metrics import percentile
from eval.run import grade
from rag.engine import answer, build_engine
from rag.types import Route


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        engine = build_engine(settings)
        questions = load(args.dataset)[: args.limit]
        rows, stated = [], {}
        for q in questions:
            result = answer(engine, q.question)
            rows.append((q, result))
            papers = engine.library.catalog.get_many({c.paper_id for c in result.citations} | set(q.gold_papers))
            stated[q.id] = grade(q, result, papers)["scores"]["key_facts"]
            if args.verbose:
                print(f"{q.id} [{q.type}] {'ABSTAIN' if result.abstained else ''} "
                      f"{result.generator}: {result.text[:160]!r}")
        engine.close()
    answerable = [(q, r) for q, r in rows if q.type != "unanswerable"]
    facts = [(q, r) for q, r in answerable if stated[q.id] is not None]
    fact_ok = sum(stated[q.id] == 1.0 for q, _ in facts)
    gold_ok = sum(bool({c.paper_id for c in r.citations} & set(q.gold_papers)) for q, r in answerable)
    valid = sum(len(r.citations) for _, r in rows)
    invalid = sum(r.removed_keys for _, r in rows)
    kept = sum(len(r.sentences) for _, r in rows)
    supported = sum(s.supported for _, r in rows for s in r.sentences)
    removed = sum(r.removed_sentences for _, r in rows)
    abstain_ok = sum(r.abstained == (q.type == "unanswerable") for q, r in rows)
    fallbacks = sum(r.route is Route.FALLBACK for _, r in rows)
    latency = [r.timings["total_ms"] for _, r in rows]
    generators = sorted({str(r.route) for _, r in rows})
    print(f"generator: {', '.join(generators)}; {len(rows)} questions "
          f"({len(answerable)} answerable, {len(rows) - len(answerable)} unanswerable)")
    print(f"key-fact accuracy          {fact_ok}/{len(facts)} = {fact_ok / max(1, len(facts)):.1%}")
    print(f"gold paper cited           {gold_ok}/{len(answerable)} = {gold_ok / max(1, len(answerable)):.1%}")
    print(f"citation validity          {valid}/{valid + invalid} = {valid / max(1, valid + invalid):.1%}")
    print(f"sentences supported        {supported}/{kept + removed} = {supported / max(1, kept + removed):.1%}"
          f" ({removed} removed by the support check)")
    print(f"abstention accuracy        {abstain_ok}/{len(rows)} = {abstain_ok / len(rows):.1%}")
    print(f"LLM fallbacks              {fallbacks}")
    print(f"latency per answer         p50 {percentile(latency, 50):.0f} ms, p95 {percentile(latency, 95):.0f} ms")


if __name__ == "__main__":
    main()
