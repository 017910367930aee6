"""Collections: your library in a collection of its own, never mixed into the demo. `rag ingest
FILES --collection NAME` (or RAG_COLLECTION=NAME) indexes into <data dir>/collections/NAME; the
CLI, the API (?collection=NAME) and GET /api/collections pick and list them; ingest says where
the papers went and how to start a library of one's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from cli.main import cli
from rag.errors import InputError
from rag.index.collections import in_collection, list_collections
from rag.settings import Settings
from service.app import create_app
from tests.support import FOLLOWUP_LIST_QUESTION, FOLLOWUP_PAPERS, INVENTED_PAPERS, write_papers


def rag(root: Path, *args: str, **env: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), env={"RAG_DATA_DIR": str(root), **env}, catch_exceptions=False)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A demo of the invented GlimmerMix papers and a collection `mine` of the sonar papers."""
    folder = tmp_path_factory.mktemp("collections")
    demo = rag(folder / "data", "ingest", str(write_papers(folder / "demo.jsonl", INVENTED_PAPERS)))
    assert demo.exit_code == 0 and "went into the demo collection" in demo.output
    mine = rag(folder / "data", "ingest", str(write_papers(folder / "mine.jsonl", FOLLOWUP_PAPERS)),
               "--collection", "mine")
    assert mine.exit_code == 0 and "rag --collection mine ask" in mine.output
    return folder / "data"


def test_a_collection_lives_apart_from_the_demo(root):
    assert (root / "collections" / "mine").is_dir()
    found = {c.name: c.papers for c in list_collections(Settings(data_dir=root))}
    assert found == {"demo": 5, "mine": 5}


def test_the_cli_asks_the_collection_it_is_given_and_only_that_one(root):
    mine = rag(root, "--collection", "mine", "ask", FOLLOWUP_LIST_QUESTION)
    same = rag(root, "ask", FOLLOWUP_LIST_QUESTION, RAG_COLLECTION="mine")
    demo = rag(root, "ask", FOLLOWUP_LIST_QUESTION)
    assert "TideZip" in mine.output and mine.output == same.output
    assert "TideZip" not in demo.output and "ReefPack" not in demo.output


def test_the_api_picks_the_collection_per_request_and_lists_them(root):
    with TestClient(create_app(Settings(data_dir=root))) as client:
        listed = client.get("/api/collections").json()
        assert listed == [{"name": "demo", "papers": 5, "default": True},
                          {"name": "mine", "papers": 5, "default": False}]
        mine = client.post("/api/ask", params={"collection": "mine"}, json={"question": FOLLOWUP_LIST_QUESTION})
        assert {c["paper_id"] for c in mine.json()["citations"]} == {"arc-1", "arc-2", "arc-3"}
        demo = client.post("/api/ask", json={"question": FOLLOWUP_LIST_QUESTION}).json()
        assert not {c["paper_id"] for c in demo["citations"]} & {"arc-1", "arc-2", "arc-3"}
        assert client.get("/api/papers/arc-2", params={"collection": "mine"}).status_code == 200
        assert client.get("/api/papers/arc-2").status_code == 404
        unknown = client.post("/api/ask", params={"collection": "theirs"}, json={"question": "x y z"})
        assert unknown.status_code == 404 and unknown.json()["code"] == "collection_not_found"
        assert "rag ingest FILES --collection theirs" in unknown.json()["message"]


def test_a_bad_collection_name_is_refused_with_what_a_name_may_hold(tmp_path):
    with pytest.raises(InputError, match="lower-case letters"):
        in_collection(Settings(data_dir=tmp_path), "../elsewhere")
    result = CliRunner().invoke(cli, ["--collection", "../x", "ask", "q"], env={"RAG_DATA_DIR": str(tmp_path)})
    assert result.exit_code != 0 and "lower-case letters" in result.output


def test_the_demo_is_the_data_directory_itself_as_before(tmp_path):
    settings = Settings(data_dir=tmp_path)
    assert in_collection(settings, "demo").data_dir == tmp_path
    mine = in_collection(settings, "mine")
    assert mine.data_dir == tmp_path / "collections" / "mine"
    assert in_collection(mine, "demo").data_dir == tmp_path  # back from a collection to the demo


def test_a_slack_channel_can_ask_its_own_collection(root, tmp_path):
    import json
    import time
    import uuid

    from rag.testing.fake_slack import BOT_USER, TEAM, FakeSlack, sign
    from service.slack import mount_slack
    from service.slack_blocks import ChannelSettings, SlackSettings

    secret = "collections-signing-secret"
    with FakeSlack() as fake:
        app = create_app(Settings(data_dir=root))
        conf = SlackSettings(bot_token="xoxb-collections-0001", signing_secret=secret, api_url=fake.api_url,
                             channels={"C0000077": ChannelSettings(collection="mine")})
        assert mount_slack(app, Settings(data_dir=root), slack=conf) is not None
        with TestClient(app) as client:
            for n, channel in enumerate(("C0000077", "C0000001")):
                event = {"type": "app_mention", "user": "U0000042", "channel": channel,
                         "text": f"<@{BOT_USER}> {FOLLOWUP_LIST_QUESTION}", "ts": f"170000090{n}.000001"}
                body = json.dumps({"token": "unused", "team_id": TEAM, "api_app_id": "A0001",
                                   "type": "event_callback", "event_id": f"Ev{uuid.uuid4().hex[:10]}",
                                   "event_time": int(time.time()), "event": event,
                                   "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}]})
                reply = client.post("/slack/events", content=body,
                                    headers={"Content-Type": "application/json", **sign(secret, body)})
                assert reply.status_code == 200
                fake.wait_for_method("chat.update", n + 1)
    answers = {u.body["channel"]: json.dumps(u.body["blocks"]) for u in fake.of("chat.update")}
    assert "arc-2" in answers["C0000077"] and "arc-2" not in answers["C0000001"]
