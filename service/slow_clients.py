"""Connections that are slow to say what they want are closed. uvicorn's h11 protocol has no
header timeout: a client that connects and sends nothing, or sends its request line and then one
header byte every few seconds (each byte also cancels the keep-alive timer), holds a connection
and its memory for as long as it likes. Here every request's headers must be complete within
``HEADER_SECONDS`` of the connection being made or of its previous response, and a header block
may be at most ``MAX_HEADER_BYTES`` (h11's own limit, made explicit)."""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0
KEEP_ALIVE_SECONDS = 5
MAX_HEADER_BYTES = 16 * 1024


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's headers."""

    header_seconds = HEADER_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self.header_deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of a request after a keep-alive pause
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the request line and headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()  # the keep-alive timer watches the silence between requests

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self.header_deadline = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def _too_slow(self) -> None:
        self.header_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.logger.info("closing a connection whose request headers took over %.0f s",
                             self.header_seconds)
            self.transport.close()


def server_options() -> dict[str, object]:
    """uvicorn options for `rag serve`: the protocol above, keep-alive and header size limits."""
    return {"http": "service.slow_clients:HeaderTimeoutProtocol",
            "timeout_keep_alive": KEEP_ALIVE_SECONDS, "h11_max_incomplete_event_size": MAX_HEADER_BYTES}
