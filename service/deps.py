"""Dependencies: the engine built in the lifespan, the conversation log, and the guard."""

from __future__ import annotations

from fastapi import Query, Request

from rag.engine import Engine
from rag.index.filters import Filters
from service.conversations import ConversationLog
from service.guards import caller_of, url_must_be_utf8
from service.schemas import FiltersIn


def get_engine(request: Request, collection: str | None = Query(
        None, max_length=63, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$",
        description="the collection to read (GET /api/collections); default: the service's")) -> Engine:
    """The engine of the newest open index generation of the collection asked for (default:
    the service's own); a request keeps it to the end."""
    if collection is None:
        return request.app.state.live.current()
    return request.app.state.collections.engine(collection)


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
    return Filters.parse(author=filters.author, year=filters.year, venue=filters.venue,
                         source=filters.source)
