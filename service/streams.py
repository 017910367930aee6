"""Streams that stop when their client goes away. The engine's answer is a blocking iterator run
step by step in worker threads; while a step runs, the client's connection is watched, and when
it is gone the LLM calls the step has not started yet are not made (``cancelled_when``) and no
further step is taken. A call already in flight finishes: the HTTP client cannot take it back."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from rag.llm.client import cancelled_when

T = TypeVar("T")
POLL_SECONDS = 0.1
_END = object()


def _next(iterator: Iterator[T]) -> T | object:
    return next(iterator, _END)


async def until_disconnected(events: Iterator[T], request: Request) -> AsyncIterator[T]:
    """The items of ``events``, each computed in a worker thread, while the client is there."""
    gone = threading.Event()
    iterator = iter(events)
    with cancelled_when(gone):  # the worker threads inherit this context
        try:
            while not gone.is_set():
                step = asyncio.ensure_future(run_in_threadpool(_next, iterator))
                while not step.done():
                    await asyncio.wait({step}, timeout=POLL_SECONDS)
                    if not step.done() and await request.is_disconnected():
                        gone.set()
                item = step.result()
                if item is _END:
                    return
                yield item  # type: ignore[misc]
        finally:
            gone.set()  # cancelled or closed (a send failed): stop whatever comes next
