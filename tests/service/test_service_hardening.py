"""The service attacked: bodies over the cap however they are sent, bad text, unknown routes,
every path behind the keys, forged client addresses, unexpected errors. Each answer is a
4xx/5xx JSON problem ``{code, message}``, counted in /metrics, and nothing is stored."""

from __future__ import annotations

import json
import logging
import sqlite3

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from rag.engine import build_engine
from rag.settings import ServiceSettings
from rag.testing.live import running
from service.app import create_app, uvicorn_options
from tests.support import QUESTION


def app_for(library, **service):  # type: ignore[no-untyped-def]
    settings = library.settings.model_copy(update={"service": ServiceSettings(**service)})
    return create_app(settings, engine=build_engine(settings, library=library))


@pytest.fixture
def client(library):
    with TestClient(app_for(library), raise_server_exceptions=False) as c:
        yield c


def turns(library) -> int:
    db = sqlite3.connect(library.settings.data_dir / "service.sqlite")
    try:
        return db.execute("SELECT count(*) FROM turns").fetchone()[0]
    finally:
        db.close()


def is_problem(reply: httpx.Response, status: int, code: str | None = None) -> bool:
    body = reply.json()
    return (reply.status_code == status and set(body) == {"code", "message"} and bool(body["message"])
            and (code is None or body["code"] == code))


# ---- 11.5: the body cap counts bytes read; strings are capped ---------------------------------

def test_a_chunked_upload_over_the_cap_is_refused_and_nothing_is_stored(library):
    def chunks():  # no Content-Length: httpx sends Transfer-Encoding: chunked
        yield b'{"question": "' + b"x" * 1000
        for _ in range(5 * 1024):
            yield b"y" * 1024
        yield b'"}'

    with running(app_for(library)) as url:
        before = turns(library)
        reply = httpx.post(f"{url}/api/ask", content=chunks(), timeout=30,
                           headers={"content-type": "application/json"})
    assert is_problem(reply, 413, "body_too_large")
    assert turns(library) == before


@pytest.mark.parametrize("payload", [
    {"question": QUESTION, "conversation_id": "c" * 129},
    {"question": QUESTION, "conversation_id": "two words"},
    {"question": QUESTION, "filters": {"author": "a" * 201}},
    {"question": QUESTION, "filters": {"year": "2" * 21}},
    {"question": "q" * 32_001},
])
def test_every_string_field_is_capped(client, payload):
    assert is_problem(client.post("/api/ask", json=payload), 422)


# ---- 11.6: bad text ---------------------------------------------------------------------------

def raw_json(client, path: str, text: str):  # type: ignore[no-untyped-def]
    return client.post(path, content=text.encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("stream", ["false", "true"])
def test_a_lone_surrogate_in_the_question_is_a_422(client, stream):
    body = '{"question": "What is \\ud800 SupReMix?", "stream": ' + stream + "}"
    reply = raw_json(client, "/api/ask", body)
    assert is_problem(reply, 422, "invalid_request") and "question" in reply.json()["message"]
    reply = raw_json(client, "/v1/chat/completions",
                     '{"messages": [{"role": "user", "content": "\\udfff"}], "stream": ' + stream + "}")
    assert is_problem(reply, 422, "invalid_request")


@pytest.mark.parametrize("part", [{"type": "text", "text": 5}, {"type": "text", "text": None},
                                  {"type": "text"}, 7, None])
def test_a_content_part_that_is_not_text_is_a_422(client, part):
    reply = client.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": [part]}]})
    assert is_problem(reply, 422, "invalid_request")


def test_control_characters_around_a_question_do_not_change_its_answer(client):
    plain = client.post("/api/ask", json={"question": QUESTION}).json()
    noisy = client.post("/api/ask", json={"question": f"\x00\x1b\x08{QUESTION}\x7f\u200b\x07\x9b"}).json()
    assert not plain["abstained"] and noisy["text"] == plain["text"]


def test_a_failure_mid_stream_still_ends_the_stream_and_the_connection_lives_on(library, monkeypatch):
    import service.routes.ask as ask_route

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        yield "A first checked sentence. [1]"
        raise RuntimeError("the store went away")

    monkeypatch.setattr(ask_route, "answer_stream", broken)
    with running(app_for(library)) as url, httpx.Client(base_url=url, timeout=30) as http:
        with http.stream("POST", "/api/ask", json={"question": QUESTION, "stream": True}) as reply:
            names = [line.removeprefix("event: ") for line in reply.iter_lines()
                     if line.startswith("event: ")]
        assert names == ["delta", "error", "done"]
        again = http.get("/healthz")  # the same keep-alive connection
        assert again.status_code == 200


# ---- 11.18: the contract ----------------------------------------------------------------------

def test_unknown_routes_and_methods_are_problems(client):
    assert is_problem(client.get("/nowhere"), 404, "not_found")
    assert is_problem(client.delete("/api/ask"), 405, "method_not_allowed")


def test_a_body_that_is_not_utf8_or_not_json_is_a_400_problem(client):
    not_utf8 = client.post("/api/ask", content=b'{"question": "\xff\xfe"}',
                           headers={"content-type": "application/json"})
    assert is_problem(not_utf8, 400, "invalid_body")
    assert is_problem(raw_json(client, "/api/ask", '{"question": '), 400, "invalid_body")


@pytest.mark.parametrize("extra", [{"n": 2}, {"n": 0}, {"max_tokens": -1}, {"max_tokens": "12"},
                                   {"stream": 0}, {"temperature": 9}, {"messages": []}])
def test_openai_parameters_are_validated(client, extra):
    body = {"model": "abstract-rag", "messages": [{"role": "user", "content": QUESTION}], **extra}
    assert is_problem(client.post("/v1/chat/completions", json=body), 422, "invalid_request")


def test_n_of_one_and_a_max_tokens_are_accepted(client):
    reply = client.post("/v1/chat/completions", json={
        "messages": [{"role": "user", "content": QUESTION}], "n": 1, "max_tokens": 50})
    assert reply.status_code == 200 and len(reply.json()["choices"]) == 1


# ---- 11.14: 500s counted once, logged once ----------------------------------------------------

def test_a_500_is_counted_in_metrics_and_logged_once_without_reraising(library, caplog):
    app = app_for(library)
    with TestClient(app, raise_server_exceptions=True) as c:  # would raise if anything re-raised
        real = c.app.state.live.current().library.catalog
        c.app.state.live.current().library.catalog = None
        try:
            with caplog.at_level(logging.ERROR):
                reply = c.get("/api/papers/000-0001")
        finally:
            c.app.state.live.current().library.catalog = real
        metrics = c.get("/metrics").text
    assert is_problem(reply, 500, "internal_error") and "Traceback" not in reply.text
    assert 'rag_http_requests_total{method="GET",route="/api/papers/{paper_id}",status="500"}' in metrics
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]


# ---- 11.15: with keys, everything but health needs one ------------------------------------------

@pytest.mark.parametrize("path", ["/metrics", "/docs", "/openapi.json", "/redoc", "/v1/models",
                                  "/api/papers/000-0001"])
def test_with_api_keys_every_path_but_health_needs_a_key(library, path):
    with TestClient(app_for(library, api_keys=[SecretStr("k3y")])) as c:
        assert is_problem(c.get(path), 401, "missing_api_key")
        assert c.get(path, headers={"Authorization": "Bearer k3y"}).status_code == 200
        assert c.get("/healthz").status_code == 200 and c.get("/readyz").status_code == 200


def test_a_setting_opens_chosen_paths(library):
    with TestClient(app_for(library, api_keys=[SecretStr("k3y")],
                            open_paths=["/healthz", "/readyz", "/metrics", "/docs", "/openapi.json"])) as c:
        assert c.get("/metrics").status_code == 200 and c.get("/openapi.json").status_code == 200
        assert is_problem(c.get("/v1/models"), 401)


# ---- 11.16: X-Forwarded-For is believed only from configured proxies ----------------------------

def statuses(url: str, count: int) -> list[int]:
    with httpx.Client(base_url=url) as http:
        return [http.get("/api/search", params={"q": "graphs"},
                         headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(count)]


def test_a_rotating_forwarded_for_from_loopback_does_not_escape_the_rate_limit(library):
    settings = library.settings.model_copy(update={"service": ServiceSettings(rate_limit_per_minute=3)})
    app = create_app(settings, engine=build_engine(settings, library=library))
    with running(app, **uvicorn_options(settings)) as url:
        assert statuses(url, 5) == [200, 200, 200, 429, 429]


def test_a_configured_proxy_is_believed(library):
    settings = library.settings.model_copy(update={"service": ServiceSettings(
        rate_limit_per_minute=3, trusted_proxies=["127.0.0.1"])})
    app = create_app(settings, engine=build_engine(settings, library=library))
    with running(app, **uvicorn_options(settings)) as url:
        assert statuses(url, 5) == [200] * 5, "each forwarded client has its own bucket"


def test_problems_are_json_even_for_text_a_caller_cannot_encode(client):
    reply = client.get("/api/papers/%ED%A0%80")  # a UTF-16 surrogate, which UTF-8 cannot carry
    assert reply.status_code == 400 and json.loads(reply.text)["code"] == "invalid_encoding"


# ---- issue 27: wrong API keys are rate-limited; the page's own files are open -------------------

def test_wrong_api_keys_from_one_address_are_rate_limited_then_even_a_right_key_waits(library):
    with TestClient(app_for(library, api_keys=[SecretStr("k3y")], wrong_keys_per_minute=5)) as c:
        guesses = [c.get("/api/papers/000-0001", headers={"Authorization": f"Bearer guess{i}"})
                   for i in range(8)]
        right = c.get("/api/papers/000-0001", headers={"Authorization": "Bearer k3y"})
    assert [r.status_code for r in guesses] == [401] * 5 + [429] * 3
    assert guesses[-1].json()["code"] == "too_many_wrong_keys" and int(guesses[-1].headers["retry-after"]) >= 1
    assert right.status_code == 429, "the address that guessed waits out the minute"


def test_with_api_keys_the_page_and_its_files_load_and_its_api_calls_need_the_key(library):
    with TestClient(app_for(library, api_keys=[SecretStr("k3y")])) as c:
        assert c.get("/").status_code == 200 and c.get("/static/app.js").status_code == 200
        assert is_problem(c.post("/api/ask", json={"question": QUESTION}), 401, "missing_api_key")
