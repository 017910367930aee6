"""How fast the local model writes training questions here, three ways, on the same sentences:
every prompt read from scratch (the cache reset before each), the shared instruction prefix
reused from llama.cpp's cache, and two model instances of one thread each working at once
(llama-cpp-python has no parallel slots in one process; two processes are its equivalent).
Prints seconds per question and questions per hour for each."""

from __future__ import annotations

import multiprocessing
import time

from eval.training.llm_questions import ask, load_model, messages, targets

SAMPLE = 6


def _timed(llm, items, reset: bool) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    prompt_tokens = 0
    ask(llm, *items[0])  # warm: the model's pages are read and the prefix evaluated once
    started = time.monotonic()
    for sentence, method in items:
        if reset:
            llm.reset()
        prompt_tokens += len(llm.tokenize("".join(m["content"] for m in messages(sentence, method)).encode()))
        ask(llm, sentence, method)
    return (time.monotonic() - started) / len(items), prompt_tokens // len(items)


def _worker(items: list, queue) -> None:  # type: ignore[no-untyped-def]
    llm = load_model(threads=1)
    ask(llm, *items[0])
    started = time.monotonic()
    for sentence, method in items:
        ask(llm, sentence, method)
    queue.put(time.monotonic() - started)


def measure(threads: int) -> None:
    items = targets()[:SAMPLE]
    llm = load_model(threads)
    cold, tokens = _timed(llm, items, reset=True)
    print(f"prompt about {tokens} tokens; reply at most 48 tokens")
    print(f"no prompt cache, {threads} threads:       {cold:.2f} s a question, {3600 / cold:.0f} an hour")
    warm, _ = _timed(llm, items, reset=False)
    print(f"shared prefix cached, {threads} threads:  {warm:.2f} s a question, {3600 / warm:.0f} an hour")
    del llm
    queue: multiprocessing.Queue = multiprocessing.Queue()
    halves = [items[: SAMPLE // 2], items[SAMPLE // 2:]]
    started = time.monotonic()
    workers = [multiprocessing.Process(target=_worker, args=(h, queue)) for h in halves]
    for w in workers:
        w.start()
    spent = [queue.get() for _ in workers]
    for w in workers:
        w.join()
    each = max(spent) / len(halves[0]) / len(halves)
    print(f"two instances x 1 thread at once:  {each:.2f} s a question, {3600 / each:.0f} an hour "
          f"(wall {time.monotonic() - started:.0f} s with loading)")
