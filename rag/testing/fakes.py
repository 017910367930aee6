"""Fakes for the outside services: deterministic, fast, and speaking the same Protocols."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np


class FakeEmbedder:
    """Hashed bag of words: texts sharing words get similar vectors. Records every call."""

    name = "fake-bag-of-words"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim
                rows[i, bucket] += 1.0
            rows[i] /= max(float(np.linalg.norm(rows[i])), 1e-9)
        return rows

    @property
    def texts_embedded(self) -> int:
        return sum(len(c) for c in self.calls)


class InterruptingEmbedder(FakeEmbedder):
    """Raises KeyboardInterrupt (as Ctrl-C would) on the n-th call."""

    def __init__(self, after_calls: int) -> None:
        super().__init__()
        self.after_calls = after_calls

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(self.calls) >= self.after_calls:
            raise KeyboardInterrupt
        return super().embed(texts)


class FakeChatModel:
    """Queued replies (a string, or an exception to raise); records every message list."""

    name = "llm:fake"

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)
        self.prompts: list[list[dict[str, str]]] = []
        self.schemas: list[dict | None] = []

    def _next(self, messages) -> str:  # type: ignore[no-untyped-def]
        self.prompts.append(list(messages))
        reply = self.replies.pop(0) if self.replies else "The indexed abstracts do not answer this."
        if isinstance(reply, Exception):
            raise reply
        return reply

    def complete(self, messages, schema=None) -> str:  # type: ignore[no-untyped-def]
        self.schemas.append(schema)
        return self._next(messages)

    def stream(self, messages):  # type: ignore[no-untyped-def]
        text = self._next(messages)
        for start in range(0, len(text), 7):
            yield text[start : start + 7]
