"""The HTTP service through FastAPI's TestClient (fake embedder index): every endpoint, SSE
framing, conversations, auth on and off, rate limiting, body limits and error problems."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from rag.engine import build_engine
from rag.index.library import open_library
from rag.settings import BUNDLED_CORPUS, ServiceSettings, Settings
from rag.testing.fakes import FakeChatModel, FakeEmbedder
from service.app import create_app
from tests.support import QUESTION


@pytest.fixture(scope="module")
def library_files():
    return [BUNDLED_CORPUS]


def client_for(library, chat_model=None, raise_errors=True, **service) -> TestClient:
    settings = library.settings.model_copy(update={"service": ServiceSettings(**service)})
    engine = build_engine(settings, library=library, chat_model=chat_model)
    return TestClient(create_app(settings, engine=engine), raise_server_exceptions=raise_errors)


@pytest.fixture
def client(library):
    with client_for(library) as c:
        yield c


def events(body: str) -> list[tuple[str, dict]]:
    out = []
    for frame in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_ask_returns_the_answer_with_citations_and_a_conversation(client):
    reply = client.post("/api/ask", json={"question": "Which papers did Boyi Zeng co-author?"})
    assert reply.status_code == 200
    body = reply.json()
    assert [c["paper_id"] for c in body["citations"]] == ["001-0053", "001-0077", "001-0093"]
    assert body["citations"][0]["authors"][0] == "Boyi Zeng" and body["conversation_id"]
    assert set(body["timings"]) == {"retrieval_ms", "generation_ms", "total_ms"}


def test_sse_stream_is_checked_sentences_then_one_citations_event_then_done(library):
    with client_for(library, FakeChatModel("SupReMix takes anchor-inclusive mixtures of the anchor "
                                           "and a distinct negative sample as hard negative pairs [1]. "
                                           "It also uses anchor-exclusive mixtures as hard positives [1].")) as c:
        reply = c.post("/api/ask", json={"question": QUESTION, "stream": True})
    assert reply.headers["content-type"].startswith("text/event-stream")
    frames = events(reply.text)
    names = [name for name, _ in frames]
    assert names[-2:] == ["citations", "done"] and names.count("citations") == 1
    deltas = [data["text"] for name, data in frames if name == "delta"]
    assert set(names[:-2]) == {"delta"} and len(deltas) >= 2, "one delta per checked sentence"
    assert all(d.rstrip().endswith("]") for d in deltas), deltas
    assert deltas[0].startswith("SupReMix takes anchor-inclusive")
    final = frames[-2][1]
    assert "".join(deltas) == final["text"], "what was streamed is exactly the checked answer"
    assert final["citations"][0]["paper_id"] == "000-0001" and final["generator"] == "llm:fake"


def test_a_follow_up_in_the_same_conversation_uses_the_earlier_question(client):
    first = client.post("/api/ask", json={"question": QUESTION}).json()
    second = client.post("/api/ask", json={"question": "And what does it use as hard positives?",
                                           "conversation_id": first["conversation_id"]}).json()
    # "it" is the paper the first answer showed as [1]
    assert second["standalone_question"] == "And what does SupReMix use as hard positives?"
    fresh = client.post("/api/ask", json={"question": "And what does it use as hard positives?"}).json()
    assert fresh["standalone_question"] is None


def test_filters_are_applied(client):
    body = client.post("/api/ask", json={"question": "syntactic structure in language models",
                                         "filters": {"author": "Zhouhan Lin"}}).json()
    assert all(r["paper_id"].startswith("001-") for r in body["retrieved"])
    bad = client.post("/api/ask", json={"question": QUESTION, "filters": {"year": "lately"}})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"


@pytest.mark.parametrize("payload, status, code", [
    ({"question": ""}, 422, "invalid_request"),
    ({"question": "  \t \x00"}, 422, "invalid_request"),
    ({"question": "why " * 1000}, 422, "invalid_question"),
    ({}, 422, "invalid_request"),
    ({"question": 42}, 422, "invalid_request"),
])
def test_bad_questions_are_json_problems(client, payload, status, code):
    reply = client.post("/api/ask", json=payload)
    assert reply.status_code == status
    assert reply.json()["code"] == code and reply.json()["message"]


def test_an_oversized_body_is_refused_before_reading_it(client):
    reply = client.post("/api/ask", content=b'{"question": "' + b"x" * 70_000 + b'"}',
                        headers={"content-type": "application/json"})
    assert reply.status_code == 413 and reply.json()["code"] == "body_too_large"


def test_openai_compatible_completion_carries_citations(client):
    reply = client.post("/v1/chat/completions", json={"model": "abstract-rag", "messages": [
        {"role": "system", "content": "be nice"}, {"role": "user", "content": QUESTION}]})
    body = reply.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["role"] == "assistant"
    assert body["citations"] and body["citations"][0]["paper_id"] == "000-0001"
    assert client.get("/v1/models").json()["data"][0]["id"] == "abstract-rag"


def test_openai_stream_ends_with_citations_then_done(client):
    reply = client.post("/v1/chat/completions", json={
        "model": "abstract-rag", "stream": True, "messages": [{"role": "user", "content": QUESTION}]})
    frames = [f for f in reply.text.strip().split("\n\n")]
    assert frames[-1] == "data: [DONE]"
    chunks = [json.loads(f.removeprefix("data: ")) for f in frames[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["citations"][0]["paper_id"] == "000-0001"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert "[1]" in text


def test_openai_request_without_a_user_message_is_a_problem(client):
    reply = client.post("/v1/chat/completions", json={"model": "abstract-rag", "messages": [
        {"role": "system", "content": "hi"}]})
    assert reply.status_code == 422 and "user message" in reply.json()["message"]


def test_search_and_papers(client):
    hits = client.get("/api/search", params={"q": "compress BERT by progressive module replacing", "k": 3}).json()
    assert hits[0]["paper"]["id"] == "000-0061" and hits[0]["ranks"]
    paper = client.get("/api/papers/003-0365").json()
    assert paper["id"] == "000-0061" and "003-0365" in paper["aliases"]
    missing = client.get("/api/papers/nope")
    assert missing.status_code == 404 and missing.json()["code"] == "paper_not_found"
    page = client.get("/api/papers", params={"author": "zhouhan lin", "size": 2}).json()
    assert page["total"] >= 10 and len(page["items"]) == 2


def test_health_readiness_metrics_and_docs(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["papers"] == 588
    abstained = client.post("/api/ask", json={"question": "Who won the 2018 FIFA World Cup?"}).json()
    metrics = client.get("/metrics").text
    assert 'rag_http_requests_total{method="POST",route="/api/ask",status="200"}' in metrics
    assert f'rag_answers_total{{abstained="{str(abstained["abstained"]).lower()}"}}' in metrics
    assert "/api/ask" in client.get("/openapi.json").json()["paths"]
    assert client.get("/docs").status_code == 200


def test_an_empty_index_is_503_with_retry_after(tmp_path):
    settings = Settings(data_dir=tmp_path / "empty")
    engine = build_engine(settings, library=open_library(settings, embedder=FakeEmbedder()))
    with TestClient(create_app(settings, engine=engine)) as c:
        reply = c.post("/api/ask", json={"question": QUESTION})
        assert reply.status_code == 503 and reply.headers["retry-after"]
        assert reply.json()["code"] == "index_empty"
        assert c.get("/readyz").status_code == 503


def test_api_keys_are_required_when_configured(library):
    with client_for(library, api_keys=[SecretStr("s3cret")]) as c:
        assert c.post("/api/ask", json={"question": QUESTION}).json()["code"] == "missing_api_key"
        wrong = c.post("/api/ask", json={"question": QUESTION}, headers={"Authorization": "Bearer x"})
        assert wrong.status_code == 401 and wrong.json()["code"] == "invalid_api_key"
        ok = c.post("/api/ask", json={"question": QUESTION}, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        assert c.get("/healthz").status_code == 200, "health needs no key"


def test_the_rate_limit_answers_429_with_retry_after(library):
    with client_for(library, rate_limit_per_minute=3) as c:
        codes = [c.get("/api/search", params={"q": "graphs"}).status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
        limited = c.get("/api/search", params={"q": "graphs"})
        assert int(limited.headers["retry-after"]) >= 1 and limited.json()["code"] == "rate_limited"


def test_an_unexpected_error_is_a_500_problem_without_a_traceback(library):
    with client_for(library, raise_errors=False) as c:
        engine = c.app.state.live.current()
        engine.library.catalog, real = None, engine.library.catalog
        try:
            reply = c.get("/api/papers/000-0001")
        finally:
            engine.library.catalog = real
    assert reply.status_code == 500
    assert reply.json()["code"] == "internal_error" and "Traceback" not in reply.text


def test_logged_questions_export_as_draft_eval_cases(library, tmp_path):
    from eval.dataset import load
    from service.conversations import export_drafts

    with client_for(library) as c:
        c.post("/api/ask", json={"question": "Which papers did Boyi Zeng co-author?"})
    drafts = export_drafts(library.settings.data_dir / "service.sqlite")
    mine = [d for d in drafts if d["question"] == "Which papers did Boyi Zeng co-author?"]
    assert mine and mine[-1]["gold_papers"] == ["001-0053", "001-0077", "001-0093"]
    path = tmp_path / "drafts.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in drafts))
    assert len(load(path)) == len(drafts), "the drafts load as an eval dataset"
