"""An obedient OpenAI-compatible chat endpoint on loopback, for benchmarks: it answers with the
first sentence of the first abstract it was given, cited [1]; a condense prompt gets the question
back. ``mode`` switches it: "ok", "hang" (holds every request until the mode changes) or
"error" (HTTP 500), so a benchmark can stage an outage."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_FIRST_ABSTRACT = re.compile(r'<abstract key="1"[^>]*>\s*(.+?)(?:(?<=[.!?])\s|</abstract>)', re.S)


def reply_for(messages: list[dict]) -> str:
    user = str(messages[-1].get("content", "")) if messages else ""
    found = _FIRST_ABSTRACT.search(user)
    if found:
        return f"{found.group(1).strip()} [1]"
    lines = [line for line in user.splitlines() if line.strip()]
    return lines[-1].split(":", 1)[-1].strip() if lines else "?"


class FakeLLM:
    def __init__(self) -> None:
        self.mode = "ok"
        self.requests = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests += 1
                started = time.monotonic()
                while owner.mode == "hang" and time.monotonic() - started < 120:
                    time.sleep(0.1)
                try:
                    if owner.mode == "error":
                        self.send_response(500)
                        self.end_headers()
                        self.wfile.write(b'{"error": {"message": "outage"}}')
                        return
                    data = json.dumps({"id": "x", "object": "chat.completion", "created": 0,
                                       "model": body.get("model", "m"), "choices": [{
                                           "index": 0, "finish_reason": "stop", "message": {
                                               "role": "assistant",
                                               "content": reply_for(body.get("messages", []))}}],
                                       "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                                 "total_tokens": 2}}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the caller gave up (its deadline passed)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.mode = "ok"
        self.httpd.shutdown()
        self.httpd.server_close()
