"""The Slack bot against a fake Slack Web API on loopback (rag/testing/fake_slack.py), with signed
requests into the FastAPI app (TestClient; one test over real HTTP with uvicorn) and a
fake-embedder index. Background answers are awaited by polling the fake's recorded calls."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
import uuid
from urllib.parse import urlencode

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

import service.slack as slack_module
from rag.engine import build_engine
from rag.settings import BUNDLED_CORPUS
from rag.testing.fake_slack import BOT_USER, TEAM, FakeSlack, sign
from rag.testing.live import free_port
from rag.types import Answer, RetrievedPaper
from service.app import create_app
from service.slack import mount_slack, socket_mode_handler
from service.slack_blocks import (
    APOLOGY,
    NOT_HERE,
    SEARCHING,
    SEE_ALSO,
    SlackSettings,
    answer_blocks,
    export_feedback,
)
from service.slack_settings import load_slack_settings
from tests.support import QUESTION

TOKEN, SECRET = "xoxb-test-bot-token-0001", "test-signing-secret-0002"
FOLLOW_UP = "And what does it use as hard positives?"
FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def library_files():  # conftest's library, holding the whole bundled corpus
    return [BUNDLED_CORPUS]


@pytest.fixture
def fake():
    with FakeSlack() as server:
        yield server


@pytest.fixture
def make_app(library, fake, tmp_path):
    """The service app with the bot mounted; its SQLite log is the test's own."""
    def make(**slack: object):
        settings = library.settings.model_copy(update={"data_dir": tmp_path / "svc"})
        conf = SlackSettings(bot_token=TOKEN, signing_secret=SECRET, api_url=fake.api_url, **slack)
        app = create_app(settings, engine=build_engine(settings, library=library))
        assert mount_slack(app, settings, slack=conf) is not None
        return app
    return make


@pytest.fixture
def client(make_app):
    with TestClient(make_app()) as c:
        yield c


def event_body(event: dict, event_id: str | None = None) -> str:
    return json.dumps({"token": "unused", "team_id": TEAM, "api_app_id": "A0001", "type": "event_callback",
                       "event_id": event_id or f"Ev{uuid.uuid4().hex[:10]}", "event_time": int(time.time()),
                       "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
                       "event": {"event_ts": event.get("ts"), **event}})


def mention(text: str = QUESTION, *, ts: str = "1700000000.000100", thread_ts: str | None = None,
            channel: str = "C0000001") -> dict:
    event = {"type": "app_mention", "user": "U0000042", "text": f"<@{BOT_USER}> {text}", "ts": ts,
             "channel": channel}
    return event | ({"thread_ts": thread_ts} if thread_ts else {})


def post(client, path: str, body: str, content_type: str = "application/json", *, secret: str = SECRET,
         timestamp: int | None = None, **headers: str):
    return client.post(path, content=body, headers={"Content-Type": content_type,
                                                    **sign(secret, body, timestamp), **headers})


def command_body(text: str, fake: FakeSlack, channel: str = "C0000001") -> str:
    return urlencode({"token": "unused", "team_id": TEAM, "channel_id": channel, "channel_name": "general",
                      "user_id": "U0000042", "command": "/ask", "text": text, "api_app_id": "A0001",
                      "response_url": fake.response_url, "trigger_id": f"tr-{uuid.uuid4().hex[:8]}"})


def click(turn_key: str, vote: str, fake: FakeSlack, *, user: str = "U0000042",
          thread_ts: str = "1700000000.000100") -> str:
    container = {"type": "message", "channel_id": "C0000001", "message_ts": "1700000001.000001",
                 "is_ephemeral": False}
    payload = {"type": "block_actions", "team": {"id": TEAM}, "user": {"id": user, "team_id": TEAM},
               "api_app_id": "A0001", "token": "unused", "trigger_id": "t1",
               "response_url": fake.response_url,
               "channel": {"id": "C0000001"}, "container": container,
               "message": {"type": "message", "ts": "1700000001.000001", "thread_ts": thread_ts},
               "actions": [{"type": "button", "action_id": f"feedback_{vote}", "block_id": "feedback",
                            "value": turn_key, "action_ts": str(time.time())}]}
    return urlencode({"payload": json.dumps(payload)})


def block(call, prefix: str) -> list[dict]:
    return [b for b in call.body.get("blocks", []) if b.get("block_id", "").startswith(prefix)]


def texts(blocks: list[dict]) -> str:
    def text(item: dict) -> str:
        value = item.get("text", "")
        return value if isinstance(value, str) else value.get("text", "")
    return " ".join(text(b) + " ".join(text(e) for e in b.get("elements", [])) for b in blocks)


def turn_key(call) -> str:
    return block(call, "feedback")[0]["elements"][0]["value"]


def test_a_mention_gets_a_placeholder_then_the_cited_answer_in_its_thread(client, fake):
    reply = post(client, "/slack/events", event_body(mention()))
    assert reply.status_code == 200
    update = fake.wait_for_method("chat.update")[0]
    placeholder = fake.of("chat.postMessage")
    assert len(placeholder) == 1 and placeholder[0].body["text"] == SEARCHING
    assert placeholder[0].body["thread_ts"] == "1700000000.000100" and placeholder[0].token == TOKEN
    assert update.body["ts"] == fake.of("chat.update")[0].body["ts"]
    assert update.body["channel"] == "C0000001" and "[1]" in update.body["text"]
    assert "anchor-inclusive" in texts(block(update, "answer"))
    source = texts(block(update, "source-1"))
    assert "SupReMix" in source and "000-0001" in source and ">" in source
    buttons = block(update, "feedback")[0]["elements"]
    assert [b["action_id"] for b in buttons] == ["feedback_up", "feedback_down"]


def test_the_ack_returns_before_the_answer_is_ready(client, fake, monkeypatch):
    release = threading.Event()
    real_answer = slack_module.answer

    def slow(*args, **kwargs):
        assert release.wait(20)
        return real_answer(*args, **kwargs)

    monkeypatch.setattr(slack_module, "answer", slow)
    started = time.monotonic()
    assert post(client, "/slack/events", event_body(mention())).status_code == 200
    assert time.monotonic() - started < 3
    fake.wait_for_method("chat.postMessage")
    assert fake.of("chat.update") == []
    release.set()
    assert "[1]" in fake.wait_for_method("chat.update")[0].body["text"]


def test_a_direct_message_is_answered_in_its_thread(client, fake):
    event = {"type": "message", "channel_type": "im", "channel": "D0000009", "user": "U0000042",
             "text": QUESTION, "ts": "1700000100.000200"}
    assert post(client, "/slack/events", event_body(event)).status_code == 200
    update = fake.wait_for_method("chat.update")[0]
    assert fake.of("chat.postMessage")[0].body["thread_ts"] == "1700000100.000200"
    assert update.body["channel"] == "D0000009" and block(update, "source-1")


def test_ask_command_acks_at_once_and_answers_ephemerally(client, fake):
    reply = post(client, "/slack/commands", command_body(QUESTION, fake), FORM)
    assert reply.status_code == 200 and SEARCHING in reply.json()["text"]
    ephemeral = fake.wait_for_method("chat.postEphemeral")[0]
    assert ephemeral.body["user"] == "U0000042" and ephemeral.body["channel"] == "C0000001"
    assert "[1]" in ephemeral.body["text"] and block(ephemeral, "source-1") and block(ephemeral, "feedback")
    assert fake.of("chat.postMessage") == []


def test_ask_falls_back_to_the_response_url_where_it_cannot_post_ephemerally(client, fake):
    fake.errors["chat.postEphemeral"] = "not_in_channel"
    post(client, "/slack/commands", command_body(QUESTION, fake), FORM)
    delayed = fake.wait_for_method("response_url")[0]
    assert delayed.body["response_type"] == "ephemeral" and "[1]" in delayed.body["text"]


def test_an_empty_ask_gets_the_usage_and_no_answer(client, fake):
    reply = post(client, "/slack/commands", command_body("  ", fake), FORM)
    assert "/ask" in reply.json()["text"]


def test_a_retry_or_a_repeated_event_is_acked_and_not_answered_twice(make_app, fake):
    body = event_body(mention(), event_id="Ev-once")
    with TestClient(make_app()) as client:
        assert post(client, "/slack/events", body).status_code == 200
        retry = post(client, "/slack/events", body, **{"X-Slack-Retry-Num": "1",
                                                        "X-Slack-Retry-Reason": "http_timeout"})
        assert retry.status_code == 200 and retry.headers["x-slack-no-retry"] == "1"
        assert post(client, "/slack/events", body).status_code == 200  # same event_id, no header
        other_event_same_message = event_body(mention(), event_id="Ev-other")
        assert post(client, "/slack/events", other_event_same_message).status_code == 200
        fake.wait_for_method("chat.update")
    # leaving the client drains the bot's pool: nothing else can still be on its way
    assert len(fake.of("chat.postMessage")) == 1 and len(fake.of("chat.update")) == 1


def test_a_follow_up_in_the_thread_uses_the_earlier_question(client, fake, tmp_path):
    post(client, "/slack/events", event_body(mention(ts="1700000200.000001")))
    fake.wait_for_method("chat.update")
    post(client, "/slack/events", event_body(mention(FOLLOW_UP, ts="1700000250.000001",
                                                     thread_ts="1700000200.000001")))
    second = fake.wait_for_method("chat.update", 2)[1]
    assert fake.of("chat.postMessage")[1].body["thread_ts"] == "1700000200.000001"
    assert block(second, "source-1") and "000-0001" in texts(block(second, "source-1"))
    db = sqlite3.connect(tmp_path / "svc" / "service.sqlite")
    rows = db.execute("SELECT conversation_id, channel, standalone FROM turns ORDER BY id").fetchall()
    db.close()
    assert rows[0][:2] == ("slack:C0000001:1700000200.000001", "slack") and rows[0][0] == rows[1][0]
    assert rows[1][2] == "And what does SupReMix use as hard positives?"  # "it": the source [1] shown


def test_a_thumbs_down_is_stored_without_the_user_id_and_exported_as_a_draft_case(client, fake, tmp_path):
    post(client, "/slack/events", event_body(mention()))
    key = turn_key(fake.wait_for_method("chat.update")[0])
    up = post(client, "/slack/actions", click(key, "up", fake, user="U0000007"), FORM)
    down = post(client, "/slack/actions", click(key, "down", fake), FORM)
    assert up.status_code == down.status_code == 200
    thanks = fake.wait_for_method("chat.postEphemeral", 2)
    assert "👎" in thanks[1].body["text"] and thanks[1].body["thread_ts"] == "1700000000.000100"
    path = tmp_path / "svc" / "service.sqlite"
    db = sqlite3.connect(path)
    rows = db.execute("SELECT vote, user_hash, channel, question, answer, citations FROM feedback "
                      "ORDER BY id").fetchall()
    db.close()
    assert [r[0] for r in rows] == ["up", "down"]
    assert rows[1][1] == hashlib.sha256(f"slack:{TEAM}:U0000042".encode()).hexdigest()
    assert rows[1][2] == "slack" and rows[1][3] == QUESTION and "[1]" in rows[1][4]
    assert json.loads(rows[1][5])[0]["paper_id"] == "000-0001"
    assert b"U0000042" not in path.read_bytes()
    out = tmp_path / "drafts.jsonl"
    assert export_feedback(path, out) == 1
    case = json.loads(out.read_text())
    assert {k: case[k] for k in ("question", "gold_papers", "key_facts", "type", "tags")} == {
        "question": QUESTION, "gold_papers": [], "key_facts": [], "type": "single",
        "tags": ["from-slack", "thumbs-down", "needs-review"]}
    assert case["id"].startswith("slack-") and case["rejected_papers"] == ["000-0001"]
    from eval.dataset import load
    assert load(out)[0].question == QUESTION


@pytest.mark.parametrize("secret, age", [("not-the-secret", 0), (SECRET, 301)],
                         ids=["bad-signature", "stale"])
def test_a_bad_signature_or_a_stale_timestamp_is_refused_without_a_reply(client, fake, secret, age):
    reply = post(client, "/slack/events", event_body(mention()), secret=secret,
                 timestamp=int(time.time()) - age)
    assert reply.status_code == 401
    assert post(client, "/slack/actions", click("x", "down", fake), FORM,
                secret=secret, timestamp=int(time.time()) - age).status_code == 401
    assert [c.method for c in fake.calls if c.method != "auth.test"] == []


def test_an_engine_failure_becomes_a_short_apology_in_the_thread(client, fake, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the vector store fell over")

    monkeypatch.setattr(slack_module, "answer", broken)
    post(client, "/slack/events", event_body(mention()))
    update = fake.wait_for_method("chat.update")[0]
    assert update.body["text"] == APOLOGY and update.body["ts"]
    assert "fell over" not in json.dumps(update.body) and not block(update, "feedback")


def test_an_abstention_shows_closest_papers_as_see_also_never_as_sources():
    closest = (RetrievedPaper("000-0001", "SupReMix (000-0001)", 0.2),
               RetrievedPaper("001-0053", "Zeng et al. 2024 (001-0053)", 0.1))
    result = Answer(question="q", text="The indexed abstracts do not answer this.", citations=(),
                    abstained=True, retrieved=closest)
    blocks = answer_blocks(result, "k1")
    ids = [b.get("block_id") for b in blocks]
    assert ids == ["abstained", "see-also", "feedback"]
    assert SEE_ALSO in texts(blocks) and "SupReMix (000-0001)" in texts(blocks)
    assert "do not answer" in texts(blocks[:1])


def test_an_unanswerable_question_is_answered_as_an_abstention(client, fake):
    post(client, "/slack/events", event_body(mention("zzqx wibble frobnicate?")))
    update = fake.wait_for_method("chat.update")[0]
    assert block(update, "abstained") and not block(update, "source-")


def test_channels_follow_their_settings(make_app, fake, tmp_path):
    channels = {"CQUIET01": {"answer": False},
                "COPEN001": {"require_mention": False, "filters": {"author": "Zhouhan Lin"}}}
    with TestClient(make_app(channels=channels)) as client:
        post(client, "/slack/events", event_body(mention(channel="CQUIET01")))
        refusal = fake.wait_for_method("chat.postEphemeral")[0]
        assert refusal.body["text"] == NOT_HERE
        plain = {"type": "message", "channel_type": "channel", "user": "U0000042", "text":
                 "syntactic structure in language models", "ts": "1700000300.000001"}
        post(client, "/slack/events", event_body(plain | {"channel": "C0000001"}))  # mention required
        post(client, "/slack/events", event_body(plain | {"channel": "COPEN001", "ts": "1700000301.000001"}))
        update = fake.wait_for_method("chat.update")[0]
    assert update.body["channel"] == "COPEN001" and len(fake.of("chat.postMessage")) == 1
    db = sqlite3.connect(tmp_path / "svc" / "service.sqlite")
    (given,) = db.execute("SELECT answer FROM turns").fetchone()
    db.close()
    retrieved = [r["paper_id"] for r in json.loads(given)["retrieved"]]
    assert retrieved and all(p.startswith("001-") for p in retrieved)  # the channel's author filter


def test_url_verification_is_answered_with_the_challenge(client):
    body = json.dumps({"token": "unused", "challenge": "c-123", "type": "url_verification"})
    assert post(client, "/slack/events", body).json() == {"challenge": "c-123"}


def test_the_bot_is_not_mounted_without_a_token_and_a_signing_secret(library):
    app = create_app(library.settings)
    assert mount_slack(app, library.settings, slack=SlackSettings(bot_token=TOKEN)) is None
    assert not [r for r in app.routes if getattr(r, "path", "").startswith("/slack")]


def test_settings_come_from_rag_slack_environment_variables(monkeypatch):
    monkeypatch.setenv("RAG_SLACK__BOT_TOKEN", TOKEN)
    monkeypatch.setenv("RAG_SLACK__SIGNING_SECRET", SECRET)
    monkeypatch.setenv("RAG_SLACK__CHANNELS",
                       '{"C1": {"require_mention": false, "filters": {"year": "2023-"}}}')
    monkeypatch.setenv("RAG_SLACK__DEFAULT_CHANNEL__ANSWER", "false")
    conf = load_slack_settings()
    assert conf.http_ready and TOKEN not in repr(conf) and SECRET not in str(conf)
    assert conf.for_channel("C1").filters.year == "2023-" and conf.for_channel("C2") is None
    assert conf.for_channel("D9", direct=True).require_mention is False
    with pytest.raises(ValueError, match="not a year"):
        SlackSettings(channels={"C1": {"filters": {"year": "lately"}}})


def test_secrets_never_reach_the_logs(client, fake, caplog):
    caplog.set_level(logging.DEBUG)
    post(client, "/slack/events", event_body(mention()))
    fake.wait_for_method("chat.update")
    assert TOKEN not in caplog.text and SECRET not in caplog.text


class FakeSocketClient:
    def __init__(self) -> None:
        self.logger = logging.getLogger("fake-socket")
        self.responses: list = []

    def send_socket_mode_response(self, response) -> None:
        self.responses.append(response)


def test_socket_mode_answers_a_mention_and_ignores_its_retry(library, fake, tmp_path):
    from slack_sdk.socket_mode.request import SocketModeRequest

    from service.conversations import ConversationLog
    from service.slack import SlackBot

    settings = library.settings.model_copy(update={"data_dir": tmp_path / "sock"})
    engine = build_engine(settings, library=library)
    conversations = ConversationLog(settings.data_dir / "service.sqlite")
    conf = SlackSettings(bot_token=TOKEN, app_token="xapp-test", api_url=fake.api_url)
    bot = SlackBot(settings, conf, lambda: engine, lambda: conversations)
    handler = socket_mode_handler(bot)
    socket_client = FakeSocketClient()
    payload = json.loads(event_body(mention(), event_id="Ev-sock"))
    try:
        # Slack's first delivery says retry_attempt 0; only the second is a retry.
        handler.handle(socket_client, SocketModeRequest("events_api", "env-1", payload, retry_attempt=0))
        handler.handle(socket_client, SocketModeRequest("events_api", "env-2", payload, retry_attempt=1))
        assert "[1]" in fake.wait_for_method("chat.update")[0].body["text"]
    finally:
        handler.client.close()
        bot.close()
        conversations.close()
    assert [r.envelope_id for r in socket_client.responses] == ["env-1", "env-2"]
    assert len(fake.of("chat.postMessage")) == 1


@pytest.mark.integration
def test_over_a_real_websocket_a_mention_is_acked_and_answered(library, fake, tmp_path):
    from service.conversations import ConversationLog
    from service.slack import SlackBot

    settings = library.settings.model_copy(update={"data_dir": tmp_path / "ws"})
    engine = build_engine(settings, library=library)
    conversations = ConversationLog(settings.data_dir / "service.sqlite")
    conf = SlackSettings(bot_token=TOKEN, app_token="xapp-test", api_url=fake.api_url)
    bot = SlackBot(settings, conf, lambda: engine, lambda: conversations)
    handler = socket_mode_handler(bot)
    handler.connect()
    try:
        fake.wait_for(lambda calls: fake.sockets)
        envelope = fake.send_event(mention())
        assert "[1]" in fake.wait_for_method("chat.update")[0].body["text"]
        assert [c.body["envelope_id"] for c in fake.of("socket")] == [envelope]
        assert fake.of("apps.connections.open")[0].token == "xapp-test"
    finally:
        handler.close()
        bot.close()
        conversations.close()



@pytest.mark.integration
def test_over_real_http_a_signed_mention_is_answered_in_its_thread(make_app, fake):
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, "uvicorn did not start"
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            assert post(http, "/slack/events", event_body(mention())).status_code == 200
            assert post(http, "/slack/events", event_body(mention()), secret="wrong").status_code == 401
        update = fake.wait_for_method("chat.update")[0]
        assert update.body["ts"] and block(update, "source-1")
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_the_manifest_points_slack_at_the_mounted_routes_and_listeners():
    yaml = pytest.importorskip("yaml")
    from pathlib import Path

    from service.slack import PATHS

    manifest = yaml.safe_load((Path(slack_module.__file__).parent / "slack_manifest.yaml").read_text())
    urls = [manifest["settings"]["event_subscriptions"]["request_url"],
            manifest["features"]["slash_commands"][0]["url"],
            manifest["settings"]["interactivity"]["request_url"]]
    assert [u.removeprefix("https://YOUR-HOST") for u in urls] == list(PATHS)
    assert manifest["features"]["slash_commands"][0]["command"] == "/ask"
    assert {"app_mention", "message.im"} <= set(manifest["settings"]["event_subscriptions"]["bot_events"])
    assert {"app_mentions:read", "chat:write", "commands", "im:history"} <= set(
        manifest["oauth_config"]["scopes"]["bot"])


def test_socket_mode_refuses_to_start_without_an_app_token(settings):
    from rag.errors import RagError
    from service.slack import run_socket_mode

    with pytest.raises(RagError, match="RAG_SLACK__APP_TOKEN"):
        run_socket_mode(settings, slack=SlackSettings(bot_token=TOKEN))


@pytest.mark.parametrize("timestamp", [None, "", "yesterday", "1.7e9", "-"],
                         ids=["missing", "empty", "words", "float", "dash"])
def test_a_missing_or_non_numeric_timestamp_is_a_401_problem(client, fake, timestamp):
    body = event_body(mention())
    headers = {"Content-Type": "application/json", **sign(SECRET, body)}
    if timestamp is None:
        del headers["X-Slack-Request-Timestamp"]
    else:
        headers["X-Slack-Request-Timestamp"] = timestamp
    reply = client.post("/slack/events", content=body, headers=headers)
    assert reply.status_code == 401 and reply.json()["code"] == "invalid_slack_signature"
    assert [c.method for c in fake.calls if c.method != "auth.test"] == []


@pytest.mark.parametrize("path, body, content_type", [
    ("/slack/events", "{not json", "application/json"),
    ("/slack/events", "[1, 2]", "application/json"),
    ("/slack/events", '"a string"', "application/json"),
    ("/slack/actions", "payload=%7Bbroken", FORM),
    ("/slack/actions", "payload=%5B%5D", FORM),
    ("/slack/commands", "\x00\x01\x02", FORM),
    ("/slack/events", "", "application/json"),
], ids=["bad-json", "json-list", "json-string", "bad-payload", "payload-list", "binary", "empty"])
def test_a_garbage_body_with_a_valid_signature_is_a_400_problem(client, fake, path, body, content_type):
    reply = post(client, path, body, content_type)
    assert reply.status_code == 400, reply.text
    assert reply.json()["code"] == "invalid_slack_request"
    assert [c.method for c in fake.calls if c.method != "auth.test"] == []
