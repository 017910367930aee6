"""The eval harness: answer every question of a dataset through the one engine path, grade it
(eval/grading.py), and write results.jsonl, summary.json (every figure with its 95% bootstrap
interval) and report.html. Offline by default; an LLM when the settings configure one."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from eval.dataset import DatasetError, Question
from eval.grading import answer_scores, checked_claims, claims, fact_results, failures, is_correct
from eval.judge import Judge
from eval.ledger import generator_of, reading
from eval.metrics import (
    abstention_scores,
    answer_words,
    citation_validity,
    fact_covered,
    hit_at,
    mrr_at,
    ndcg_at,
    percentile,
    recall_at,
)
from eval.stats import interval
from rag.engine import Engine, answer, find_papers
from rag.errors import InputError
from rag.retrieve.query import clean_question
from rag.types import Answer, Paper

RETRIEVAL = ("hit@5", "recall@5", "recall@10", "mrr@10", "ndcg@10")
ANSWER = ("key_facts", "gold_cited", "answer_precision", "answer_recall", "figure_recall",
          "yes_no_verdict", "yes_no", "unanswerable_abstained", "near_domain_abstained",
          "false_abstention", "citation_precision", "citation_recall", "citation_validity",
          "token_f1", "judge_support", "accuracy")
SCORES = RETRIEVAL + ANSWER


def retrieval_scores(ranked: Sequence[str], gold: Sequence[str]) -> dict[str, float | None]:
    if not gold:
        return dict.fromkeys(RETRIEVAL)
    return {"hit@5": hit_at(ranked, gold, 5), "recall@5": recall_at(ranked, gold, 5),
            "recall@10": recall_at(ranked, gold, 10), "mrr@10": mrr_at(ranked, gold, 10),
            "ndcg@10": ndcg_at(ranked, gold, 10)}


def grade(q: Question, result: Answer, catalogue: Mapping[str, Paper], ranked: Sequence[str] = (),
          judge: Judge | None = None) -> dict[str, Any]:
    """One result line, without timing: every score, the claims and facts, what failed, and the
    passages (cited and gold abstracts) a reader needs to see why."""
    found = checked_claims(q, claims(result, catalogue, listing=q.type in ("list", "metadata")))
    facts = fact_results(q, found)
    scores: dict[str, float | None] = dict.fromkeys(SCORES)
    scores |= retrieval_scores(ranked, q.gold_papers) | answer_scores(q, result, found, facts)
    if result.route == "llm" and (result.citations or result.removed_keys):
        scores["citation_validity"] = citation_validity(len(result.citations), result.removed_keys)
    labels: list[bool | None] = [None] * len(found)
    if judge is not None and not result.abstained:
        scores["judge_support"], labels = judge.rate([(c.body, c.papers) for c in found], catalogue)
    correct = is_correct(q, result, scores)
    scores["accuracy"] = float(correct)
    shown = dict.fromkeys([c.paper_id for c in result.citations] + list(q.gold_papers))
    return {
        "id": q.id, "type": q.type, "tags": list(q.tags), "question": q.question,
        "yes_no": q.yes_no, "near_domain": q.near_domain, "reference_answer": q.reference_answer,
        "answer": result.text, "abstained": result.abstained, "abstain_reason": result.abstain_reason,
        "generator": result.generator, "route": result.route, "fallback_reason": result.fallback_reason,
        "citations": [asdict(c) for c in result.citations], "retrieved": list(ranked),
        "gold_papers": list(q.gold_papers), "scores": scores, "correct": correct,
        "claims": [{"text": c.text, "papers": list(c.papers), "supported": c.supported, "judge": label}
                   for c, label in zip(found, labels, strict=True)],
        "facts": [{"fact": f.label, "alternatives": list(f.fact.any), "state": f.state,
                   "papers": list(f.papers)} for f in facts],
        "failures": failures(q, result, scores, facts),
        "passages": {pid: {"label": catalogue[pid].label, "text": catalogue[pid].abstract}
                     for pid in shown if pid in catalogue},
        "removed_sentences": result.removed_sentences, "removed_keys": result.removed_keys,
        "sentences": [{"text": x.text, "keys": list(x.keys), "score": x.score, "supported": x.supported}
                      for x in result.sentences],
    }


def score_question(engine: Engine, q: Question, k: int, judge: Judge | None = None) -> dict[str, Any]:
    """Answer one question through the engine, retrieve its top k for the retrieval metrics,
    and grade it."""
    model = getattr(engine.generator, "model", None)
    tokens_before = (getattr(model, "tokens_in", 0), getattr(model, "tokens_out", 0))
    started = time.perf_counter()
    result = answer(engine, q.question)
    latency = (time.perf_counter() - started) * 1000
    ranked = [p.paper.id for p in find_papers(engine, clean_question(q.question), k=k)]
    wanted = {c.paper_id for c in result.citations} | set(q.gold_papers)
    row = grade(q, result, engine.library.catalog.get_many(wanted), ranked, judge)
    return row | {"latency_ms": round(latency, 1),
                  "tokens_in": getattr(model, "tokens_in", 0) - tokens_before[0],
                  "tokens_out": getattr(model, "tokens_out", 0) - tokens_before[1]}


def resolve_gold_phrases(engine: Engine, questions: Sequence[Question]) -> list[Question]:
    """Questions given gold phrases instead of ids get as gold every indexed paper whose
    abstract says one of them; a phrase no abstract says is a DatasetError."""
    asked = [q for q in questions if q.gold_phrases and not q.gold_papers]
    if not asked:
        return list(questions)
    papers = [p for p in engine.library.catalog.papers() if p.has_abstract]
    found = {q.id: tuple(p.id for p in papers if fact_covered(q.gold_phrases, p.text)) for q in asked}
    missing = [f"{q.id}: no indexed abstract says {' / '.join(q.gold_phrases)!r}" for q in asked
               if not found[q.id]]
    if missing:
        raise DatasetError("gold phrases that match no paper:\n  " + "\n  ".join(missing))
    return [replace(q, gold_papers=found[q.id]) if q.id in found else q for q in questions]


def _block(rows: Sequence[Mapping[str, Any]], names: Sequence[str]) -> tuple[dict, dict, dict]:
    """(mean, 95% interval, count) of each score over the rows where it applies."""
    means, cis, counts = {}, {}, {}
    for name in names:
        values = [r["scores"][name] for r in rows if r["scores"].get(name) is not None]
        means[name] = round(sum(values) / len(values), 4) if values else None
        ci = interval(values)
        cis[name] = [round(ci[0], 4), round(ci[1], 4)] if ci else None
        counts[name] = len(values)
    return means, cis, counts


def answer_length(rows: Sequence[Mapping[str, Any]]) -> dict[str, float | int]:
    """Words per answer (eval.metrics.answer_words) over the answers given (declines left out):
    p50 and p90, printed beside every accuracy figure, since a longer answer can buy key facts."""
    counts = [answer_words(r["answer"]) for r in rows if not r["abstained"]]
    return {"p50": round(percentile(counts, 50), 1), "p90": round(percentile(counts, 90), 1), "n": len(counts)}


def summarise(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Every figure overall and per question type, each with its 95% bootstrap interval, and the
    answers' length in words."""
    overall, ci, counts = _block(rows, SCORES)
    by_type, by_type_ci, length_by_type = {}, {}, {}
    for kind in sorted({r["type"] for r in rows}):
        of_kind = [r for r in rows if r["type"] == kind]
        by_type[kind], by_type_ci[kind], _ = _block(of_kind, SCORES)
        length_by_type[kind] = answer_length(of_kind)
    verdicts = [r["yes_no"] for r in rows if r.get("yes_no")]
    latency = [r["latency_ms"] for r in rows]
    p50 = interval(latency, "median")
    abstention = abstention_scores([r["abstained"] for r in rows], [r["type"] == "unanswerable" for r in rows])
    answered = [float(r["correct"]) for r in rows if not r["abstained"]]
    return {
        "questions": len(rows), "overall": overall, "ci": ci, "n": counts,
        "by_type": by_type, "by_type_ci": by_type_ci,
        "answer_words": answer_length(rows), "answer_words_by_type": length_by_type,
        "yes_no_majority": round(max(verdicts.count("yes"), verdicts.count("no")) / len(verdicts), 4)
        if verdicts else None,
        "accuracy": overall["accuracy"], "false_abstention_rate": overall["false_abstention"],
        "unanswerable_abstained": overall["unanswerable_abstained"],
        "false_abstentions": sum(r["abstained"] for r in rows if r["type"] != "unanswerable"),
        "precision_answered": round(sum(answered) / len(answered), 4) if answered else None,
        "abstention_precision": round(abstention["precision"], 4),
        "abstention_recall": round(abstention["recall"], 4),
        "latency_p50_ms": round(percentile(latency, 50), 1),
        "latency_p50_ci": [round(p50[0], 1), round(p50[1], 1)] if p50 else None,
        "latency_p95_ms": round(percentile(latency, 95), 1),
        "routes": {route: sum(r.get("route") == route for r in rows)
                   for route in sorted({str(r.get("route")) for r in rows})},
        "tokens_in": sum(r.get("tokens_in", 0) for r in rows),
        "tokens_out": sum(r.get("tokens_out", 0) for r in rows),
        "generators": sorted({r["generator"] for r in rows}),
        "judged": counts["judge_support"],
    }


MANIFEST = "run.json"


class ResumeError(InputError):
    """A run folder that cannot be resumed: nothing in it, or made with other questions or settings."""


def manifest(engine: Engine, questions: Sequence[Question], k: int, judged: object) -> dict[str, Any]:
    """What a run's answers depend on, written to run.json so that a resumed run is the same run.
    ``judged``: None without a judge, "all", or the sorted ids of the judged sample."""
    asked = json.dumps([[q.id, q.question] for q in questions], ensure_ascii=False)
    llm = reading(engine.settings)
    return {"questions": hashlib.sha256(asked.encode()).hexdigest()[:16], "count": len(questions), "k": k,
            "generator": generator_of(engine.settings),
            "llm": llm and llm | {"base_url": engine.settings.llm.base_url}, "judge": judged}


def finished_rows(out: Path, wanted: Mapping[str, Any], questions: Sequence[Question]) -> list[dict[str, Any]]:
    """The rows a stopped run already wrote, if it asked the same questions with the same settings.
    A line cut off by the stop (the last one) is dropped, to be answered again."""
    where = out / MANIFEST
    if not where.exists() or not (out / "results.jsonl").exists():
        raise ResumeError(f"nothing to resume in {out}: it has no {MANIFEST} and results.jsonl "
                          "(runs made before --resume existed cannot be resumed); start a new run")
    had = json.loads(where.read_text(encoding="utf-8"))
    changed = [f"{key} {had.get(key)!r} → {wanted[key]!r}" for key in wanted if had.get(key) != wanted[key]]
    if changed:
        raise ResumeError(f"{out} was run with other questions or settings ({'; '.join(changed)}): "
                          "resume with the same --split/--dataset, --k and RAG_LLM__ settings, or start a new run")
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    rows = []
    for number, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if number < len(lines):
                raise ResumeError(f"{out / 'results.jsonl'}:{number}: not valid JSON; start a new run") from None
    known = {q.id for q in questions}
    return [r for r in rows if r.get("id") in known]


def run(engine: Engine, questions: Sequence[Question], out: Path, k: int = 10,
        tick: Callable[[], None] = lambda: None, judge: Judge | None = None,
        judge_ids: frozenset[str] | None = None, label: str = "", resume: bool = False) -> dict[str, Any]:
    """Answer and grade every question; with a judge, label the answers of ``judge_ids`` (all
    when None). Writes results.jsonl (a line per answer, as it comes), summary.json and
    report.html into ``out``. ``resume``: keep the answers a stopped run in ``out`` already wrote
    and answer only the rest."""
    out.mkdir(parents=True, exist_ok=True)
    questions = resolve_gold_phrases(engine, questions)
    wanted = manifest(engine, questions, k,
                      None if judge is None else "all" if judge_ids is None else sorted(judge_ids))
    done = {r["id"]: r for r in finished_rows(out, wanted, questions)} if resume else {}
    (out / MANIFEST).write_text(json.dumps(wanted, indent=1), encoding="utf-8")
    results = out / "results.jsonl"
    with results.open("w", encoding="utf-8") as handle:
        # the kept answers first, so that a second stop loses none of them
        handle.writelines(json.dumps(done[q.id], ensure_ascii=False) + "\n" for q in questions if q.id in done)
        handle.flush()
        for q in questions:
            if q.id not in done:
                use = judge if judge is not None and (judge_ids is None or q.id in judge_ids) else None
                done[q.id] = score_question(engine, q, k, use)
                handle.write(json.dumps(done[q.id], ensure_ascii=False) + "\n")
                handle.flush()
            tick()
    rows = [done[q.id] for q in questions]
    if resume:  # the kept answers went first: put the file back in question order
        ordered = results.with_suffix(".tmp")
        ordered.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        ordered.replace(results)
    summary = summarise(rows) | {"label": label}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    from eval.report import write_report

    write_report(out / "report.html", [(label or out.name, rows, summary)])
    return summary
