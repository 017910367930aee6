"""Follow-ups that point at the previous answer's numbered sources ("the second one", "its",
"[3]", "the first two") are resolved to those papers before retrieval, with no LLM: as a pure
function, through the engine, `rag chat`, the native API (conversation id and the paper the user
opened), the OpenAI endpoint (message history) and a Slack thread. On an invented corpus:
three named methods that shrink sonar archives, each by its own figure."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from cli.main import cli
from rag.engine import answer, build_engine
from rag.retrieve.followups import resolve, turn_of
from rag.settings import Settings
from rag.testing.fake_slack import BOT_USER, TEAM, FakeSlack, sign
from rag.types import Turn
from service.app import create_app
from service.rendering import reference_list, sources_in
from service.slack import mount_slack
from service.slack_blocks import SlackSettings
from tests.support import FOLLOWUP_LIST_QUESTION, FOLLOWUP_PAPERS, index_papers

NAMES = {p["id"]: p["title"].split(":")[0] for p in FOLLOWUP_PAPERS if "title" in p}
LISTED = Turn(FOLLOWUP_LIST_QUESTION, ("arc-1", "arc-2", "arc-3"))


def named(question: str, *history: Turn | str) -> tuple[str, tuple[str, ...]]:
    result = resolve(question, history, NAMES.get)
    return result.question, result.papers


@pytest.mark.parametrize("question, expected, papers", [
    ("How does the second one work?", "How does ReefPack work?", ("arc-2",)),
    ("What does the third paper report?", "What does KelpCodec report?", ("arc-3",)),
    ("And the last one?", "And KelpCodec?", ("arc-3",)),
    ("What about its throughput?", "What about the throughput of TideZip?", ("arc-1",)),
    ("Is its memory footprint on long inputs lower?", "Is the memory footprint of TideZip on long inputs lower?",
     ("arc-1",)),
    ("What are their limitations?", "What are the limitations of TideZip, ReefPack and KelpCodec?",
     ("arc-1", "arc-2", "arc-3")),
    ("Who wrote [2]?", "Who wrote ReefPack?", ("arc-2",)),
    ("Compare the first two", "Compare TideZip and ReefPack", ("arc-1", "arc-2")),
    ("How do they differ?", "How do TideZip, ReefPack and KelpCodec differ?", ("arc-1", "arc-2", "arc-3")),
    ("Is that paper peer reviewed?", "Is TideZip peer reviewed?", ("arc-1",)),
])
def test_a_reference_to_a_shown_source_is_replaced_by_its_name(question, expected, papers):
    assert named(question, LISTED) == (expected, papers)


def test_it_means_the_paper_the_user_opened_when_there_is_one():
    opened = Turn(LISTED.question, LISTED.sources, focus="arc-3")
    assert named("How does it work?", opened) == ("How does KelpCodec work?", ("arc-3",))


@pytest.mark.parametrize("question", [
    "What was the first method to compress sonar archives?",  # "the first" is not a pointer here
    "Is it possible to compress sonar archives losslessly?",
    "Who wrote [7]?",  # past the end of the list: nothing to name
])
def test_a_question_that_points_at_no_shown_source_is_left_as_asked(question):
    assert named(question, LISTED) == (question, ())


def test_without_shown_sources_nothing_is_resolved():
    assert named("How does the second one work?", "Which methods shrink archives?") == (
        "How does the second one work?", ())
    assert named("How does the second one work?") == ("How does the second one work?", ())


def test_an_abstention_in_between_does_not_hide_the_last_list():
    abstained = Turn("Who won the 2018 World Cup?", ())
    assert named("How does the second one work?", LISTED, abstained)[1] == ("arc-2",)


def test_the_reference_list_carries_the_sources_back_from_a_message():
    from rag.types import Citation

    citations = [Citation(2, "arc-2", "ReefPack: x (Quillfeather, 2024)", "p", title="ReefPack: x",
                          link="https://doi.org/10.1/x"), Citation(1, "arc-1", "TideZip (arc-1)", "p")]
    listed = reference_list(citations)
    assert "[ReefPack: x](<https://doi.org/10.1/x>) (Quillfeather, 2024)" in listed
    assert sources_in("An answer [1] [2]." + listed) == ("arc-1", "arc-2")
    assert sources_in("no list here `arc-9`") == ()


# ---- through every front end, on a real (small) index -----------------------------------------

@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Settings:
    """The invented corpus, indexed with the real offline embedder (five short abstracts)."""
    folder = tmp_path_factory.mktemp("followups")
    return index_papers(Settings(data_dir=folder / "index"), folder, FOLLOWUP_PAPERS)


@pytest.fixture(scope="module")
def engine(index):  # type: ignore[no-untyped-def]
    engine = build_engine(index)
    yield engine
    engine.close()


def test_the_engine_answers_the_second_one_about_the_second_source(engine):
    first = answer(engine, FOLLOWUP_LIST_QUESTION)
    assert len(first.citations) >= 2
    second_source = first.citations[1].paper_id
    second = answer(engine, "How does the second one work?", history=[turn_of(first)])
    assert second.standalone_question == f"How does {NAMES[second_source]} work?"
    assert second.citations and {c.paper_id for c in second.citations} == {second_source}


def test_rag_chat_resolves_the_second_one(index):
    result = CliRunner().invoke(cli, ["chat"], input=f"{FOLLOWUP_LIST_QUESTION}\nHow does the second one work?\n",
                                env={"RAG_DATA_DIR": str(index.data_dir)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    first, second = result.output.split("question> ")[1:3]
    second_source = re.search(r"^\[2\] (\w+)", first, re.MULTILINE).group(1)  # type: ignore[union-attr]
    assert f"(read as: How does {second_source} work?)" in second
    assert re.search(rf"^\[1\] {second_source}\b", second, re.MULTILINE)


@pytest.fixture
def client(engine, tmp_path):  # type: ignore[no-untyped-def]
    settings = engine.settings.model_copy(update={"data_dir": tmp_path / "svc"})
    with TestClient(create_app(settings, engine=engine)) as c:
        yield c


def test_the_api_resolves_a_follow_up_in_a_conversation_and_the_opened_paper(client):
    first = client.post("/api/ask", json={"question": FOLLOWUP_LIST_QUESTION}).json()
    sources = [c["paper_id"] for c in first["citations"]]
    conversation = first["conversation_id"]
    second = client.post("/api/ask", json={"question": "How does the second one work?",
                                           "conversation_id": conversation}).json()
    assert second["standalone_question"] == f"How does {NAMES[sources[1]]} work?"
    assert [c["paper_id"] for c in second["citations"]][:1] == [sources[1]]
    # the user opens a source of the last answer: "it" is that paper
    opened = client.post("/api/ask", json={"question": "What does it reduce, and by how much?",
                                           "conversation_id": conversation,
                                           "focus_paper": sources[1]}).json()
    assert NAMES[sources[1]] in opened["standalone_question"]


def test_the_openai_endpoint_reads_the_sources_back_from_the_message_history(client):
    body = {"model": "abstract-rag", "messages": [{"role": "user", "content": FOLLOWUP_LIST_QUESTION}]}
    first = client.post("/v1/chat/completions", json=body).json()
    content = first["choices"][0]["message"]["content"]
    assert "**Sources**" in content and "[2]" in content  # any chat client shows the sources
    second_source = first["citations"][1]["paper_id"]
    body["messages"] += [{"role": "assistant", "content": content},
                         {"role": "user", "content": "How does the second one work?"}]
    second = client.post("/v1/chat/completions", json=body).json()
    assert second["citations"][0]["paper_id"] == second_source
    assert f"`{second_source}`" in second["choices"][0]["message"]["content"]


def test_the_openai_endpoint_refuses_a_model_it_does_not_serve(client):
    reply = client.post("/v1/chat/completions", json={"model": "gpt-4o", "messages": [
        {"role": "user", "content": FOLLOWUP_LIST_QUESTION}]})
    assert reply.status_code == 404 and reply.json()["code"] == "model_not_found"
    assert "abstract-rag" in reply.json()["message"]


def _mention(text: str, ts: str, thread_ts: str | None = None) -> str:
    event = {"type": "app_mention", "user": "U0000042", "text": f"<@{BOT_USER}> {text}", "ts": ts,
             "channel": "C0000001", "event_ts": ts} | ({"thread_ts": thread_ts} if thread_ts else {})
    return json.dumps({"token": "unused", "team_id": TEAM, "api_app_id": "A0001", "type": "event_callback",
                       "event_id": f"Ev{uuid.uuid4().hex[:10]}", "event_time": int(time.time()),
                       "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
                       "event": event})


def test_a_slack_thread_resolves_the_second_one(engine, tmp_path: Path):
    secret = "followup-signing-secret"
    with FakeSlack() as fake:
        settings = engine.settings.model_copy(update={"data_dir": tmp_path / "svc"})
        app = create_app(settings, engine=engine)
        conf = SlackSettings(bot_token="xoxb-followups-0001", signing_secret=secret, api_url=fake.api_url)
        assert mount_slack(app, settings, slack=conf) is not None
        with TestClient(app) as client:
            for body in (_mention(FOLLOWUP_LIST_QUESTION, "1700000300.000001"),
                         _mention("How does the second one work?", "1700000350.000001", "1700000300.000001")):
                reply = client.post("/slack/events", content=body, headers={
                    "Content-Type": "application/json", **sign(secret, body)})
                assert reply.status_code == 200
                updates = fake.wait_for_method("chat.update", 1 + (body.count("second one") > 0))
    first, second = (u.body["blocks"] for u in updates[:2])
    sources = {b["block_id"]: json.dumps(b) for b in first if b.get("block_id", "").startswith("source-")}
    second_source = re.search(r"`(arc-\d)`|\((arc-\d)\)", sources["source-2"])
    second_id = next(g for g in second_source.groups() if g)  # type: ignore[union-attr]
    answer_text = json.dumps([b for b in second if b.get("block_id") == "answer"])
    assert NAMES[second_id] in answer_text
    assert second_id in json.dumps([b for b in second if b.get("block_id") == "source-1"])


def test_the_json_answer_of_a_list_question_carries_the_evidence_table(client):
    body = client.post("/api/ask", json={"question": FOLLOWUP_LIST_QUESTION}).json()
    rows = body["table"]
    assert [r["paper_id"] for r in rows] == [c["paper_id"] for c in body["citations"]]
    figures = {r["paper_id"]: r["finding"] for r in rows}
    assert figures == {"arc-1": "41%", "arc-2": "63%", "arc-3": "28%"}
    assert all(r["measures"] == "reduces sonar archive storage" for r in rows)


def test_the_streamed_openai_answer_ends_with_its_sources_list(client):
    reply = client.post("/v1/chat/completions", json={"model": "abstract-rag", "stream": True, "messages": [
        {"role": "user", "content": FOLLOWUP_LIST_QUESTION}]})
    frames = [json.loads(f.removeprefix("data: ")) for f in reply.text.strip().split("\n\n")[:-1]]
    text = "".join(f["choices"][0]["delta"].get("content", "") for f in frames)
    assert text.index("[3]") < text.index("**Sources**")
    assert sources_in(text) == tuple(c["paper_id"] for c in frames[-1]["citations"])
