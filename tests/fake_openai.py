"""A stand-in for an OpenAI-compatible server on loopback, speaking the real wire protocol
(chat.completions JSON, and SSE `chat.completion.chunk` events ending in `data: [DONE]`),
with switchable failure modes: slow, HTTP 500, garbage."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self) -> None:
        self.reply = "Hello [1]."
        self.mode = "ok"  # ok | slow | error | garbage
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                if server.mode == "slow":
                    time.sleep(3)
                if server.mode == "error":
                    self.send_response(500)
                    self.end_headers()
                    self.wfile.write(b'{"error": {"message": "boom"}}')
                    return
                if server.mode == "garbage":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(b"<html>not json</html>")
                    return
                if body.get("stream"):
                    self._stream(body)
                else:
                    self._json({"id": "c1", "object": "chat.completion", "created": 0,
                                "model": body["model"], "choices": [{
                                    "index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": server.reply}}],
                                "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                          "total_tokens": 2}})

            def _json(self, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                words = server.reply.split(" ")
                for i, word in enumerate(words):
                    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0,
                             "model": body["model"], "choices": [{
                                 "index": 0, "finish_reason": None,
                                 "delta": {"content": word + (" " if i < len(words) - 1 else "")}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
