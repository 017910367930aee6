"""Conversations and the question log in SQLite (the embedded default): any worker can continue
a conversation, and every question, answer, citations and latency is kept for evaluation."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from pathlib import Path

from rag.types import Answer, Turn

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY, conversation_id TEXT NOT NULL, created REAL NOT NULL,
    channel TEXT NOT NULL, question TEXT NOT NULL, standalone TEXT, answer TEXT NOT NULL,
    abstained INTEGER NOT NULL, latency_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_conversation ON turns(conversation_id, id);
"""


class ConversationLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, check_same_thread=False, timeout=10)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)
        self.lock = threading.Lock()

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex

    def history(self, conversation_id: str, turns: int) -> list[Turn]:
        """The conversation's earlier turns, oldest first: each question (as rewritten to stand
        alone) and the paper ids of the numbered sources its answer showed."""
        with self.lock:
            rows = self.db.execute(
                "SELECT coalesce(standalone, question), answer FROM turns WHERE conversation_id = ? "
                "ORDER BY id DESC LIMIT ?", (conversation_id, turns)).fetchall()
        return [Turn(question, _sources(answer)) for question, answer in reversed(rows)]

    def record(self, conversation_id: str, answer: Answer, channel: str = "api") -> None:
        """Keep the turn; a log that cannot be written (a full disk) costs the log entry, never
        the answer."""
        try:
            self._record(conversation_id, answer, channel)
        except sqlite3.Error as exc:
            log.warning("the question log %s could not be written (%s); the answer is served anyway",
                        self.path, exc)

    def _record(self, conversation_id: str, answer: Answer, channel: str) -> None:
        with self.lock, self.db:
            self.db.execute(
                "INSERT INTO turns (conversation_id, created, channel, question, standalone, answer,"
                " abstained, latency_ms) VALUES (?,?,?,?,?,?,?,?)",
                (conversation_id, time.time(), channel, answer.question, answer.standalone_question,
                 json.dumps(answer.to_dict(), ensure_ascii=False), int(answer.abstained),
                 answer.timings.get("total_ms", 0.0)))

    def close(self) -> None:
        self.db.close()


def _sources(answer_json: str) -> tuple[str, ...]:
    """The paper ids of a logged answer's numbered sources, [1] first."""
    try:
        citations = json.loads(answer_json).get("citations") or []
        return tuple(c["paper_id"] for c in sorted(citations, key=lambda c: c["key"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        return ()


def export_drafts(path: Path, channel: str | None = None) -> list[dict]:
    """Logged questions as draft eval cases (the dataset format), for a maintainer to complete
    with gold papers and key facts; the given answer is kept as the draft reference."""
    db = sqlite3.connect(path)
    sql = "SELECT id, channel, question, answer, abstained FROM turns"
    rows = db.execute(sql + (" WHERE channel = ?" if channel else "") + " ORDER BY id",
                      (channel,) if channel else ()).fetchall()
    db.close()
    drafts = []
    for turn_id, source, question, answer_json, abstained in rows:
        answer = json.loads(answer_json)
        drafts.append({"id": f"{source}-{turn_id}", "question": question,
                       "gold_papers": [c["paper_id"] for c in answer["citations"]],
                       "reference_answer": answer["text"], "key_facts": [],
                       "type": "unanswerable" if abstained else "single",
                       "tags": ["draft", f"from-{source}", "needs-review"]})
    return drafts
