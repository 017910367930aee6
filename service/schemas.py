"""HTTP request and response models, kept apart from the engine's domain types.

Requests are strict (``"stream": 0`` or ``"k": "5"`` are refused, not coerced) and every string
has a length cap and must be text: a lone surrogate (``"\ud800"``) is a 422, not a 500 later."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, model_validator

QUESTION_CAP = 32_000  # the hard ceiling; RAG_ANSWER__MAX_QUESTION_CHARS (2000) is checked after


# String fields with a length cap. (Strict validation already refuses lone surrogates.)
Short: TypeAlias = Annotated[str, Field(max_length=200)]
Tiny: TypeAlias = Annotated[str, Field(max_length=50)]
LongText: TypeAlias = Annotated[str, Field(max_length=QUESTION_CAP)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class FiltersIn(Strict):
    author: Short | None = Field(None, examples=["Zhouhan Lin"])
    year: str | None = Field(None, max_length=20, description="2023, 2023-2025, 2023- or -2021",
                             examples=["2023-2025"])
    venue: Short | None = None
    source: Short | None = Field(None, description="input file name or prefix, e.g. 001")


class AskRequest(Strict):
    question: LongText = Field(..., min_length=1, examples=["What does SupReMix use as hard negatives?"])
    filters: FiltersIn | None = None
    conversation_id: str | None = Field(None, description="continue a conversation (the id an "
                                        "answer returned)", pattern=r"^[A-Za-z0-9_.:-]{1,128}$")
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


class ContentPart(Strict):
    """One part of a message's content; only text parts are read (images are ignored)."""

    type: Tiny
    text: LongText | None = None

    @model_validator(mode="after")
    def _text_part_has_text(self) -> ContentPart:
        if self.type == "text" and self.text is None:
            raise ValueError("a text part needs a string 'text'")
        return self


class ChatMessage(Strict):
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: LongText | list[ContentPart] | None = Field(None, max_length=QUESTION_CAP)


class ChatCompletionRequest(Strict):
    model: Short = Field("abstract-rag", examples=["abstract-rag"])
    messages: list[ChatMessage] = Field(..., min_length=1, max_length=100, examples=[[
        {"role": "user", "content": "Which papers reduce KV-cache memory for long contexts?"}]])
    stream: bool = False
    temperature: float | None = Field(None, ge=0, le=2, description="accepted; answers are deterministic")
    max_tokens: int | None = Field(None, ge=1, le=100_000,
                                   description="accepted; answers are a few checked sentences")
    n: int = Field(1, ge=1, le=1, description="one answer per request; only 1 is accepted")


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
