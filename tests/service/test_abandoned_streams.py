"""Abandoned streams stop calling the LLM (issue 19, point 16): over real HTTP with uvicorn and
the fake OpenAI server, a client that opens a stream and goes away while the first LLM call of
its answer is in flight costs that one call, not the rewrite, rerank and answer calls that
would follow; a stream that is read to its end still makes all of them."""

from __future__ import annotations

import time

import httpx
import pytest

from rag.engine import build_engine
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import BUNDLED_CORPUS, LLMSettings, Settings
from rag.testing.fake_openai import FakeOpenAI
from rag.testing.fakes import FakeEmbedder
from rag.testing.live import running
from service.app import create_app

REPLY = "Deep neural networks trained with cross-entropy loss tend to exhibit overconfidence [1]."
QUESTION = "Why are deep neural networks overconfident?"


@pytest.fixture
def served(tmp_path):
    with FakeOpenAI() as fake:
        fake.reply = REPLY
        llm = LLMSettings(base_url=fake.url, model="fake", rerank=True, timeout=30, retries=0)
        settings = Settings(data_dir=tmp_path / "index", llm=llm)
        library = open_library(settings, embedder=FakeEmbedder())
        ingest(library, [BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"])
        app = create_app(settings, engine=build_engine(settings, library=library))
        with running(app) as url:
            yield url, fake
        library.close()


def calls_settle(fake: FakeOpenAI, quiet: float = 4.0, limit: float = 40.0) -> int:
    """The number of LLM requests once none has come for ``quiet`` seconds (at most ``limit``)."""
    started, seen, since = time.monotonic(), len(fake.requests), time.monotonic()
    while time.monotonic() - since < quiet and time.monotonic() - started < limit:
        time.sleep(0.2)
        if len(fake.requests) != seen:
            seen, since = len(fake.requests), time.monotonic()
    return seen


def ask(url: str, **body: object) -> httpx.Response:
    return httpx.post(f"{url}/api/ask", json={"question": QUESTION, **body}, timeout=60)


def test_a_stream_read_to_its_end_makes_every_llm_call(served):
    url, fake = served
    ask(url, conversation_id="c-read")  # a first turn, so the next question is a follow-up
    before = calls_settle(fake)
    with httpx.stream("POST", f"{url}/api/ask", timeout=60,
                      json={"question": QUESTION, "conversation_id": "c-read", "stream": True}) as reply:
        body = reply.read().decode()
    assert "event: done" in body
    assert calls_settle(fake) - before >= 3, "rewrite, rerank and answer"


@pytest.mark.parametrize("path, payload", [
    ("/api/ask", {"question": QUESTION, "conversation_id": "c-gone", "stream": True}),
    ("/v1/chat/completions", {"model": "abstract-rag", "stream": True, "messages": [
        {"role": "user", "content": "What do deep neural networks achieve?"},
        {"role": "user", "content": QUESTION}]}),
], ids=["api-ask", "openai"])
def test_an_abandoned_stream_stops_calling_the_llm(served, path, payload):
    url, fake = served
    ask(url, conversation_id="c-gone")
    before = calls_settle(fake)
    fake.mode = "slow"  # each LLM call takes 3 s: the clients leave during the first one
    streams = 3
    for _ in range(streams):
        with httpx.Client(timeout=60) as client:
            request = client.build_request("POST", f"{url}{path}", json=payload)
            reply = client.send(request, stream=True)
            time.sleep(0.8)
            reply.close()  # the client goes away
    made = calls_settle(fake) - before
    assert made <= streams, f"{made} LLM calls for {streams} abandoned streams"
