"""POST /api/ask: the native API, JSON or Server-Sent Events."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import asdict, replace
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, answer, answer_stream, check_question
from rag.errors import RagError
from rag.types import Answer, Replace
from service.conversations import ConversationLog
from service.deps import get_engine, get_log, guard, to_filters
from service.metrics import count_answer
from service.schemas import SSE, AnswerOut, AskRequest, problems
from service.streams import until_disconnected

router = APIRouter(tags=["answers"])
log_error = logging.getLogger(__name__)
RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": SSE}, **problems(400, 401, 413, 422, 429, 500, 503)}


def answer_json(result: Answer, conversation_id: str) -> dict:
    return {**asdict(result), "conversation_id": conversation_id}


def sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@router.post("/api/ask", response_model=AnswerOut, responses=RESPONSES,
             summary="Answer a question with citations (JSON, or SSE with stream=true)")
async def ask(body: AskRequest, request: Request, engine: Engine = Depends(get_engine),
              log: ConversationLog = Depends(get_log), caller: str = Depends(guard)):  # type: ignore[no-untyped-def]
    question = check_question(engine, body.question)  # before streaming: errors are HTTP statuses
    filters = to_filters(body.filters)
    conversation = body.conversation_id or log.new_id()
    history = await run_in_threadpool(log.history, conversation, engine.settings.service.conversation_turns)
    if history and body.focus_paper:
        history[-1] = replace(history[-1], focus=body.focus_paper)
    if body.stream:
        events = answer_stream(engine, question, k=body.k, filters=filters, history=history)
        return StreamingResponse(_stream(events, log, conversation, request), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    result = await run_in_threadpool(answer, engine, question, k=body.k, filters=filters,
                                     history=history)
    await run_in_threadpool(log.record, conversation, result)
    count_answer(result)
    return answer_json(result, conversation)


async def _stream(events, log: ConversationLog, conversation: str,  # type: ignore[no-untyped-def]
                  request: Request) -> AsyncIterator[str]:  # type: ignore[no-untyped-def]
    """delta* (checked sentences: the engine streams nothing it has not checked; a delta with
    `"replace": true` replaces the text sent so far), one `citations` event (the checked answer),
    then `done`, always: a failure midway is an `error` event."""
    streamed = False
    try:
        async for item in until_disconnected(events, request):
            if isinstance(item, str):
                streamed = True
                yield sse("delta", {"text": item})
                continue
            if isinstance(item, Replace):  # the text sent so far gives way to this one
                yield sse("delta", {"text": item.text, "replace": True})
                continue
            if not streamed:  # an abstention: nothing was streamed, the answer is its text
                yield sse("delta", {"text": item.text})
            await run_in_threadpool(log.record, conversation, item)
            count_answer(item)
            yield sse("citations", answer_json(item, conversation))
    except RagError as exc:
        yield sse("error", {"code": "answer_failed", "message": str(exc)})
    except Exception:
        log_error.exception("answer stream failed")
        yield sse("error", {"code": "internal_error",
                            "message": "something went wrong on our side; it was logged."})
    yield sse("done", {})
