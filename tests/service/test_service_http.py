"""The service over real HTTP: uvicorn on a loopback port, the real `openai` client as a
caller (streaming and not), and `rag serve`'s refusal to listen publicly without keys."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest
from openai import OpenAI

from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.testing.live import free_port, running
from service.app import create_app
from tests.support import write_papers

pytestmark = pytest.mark.integration



@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """`rag serve`'s app over an invented corpus (no eval question is asked of the real index),
    indexed with the real embedder the reader is fitted on."""
    folder = tmp_path_factory.mktemp("http")
    settings = Settings(data_dir=folder / "index")
    lib = open_library(settings)
    try:
        ingest(lib, [write_papers(folder / "papers.jsonl")])
    finally:
        lib.close()
    with running(create_app(settings)) as url:
        yield url


def test_the_openai_client_gets_a_cited_answer(base_url):
    client = OpenAI(base_url=f"{base_url}/v1", api_key="unused")
    reply = client.chat.completions.create(model="abstract-rag", messages=[
        {"role": "user", "content": "What does GlimmerMix use as hard negatives?"}])
    assert "distinct negative sample" in reply.choices[0].message.content
    assert reply.model_extra["citations"][0]["paper_id"] == "inv-1"


def test_the_openai_client_streams_and_gets_citations_in_the_last_chunk(base_url):
    client = OpenAI(base_url=f"{base_url}/v1", api_key="unused")
    chunks = list(client.chat.completions.create(model="abstract-rag", stream=True, messages=[
        {"role": "user", "content": "Which papers did Mirela Okonkwo co-author?"}]))
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text.startswith("Mirela Okonkwo is among the listed authors")
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert sorted(c["paper_id"] for c in chunks[-1].model_extra["citations"]) == ["inv-1", "inv-2", "inv-3"]


def test_a_conversation_continues_over_http_with_a_multi_turn_messages_array(base_url):
    client = OpenAI(base_url=f"{base_url}/v1", api_key="unused")
    reply = client.chat.completions.create(model="abstract-rag", messages=[
        {"role": "user", "content": "What does GlimmerMix use as hard negatives?"},
        {"role": "assistant", "content": "Blends of the anchor with a distinct negative sample [1]."},
        {"role": "user", "content": "And what does it take as hard positive pairs?"}])
    assert reply.model_extra["citations"][0]["paper_id"] == "inv-1"
    assert "nearby labels mixed together" in reply.choices[0].message.content


def test_sse_from_api_ask_arrives_as_events_over_the_wire(base_url):
    with httpx.stream("POST", f"{base_url}/api/ask", timeout=60,
                      json={"question": "What is GlimmerMix?", "stream": True}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        names = [line.removeprefix("event: ") for line in response.iter_lines() if line.startswith("event: ")]
    assert names[0] == "delta" and names[-2:] == ["citations", "done"]


def test_rag_serve_refuses_a_public_address_without_api_keys(tmp_path):
    env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "idx")}
    env.pop("RAG_SERVICE__API_KEYS", None)
    done = subprocess.run([sys.executable, "-m", "cli", "serve", "--host", "0.0.0.0", "--port",
                           str(free_port())], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "refusing to serve on 0.0.0.0 without API keys" in done.stderr
