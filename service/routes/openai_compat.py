"""POST /v1/chat/completions: the service as an OpenAI-compatible "model", so any OpenAI client
or chat UI can use it. The last user message is the question; earlier user turns feed
follow-up rewriting. Citations travel as a top-level `citations` list (the Perplexity
convention), and in the final stream chunk before `data: [DONE]`."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, answer, answer_stream, check_question
from rag.errors import InputError, RagError
from rag.retrieve.query import recent
from rag.text.check import tidy
from rag.types import Answer, Replace
from service.conversations import ConversationLog
from service.deps import get_engine, get_log, guard
from service.metrics import count_answer
from service.schemas import SSE, ChatCompletionRequest, ChatMessage, problems
from service.streams import until_disconnected

router = APIRouter(tags=["openai-compatible"])
MODEL = "abstract-rag"
log_error = logging.getLogger(__name__)


def _text(message: ChatMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return " ".join(p.text or "" for p in message.content or [] if p.type == "text")


def split_conversation(messages: list[ChatMessage]) -> tuple[str, list[str]]:
    """The question (the last user message with visible text) and the earlier user turns."""
    users = [text for m in messages if m.role == "user" and (text := _text(m)) and tidy(text).strip()]
    if not users:
        raise InputError("the messages hold no user message; the last user message is the question.")
    return users[-1], users[:-1]


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
                     "message": {"role": "assistant", "content": result.text}}],
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
    `answer` is the final text alone. Always ends in `[DONE]`: always: a failure midway is an `error` payload,
    which OpenAI clients raise as an APIError."""
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
