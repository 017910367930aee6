"""Server mode end to end: `rag serve --workers 4` reads from a real `chroma run` while
`rag ingest` writes to it from another process; every request succeeds and the new papers
become answerable without a restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import httpx
import pytest

from rag.settings import BUNDLED_CORPUS
from rag.testing.chroma_server import chroma_server
from rag.testing.live import free_port

pytestmark = pytest.mark.integration


def test_four_workers_answer_with_zero_errors_while_another_process_ingests(tmp_path):
    with chroma_server(tmp_path / "chroma") as chroma_port:
        env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "index"), "RAG_STORE__MODE": "server",
               "RAG_STORE__PORT": str(chroma_port), "RAG_STORE__RELOAD_SECONDS": "0.2",
               # about 400 requests in a minute from one client: this test is not about the rate limit
               "RAG_SERVICE__RATE_LIMIT_PER_MINUTE": "100000"}
        rag = [sys.executable, "-m", "cli"]
        first = subprocess.run([*rag, "ingest", str(BUNDLED_CORPUS / "002_c30d0852975d4dec.txt")],
                               env=env, capture_output=True, text=True, timeout=600)
        assert first.returncode == 0, first.stderr
        port = free_port()
        serve = subprocess.Popen([*rag, "serve", "--port", str(port), "--workers", "4"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.3)
            new = tmp_path / "new.jsonl"
            new.write_text(json.dumps({"id": "new-1", "abstract": "We propose Zanthorix, a retrieval "
                                       "method for chemical patents that indexes molecule graphs."}) + "\n")
            statuses: list[int] = []
            stop = threading.Event()

            def traffic() -> None:
                questions = ["Which papers study deep neural networks?", "What does Zanthorix index?"]
                while not stop.is_set() and len(statuses) < 400:
                    for q in questions:
                        statuses.append(httpx.post(f"{base}/api/ask", json={"question": q},
                                                   timeout=60).status_code)

            threads = [threading.Thread(target=traffic) for _ in range(3)]
            for t in threads:
                t.start()
            second = subprocess.run([*rag, "ingest", str(BUNDLED_CORPUS / "000_571e57f18ef84a00.txt"),
                                     str(new)], env=env, capture_output=True, text=True, timeout=600)
            time.sleep(1.5)
            stop.set()
            for t in threads:
                t.join(timeout=120)
            assert second.returncode == 0, second.stderr
            assert statuses and set(statuses) == {200}, {s: statuses.count(s) for s in set(statuses)}
            cited = []
            for _ in range(4):  # each worker reopens on its own; ask each a few times
                reply = httpx.post(f"{base}/api/ask", json={"question": "What does Zanthorix index?"},
                                   timeout=60).json()
                cited.append([c["paper_id"] for c in reply["citations"]][:1])
            assert all(c == ["new-1"] for c in cited), cited
        finally:
            serve.terminate()
            serve.wait(timeout=30)
