"""A stand-in for an OpenAI-compatible server on loopback, speaking the real wire protocol
(chat.completions JSON, and SSE `chat.completion.chunk` events ending in `data: [DONE]`), for the
tests and the benchmarks. ``reply`` is a fixed text, or a function of the request's messages
(``obedient_reply`` answers from the context it was given). ``mode`` switches failures on and
off while it runs: "ok", "slow" (3 s per request), "hang" (holds every request until the mode
changes, 120 s at most), "error" (HTTP 500) or "garbage" (not JSON). A stream can be held:
with ``hold_after`` set, it stops after the word holding that text until ``release`` is set (30 s
at most); ``finished`` is set once a stream has sent its last word."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Reply = str | None | Callable[[list[dict]], str]
_FIRST_ABSTRACT = re.compile(r'<abstract key="1"[^>]*>\s*(.+?)(?:(?<=[.!?])\s|</abstract>)', re.S)


def obedient_reply(messages: list[dict]) -> str:
    """The first sentence of the first abstract in the prompt, cited [1]; for a prompt without
    abstracts (a follow-up to condense), its last line's text: the question back."""
    user = str(messages[-1].get("content", "")) if messages else ""
    found = _FIRST_ABSTRACT.search(user)
    if found:
        return f"{found.group(1).strip()} [1]"
    lines = [line for line in user.splitlines() if line.strip()]
    return lines[-1].split(":", 1)[-1].strip() if lines else "?"


class FakeOpenAI:
    def __init__(self, reply: Reply = "Hello [1].") -> None:
        self.reply = reply
        self.mode = "ok"  # ok | slow | hang | error | garbage
        self.requests: list[dict] = []
        self.hold_after: str | None = None
        self.release, self.finished = threading.Event(), threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def text_for(self, body: dict) -> str | None:
        return self.reply(body.get("messages", [])) if callable(self.reply) else self.reply

    def wait_out_the_mode(self) -> None:
        if self.mode == "slow":
            time.sleep(3)
        started = time.monotonic()
        while self.mode == "hang" and time.monotonic() - started < 120:
            time.sleep(0.1)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.mode = "ok"  # lets hanging requests go
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler_for(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append(body)
            server.wait_out_the_mode()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the caller gave up
                self._answer(body)

        def _answer(self, body: dict) -> None:
            if server.mode == "error":
                self.send_response(500)
                self.end_headers()
                self.wfile.write(b'{"error": {"message": "boom"}}')
            elif server.mode == "garbage":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"<html>not json</html>")
            elif body.get("stream"):
                self._stream(body, server.text_for(body) or "")
            else:
                self._json({"id": "c1", "object": "chat.completion", "created": 0,
                            "model": body.get("model", "m"), "choices": [{
                                "index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": server.text_for(body)}}],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        def _json(self, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, body: dict, text: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            words = text.split(" ")
            for i, word in enumerate(words):
                chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0,
                         "model": body.get("model", "m"), "choices": [{
                             "index": 0, "finish_reason": None,
                             "delta": {"content": word + (" " if i < len(words) - 1 else "")}}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                if server.hold_after and server.hold_after in word:
                    self.wfile.flush()
                    server.release.wait(30)
            server.finished.set()
            self.wfile.write(b"data: [DONE]\n\n")

    return Handler
