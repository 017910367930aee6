"""One reply shape: the JSON answer of /api/ask is the engine's Answer, every field of it, with
the conversation id; the OpenAPI schema is generated from the same type, so a field added to
Answer reaches the schema and the reply without a hand copy."""

from __future__ import annotations

import dataclasses

import httpx
import pytest

from rag.engine import build_engine
from rag.testing.live import running
from rag.types import Answer
from service.app import create_app
from tests.support import QUESTION

pytestmark = pytest.mark.integration
FIELDS = {f.name for f in dataclasses.fields(Answer)}


@pytest.fixture(scope="module")
def base_url(library):
    with running(create_app(library.settings, engine=build_engine(library.settings, library=library))) as url:
        yield url


def test_the_json_answer_carries_every_field_of_the_engines_answer(base_url):
    reply = httpx.post(f"{base_url}/api/ask", json={"question": QUESTION}, timeout=60).json()
    assert set(reply) == FIELDS | {"conversation_id"}
    assert reply["route"] == "offline" and "fallback_reason" in reply and "see_also" in reply


def test_an_abstention_says_why_and_what_is_nearest_in_the_json_reply(base_url):
    reply = httpx.post(f"{base_url}/api/ask", timeout=60,
                       json={"question": "Which zorblax glimfrab quintessence wins?"}).json()
    assert reply["abstained"] and reply["abstain_reason"]
    assert isinstance(reply["see_also"], list)


def test_the_openapi_schema_shows_the_answer_as_the_engine_builds_it(base_url):
    schema = httpx.get(f"{base_url}/openapi.json", timeout=30).json()
    answer = schema["components"]["schemas"]["AnswerOut"]
    assert set(answer["properties"]) == FIELDS | {"conversation_id"}
    assert "route" in answer["required"] or "default" in answer["properties"]["route"]
