"""A real Chroma server (`chroma run`, shipped by the chromadb package) on a free loopback port,
for the tests that cover server mode; stopped when the test session ends."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from rag.testing.live import free_port


def chroma_command() -> list[str]:
    found = Path(sys.executable).with_name("chroma")
    return [str(found)] if found.exists() else [shutil.which("chroma") or "chroma"]


@contextmanager
def chroma_server(path: Path) -> Iterator[int]:
    port = free_port()
    process = subprocess.Popen([*chroma_command(), "run", "--path", str(path), "--host", "127.0.0.1",
                                "--port", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chroma run did not start (exit code {process.poll()})")
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
