"""HTTP request and response models, kept apart from the engine's domain types."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class FiltersIn(BaseModel):
    author: str | None = Field(None, examples=["Zhouhan Lin"])
    year: str | None = Field(None, description="2023, 2023-2025, 2023- or -2021", examples=["2023-2025"])
    venue: str | None = None
    source: str | None = Field(None, description="input file name or prefix, e.g. 001")


class AskRequest(BaseModel):
    question: str = Field(..., examples=["What does SupReMix use as hard negatives?"])
    filters: FiltersIn | None = None
    conversation_id: str | None = Field(None, description="continue a conversation")
    stream: bool = Field(False, description="Server-Sent Events: delta*, citations, done")
    k: int | None = Field(None, ge=1, le=50, description="papers to read")


class CitationOut(BaseModel):
    key: int
    paper_id: str
    label: str
    passage: str
    authors: list[str]
    venue: str | None
    year: int | None


class AnswerOut(BaseModel):
    question: str
    text: str
    citations: list[CitationOut]
    abstained: bool
    retrieved: list[dict[str, Any]]
    generator: str
    timings: dict[str, float]
    standalone_question: str | None
    sentences: list[dict[str, Any]]
    removed_keys: int
    removed_sentences: int
    conversation_id: str


class Problem(BaseModel):
    """Every error: a stable code, and a message that says what to do."""

    code: str = Field(..., examples=["empty_question"])
    message: str


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[dict[str, Any]] | None = None


class ChatCompletionRequest(BaseModel):
    model: str = Field("abstract-rag", examples=["abstract-rag"])
    messages: list[ChatMessage] = Field(..., examples=[[
        {"role": "user", "content": "Which papers reduce KV-cache memory for long contexts?"}]])
    stream: bool = False
    temperature: float | None = None
    max_tokens: int | None = None


class PaperOut(BaseModel):
    id: str
    label: str
    abstract: str
    has_abstract: bool
    title: str | None
    authors: list[str]
    year: int | None
    venue: str | None
    url: str | None
    source: str
    aliases: list[str]
