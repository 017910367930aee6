"""Each bad request gets an error that says what is wrong with it (issue 27, Low): JSON nested too
deeply, JSON sent as text/plain, a fractional count, a field the service does not know, and a
year range that runs backwards."""

from __future__ import annotations

import pytest

from rag.errors import InputError
from rag.text.years import parse_years
from tests.support import ingest_with_fake_embedder, pinned_service, write_papers


@pytest.fixture
def client(settings, tmp_path):  # type: ignore[no-untyped-def]
    ingest_with_fake_embedder(settings, write_papers(tmp_path / "papers.jsonl"))
    with pinned_service(settings) as c:
        yield c


def problem_of(reply) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    body = reply.json()
    return reply.status_code, body["code"], body["message"]


def test_deeply_nested_json_is_called_that_not_bad_utf8(client):
    deep = '{"question": "What is GlimmerMix?", "filters": ' + "[" * 5000 + "]" * 5000 + "}"
    status, code, message = problem_of(client.post("/api/ask", content=deep,
                                                   headers={"Content-Type": "application/json"}))
    assert (status, code) == (400, "invalid_body") and "nested too deeply" in message


def test_json_sent_as_text_plain_is_told_to_send_json(client):
    status, code, message = problem_of(client.post("/api/ask", content='{"question": "What is GlimmerMix?"}',
                                                   headers={"Content-Type": "text/plain"}))
    assert (status, code) == (422, "invalid_request")
    assert "text/plain" in message and "application/json" in message


def test_a_paper_count_is_a_whole_number_as_json_schema_counts_them(client):
    """5.0 is the integer 5 for JSON Schema (and so in the OpenAPI contract): read as 5, a
    decision, not an oversight; 5.5 is refused with the field named."""
    assert client.post("/api/ask", json={"question": "What is GlimmerMix?", "k": 5.0}).status_code == 200
    status, code, message = problem_of(client.post("/api/ask", json={"question": "What is GlimmerMix?", "k": 5.5}))
    assert (status, code) == (422, "invalid_request") and message.startswith("k:")


def test_an_unknown_field_is_named(client):
    status, code, message = problem_of(client.post("/api/ask", json={"question": "What is GlimmerMix?", "topk": 3}))
    assert (status, code) == (422, "invalid_request") and "'topk'" in message
    status, _, message = problem_of(client.post("/api/ask", json={"question": "What is GlimmerMix?",
                                                                  "filters": {"years": "2024"}}))
    assert status == 422 and "filters.years" in message


def test_a_backwards_year_range_is_refused_with_the_range_it_likely_meant(client):
    with pytest.raises(InputError, match="runs backwards; did you mean 2020-2025"):
        parse_years("2025-2020")
    status, _, message = problem_of(client.get("/api/search", params={"q": "sonar", "year": "2025-2020"}))
    assert status == 422 and "2020-2025" in message
    assert client.post("/api/ask", json={"question": "What is GlimmerMix?", "k": 5}).status_code == 200
