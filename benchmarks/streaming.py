"""Streaming with a real model: time to the first checked sentence and to the whole answer.

    .venv/bin/rag local-llm --threads 2 &        # Qwen2.5-Coder-1.5B on 127.0.0.1:8080
    RAG_LLM__BASE_URL=http://127.0.0.1:8080/v1 RAG_LLM__MODEL=qwen RAG_LLM__TIMEOUT=300 \\
        .venv/bin/python benchmarks/streaming.py [--limit 6]

For each question (dev questions answered by one paper; the same in every run) the engine's
``answer_stream`` is consumed as a client consumes it: the time until the first checked piece of
text, and until the Answer. Prints each, the medians, and the ratio first / whole: streaming
should show the first checked sentence in well under half the time the whole answer takes.

A small CPU model spends most of a reply reading the prompt (the abstracts) before its first
token, and no streaming can send a sentence before the model has written one. So the benchmark
also times the model's first token, and prints the ratio over the writing alone (first checked
sentence minus first token, over whole answer minus first token): that is what streaming
changes."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from common import indexed_settings

from eval.dataset import DEFAULT_DATASET, load
from rag.engine import answer_stream, build_engine
from rag.llm.client import build_chat_model
from rag.types import Answer, Replace


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--limit", type=int, default=6)
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        if not settings.llm.configured:
            raise SystemExit("set RAG_LLM__BASE_URL (and RAG_LLM__MODEL) to a running model, e.g. rag local-llm")
        model = FirstToken(build_chat_model(settings.llm))
        engine = build_engine(settings, chat_model=model)
        questions = [q for q in load(DEFAULT_DATASET) if q.type in ("single", "numeric")][: args.limit]
        pairs, count, replaced = [], 0, 0
        for q in questions:
            started, first = time.perf_counter(), None
            model.started, model.first = started, None
            for item in answer_stream(engine, q.question):
                if isinstance(item, str | Replace) and first is None:
                    first = time.perf_counter() - started
                replaced += isinstance(item, Replace)
                if isinstance(item, Answer):
                    whole = time.perf_counter() - started
                    token = model.first if model.first is not None else float("nan")
                    print(f"{q.id}: model's first token {token:6.1f} s, first checked text "
                          f"{first if first is not None else float('nan'):6.1f} s, whole answer {whole:6.1f} s, "
                          f"route {item.route}, {len(item.sentences)} sentences", flush=True)
                    count += 1
                    if first is not None and item.route == "llm" and model.first is not None:
                        pairs.append((model.first, first, whole))
        engine.close()
    if pairs:
        t, f, w = (statistics.median(p[i] for p in pairs) for i in range(3))
        ratio = statistics.median(p[1] / p[2] for p in pairs)
        writing = statistics.median((p[1] - p[0]) / (p[2] - p[0]) for p in pairs if p[2] > p[0])
        print(f"median model's first token {t:.1f} s, first checked sentence {f:.1f} s, whole answer {w:.1f} s; "
              f"median ratio first/whole {ratio:.2f}, over the writing alone {writing:.2f} "
              f"({len(pairs)} of {count} answered by the model; {replaced} replaced)")


class FirstToken:
    """The configured model, noting when its first streamed token arrives."""

    def __init__(self, model):  # type: ignore[no-untyped-def]
        self.model, self.name = model, model.name
        self.started, self.first = time.perf_counter(), None

    def complete(self, messages, schema=None):  # type: ignore[no-untyped-def]
        return self.model.complete(messages, schema)

    def stream(self, messages):  # type: ignore[no-untyped-def]
        for piece in self.model.stream(messages):
            if self.first is None and piece.strip():
                self.first = time.perf_counter() - self.started
            yield piece


if __name__ == "__main__":
    main()
