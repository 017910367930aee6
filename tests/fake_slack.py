"""A fake Slack Web API on loopback: answers the methods the bot calls the way Slack does and
records every call (method, parsed form or JSON body, bearer token) for tests to wait on."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
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

    def __post_init__(self) -> None:
        self._changed = threading.Condition()
        self._ts = itertools.count(1)
        fake = self

        class Handler(BaseHTTPRequestHandler):
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

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/api/"

    @property
    def response_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/response_url"

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
        return {"ok": False, "error": "unknown_method"}

    # ---- for tests ---------------------------------------------------------------------------

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
