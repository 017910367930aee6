"""Soak: a real `rag serve` on loopback under mixed traffic for a long while, while the index
is ingested into, rebuilt under a racing ingest, given a garbage stamp and filled to a full disk,
and the LLM endpoint hangs.

    .venv/bin/python benchmarks/soak.py [--seconds 600] [--warmup 60] [--rate 8] [--data-dir DIR]

Traffic, open loop at --rate requests/s (at most 32 in flight): /api/ask (JSON), /api/search,
/api/ask streamed (SSE), /v1/chat/completions streamed, and one request in ten a bad one
(lone surrogate, bytes that are not UTF-8, broken JSON, a chunked 200 kB upload, an unknown
route, a wrong method, n=3, an oversized conversation id), all on keep-alive connections. The
LLM is an obedient fake endpoint on loopback (rag/testing/fake_openai.py). The index (a copy of
--data-dir, or a fresh build) lives on a small tmpfs the soak mounts, so the disk can really
fill. After --warmup seconds, for --seconds (benchmarks/soak_events.py, each from another
process, as an operator would): `rag ingest` of 40 new papers; `rag ingest --rebuild` raced by a
plain `rag ingest` 1.6 s later; garbage written to index.json, then `rag ingest` (it recovers);
a full disk during `rag ingest` (then the same ingest once space is freed); a plain-text file
edited and ingested again; papers in four non-Latin scripts; duplicate ids in a file and across
files; the LLM endpoint hanging for a tenth of the run. At the end, the ids served are compared with a clean build of
the same files.

Printed: requests and latency (p50/p95) per kind, errors by kind and status (goal: 0; a bad
request answered with its documented 4xx is not an error), status 500s (goal: 0), the server's
memory (RSS) at the end of the warm-up and at the end (goal: under 10% growth), each event's
outcome, and papers lost against the clean build (goal: 0)."""

from __future__ import annotations

import argparse
import asyncio
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
from collections.abc import Callable
from pathlib import Path

import httpx
from common import indexed_settings
from soak_events import Events, clean_build, ids_of, mount_tmpfs, papers, texts_of, unmount

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval.dataset import load  # noqa: E402
from eval.metrics import percentile  # noqa: E402
from rag.settings import PROJECT_ROOT, Settings  # noqa: E402
from rag.testing.fake_openai import FakeOpenAI, obedient_reply  # noqa: E402
from rag.testing.live import free_port  # noqa: E402

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


def events(ev: Events, llm: FakeOpenAI, sources: Path, warmup: float, seconds: float,
           mount_point: Path | None) -> None:
    """The index events, at set points of the measured run (each after the one before ends)."""
    started = time.monotonic() + warmup

    def at(fraction: float) -> None:
        time.sleep(max(0.0, started + seconds * fraction - time.monotonic()))

    corpus = Settings().corpus_dir
    new = papers(sources / "new.jsonl", "soak", 40)
    at(0.02)
    ev.ingest(new)
    at(0.08)  # the rebuild embeds every paper again: the longest event comes early
    ev.race([corpus, new, papers(sources / "race-b.jsonl", "rebuilt", 12)],
            papers(sources / "race-a.jsonl", "racer", 12))
    at(0.45)
    ev.corrupt_stamp(papers(sources / "repair.jsonl", "repair", 5))
    at(0.58)
    big = papers(sources / "big.jsonl", "filler", 120)
    if mount_point is not None:
        ev.full_disk(big, mount_point)
    else:
        ev.full_disk_injected(big)
    at(0.66)
    ev.edit(sources / "lab_notes.txt")
    at(0.72)
    ev.foreign_and_duplicates()
    at(0.8)
    llm.mode = "hang"
    ev.note(f"LLM endpoint hangs for {seconds * 0.1:.0f} s")
    time.sleep(seconds * 0.1)
    llm.mode = "ok"


async def traffic(url: str, questions: list[str], warmup: float, seconds: float, rate: float,
                  pid: int, memory: dict, busy: Callable[[], bool]) -> Tally:
    """Open-loop traffic for the warm-up and the measured run; the run goes on (up to three
    times its length) while an event is still running, so each one happens under traffic."""
    tally, tasks = Tally(), set()
    gate = asyncio.Semaphore(IN_FLIGHT)
    kinds = GOOD + ["bad", "bad"]

    async def run(kind: str, question: str, slot: int) -> None:
        async with gate:
            await one(client, tally, kind, question, slot)

    async with httpx.AsyncClient(base_url=url, limits=httpx.Limits(max_connections=IN_FLIGHT)) as client:
        started = time.monotonic()
        slot, tick = 0, warmup
        while (elapsed := time.monotonic() - started) < warmup + seconds or (
                busy() and elapsed < warmup + 3 * seconds):
            if elapsed >= tick:  # the end of the warm-up, then every tenth of the run
                memory.setdefault("start", rss_mb(pid))
                memory.setdefault("series", []).append(rss_mb(pid))
                tick += seconds / 10
            kind = kinds[slot % len(kinds)]
            task = asyncio.create_task(run(kind, questions[slot % len(questions)], slot // len(kinds)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            slot += 1
            await asyncio.sleep(max(0.0, slot / rate - (time.monotonic() - started)))
        await asyncio.gather(*tasks)
        memory["end"], memory["seconds"], memory["warmup"] = rss_mb(pid), elapsed - warmup, warmup
        metrics = (await client.get("/metrics")).text
        memory["fallbacks"] = re.search(r"^rag_llm_fallbacks_total (\S+)", metrics, re.M)
    return tally


def report(tally: Tally, memory: dict, ev: Events, rate: float, lost: dict) -> None:
    total = sum(tally.sent.values())
    print(f"{total} requests (the warm-up's included) in {memory['warmup']:.0f} s of warm-up and "
          f"{memory['seconds']:.0f} s measured ({rate} req/s asked for); "
          f"{os.cpu_count()} CPUs\n")
    print("| kind | requests | errors | p50 ms | p95 ms |\n|---|---|---|---|---|")
    for kind in ("ask", "search", "stream", "openai-stream", "bad"):
        sent = sum(n for k, n in tally.sent.items() if k.split(":")[0] == kind)
        errors = sum(n for (k, _), n in tally.errors.items() if k.split(":")[0] == kind)
        times = tally.latency.get(kind, [])
        p50, p95 = (f"{percentile(times, q) * 1000:.0f}" if times else "-" for q in (50, 95))
        print(f"| {kind} | {sent} | {errors} | {p50} | {p95} |")
    print(f"\nerrors: {sum(tally.errors.values())} (goal 0); status 500: "
          f"{sum(n for (_, status), n in tally.errors.items() if status == '500')} (goal 0)")
    for (kind, status), n in sorted(tally.errors.items()):
        print(f"  {kind}: {status} x{n}")
    print(f"bad requests answered with their documented 4xx: {sum(tally.expected.values())}")
    growth = (memory["end"] - memory["start"]) / memory["start"] * 100
    print(f"server RSS: {memory['start']:.0f} MB at the end of the warm-up, {memory['end']:.0f} MB at "
          f"the end ({growth:+.1f}% from the end of the warm-up, goal < 10%); every tenth of the run: "
          f"{', '.join(f'{m:.0f}' for m in memory.get('series', []))} MB")
    fallbacks = memory["fallbacks"].group(1) if memory["fallbacks"] else "?"
    print(f"answers that fell back to the offline answerer: {fallbacks}\n\nevents:")
    for line in ev.log:
        print(f"  {line}")
    missing = sorted(lost["missing"])
    print(f"\npapers (ids) served: {lost['served']}; clean build of the same {lost['files']} files: "
          f"{lost['clean']}; lost: {len(missing)} (goal 0) {missing[:10] or ''}; "
          f"extra: {len(lost['extra'])} (goal 0); silently changed (another text under the same id): "
          f"{len(lost['changed'])} (goal 0) {lost['changed'][:5] or ''}; vectors {lost['vectors']} for "
          f"{lost['chunks']} chunks")
    print(f"event checks failed: {len(ev.failures)} {ev.failures if ev.failures else ''}")


def serve(env: dict, port: int, log: Path) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port)], env=env,
                              stderr=log.open("w"))
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    return server


def compare(ev: Events, data_dir: Path, clean_dir: Path) -> dict:
    files = list(dict.fromkeys([Settings().corpus_dir, *ev.files]))
    served, chunks, vectors = ids_of(data_dir)
    clean = clean_build(files, clean_dir)
    mine, theirs = texts_of(data_dir), texts_of(clean_dir)
    changed = sorted(i for i in served & clean if mine.get(i) != theirs.get(i))
    return {"served": len(served), "clean": len(clean), "files": len(files), "missing": clean - served,
            "extra": served - clean, "changed": changed, "chunks": chunks, "vectors": vectors}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=600, help="the measured run, after the warm-up")
    parser.add_argument("--warmup", type=float, default=60)
    parser.add_argument("--rate", type=float, default=8.0)
    parser.add_argument("--data-dir", type=Path, help="an index to copy (default: build one)")
    args = parser.parse_args()
    questions = [q.question for split in ("dev", "test")
                 for q in load(PROJECT_ROOT / "eval" / "datasets" / f"{split}.jsonl")]
    random.Random(11).shuffle(questions)
    with tempfile.TemporaryDirectory() as tmp, indexed_settings(None if args.data_dir is None else
                                                                 Path(tmp) / "unused") as built:
        disk = Path(tmp) / "disk"
        mounted = mount_tmpfs(disk, 160)
        print(f"data directory on: {'a 160 MB tmpfs' if mounted else 'the local disk (no mount: ENOSPC injected)'}")
        try:
            data_dir = disk / "index"
            shutil.copytree(args.data_dir or built.data_dir, data_dir,  # the index, not the local models
                            ignore=shutil.ignore_patterns("models"))
            with FakeOpenAI(reply=obedient_reply) as llm:
                port = free_port()
                env = {**os.environ, "RAG_DATA_DIR": str(data_dir), "RAG_LLM__BASE_URL": llm.url,
                       "RAG_LLM__MODEL": "obedient", "RAG_LLM__TIMEOUT": "3", "RAG_LLM__BREAKER_SECONDS": "10",
                       "RAG_SERVICE__RATE_LIMIT_PER_MINUTE": "100000"}
                server = serve(env, port, Path(tmp) / "server.log")
                url = f"http://127.0.0.1:{port}"
                ev = Events(data_dir, Path(tmp), env, url, bool(mounted))
                memory: dict = {}
                thread = threading.Thread(target=events, args=(ev, llm, Path(tmp), args.warmup, args.seconds,
                                                               disk if mounted else None), daemon=True)
                thread.start()
                try:
                    tally = asyncio.run(traffic(url, questions, args.warmup, args.seconds, args.rate,
                                                server.pid, memory, thread.is_alive))
                    thread.join(timeout=900)
                finally:
                    server.terminate()
                    server.wait(timeout=30)
            tracebacks = (Path(tmp) / "server.log").read_text().count("Traceback")
            report(tally, memory, ev, args.rate, compare(ev, data_dir, Path(tmp) / "clean"))
            print(f"tracebacks in the server's log: {tracebacks}")
        finally:
            if mounted:
                unmount(disk)


if __name__ == "__main__":
    main()
