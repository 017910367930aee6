"""A real uvicorn server on a free loopback port, in a thread, for tests that speak HTTP."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    """A free TCP port on loopback, for servers the tests and benchmarks start."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(app: Any, ready: str | None = None, **options: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn until the block ends; yields its base URL once it listens (and,
    with ``ready``, once that path answers 200: "/readyz" for an app that warms up first)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    if ready:
        _wait_for(f"http://127.0.0.1:{port}{ready}", thread, seconds=120)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _wait_for(url: str, thread: threading.Thread, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        assert thread.is_alive(), f"uvicorn stopped before {url} answered"
        assert time.monotonic() < deadline, f"{url} did not answer 200 within {seconds:.0f} s"
        time.sleep(0.2)
