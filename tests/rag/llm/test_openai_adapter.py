"""The OpenAI-compatible adapter against a real HTTP server on loopback that speaks the
chat-completions protocol: replies, streaming, and every failure turned into LLMError,
which the engine turns into the offline answer with the reason."""

from __future__ import annotations

import socket

import pytest

from rag.engine import answer, build_engine
from rag.errors import LLMError
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.llm.client import OpenAIChatModel
from rag.settings import BUNDLED_CORPUS, LLMSettings, Settings
from rag.testing.fake_openai import FakeOpenAI
from rag.testing.fakes import FakeEmbedder

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def model_for(url: str, **kw) -> OpenAIChatModel:
    return OpenAIChatModel(LLMSettings(base_url=url, model="m", timeout=1.0, retries=0, **kw))


def test_a_reply_comes_back_and_the_request_carries_the_settings():
    with FakeOpenAI() as server:
        server.reply = "It works [1]."
        assert model_for(server.url, temperature=0.2, max_tokens=99).complete(MESSAGES) == "It works [1]."
        sent = server.requests[-1]
        assert sent["messages"] == MESSAGES and sent["model"] == "m"
        assert sent["temperature"] == 0.2 and sent["max_tokens"] == 99


def test_streaming_yields_the_deltas_until_done():
    with FakeOpenAI() as server:
        server.reply = "one two three [2]."
        parts = list(model_for(server.url).stream(MESSAGES))
        assert len(parts) == 4 and "".join(parts) == "one two three [2]."


@pytest.mark.parametrize("mode, reason", [("slow", "timed out"), ("error", "HTTP 500"),
                                          ("garbage", "unreadable reply")])
def test_failures_become_llm_errors_with_a_reason(mode, reason):
    with FakeOpenAI() as server:
        server.mode = mode
        with pytest.raises(LLMError, match=reason):
            model_for(server.url).complete(MESSAGES)


def test_a_dead_endpoint_is_cannot_connect():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LLMError, match="cannot connect"):
        model_for(f"http://127.0.0.1:{port}/v1").complete(MESSAGES)


def test_the_engine_answers_offline_when_the_endpoint_is_slow(tmp_path):
    settings = Settings(data_dir=tmp_path / "index",
                        llm=LLMSettings(base_url="http://placeholder/v1", timeout=1.0, retries=0))
    lib = open_library(settings, embedder=FakeEmbedder())
    ingest(lib, [BUNDLED_CORPUS / "000_571e57f18ef84a00.txt"])
    with FakeOpenAI() as server:
        server.mode = "slow"
        engine = build_engine(settings, library=lib, chat_model=model_for(server.url))
        result = answer(engine, "What does SupReMix use as hard negatives?")
    assert result.generator == "offline (LLM unavailable: timed out)"
    lib.close()
