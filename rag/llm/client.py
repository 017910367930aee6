"""Chat models behind one Protocol. One implementation talks to any OpenAI-compatible endpoint
through the ``openai`` client; every failure becomes LLMError with a short reason, so the engine
can fall back to the offline answerer and say why.

Two limits keep a slow or dead endpoint from costing more than it must:

- **One deadline per answer.** ``answer_deadline(seconds)`` (the engine opens it around each
  answer, with ``RAG_LLM__TIMEOUT``) is shared by every call made inside it: the follow-up
  rewrite, the rerank, the answer and its retries. Each request gets only the time that is left;
  when none is, the call fails at once. Outside such a block each call gets the timeout alone.
- **A circuit breaker.** After the endpoint fails (timeout, refused connection, HTTP error,
  unreadable reply) it is not called for ``RAG_LLM__BREAKER_SECONDS``: answers fall back at
  once instead of each waiting for the same failure. Then one call is let through; if it
  succeeds the endpoint is used again, if not the pause starts over.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from rag.errors import LLMError
from rag.settings import LLMSettings

log = logging.getLogger(__name__)
Message = dict[str, str]
Clock = Callable[[], float]

_DEADLINE: ContextVar[float | None] = ContextVar("llm_answer_deadline", default=None)
T = TypeVar("T")
_DONE = object()
_CANCELLED: ContextVar[threading.Event | None] = ContextVar("llm_cancelled", default=None)


class ChatModel(Protocol):
    name: str

    def complete(self, messages: Sequence[Message], schema: dict[str, Any] | None = None) -> str: ...

    def stream(self, messages: Sequence[Message]) -> Iterator[str]: ...


@contextmanager
def answer_deadline(seconds: float) -> Iterator[None]:
    """Every LLM call inside this block shares one deadline, ``seconds`` from now."""
    with deadline_at(time.monotonic() + seconds):
        yield


@contextmanager
def deadline_at(when: float) -> Iterator[None]:
    """Every LLM call inside this block must be done by ``when`` (time.monotonic())."""
    token = _DEADLINE.set(when)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def within_deadline(seconds: float, steps: Iterator[T]) -> Iterator[T]:
    """The items of ``steps``, each computed inside one deadline ``seconds`` from the start. The
    deadline is entered anew for each step: a streaming server takes each step in a worker thread
    with its own copy of the context, so a context held open across a yield would be lost."""
    when = time.monotonic() + seconds
    while True:
        with deadline_at(when):
            item = next(steps, _DONE)
        if item is _DONE:
            return
        yield item  # type: ignore[misc]


@contextmanager
def cancelled_when(event: threading.Event) -> Iterator[None]:
    """Once ``event`` is set (the client of a stream went away), LLM calls made inside this
    block (in this context, worker threads included) fail at once instead of being sent."""
    token = _CANCELLED.set(event)
    try:
        yield
    finally:
        _CANCELLED.reset(token)


def _check_cancelled() -> None:
    event = _CANCELLED.get()
    if event is not None and event.is_set():
        raise LLMError("not called: the client went away")


def _time_left(default: float) -> float:
    deadline = _DEADLINE.get()
    return default if deadline is None else deadline - time.monotonic()


class Breaker:
    """Open for ``cooldown`` seconds after a failure; then half-open: one caller may try."""

    def __init__(self, cooldown: float, clock: Clock = time.monotonic) -> None:
        self.cooldown, self.clock = cooldown, clock
        self.lock = threading.Lock()
        self.closed_at = 0.0  # calls are refused until this time
        self.reason = ""

    def check(self) -> None:
        with self.lock:
            now = self.clock()
            if now < self.closed_at:
                raise LLMError(f"{self.reason}; not called again for {self.closed_at - now:.0f} s")
            if self.reason:  # half-open: this caller tries, the others wait for its result
                self.closed_at = now + self.cooldown

    def failed(self, reason: str) -> None:
        with self.lock:
            self.closed_at, self.reason = self.clock() + self.cooldown, f"failed recently ({reason})"

    def succeeded(self) -> None:
        with self.lock:
            self.closed_at, self.reason = 0.0, ""


def _reason(exc: Exception) -> str:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return f"unreadable reply ({type(exc).__name__})"


def _worth_retrying(exc: Exception) -> bool:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return False  # it spent the time a retry would need
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError)


class OpenAIChatModel:
    def __init__(self, settings: LLMSettings, clock: Clock = time.monotonic) -> None:
        from openai import OpenAI

        self.settings = settings
        key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
        # retries are ours (below), so that they stay inside the answer's deadline
        self.client = OpenAI(base_url=settings.base_url, api_key=key, timeout=settings.timeout,
                             max_retries=0)
        self.breaker = Breaker(settings.breaker_seconds, clock)
        self.name = f"llm:{settings.model}"
        self.tokens_in = 0  # as the endpoint reports them (usage), for cost figures
        self.tokens_out = 0

    def _request(self, messages: Sequence[Message], stream: bool, schema: dict[str, Any] | None = None) -> Any:
        """One call, retried on transient failures while the deadline allows."""
        _check_cancelled()
        if _time_left(self.settings.timeout) <= 0.05:
            raise LLMError("timed out (the answer's time, RAG_LLM__TIMEOUT, is spent)")
        self.breaker.check()
        for attempt in range(self.settings.retries + 1):
            _check_cancelled()
            left = _time_left(self.settings.timeout)
            if left <= 0.05:
                self.breaker.failed("timed out")
                raise LLMError("timed out (the answer's time, RAG_LLM__TIMEOUT, is spent)")
            try:
                reply = self.client.chat.completions.create(
                    model=self.settings.model, messages=list(messages), stream=stream,  # type: ignore[arg-type]
                    temperature=self.settings.temperature, max_tokens=self.settings.max_tokens,
                    timeout=left, **self._format(schema))
            except Exception as exc:  # openai raises many types; the caller needs one
                reason = _reason(exc)
                if attempt < self.settings.retries and _worth_retrying(exc):
                    log.info("LLM call failed (%s); retrying", reason)
                    continue
                self.breaker.failed(reason)
                raise LLMError(reason) from exc
            self.breaker.succeeded()
            return reply
        raise AssertionError("unreachable")

    def _format(self, schema: dict[str, Any] | None) -> dict[str, Any]:
        """A JSON schema the reply must follow, as the endpoint takes it: llama.cpp's server and
        vLLM read {"type": "json_object", "schema": ...}; OpenAI reads {"type": "json_schema", ...}."""
        if schema is None:
            return {}
        if self.settings.schema_style == "json_schema":
            return {"response_format": {"type": "json_schema",
                                        "json_schema": {"name": "reply", "schema": schema, "strict": True}}}
        return {"response_format": {"type": "json_object", "schema": schema}}

    def complete(self, messages: Sequence[Message], schema: dict[str, Any] | None = None) -> str:
        reply = self._request(messages, stream=False, schema=schema)
        try:
            text = reply.choices[0].message.content
            if reply.usage:
                self.tokens_in += reply.usage.prompt_tokens or 0
                self.tokens_out += reply.usage.completion_tokens or 0
        except Exception as exc:  # a reply without choices or message
            self.breaker.failed("unreadable reply")
            raise LLMError(f"unreadable reply ({type(exc).__name__})") from exc
        if not isinstance(text, str) or not text.strip():
            raise LLMError("empty reply")  # e.g. content: null; the endpoint itself works
        return text

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        chunks = self._request(messages, stream=True)
        try:
            for chunk in chunks:
                _check_cancelled()
                if _time_left(self.settings.timeout) <= 0:
                    raise LLMError("timed out (the answer's time, RAG_LLM__TIMEOUT, is spent)")
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except LLMError:
            raise
        except Exception as exc:
            self.breaker.failed(_reason(exc))
            raise LLMError(_reason(exc)) from exc


def build_chat_model(settings: LLMSettings) -> ChatModel | None:
    return OpenAIChatModel(settings) if settings.configured else None
