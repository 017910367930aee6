"""HTTP request and response models, kept apart from the engine's domain types.

Requests are strict (``"stream": 0`` or ``"k": "5"`` are refused, not coerced) and every string
has a length cap and must be text: a lone surrogate (``"\ud800"``) is a 422, not a 500 later."""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model, model_validator

from rag.types import Answer

QUESTION_CAP = 32_000  # any text field; the question's own cap is RAG_ANSWER__MAX_QUESTION_CHARS
# A question must hold something visible: control and invisible characters are read as spaces.
VISIBLE = r"[^\s\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2060\ufeff]"
YEARS = r"^\s*(?:\d{4}\s*(?:-\s*(?:\d{4})?)?|-\s*\d{4})\s*$"


# String fields with a length cap. (Strict validation already refuses lone surrogates.)
Short: TypeAlias = Annotated[str, Field(max_length=200)]
Tiny: TypeAlias = Annotated[str, Field(max_length=50)]
LongText: TypeAlias = Annotated[str, Field(max_length=QUESTION_CAP)]


def _whole(value: Any) -> Any:
    """JSON Schema counts 5.0 as an integer; so do we (strict mode would not). "5" stays refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


PaperCount: TypeAlias = Annotated[int, Field(ge=1, le=50), BeforeValidator(_whole)]
TokenCount: TypeAlias = Annotated[int, Field(ge=1, le=100_000), BeforeValidator(_whole)]
OnlyOne: TypeAlias = Annotated[int, Field(ge=1, le=1), BeforeValidator(_whole)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class Closed(Strict):
    """A body of this service's own: a field it does not know is an error, not ignored."""

    model_config = ConfigDict(strict=True, extra="forbid")


class FiltersIn(Closed):
    author: Short | None = Field(None, examples=["Zhouhan Lin"])
    year: str | None = Field(None, max_length=20, pattern=YEARS, examples=["2023-2025"],
                             description="2023, 2023-2025, 2023- or -2021")
    venue: Short | None = None
    source: Short | None = Field(None, description="input file name or prefix, e.g. 001")


class AskRequest(Closed):
    question: LongText = Field(..., min_length=1, pattern=VISIBLE,
                               examples=["What does SupReMix use as hard negatives?"])
    filters: FiltersIn | None = None
    conversation_id: str | None = Field(None, description="continue a conversation (the id an "
                                        "answer returned)", pattern=r"^[A-Za-z0-9_.:-]{1,128}$")
    stream: bool = Field(False, description="Server-Sent Events: delta*, citations, done")
    focus_paper: str | None = Field(None, max_length=200, description="the paper the user opened "
                                    "last (its id): a follow-up's \"it\" and \"that paper\" mean it")
    k: PaperCount | None = Field(None, description="papers to read")


def from_domain(cls: type, name: str, **extra: Any) -> type[BaseModel]:
    """A response model generated from a domain dataclass, field for field (with ``extra``
    fields added): the engine's type is the one reply shape, never copied by hand."""
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], f.default)
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
        else:
            fields[f.name] = (hints[f.name], ...)
    model = create_model(name, __doc__=cls.__doc__, **fields, **extra)
    return typing.cast(type[BaseModel], model)


# The JSON answer: rag.types.Answer, every field (route, abstain_reason, see_also, fallback_reason
# included), and the conversation it belongs to.
AnswerOut = from_domain(Answer, "AnswerOut", conversation_id=(str, Field(
    ..., description="continue the conversation by sending this id with the next question")))


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for the problems an operation can answer with."""
    return {status: {"model": Problem, "description": _MEANING[status]} for status in statuses}


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


USER_QUESTION: dict[str, Any] = {"type": "object", "required": ["role", "content"], "properties": {
    "role": {"const": "user"},
    "content": {"type": "string", "minLength": 1, "maxLength": QUESTION_CAP, "pattern": VISIBLE}}}


class ChatCompletionRequest(Strict):
    model: Short = Field("abstract-rag", examples=["abstract-rag"])
    messages: list[ChatMessage] = Field(..., min_length=1, max_length=100, json_schema_extra={
        "contains": USER_QUESTION}, description="the last user message is the question", examples=[[
        {"role": "user", "content": "Which papers reduce KV-cache memory for long contexts?"}]])
    stream: bool = False
    temperature: float | None = Field(None, ge=0, le=2, description="accepted; answers are deterministic")
    max_tokens: TokenCount | None = Field(None,
                                   description="accepted; answers are a few checked sentences")
    n: OnlyOne = Field(1, description="one answer per request; only 1 is accepted")


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
    doi: str | None = Field(None, description='bare, as "10.1000/x"')
    arxiv_id: str | None = Field(None, description='bare, as "2101.00001"')
    link: str | None = Field(None, description="https address of the paper: its DOI, else its arXiv "
                             "page, else its URL")
    source: str
    aliases: list[str]


_MEANING = {
    400: "the body is not UTF-8 JSON, or the URL holds bytes that are not UTF-8", 401: "an API key is needed or wrong",
    404: "no such paper or collection, or the filters match no paper",
    413: "the body is over RAG_SERVICE__MAX_BODY_BYTES",
    422: "a field breaks the schema, or the question is unusable",
    429: "rate limited; see Retry-After", 500: "our fault; logged",
    503: "the index is empty or the store is down; see Retry-After",
}
SSE = {"text/event-stream": {"schema": {}, "description": "with stream=true: Server-Sent Events"}}
