"""POST /v1/chat/completions: the service as an OpenAI-compatible "model", so any OpenAI client
or chat UI can use it. The last user message is the question; earlier turns feed follow-ups:
each earlier assistant message's "Sources" list says which paper "the second one" is. The
sources are appended to the message as a Markdown list (any chat client shows them) and also
travel as a top-level `citations` list (the Perplexity convention), in the final stream chunk
before `data: [DONE]`. The one model is `abstract-rag`; another model name is refused (404)."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict, replace

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, answer, answer_stream, check_question
from rag.errors import InputError, RagError
from rag.retrieve.query import recent
from rag.text.check import tidy
from rag.types import Answer, Replace, Turn
from service.conversations import ConversationLog
from service.deps import get_engine, get_log, guard
from service.guards import ApiError
from service.metrics import count_answer
from service.rendering import reference_list, sources_in
from service.schemas import SSE, ChatCompletionRequest, ChatMessage, problems
from service.streams import until_disconnected

router = APIRouter(tags=["openai-compatible"])
MODEL = "abstract-rag"
log_error = logging.getLogger(__name__)


def _text(message: ChatMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return " ".join(p.text or "" for p in message.content or [] if p.type == "text")


def split_conversation(messages: list[ChatMessage]) -> tuple[str, list[Turn]]:
    """The question (the last user message with visible text) and the earlier turns: each
    earlier user message with the sources listed by the assistant message that answered it."""
    turns: list[Turn] = []
    for m in messages:
        text = _text(m)
        if m.role == "user" and text and tidy(text).strip():
            turns.append(Turn(text))
        elif m.role == "assistant" and turns and text:
            turns[-1] = replace(turns[-1], sources=sources_in(text) or turns[-1].sources)
    if not turns:
        raise InputError("the messages hold no user message; the last user message is the question.")
    return turns[-1].question, turns[:-1]


def check_model(name: str) -> None:
    """One model is served; a client that names another (its default "gpt-4o") is told so,
    rather than answered as if it had got the model it asked for."""
    if name != MODEL:
        raise ApiError(404, "model_not_found", f"the model {name!r} is not served here; this "
                       f"service answers as the one model {MODEL!r} (see GET /v1/models).")


def _usage(result: Answer) -> dict[str, int]:
    prompt, completion = len(result.question.split()), len(result.text.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


@router.get("/v1/models", summary="The one model this service offers", responses=problems(401, 429))
async def models() -> dict:
    return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0,
                                        "owned_by": "abstract-rag"}]}


@router.post("/v1/chat/completions", summary="OpenAI-compatible chat completions, cited",
             responses={200: {"content": SSE}, **problems(400, 401, 413, 422, 429, 500, 503)})
async def chat_completions(body: ChatCompletionRequest, request: Request, engine: Engine = Depends(get_engine),
                           log: ConversationLog = Depends(get_log), caller: str = Depends(guard)):  # type: ignore[no-untyped-def]
    check_model(body.model)
    question, earlier = split_conversation(body.messages)
    history = recent(earlier, engine.settings.service.conversation_turns)
    checked = check_question(engine, question)  # before streaming: errors are HTTP statuses
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    if body.stream:
        events = answer_stream(engine, checked, history=history)
        return StreamingResponse(_chunks(events, completion_id, log, request), media_type="text/event-stream")
    result = await run_in_threadpool(answer, engine, checked, history=history)
    await run_in_threadpool(log.record, completion_id, result, "openai")
    count_answer(result)
    return {
        "id": completion_id, "object": "chat.completion", "created": int(time.time()), "model": MODEL,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant",
                                 "content": result.text + reference_list(result.citations)}}],
        "usage": _usage(result),
        "citations": [asdict(c) for c in result.citations],
        "abstained": result.abstained,
    }


def _chunk(completion_id: str, delta: dict, finish: str | None = None, **extra: object) -> str:
    payload = {"id": completion_id, "object": "chat.completion.chunk", "created": int(time.time()),
               "model": MODEL, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
               **extra}
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


async def _chunks(events, completion_id: str, log: ConversationLog,  # type: ignore[no-untyped-def]
                  request: Request) -> AsyncIterator[str]:  # type: ignore[no-untyped-def]
    """Checked sentences as content deltas (the engine streams nothing it has not checked), the
    citations in the last chunk, then `[DONE]`. OpenAI deltas can only append: when the final
    answer does not go on from the sentences sent (a fallback after some were sent), a chunk
    marked `"replace": true` appends "(Revised answer)" and the final text, and the last chunk's
    `answer` is the final text alone. The sources follow as a Markdown list. Always ends in
    `[DONE]`: a failure midway is an `error` payload, which OpenAI clients raise as an APIError."""
    yield _chunk(completion_id, {"role": "assistant", "content": ""})
    streamed = False
    try:
        async for item in until_disconnected(events, request):
            if isinstance(item, str):
                streamed = True
                yield _chunk(completion_id, {"content": item})
                continue
            if isinstance(item, Replace):  # deltas only append: say so, then the final text
                yield _chunk(completion_id, {"content": f"\n\n(Revised answer) {item.text}"}, replace=True)
                continue
            if not streamed:
                yield _chunk(completion_id, {"content": item.text})
            await run_in_threadpool(log.record, completion_id, item, "openai")
            count_answer(item)
            if item.citations:
                yield _chunk(completion_id, {"content": reference_list(item.citations)})
            yield _chunk(completion_id, {}, "stop", citations=[asdict(c) for c in item.citations],
                         abstained=item.abstained, answer=item.text)
    except Exception as exc:
        known = isinstance(exc, RagError)
        if not known:
            log_error.exception("chat completion stream failed")
        message = str(exc) if known else "something went wrong on our side; it was logged."
        error = {"message": message, "type": "server_error",
                 "code": "answer_failed" if known else "internal_error"}
        yield f"data: {json.dumps({'error': error})}\n\n"
    yield "data: [DONE]\n\n"
