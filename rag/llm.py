"""Chat models behind one Protocol. One implementation talks to any OpenAI-compatible endpoint
through the ``openai`` client; every failure becomes LLMError with a short reason, so the engine
can fall back to the offline answerer and say why."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Protocol

from .errors import LLMError
from .settings import LLMSettings

log = logging.getLogger(__name__)
Message = dict[str, str]


class ChatModel(Protocol):
    name: str

    def complete(self, messages: Sequence[Message]) -> str: ...

    def stream(self, messages: Sequence[Message]) -> Iterator[str]: ...


def _reason(exc: Exception) -> str:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return f"unreadable reply ({type(exc).__name__})"


class OpenAIChatModel:
    def __init__(self, settings: LLMSettings) -> None:
        from openai import OpenAI

        self.settings = settings
        key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
        self.client = OpenAI(base_url=settings.base_url, api_key=key, timeout=settings.timeout,
                             max_retries=settings.retries)
        self.name = f"llm:{settings.model}"
        self.tokens_in = 0  # as the endpoint reports them (usage), for cost figures
        self.tokens_out = 0

    def _request(self, messages: Sequence[Message], stream: bool):  # type: ignore[no-untyped-def]
        return self.client.chat.completions.create(
            model=self.settings.model, messages=list(messages), stream=stream,  # type: ignore[arg-type]
            temperature=self.settings.temperature, max_tokens=self.settings.max_tokens,
        )

    def complete(self, messages: Sequence[Message]) -> str:
        try:
            reply = self._request(messages, stream=False)
            text = reply.choices[0].message.content
            if reply.usage:
                self.tokens_in += reply.usage.prompt_tokens or 0
                self.tokens_out += reply.usage.completion_tokens or 0
        except LLMError:
            raise
        except Exception as exc:  # openai raises many types; the caller needs one
            raise LLMError(_reason(exc)) from exc
        if not isinstance(text, str) or not text.strip():
            raise LLMError("empty reply")
        return text

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        try:
            for chunk in self._request(messages, stream=True):
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except Exception as exc:
            raise LLMError(_reason(exc)) from exc


def build_chat_model(settings: LLMSettings) -> ChatModel | None:
    return OpenAIChatModel(settings) if settings.configured else None
