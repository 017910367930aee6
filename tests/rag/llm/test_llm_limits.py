"""A slow or dead LLM endpoint costs each answer at most RAG_LLM__TIMEOUT, across all its calls
(follow-up rewrite, rerank, answer, retries), and is not called again for a short pause after
it failed. Measured by what reaches the endpoint (a real HTTP server speaking the protocol),
not by the clock."""

from __future__ import annotations

import pytest

from rag.engine import answer, build_engine
from rag.errors import LLMError
from rag.llm.client import Breaker, OpenAIChatModel, answer_deadline
from rag.settings import LLMSettings
from rag.testing.fake_openai import FakeOpenAI
from tests.support import QUESTION

GOOD = ("SupReMix takes anchor-inclusive mixtures of the anchor and a distinct negative sample "
        "as hard negative pairs [1].")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def engine_for(library, url: str, clock=None, **llm):  # type: ignore[no-untyped-def]
    settings = library.settings.model_copy(update={"llm": LLMSettings(base_url=url, model="m", **llm)})
    model = OpenAIChatModel(settings.llm, clock=clock) if clock else OpenAIChatModel(settings.llm)
    return build_engine(settings, library=library, chat_model=model)


def test_one_deadline_covers_the_rewrite_the_rerank_the_answer_and_the_retries(library):
    with FakeOpenAI() as server:
        server.mode = "slow"  # answers after 3 s
        engine = engine_for(library, server.url, timeout=1.0, retries=1, rerank=True,
                            breaker_seconds=0)
        result = answer(engine, "And what does it use as hard positives?", history=[QUESTION])
    assert result.route == "fallback" and "timed out" in result.generator
    assert len(server.requests) == 1, "the rewrite spent the answer's time; nothing else was sent"


def test_a_call_outside_an_answer_gets_the_timeout_and_one_inside_gets_what_is_left(library):
    with FakeOpenAI() as server:
        model = OpenAIChatModel(LLMSettings(base_url=server.url, timeout=5, retries=0, breaker_seconds=0))
        with answer_deadline(0.0), pytest.raises(LLMError, match="time"):
            model.complete([{"role": "user", "content": "hi"}])
        assert server.requests == []
        assert model.complete([{"role": "user", "content": "hi"}]) == "Hello [1]."


def test_after_a_failure_the_endpoint_rests_then_one_call_tries_it_again(library):
    clock = FakeClock()
    with FakeOpenAI() as server:
        server.mode = "error"
        engine = engine_for(library, server.url, clock, retries=0, breaker_seconds=15)
        first = answer(engine, QUESTION)
        assert first.generator == "offline (LLM unavailable: HTTP 500)" and len(server.requests) == 1
        clock.now += 5
        second = answer(engine, QUESTION)
        assert second.route == "fallback" and "failed recently (HTTP 500)" in second.generator
        assert len(server.requests) == 1, "not called while it rests"
        clock.now += 11
        server.mode, server.reply = "ok", GOOD
        third = answer(engine, QUESTION)
        assert third.route == "llm" and len(server.requests) == 2


def test_a_breaker_lets_one_caller_try_after_the_pause():
    clock = FakeClock()
    breaker = Breaker(10, clock)
    breaker.failed("timed out")
    with pytest.raises(LLMError, match="failed recently"):
        breaker.check()
    clock.now += 10
    breaker.check()  # the one who tries
    with pytest.raises(LLMError):
        breaker.check()  # the others wait for that result
    breaker.succeeded()
    breaker.check()


def test_a_reply_with_null_content_is_a_fallback_not_an_abstention(library):
    with FakeOpenAI() as server:
        server.reply = None
        engine = engine_for(library, server.url, retries=0)
        result = answer(engine, QUESTION)
        assert result.route == "fallback" and not result.abstained
        assert result.generator == "offline (LLM unavailable: empty reply)"
        server.reply = GOOD
        assert answer(engine, QUESTION).route == "llm", "an empty reply does not rest the endpoint"
