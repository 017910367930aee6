"""Slow-header connections are closed (issue 19, point 13): over real HTTP with uvicorn, clients
that send nothing, or their headers a byte at a time, lose the connection after the header
deadline; a normal request on the same server is answered, and keep-alive still works."""

from __future__ import annotations

import socket
import time

import httpx
from fastapi import FastAPI

from rag.testing.live import running
from service.slow_clients import HeaderTimeoutProtocol, server_options


class QuickDeadline(HeaderTimeoutProtocol):
    header_seconds = 1.0


def app() -> FastAPI:
    api = FastAPI()

    @api.get("/ping")
    async def ping() -> dict:
        return {"ok": True}

    return api


def closed_within(sock: socket.socket, seconds: float, trickle: bytes = b"") -> bool:
    """Send ``trickle`` a byte every 0.2 s; True when the server closes the connection in time."""
    deadline = time.monotonic() + seconds
    sock.settimeout(0.2)
    sent = 0
    while time.monotonic() < deadline:
        try:
            if sent < len(trickle):
                sock.send(trickle[sent : sent + 1])
                sent += 1
            if sock.recv(1024) == b"":
                return True
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def test_slow_and_silent_connections_are_closed_at_the_header_deadline():
    options = server_options() | {"http": QuickDeadline}
    with running(app(), **options) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = b"GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
        sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(6)]
        started = time.monotonic()
        try:
            results = [closed_within(s, 4.0, slow if i % 2 else b"") for i, s in enumerate(sockets)]
            assert all(results), results
            assert time.monotonic() - started < 4.0 * len(sockets)
            with httpx.Client(base_url=url) as client:  # keep-alive: two requests, one connection
                assert client.get("/ping").json() == {"ok": True}
                time.sleep(1.5)  # longer than the header deadline, shorter than keep-alive
                assert client.get("/ping").json() == {"ok": True}
        finally:
            for s in sockets:
                s.close()


def test_without_the_deadline_a_slow_client_holds_its_connection():
    with running(app()) as url:  # plain uvicorn h11: what rag serve did before
        port = int(url.rsplit(":", 1)[1])
        sock = socket.create_connection(("127.0.0.1", port))
        try:
            assert not closed_within(sock, 2.0, b"GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaa")
        finally:
            sock.close()
