"""Dependencies: the engine built in the lifespan, the conversation log, and the guard."""

from __future__ import annotations

from fastapi import Request

from rag.engine import Engine, check_question, require_index
from rag.errors import InputError
from rag.retrieve.fusion import Filters, parse_years
from rag.settings import Settings
from service.conversations import ConversationLog
from service.guards import caller_of, url_must_be_utf8
from service.schemas import FiltersIn


def get_engine(request: Request) -> Engine:
    """The engine of the newest open index generation; a request keeps it to the end."""
    return request.app.state.live.current()


def get_log(request: Request) -> ConversationLog:
    return request.app.state.log


def guard(request: Request) -> str:
    """Authenticate (when keys are set) and rate-limit; returns the caller's identity. A URL
    whose escapes are not UTF-8 is refused before it can be read as U+FFFD and searched."""
    url_must_be_utf8(request.scope)
    caller = caller_of(request, request.app.state.settings.service)
    request.app.state.limiter.check(caller)
    return caller


def to_filters(filters: FiltersIn | None) -> Filters:
    if filters is None:
        return Filters()
    year_from, year_to = parse_years(filters.year)
    return Filters(author=filters.author or None, year_from=year_from, year_to=year_to,
                   venue=filters.venue or None, source=filters.source or None)


def within_limit(text: str, settings: Settings) -> str:
    """The question's cap applies to what was sent (as /openapi.json documents it)."""
    limit = settings.answer.max_question_chars
    if len(text) > limit:
        raise InputError(f"the question is {len(text)} characters long; the limit is {limit} "
                         "(RAG_ANSWER__MAX_QUESTION_CHARS). Shorten it to the question itself.")
    return text


def ready_question(engine: Engine, question: str) -> str:
    """Validate before any streaming starts, so errors are proper HTTP statuses."""
    text = check_question(within_limit(question, engine.settings), engine.settings)
    require_index(engine)
    return text
