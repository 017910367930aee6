"""`rag eval regrade RUN`: grade a run's saved answers again with today's ruler, without asking
the engine anything. Same answers, new grading: what a change of the metrics alone does.

Each results.jsonl line keeps the answer as shown, its citations and, per sentence, its citation
keys and whether the engine kept it as supported ("sentences"; older runs have only "claims",
from which the sentences are read back: the claim's text less its "- Label: " or "**span**: "
lead, its papers mapped back to their keys)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.dataset import Question
from rag.errors import InputError
from rag.types import Answer, Citation, Paper, Route, SentenceSupport

_LEAD = re.compile(r"(?:- [^\n]*?: )?(?:\*\*[^*\n]+\*\*: )?")


def _sentences(row: Mapping[str, Any], keys: Mapping[str, int]) -> tuple[SentenceSupport, ...]:
    if "sentences" in row:
        return tuple(SentenceSupport(s["text"], tuple(s["keys"]), s["score"], s["supported"]) for s in row["sentences"])
    out = []
    for claim in row["claims"]:
        body = claim["text"][_LEAD.match(claim["text"]).end():]  # type: ignore[union-attr]
        out.append(SentenceSupport(body, tuple(keys[p] for p in claim["papers"] if p in keys),
                                   1.0 if claim["supported"] else 0.0, claim["supported"]))
    return tuple(out)


def answer_of_row(row: Mapping[str, Any]) -> Answer:
    """The Answer a results.jsonl line was graded from."""
    fields: list[dict[str, Any]] = [{k: tuple(v) if k == "authors" else v for k, v in c.items()}
                                    for c in row["citations"]]
    citations = tuple(Citation(**c) for c in fields)
    keys = {c.paper_id: c.key for c in citations}
    return Answer(row["question"], row["answer"], citations, row["abstained"], generator=row["generator"],
                  sentences=_sentences(row, keys), removed_keys=row.get("removed_keys", 0),
                  removed_sentences=row.get("removed_sentences", 0), route=Route(row["route"]),
                  fallback_reason=row.get("fallback_reason"), abstain_reason=row.get("abstain_reason"))


def regrade(rows: Sequence[Mapping[str, Any]], questions: Sequence[Question],
            catalogue: Mapping[str, Paper]) -> list[dict[str, Any]]:
    """Every row graded again (eval.run.grade) against its question; timing, tokens and the
    retrieved ranking are kept as they were measured."""
    from eval.run import grade

    by_id = {q.id: q for q in questions}
    missing = [r["id"] for r in rows if r["id"] not in by_id]
    if missing:
        raise InputError(f"{len(missing)} answer(s) of the run are not in the questions given "
                         f"({', '.join(missing[:5])}): regrade with the split or dataset the run asked")
    out = []
    for row in rows:
        fresh = grade(by_id[row["id"]], answer_of_row(row), catalogue, row.get("retrieved", ()))
        out.append(fresh | {k: row[k] for k in ("latency_ms", "tokens_in", "tokens_out") if k in row})
    return out


def write(out: Path, rows: Sequence[Mapping[str, Any]], label: str) -> dict[str, Any]:
    """results.jsonl, summary.json and report.html of the regraded run."""
    import json

    from eval.report import write_report
    from eval.run import summarise

    out.mkdir(parents=True, exist_ok=True)
    (out / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                       encoding="utf-8")
    summary = summarise(rows) | {"label": label}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    write_report(out / "report.html", [(label, list(rows), summary)])
    return summary
