"""Ready means warm (issue 27, item 13): start a real `rag serve` on the bundled index, and the
moment /readyz first says 200, send `/api/ask` at --rate requests/s for --seconds (open loop, at
most 16 in flight); then, the service now long warm, the same again. Every question is asked
once (the eval sets' questions, the two phases disjoint): a repeated question is served from
caches, which made "warm" look 10-100x faster than it is. Prints p50/p95/max of each phase, the
ratio of their p95s (goal: about 1) and how long /readyz took to say ready.

    .venv/bin/python benchmarks/ready_warm.py [--rate 8 --seconds 12]   # uses RAG_DATA_DIR (ingests if empty)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval.dataset import load  # noqa: E402
from eval.metrics import percentile  # noqa: E402
from rag.settings import PROJECT_ROOT  # noqa: E402
from rag.testing.live import free_port  # noqa: E402

QUESTIONS = list(dict.fromkeys(q.question for split in ("dev", "test")
                               for q in load(PROJECT_ROOT / "eval" / "datasets" / f"{split}.jsonl")))


async def phase(url: str, rate: float, seconds: float, questions: list[str]) -> list[float]:
    times: list[float] = []
    gate = asyncio.Semaphore(16)

    async def one(client: httpx.AsyncClient, question: str) -> None:
        async with gate:
            started = time.perf_counter()
            reply = await client.post("/api/ask", json={"question": question}, timeout=120)
            if reply.status_code == 200:
                times.append(time.perf_counter() - started)

    async with httpx.AsyncClient(base_url=url) as client:
        tasks, started = [], time.monotonic()
        for n in range(int(rate * seconds)):
            await asyncio.sleep(max(0.0, n / rate - (time.monotonic() - started)))
            tasks.append(asyncio.create_task(one(client, questions[n % len(questions)])))
        await asyncio.gather(*tasks)
    return times


def line(name: str, times: list[float]) -> str:
    return (f"{name}: {len(times)} answers, p50 {percentile(times, 50) * 1000:.0f} ms, "
            f"p95 {percentile(times, 95) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=8.0)
    parser.add_argument("--seconds", type=float, default=12.0)
    args = parser.parse_args()
    port = free_port()
    env = {**os.environ, "RAG_SERVICE__RATE_LIMIT_PER_MINUTE": "100000"}
    if subprocess.run([sys.executable, "-m", "cli", "ingest"], env=env, capture_output=True).returncode:
        raise SystemExit("rag ingest failed")
    started = time.monotonic()
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port)], env=env,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() - started > 300:
                raise SystemExit("not ready within 300 s")
            time.sleep(0.1)
        ready = time.monotonic() - started
        count = int(args.rate * args.seconds)
        first = asyncio.run(phase(url, args.rate, args.seconds, QUESTIONS[:count]))
        time.sleep(5)
        warm = asyncio.run(phase(url, args.rate, args.seconds, QUESTIONS[count:2 * count]))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"/readyz said ready {ready:.1f} s after `rag serve` started; {args.rate} req/s for {args.seconds} s each")
    print(line("right after ready", first))
    print(line("warm (later)     ", warm))
    print(f"p95 right after ready / p95 warm: {percentile(first, 95) / percentile(warm, 95):.2f}")


if __name__ == "__main__":
    main()
