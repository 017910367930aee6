"""Signed but malformed Slack payloads, and unauthenticated oddities, are 4xx problems
{code, message} checked before Bolt sees them, never a 500 (issue 19, point 6)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from rag.engine import build_engine
from rag.testing.fake_slack import TEAM, FakeSlack
from service.app import create_app
from service.slack import mount_slack
from service.slack_blocks import SlackSettings
from tests.service.test_slack import FORM, SECRET, TOKEN, click, event_body, mention
from tests.support import MLLM_DATA_FILE


@pytest.fixture(scope="module")
def library_files():
    return [MLLM_DATA_FILE]


@pytest.fixture
def fake():
    with FakeSlack() as server:
        yield server


@pytest.fixture
def client(library, fake, tmp_path):
    settings = library.settings.model_copy(update={"data_dir": tmp_path / "svc"})
    app = create_app(settings, engine=build_engine(settings, library=library))
    mount_slack(app, settings, slack=SlackSettings(bot_token=TOKEN, signing_secret=SECRET, api_url=fake.api_url))
    with TestClient(app) as c:
        yield c


def signed(body: bytes, secret: str = SECRET, stamp: str | None = None) -> dict[str, str]:
    stamp = stamp or str(int(time.time()))
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest}"}


def send(client, path: str, body: bytes | str, content_type: str = "application/json", **headers: str):
    raw = body.encode() if isinstance(body, str) else body
    return client.post(path, content=raw, headers={"Content-Type": content_type, **signed(raw), **headers})


def envelope(event: object, **extra: object) -> str:
    return json.dumps({"type": "event_callback", "team_id": TEAM, "event_id": "Ev1", "event": event, **extra})


def deep(levels: int) -> str:
    """A mention whose blocks nest ``levels`` lists deep (written as text: json cannot)."""
    head = envelope({"type": "app_mention", "channel": "C1", "ts": "1.0", "text": "x", "blocks": "@"})
    return head.replace('"@"', "[" * levels + "]" * levels)


MALFORMED = [
    ("/slack/events", envelope("hi"), "application/json"),
    ("/slack/events", envelope([1]), "application/json"),
    ("/slack/events", envelope({**mention(), "channel": 12345}), "application/json"),
    ("/slack/events", envelope({**mention(), "ts": None}), "application/json"),
    ("/slack/events", envelope({**mention(), "text": {"a": 1}}), "application/json"),
    ("/slack/events", envelope(mention(), authorizations="x"), "application/json"),
    ("/slack/events", envelope(mention(), enterprise=7), "application/json"),
    ("/slack/events", envelope({"type": 5}), "application/json"),
    ("/slack/events", json.dumps({"type": "url_verification", "challenge": ["x"]}), "application/json"),
    ("/slack/commands", json.dumps({"command": "/ask", "text": 5, "channel_id": "C1"}), "application/json"),
    ("/slack/commands", json.dumps({"command": ["/ask"], "text": "hi"}), "application/json"),
    ("/slack/actions", urlencode({"payload": json.dumps({"type": "block_actions", "actions": "x"})}), FORM),
    ("/slack/actions", urlencode({"payload": json.dumps({"type": "block_actions", "actions": [1],
                                                         "user": {"id": "U1"}})}), FORM),
    ("/slack/actions", urlencode({"payload": json.dumps({"type": "block_actions", "user": "U1",
                                                         "actions": [{"action_id": "feedback_up"}]})}), FORM),
    ("/slack/events", deep(20_000), "application/json"),
    ("/slack/events", deep(200), "application/json"),
    ("/slack/events", b'{"type": "event_callback", "event": {"text": "\xff\xfe"}}', "application/json"),
    ("/slack/commands", b"command=%2Fask&text=caf\xe9", FORM),
]


@pytest.mark.parametrize("path, body, content_type", MALFORMED, ids=[
    "event-string", "event-list", "channel-int", "ts-null", "text-object", "authorizations-string",
    "enterprise-int", "event-type-int", "challenge-list", "command-text-int", "command-list",
    "actions-string", "action-int", "user-string", "deep-nesting", "nesting-200", "json-not-utf8",
    "form-not-utf8"])
def test_a_signed_malformed_payload_is_a_400_problem(client, fake, path, body, content_type):
    reply = send(client, path, body, content_type)
    assert reply.status_code == 400, reply.text
    assert reply.json()["code"] == "invalid_slack_request" and reply.json()["message"]
    assert [c.method for c in fake.calls if c.method != "auth.test"] == []


@pytest.mark.parametrize("stamp", ["1" * 400, "0" * 30 + "1700000000", "1" * 13],
                         ids=["400-digits", "padded", "13-digits"])
def test_an_absurd_timestamp_is_a_401_problem(client, fake, stamp):
    body = event_body(mention()).encode()
    reply = client.post("/slack/events", content=body,
                        headers={"Content-Type": "application/json", **signed(body, stamp=stamp)})
    assert reply.status_code == 401 and reply.json()["code"] == "invalid_slack_signature"


def test_an_unsigned_body_that_is_not_utf8_is_a_401_problem(client, fake):
    body = b'{"type": "event_callback", "text": "\xff"}'
    headers = {"Content-Type": "application/json", **signed(body, secret="wrong")}
    reply = client.post("/slack/events", content=body, headers=headers)
    assert reply.status_code == 401 and reply.json()["code"] == "invalid_slack_signature"


def test_well_formed_payloads_still_reach_the_bot(client, fake):
    assert send(client, "/slack/events", event_body(mention())).status_code == 200
    fake.wait_for_method("chat.update")
    challenge = send(client, "/slack/events", json.dumps({"type": "url_verification", "challenge": "abc"}))
    assert challenge.status_code == 200 and "abc" in challenge.text
    assert send(client, "/slack/actions", click("missing-turn", "up", fake), FORM).status_code == 200


def test_a_well_formed_request_no_handler_takes_is_a_404_problem(client, fake):
    reply = send(client, "/slack/events", envelope({"type": "reaction_added", "user": "U1",
                                                     "item": {"type": "message", "channel": "C1"}}))
    assert reply.status_code == 404 and reply.json()["code"] == "unhandled_slack_request"
