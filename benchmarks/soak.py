"""Soak: a real `rag serve` on loopback under mixed traffic for a long while, with an ingest of
new papers and an LLM-endpoint outage in the middle.

    .venv/bin/python benchmarks/soak.py [--seconds 600] [--rate 8] [--data-dir DIR]

Traffic, open loop at --rate requests/s (at most 32 in flight): /api/ask (JSON), /api/search,
/api/ask streamed (SSE), /v1/chat/completions streamed, and one request in ten a bad one
(lone surrogate, bytes that are not UTF-8, broken JSON, a chunked 200 kB upload, an unknown
route, a wrong method, n=3, an oversized conversation id), all on keep-alive connections.
The LLM is an obedient fake endpoint on loopback (benchmarks/fake_llm.py); at 40% of the run
`rag ingest` adds 40 new papers from another process, and from 60% the endpoint hangs for a
tenth of the run. The index is a copy (--data-dir is never written) or a fresh build.

Printed: requests and latency (p50/p95) per kind, errors by kind and status (goal: 0; a bad
request answered with its documented 4xx is not an error), the server's memory (RSS) at start
and end (goal: under 10% growth), the ingest's outcome and the answers that fell back."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx
from common import indexed_settings
from fake_llm import FakeLLM
from http_load import free_port

from eval.dataset import load
from eval.metrics import percentile
from rag.settings import PROJECT_ROOT

GOOD = ["ask"] * 8 + ["search"] * 5 + ["stream"] * 3 + ["openai-stream"] * 2
IN_FLIGHT = 32


async def chunked(size: int):  # type: ignore[no-untyped-def]
    yield b'{"question": "'
    for _ in range(size // 1024):
        yield b"x" * 1024
    yield b'"}'


JSON = {"content-type": "application/json"}
BAD: list[tuple[str, str, str, dict, int]] = [
    ("surrogate", "POST", "/api/ask", {"content": b'{"question": "why \\ud800?"}', "headers": JSON}, 422),
    ("not-utf8", "POST", "/api/ask", {"content": b'{"question": "caf\xe9"}', "headers": JSON}, 400),
    ("broken-json", "POST", "/v1/chat/completions", {"content": b'{"messages": [', "headers": JSON}, 400),
    ("chunked-200kB", "POST", "/api/ask", {"headers": JSON}, 413),
    ("unknown-route", "GET", "/api/nothing-here", {}, 404),
    ("wrong-method", "DELETE", "/api/ask", {}, 405),
    ("n=3", "POST", "/v1/chat/completions",
     {"json": {"n": 3, "messages": [{"role": "user", "content": "What is K2?"}]}}, 422),
    ("long-conversation-id", "POST", "/api/ask",
     {"json": {"question": "What is K2?", "conversation_id": "c" * 500}}, 422),
    ("stream-surrogate", "POST", "/api/ask",
     {"content": b'{"question": "\\udfff", "stream": true}', "headers": JSON}, 422),
]


class Tally:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.sent: Counter[str] = Counter()
        self.errors: Counter[tuple[str, str]] = Counter()
        self.expected: Counter[str] = Counter()


async def streamed(client: httpx.AsyncClient, path: str, body: dict, last: str) -> int | str:
    async with client.stream("POST", path, json=body, timeout=60) as reply:
        if reply.status_code != 200:
            return reply.status_code
        lines = [line async for line in reply.aiter_lines()]
    return 200 if last in lines else "stream-not-ended"


async def good(client: httpx.AsyncClient, kind: str, question: str) -> int | str:
    if kind == "ask":
        return (await client.post("/api/ask", json={"question": question}, timeout=60)).status_code
    if kind == "search":
        return (await client.get("/api/search", params={"q": question}, timeout=60)).status_code
    if kind == "stream":
        return await streamed(client, "/api/ask", {"question": question, "stream": True}, "event: done")
    return await streamed(client, "/v1/chat/completions", {"stream": True, "messages": [
        {"role": "user", "content": question}]}, "data: [DONE]")


async def one(client: httpx.AsyncClient, tally: Tally, kind: str, question: str, slot: int) -> None:
    started = time.perf_counter()
    try:
        if kind == "bad":
            name, method, path, options, expected = BAD[slot % len(BAD)]
            kind = f"bad:{name}"
            if name == "chunked-200kB":
                options = {**options, "content": chunked(200_000)}
            status: int | str = (await client.request(method, path, timeout=60, **options)).status_code
            if status == expected:
                tally.expected[kind] += 1
                status = "ok"
        else:
            status = await good(client, kind, question)
            status = "ok" if status == 200 else status
    except httpx.HTTPError as exc:
        status = type(exc).__name__
    tally.sent[kind] += 1
    if status == "ok":
        tally.latency[kind.split(":")[0]].append(time.perf_counter() - started)
    else:
        tally.errors[(kind, str(status))] += 1


def rss_mb(pid: int) -> float:
    match = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(match.group(1)) / 1024 if match else float("nan")


def new_papers(path: Path, count: int = 40) -> Path:
    topics = ["coral reef acoustics", "glacier melt forecasting", "bee colony health",
              "urban heat islands", "deep sea sediment dating"]
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            topic = topics[i % len(topics)]
            out.write(json.dumps({"id": f"soak-{i}", "year": 2026, "authors": ["A. Tester"],
                                  "abstract": f"We propose Soak{i}Net, a model for {topic} trained on "
                                  f"{100 + i} field sites. It improves accuracy by {i % 9 + 1}.{i % 7} "
                                  f"points over the strongest baseline on the {topic} benchmark."}) + "\n")
    return path


def events(settings, env: dict, llm: FakeLLM, seconds: float, log: dict) -> None:  # type: ignore[no-untyped-def]
    time.sleep(seconds * 0.4)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "cli", "ingest",
                           str(new_papers(settings.data_dir.parent / "new.jsonl"))],
                          env=env, capture_output=True, text=True)
    log["ingest"] = (done.returncode, round(time.monotonic() - started, 1),
                     (done.stdout.strip().splitlines() or [done.stderr.strip()[-200:]])[-1])
    time.sleep(max(0.0, seconds * 0.6 - (time.monotonic() - started) - seconds * 0.4))
    llm.mode = "hang"
    log["outage"] = f"LLM endpoint hung for {seconds * 0.1:.0f} s from {seconds * 0.6:.0f} s"
    time.sleep(seconds * 0.1)
    llm.mode = "ok"


async def traffic(url: str, questions: list[str], seconds: float, rate: float, pid: int,
                  memory: dict) -> Tally:
    tally, tasks = Tally(), set()
    gate = asyncio.Semaphore(IN_FLIGHT)
    kinds = GOOD + ["bad", "bad"]

    async def run(kind: str, question: str, slot: int) -> None:
        async with gate:
            await one(client, tally, kind, question, slot)

    async with httpx.AsyncClient(base_url=url, limits=httpx.Limits(max_connections=IN_FLIGHT)) as client:
        started = time.monotonic()
        slot = 0
        while (elapsed := time.monotonic() - started) < seconds:
            if slot == 40:
                memory["start"] = rss_mb(pid)
            if slot % int(rate * seconds / 10) == 0:
                memory.setdefault("series", []).append(rss_mb(pid))
            kind = kinds[slot % len(kinds)]
            task = asyncio.create_task(run(kind, questions[slot % len(questions)], slot // len(kinds)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            slot += 1
            await asyncio.sleep(max(0.0, slot / rate - (time.monotonic() - started)))
        await asyncio.gather(*tasks)
        memory["end"], memory["seconds"] = rss_mb(pid), elapsed
        metrics = (await client.get("/metrics")).text
        memory["fallbacks"] = re.search(r"^rag_llm_fallbacks_total (\S+)", metrics, re.M)
    return tally


def report(tally: Tally, memory: dict, log: dict, rate: float) -> None:
    total = sum(tally.sent.values())
    print(f"{total} requests in {memory['seconds']:.0f} s ({total / memory['seconds']:.1f} req/s, "
          f"asked for {rate}); {os.cpu_count()} CPUs\n")
    print("| kind | requests | errors | p50 ms | p95 ms |\n|---|---|---|---|---|")
    for kind in ("ask", "search", "stream", "openai-stream", "bad"):
        sent = sum(n for k, n in tally.sent.items() if k.split(":")[0] == kind)
        errors = sum(n for (k, _), n in tally.errors.items() if k.split(":")[0] == kind)
        times = tally.latency.get(kind, [])
        p50, p95 = (f"{percentile(times, q) * 1000:.0f}" if times else "-" for q in (50, 95))
        print(f"| {kind} | {sent} | {errors} | {p50} | {p95} |")
    print(f"\nerrors: {sum(tally.errors.values())} (goal 0)")
    for (kind, status), n in sorted(tally.errors.items()):
        print(f"  {kind}: {status} x{n}")
    print(f"bad requests answered with their documented 4xx: {sum(tally.expected.values())}")
    growth = (memory["end"] - memory["start"]) / memory["start"] * 100
    print(f"server RSS: {memory['start']:.0f} MB at start, {memory['end']:.0f} MB at end "
          f"({growth:+.1f}%, goal < 10%); every tenth of the run: "
          f"{', '.join(f'{m:.0f}' for m in memory.get('series', []))} MB")
    code, took, line = log.get("ingest", (None, 0, "did not run"))
    print(f"ingest during the run: exit {code} in {took} s: {line}")
    fallbacks = memory["fallbacks"].group(1) if memory["fallbacks"] else "?"
    print(f"{log.get('outage', 'no outage')}; answers that fell back to the offline answerer: {fallbacks}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--rate", type=float, default=8.0)
    parser.add_argument("--data-dir", type=Path, help="an index to copy (default: build one)")
    args = parser.parse_args()
    questions = [q.question for split in ("dev", "test")
                 for q in load(PROJECT_ROOT / "eval" / "datasets" / f"{split}.jsonl")]
    random.Random(11).shuffle(questions)  # 224 questions; each comes back every 28 s at 8 req/s
    with tempfile.TemporaryDirectory() as tmp, indexed_settings(None if args.data_dir is None else
                                                                 Path(tmp) / "unused") as built:
        data_dir = Path(tmp) / "index"
        shutil.copytree(args.data_dir or built.data_dir, data_dir)
        settings = built.model_copy(update={"data_dir": data_dir})
        with FakeLLM() as llm:
            port = free_port()
            env = {**os.environ, "RAG_DATA_DIR": str(data_dir), "RAG_LLM__BASE_URL": llm.url,
                   "RAG_LLM__MODEL": "obedient", "RAG_LLM__TIMEOUT": "3", "RAG_LLM__BREAKER_SECONDS": "10",
                   "RAG_SERVICE__RATE_LIMIT_PER_MINUTE": "100000"}
            server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port)],
                                      env=env, stderr=open(Path(tmp) / "server.log", "w"))  # noqa: SIM115
            try:
                url = f"http://127.0.0.1:{port}"
                for _ in range(600):
                    try:
                        if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                            break
                    except httpx.HTTPError:
                        time.sleep(0.2)
                log: dict = {}
                memory: dict = {}
                thread = threading.Thread(target=events, args=(settings, env, llm, args.seconds, log))
                thread.start()
                tally = asyncio.run(traffic(url, questions, args.seconds, args.rate, server.pid, memory))
                thread.join()
            finally:
                server.terminate()
                server.wait(timeout=30)
            tracebacks = (Path(tmp) / "server.log").read_text().count("Traceback")
    report(tally, memory, log, args.rate)
    print(f"tracebacks in the server's log: {tracebacks}")


if __name__ == "__main__":
    main()
