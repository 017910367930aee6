"""The reader's own candidate pools as the cross-encoder's training and stacking data.

For every dev and generated question (the questions ``rag train-reader`` fits on; never test), the
engine retrieves as it does when answering and the fitted reader's features score each candidate
sentence *out of fold* (a sentence model that never saw the question). For each part of the
question this writes the ``TOP`` best-scored candidates, plus every candidate that states a key
fact (label 1), with the out-of-fold probability: the cross-encoder is trained to reorder exactly
the sentences the fitted reader puts near the top, and the reranking weight is fitted on dev from
these probabilities and the cross-encoder's out-of-fold scores.

    .venv/bin/python -m eval.training.pools      # about 80 s; writes eval/training/pools.jsonl"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from rag.settings import PROJECT_ROOT

OUT = PROJECT_ROOT / "eval" / "training" / "pools.jsonl"
TOP = 12  # candidates kept per part, by the fitted reader's out-of-fold probability


def rows_of(examples, probs, top: int = TOP) -> list[dict]:  # type: ignore[no-untyped-def]
    """One record per question: its parts, each with its kept candidates (best first)."""
    out = []
    for ex, part_probs in zip(examples, probs, strict=True):
        parts = []
        for part, p in zip(ex.scored.intent.parts, part_probs, strict=True):
            order = list(np.argsort(-p, kind="stable"))
            keep = order[:top] + [i for i in order[top:] if ex.labels[i]]
            parts.append({"text": part.text, "candidates": [
                {"text": ex.scored.pool[i].text, "paper": ex.papers[i], "label": int(ex.labels[i]),
                 "p": round(float(p[i]), 5), "rank": int(r)} for r, i in enumerate(keep)]})
        out.append({"qid": ex.question.id, "source": ex.source, "type": ex.question.type,
                    "question": ex.question.question, "parts": parts})
    return out


def build(out: Path = OUT) -> dict[str, int]:
    from eval.dataset import SPLITS, load, refuse_test
    from eval.train_reader import GENERATED, collect, out_of_fold, source_of
    from rag.answer.features import FEATURES
    from rag.answer.model import ReaderModel
    from rag.answer.reader import EVIDENCE
    from rag.engine import build_engine
    from rag.settings import Settings

    paths = [SPLITS["dev"], GENERATED]
    loaded = [(q, source_of(p)) for p in paths for q in load(p) if q.type != "metadata"]
    refuse_test([q for q, _ in loaded], "trained on")
    engine = build_engine(Settings(), reader_model=ReaderModel.blank(FEATURES, EVIDENCE))
    try:
        examples = collect(engine, [q for q, _ in loaded], lambda: None, [s for _, s in loaded])
    finally:
        engine.close()
    probs = out_of_fold(examples, 0.3)  # rag train-reader's C, and its folds
    records = rows_of(examples, probs)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return {"questions": len(records), "dev": sum(r["source"] == "dev" for r in records),
            "with_a_fact": sum(any(c["label"] for p in r["parts"] for c in p["candidates"]) for r in records)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    print(json.dumps(build(parser.parse_args().out)))


if __name__ == "__main__":
    main()
