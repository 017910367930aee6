"""A fake Slack Web API on loopback: answers the methods the bot calls the way Slack does and
records every call (method, parsed form or JSON body, bearer token) for tests to wait on.

It also speaks Socket Mode: ``apps.connections.open`` hands out ``ws://…/socket``, where the
fake says hello, delivers the envelopes queued with ``send_event`` and records the bot's acks
(method ``socket``). ``python -m rag.testing.fake_slack --host IP --ask QUESTION`` runs it on its own
(stdlib only) until the bot has answered one mention; scripts/compose-check uses it so."""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import itertools
import json
import queue
import select
import socket
import struct
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

BOT_USER = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM = "T0000001"


@dataclass
class Call:
    method: str
    body: dict[str, Any]
    token: str | None = None


@dataclass
class FakeSlack:
    """``with FakeSlack() as slack:`` then point the WebClient at ``slack.api_url``. Set
    ``errors["chat.postEphemeral"] = "not_in_channel"`` to make a method fail like Slack."""

    calls: list[Call] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"
    port: int = 0

    def __post_init__(self) -> None:
        self._changed = threading.Condition()
        self._ts = itertools.count(1)
        self._outbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.sockets = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                upgrade = self.headers.get("Upgrade", "").lower() == "websocket"
                if self.path.split("?")[0] != "/socket" or not upgrade:  # the client sends "/socket?"
                    self.send_error(404)
                    return
                accept = base64.b64encode(hashlib.sha1(
                    (self.headers["Sec-WebSocket-Key"] + WS_GUID).encode()).digest()).decode()
                self.send_response(101)
                self.send_header("Upgrade", "websocket")
                self.send_header("Connection", "Upgrade")
                self.send_header("Sec-WebSocket-Accept", accept)
                self.end_headers()
                fake._socket_session(self.connection)

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                body = fake._parse(raw, self.headers.get("Content-Type", ""))
                auth = self.headers.get("Authorization", "")
                method = self.path.split("?")[0].removeprefix("/api/").strip("/")
                reply = fake._record(Call(method, body, auth.removeprefix("Bearer ") or None))
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((self.host, self.port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def api_url(self) -> str:
        return f"http://{self.host}:{self.server.server_address[1]}/api/"

    @property
    def response_url(self) -> str:
        return f"http://{self.host}:{self.server.server_address[1]}/response_url"

    @property
    def socket_url(self) -> str:
        return f"ws://{self.host}:{self.server.server_address[1]}/socket"

    def __enter__(self) -> FakeSlack:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def _parse(raw: str, content_type: str) -> dict[str, Any]:
        if content_type.startswith("application/json"):
            return json.loads(raw or "{}")
        body: dict[str, Any] = {k: v[0] for k, v in parse_qs(raw).items()}
        for key in ("blocks", "attachments"):
            if isinstance(body.get(key), str):
                body[key] = json.loads(body[key])
        return body

    def _record(self, call: Call) -> dict[str, Any]:
        reply = self._reply(call)
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()
        return reply

    def _reply(self, call: Call) -> dict[str, Any]:
        if call.method in self.errors:
            return {"ok": False, "error": self.errors[call.method]}
        ts = f"{int(time.time())}.{next(self._ts):06d}"
        channel = call.body.get("channel")
        if call.method == "auth.test":
            return {"ok": True, "url": "https://fake.slack.test/", "team": "Fake", "user": "rag",
                    "team_id": TEAM, "user_id": BOT_USER, "bot_id": BOT_ID, "is_enterprise_install": False}
        if call.method == "chat.postMessage":
            return {"ok": True, "channel": channel, "ts": ts, "message": {
                "type": "message", "text": call.body.get("text", ""), "bot_id": BOT_ID, "ts": ts,
                "thread_ts": call.body.get("thread_ts")}}
        if call.method == "chat.update":
            return {"ok": True, "channel": channel, "ts": call.body.get("ts"),
                    "text": call.body.get("text", "")}
        if call.method == "chat.postEphemeral":
            return {"ok": True, "message_ts": ts}
        if call.method == "response_url":
            return {"ok": True}
        if call.method == "apps.connections.open":
            return {"ok": True, "url": self.socket_url}
        return {"ok": False, "error": "unknown_method"}

    def _socket_session(self, conn: socket.socket) -> None:
        """One Socket Mode connection: hello, then queued envelopes out and frames in."""
        with self._changed:
            self.sockets += 1
            self._changed.notify_all()
        _send_frame(conn, 1, json.dumps({"type": "hello", "num_connections": 1,
                                         "connection_info": {"app_id": "A0001"}}).encode())
        while True:
            while not self._outbox.empty():
                _send_frame(conn, 1, json.dumps(self._outbox.get()).encode())
            if not select.select([conn], [], [], 0.2)[0]:
                continue
            opcode, data = _read_frame(conn)
            if opcode == 1:
                self._record(Call("socket", json.loads(data)))
            elif opcode == 9:
                _send_frame(conn, 10, data)
            elif opcode == 8 or opcode is None:
                return

    # ---- for tests ---------------------------------------------------------------------------

    def send_event(self, event: dict[str, Any]) -> str:
        """Queue an Events API envelope for the Socket Mode connection; returns its envelope id."""
        envelope_id = uuid.uuid4().hex
        self._outbox.put({"envelope_id": envelope_id, "type": "events_api", "accepts_response_payload": False,
                          "retry_attempt": 0, "retry_reason": "", "payload": event_callback(event)})
        return envelope_id

    def of(self, method: str) -> list[Call]:
        with self._changed:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, predicate: Callable[[list[Call]], Any], timeout: float = 20.0) -> Any:
        """Block until ``predicate(calls)`` is truthy (re-checked on every new call); return it."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                result = predicate(list(self.calls))
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    methods = [c.method for c in self.calls]
                    raise AssertionError(f"timed out after {timeout} s; calls so far: {methods}")
                self._changed.wait(left)

    def wait_for_method(self, method: str, count: int = 1, timeout: float = 20.0) -> list[Call]:
        """The first ``count`` calls of ``method``, once there are that many."""
        def enough(calls: list[Call]) -> list[Call]:
            found = [c for c in calls if c.method == method]
            return found[:count] if len(found) >= count else []
        return self.wait_for(enough, timeout)


def sign(secret: str, body: str, timestamp: int | None = None) -> dict[str, str]:
    """Slack's v0 request signature headers for ``body``."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest}"}


WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _send_frame(conn: socket.socket, opcode: int, data: bytes) -> None:
    """A server frame: final, unmasked."""
    size = len(data)
    head = bytes([0x80 | opcode]) + (bytes([size]) if size < 126 else
                                      struct.pack("!BH", 126, size) if size < 65536 else
                                      struct.pack("!BQ", 127, size))
    conn.sendall(head + data)


def _read_exact(conn: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _read_frame(conn: socket.socket) -> tuple[int | None, bytes]:
    """A client frame (masked, as clients must send them); (None, b"") when the peer has gone."""
    head = _read_exact(conn, 2)
    if head is None:
        return None, b""
    size = head[1] & 0x7F
    if size >= 126:
        raw = _read_exact(conn, 2 if size == 126 else 8) or b""
        size = int.from_bytes(raw, "big")
    mask = _read_exact(conn, 4) if head[1] & 0x80 else b"\0\0\0\0"
    data = _read_exact(conn, size) if size else b""
    if mask is None or data is None:
        return None, b""
    return head[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def event_callback(event: dict[str, Any]) -> dict[str, Any]:
    return {"token": "unused", "team_id": TEAM, "api_app_id": "A0001", "type": "event_callback",
            "event_id": f"Ev{uuid.uuid4().hex[:10]}", "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
            "event": {"event_ts": event.get("ts"), **event}}


def main() -> int:
    """Serve until the bot, connected over Socket Mode, has answered one mention with a cited
    answer (exit 0), or the timeout passes (exit 1). Prints the port to --port-file first."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--ask", required=True, help="the question the mention asks")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    with FakeSlack(host=args.host) as fake:
        with open(args.port_file, "w") as out:
            out.write(str(fake.server.server_address[1]))
        try:
            fake.wait_for(lambda calls: fake.sockets, args.timeout)
            fake.send_event({"type": "app_mention", "user": "U0000042", "channel": "C0000001",
                             "text": f"<@{BOT_USER}> {args.ask}", "ts": "1700000000.000100"})
            update = fake.wait_for_method("chat.update", timeout=args.timeout)[0]
        except AssertionError as exc:
            print(f"fake Slack: {exc}", file=sys.stderr)
            return 1
        acks = len(fake.of("socket"))
        print(f"    acks over the socket: {acks}; the answer (chat.update in the thread):")
        print(f"    {update.body.get('text', '')[:200]}")
        return 0 if acks and "[1]" in update.body.get("text", "") else 1


if __name__ == "__main__":
    sys.exit(main())
