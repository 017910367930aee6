"""The eval harness: answer every question of a dataset through the one engine path, score
retrieval, citations, answers and abstention, and write results.jsonl, summary.json and
report.html. Offline by default; an LLM when the settings configure one."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from eval.dataset import Question
from eval.metrics import (
    abstention_scores,
    citation_precision,
    citation_recall,
    citation_validity,
    countable_facts,
    fact_covered,
    hit_at,
    is_verbatim,
    key_fact_coverage,
    mrr_at,
    ndcg_at,
    percentile,
    recall_at,
    token_f1,
    yes_no_correct,
)
from rag.engine import Engine, answer, find_papers
from rag.retrieve.query import clean_question
from rag.types import Route

SCORES = ("hit@5", "recall@5", "recall@10", "mrr@10", "ndcg@10", "key_facts", "yes_no", "token_f1",
          "gold_cited", "citation_precision", "citation_recall", "citation_validity", "support_rate")


def score_question(engine: Engine, q: Question, k: int, judge_with: Any = None) -> dict[str, Any]:
    """One result line: the answer, its citations, every score, and what failed. Citations are
    judged against the gold papers, never with the system's own support scorer; the support
    rate (our own checker) is reported only for sentences that are not copied verbatim. With
    ``judge_with`` (a (ChatModel, Prompt) pair) the LLM judge's scores are added, labelled."""
    model = getattr(engine.generator, "model", None)
    tokens_before = (getattr(model, "tokens_in", 0), getattr(model, "tokens_out", 0))
    started = time.perf_counter()
    result = answer(engine, q.question)
    latency = (time.perf_counter() - started) * 1000
    ranked = [p.paper.id for p in find_papers(engine, clean_question(q.question), k=k)[0]]
    cited = [c.paper_id for c in result.citations]
    unanswerable = q.type == "unanswerable"
    scores: dict[str, float | None] = {name: None for name in SCORES}
    if q.gold_papers:
        scores.update({"hit@5": hit_at(ranked, q.gold_papers, 5),
                       "recall@5": recall_at(ranked, q.gold_papers, 5),
                       "recall@10": recall_at(ranked, q.gold_papers, 10),
                       "mrr@10": mrr_at(ranked, q.gold_papers, 10),
                       "ndcg@10": ndcg_at(ranked, q.gold_papers, 10)})
    if not unanswerable:
        scores["key_facts"] = key_fact_coverage(q.key_facts, result.text, q.question)
        scores["token_f1"] = token_f1(result.text, q.reference_answer)
        if q.yes_no:
            scores["yes_no"] = float(yes_no_correct(q.yes_no, result.text))
        if q.gold_papers:
            scores["citation_recall"] = citation_recall(cited, q.gold_papers)
            scores["citation_precision"] = citation_precision(cited, q.gold_papers)
            if q.type == "single":
                scores["gold_cited"] = float(bool(set(cited) & set(q.gold_papers)))
    if result.route is Route.LLM and (result.citations or result.removed_keys):
        scores["citation_validity"] = citation_validity(len(result.citations), result.removed_keys)
    scores["support_rate"] = _support_rate(engine, result)
    if judge_with is not None:
        from eval.judge import judge

        papers = engine.library.catalog.get_many(c.paper_id for c in result.citations)
        scores.update(judge(judge_with[0], judge_with[1], result, papers))
    correct = result.abstained if unanswerable else (
        not result.abstained and scores["key_facts"] in (None, 1.0)
        and scores["yes_no"] in (None, 1.0)
        and (not q.gold_papers or bool(scores["citation_recall"])))
    return {
        "id": q.id, "type": q.type, "tags": list(q.tags), "question": q.question,
        "answer": result.text, "abstained": result.abstained, "generator": result.generator,
        "route": result.route, "fallback_reason": result.fallback_reason,
        "citations": [asdict(c) for c in result.citations], "retrieved": ranked,
        "gold_papers": list(q.gold_papers), "scores": scores, "correct": correct,
        "latency_ms": round(latency, 1),
        "tokens_in": getattr(model, "tokens_in", 0) - tokens_before[0],
        "tokens_out": getattr(model, "tokens_out", 0) - tokens_before[1],
        "failures": _failures(q, result, scores, unanswerable),
    }


def _support_rate(engine: Engine, result: Any) -> float | None:
    """Supported share of the sentences that are not verbatim copies of a cited abstract
    (verbatim sentences are supported by construction: counting them would flatter)."""
    papers = engine.library.catalog.get_many(c.paper_id for c in result.citations)
    by_key = {c.key: papers[c.paper_id].text for c in result.citations if c.paper_id in papers}
    judged = [s for s in result.sentences
              if not is_verbatim(s.text, [by_key[k_] for k_ in s.keys if k_ in by_key])]
    total = len(judged) + result.removed_sentences
    return sum(s.supported for s in judged) / total if total else None


def _failures(q: Question, result: Any, scores: dict[str, float | None], unanswerable: bool) -> list[str]:
    out = []
    if unanswerable and not result.abstained:
        out.append("answered a question the abstracts do not answer")
    if not unanswerable and result.abstained:
        out.append("abstained on an answerable question")
    if not unanswerable and not result.abstained:
        out += [f"missing key fact: {' / '.join(f)}"
                for f in countable_facts(q.key_facts, q.question) if not fact_covered(f, result.text)]
        if q.gold_papers and not scores["citation_recall"]:
            out.append("no gold paper cited")
        if scores["yes_no"] == 0.0:
            out.append(f"does not open with {q.yes_no!r}")
    if scores["hit@5"] == 0.0:
        out.append("no gold paper in the top 5 retrieved")
    if result.removed_keys:
        out.append(f"{result.removed_keys} invented citation key(s) removed")
    if result.removed_sentences:
        out.append(f"{result.removed_sentences} unsupported sentence(s) removed")
    return out


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(sum(present) / len(present), 4) if present else None


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Averages overall and per question type, abstention, accuracy, latency, tokens."""
    judged = sorted({name for r in rows for name in r["scores"] if name.startswith("judge_")})

    def block(subset: Sequence[dict[str, Any]]) -> dict[str, Any]:
        names = (*SCORES, *judged)
        return {name: _mean([r["scores"].get(name) for r in subset]) for name in names} | {
            "accuracy": _mean([float(r["correct"]) for r in subset]), "questions": len(subset)}

    answered = [r for r in rows if not r["abstained"]]
    abstention = abstention_scores([r["abstained"] for r in rows], [r["type"] == "unanswerable" for r in rows])
    latency = [r["latency_ms"] for r in rows]
    answerable = [r for r in rows if r["type"] != "unanswerable"]
    unanswerable = [r for r in rows if r["type"] == "unanswerable"]
    return {
        "false_abstentions": sum(r["abstained"] for r in answerable),
        "false_abstention_rate": _mean([float(r["abstained"]) for r in answerable]),
        "unanswerable_abstained": _mean([float(r["abstained"]) for r in unanswerable]),
        "routes": {route: sum(r.get("route") == route for r in rows)
                   for route in sorted({str(r.get("route")) for r in rows})},
        "overall": block(rows),
        "by_type": {t: block([r for r in rows if r["type"] == t]) for t in sorted({r["type"] for r in rows})},
        "abstention_precision": round(abstention["precision"], 4),
        "abstention_recall": round(abstention["recall"], 4),
        "accuracy": _mean([float(r["correct"]) for r in rows]),
        "precision_answered": _mean([float(r["correct"]) for r in answered]),
        "latency_p50_ms": round(percentile(latency, 50), 1),
        "latency_p95_ms": round(percentile(latency, 95), 1),
        "tokens_in": sum(r["tokens_in"] for r in rows), "tokens_out": sum(r["tokens_out"] for r in rows),
        "generators": sorted({r["generator"] for r in rows}),
    }


def run(engine: Engine, questions: Sequence[Question], out: Path, k: int = 10,
        tick: Callable[[], None] = lambda: None, judge_with: Any = None) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with (out / "results.jsonl").open("w", encoding="utf-8") as handle:
        for q in questions:
            row = score_question(engine, q, k, judge_with)
            rows.append(row)
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            tick()
    summary = summarise(rows)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    from eval.report import write_report

    write_report(out / "report.html", rows, summary)
    return summary
