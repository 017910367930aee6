"""Cold start of the real commands, each run several times as a fresh process on the bundled
index: `rag --help` (the floor: Python + click), `rag ask` (import, open the index, load the
embedder, answer, exit) and `rag serve` (until /readyz answers 200). Goals (issue 12): `rag ask`
cold <= 1.5 s, `rag serve` ready <= 3 s. Prints medians, the ratio to `rag --help` measured in
the same run, and the load average (the machine is shared, so absolute figures move).

    .venv/bin/python benchmarks/cold_start.py [--runs 5]   # uses RAG_DATA_DIR (ingests if empty)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.testing.live import free_port  # noqa: E402

RAG = [str(Path(sys.executable).with_name("rag"))]
QUESTION = "What does SupReMix use as hard negatives?"


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def serve_ready() -> float:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen([*RAG, "serve", "--port", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    return time.perf_counter() - started
            except httpx.HTTPError:
                pass
            if process.poll() is not None:
                raise SystemExit("rag serve exited")
            time.sleep(0.02)
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    subprocess.run([*RAG, "ingest"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    load = os.getloadavg()[0]
    floor = statistics.median(timed([*RAG, "--help"]) for _ in range(runs))
    ask = statistics.median(timed([*RAG, "ask", QUESTION]) for _ in range(runs))
    serve = statistics.median(serve_ready() for _ in range(max(2, runs // 2)))
    print(f"load average at start: {load:.1f} (2 cores)")
    print("| command | median s | x `rag --help` | goal | met |")
    print("|---|---|---|---|---|")
    print(f"| rag --help | {floor:.2f} | 1.0 | - | - |")
    for name, value, goal in (("rag ask (cold)", ask, 1.5), ("rag serve until /readyz", serve, 3.0)):
        print(f"| {name} | {value:.2f} | {value / floor:.1f} | <= {goal} s | "
              f"{'met' if value <= goal else 'missed'} |")


if __name__ == "__main__":
    main()
