"""The Slack bot's parts that need no Slack SDK: its settings, Slack text to a plain question, an
Answer as Block Kit, and its SQLite tables (handled events, answers given, 👍/👎 votes, and the
export of 👎'd answers as draft eval cases). No SDK, web framework or engine imports here, so
``rag feedback export`` stays light. The settings are ``service/slack_settings.py``'s (re-exported
here); ``service/slack.py`` has the Bolt app."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
import time
import uuid
from html import unescape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.rendering import to_mrkdwn
from service.slack_settings import SLACK_API_URL, ChannelSettings, SlackFilters, SlackSettings  # noqa: F401

if TYPE_CHECKING:
    from rag.types import Answer, Citation

SEARCHING = "Searching the abstracts…"
APOLOGY = ("Sorry, something went wrong while answering this; it has been logged. "
           "Please try again in a minute.")
USAGE = ("Ask me a question about the indexed paper abstracts, e.g. mention me with "
         "“Which papers reduce KV-cache memory for long contexts?”, or use `/ask <question>`.")
NOT_HERE = ("I don't answer questions in this channel. Ask me in a direct message, or in a "
            "channel where I am enabled.")
THANKS_UP = "Thanks, noted: 👍 on this answer."
THANKS_DOWN = "Thanks, noted: 👎 on this answer. It goes to a maintainer for review."
GONE = "That answer is no longer on record, so the vote was not stored."
ABSTAINED_NOTE = ":grey_question: The indexed abstracts do not answer this."
SEE_ALSO = "See also (not claimed to answer)"


# ---- Slack text in ----------------------------------------------------------------------------

_USER_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
_SPECIAL = re.compile(r"<![^>]*>")
_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")


def plain_question(text: str | None) -> str:
    """Slack's message text as a question: mentions removed, links and channels as their labels,
    entities decoded, whitespace collapsed."""
    text = _SPECIAL.sub(" ", _USER_MENTION.sub(" ", text or ""))
    text = _LINK.sub(lambda m: m[2] or m[1].lstrip("#@").removeprefix("mailto:"), text)
    return " ".join(unescape(text).split())


def mentions(text: str | None, user_id: str | None) -> bool:
    return bool(user_id) and f"<@{user_id}" in (text or "")


# ---- Block Kit out ----------------------------------------------------------------------------

def escape(text: str) -> str:
    """mrkdwn control characters (Slack decodes exactly these three)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _section(text: str, block_id: str) -> dict[str, Any]:
    return {"type": "section", "block_id": block_id, "text": {"type": "mrkdwn", "text": text}}


def _context(text: str, block_id: str) -> dict[str, Any]:
    return {"type": "context", "block_id": block_id, "elements": [{"type": "mrkdwn", "text": text}]}


def _authors(authors: tuple[str, ...]) -> str:
    return ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")


def linked_label(citation: Citation) -> str:
    """The label as mrkdwn, its title linked to the paper when both are known:
    ``<https://doi.org/…|Title> (Doe et al., 2021)``."""
    title, link, label = citation.title, citation.link, citation.label
    if not (title and link and label.startswith(title)):
        return escape(label)
    href = link.replace("|", "%7C").replace(">", "%3E").replace("<", "%3C")
    return f"<{href}|{escape(title).replace('|', '¦')}>{escape(label[len(title):])}"


def source_line(citation: Citation) -> str:
    """``[1] Label (id) — authors · venue year`` and the cited sentence as a quote."""
    head = f"*[{citation.key}]* {linked_label(citation)}"
    if citation.paper_id not in citation.label:
        head += f" · `{escape(citation.paper_id)}`"
    where = " ".join(str(p) for p in (citation.venue, citation.year) if p)
    details = " · ".join(p for p in (_authors(citation.authors), where) if p)
    quote = f"\n> {escape(clip(citation.passage, 280))}" if citation.passage else ""
    return head + (f" — {escape(details)}" if details else "") + quote


def feedback_actions(turn_key: str) -> dict[str, Any]:
    def button(action_id: str, label: str) -> dict[str, Any]:
        return {"type": "button", "action_id": action_id, "value": turn_key,
                "text": {"type": "plain_text", "text": label, "emoji": True}}
    return {"type": "actions", "block_id": "feedback",
            "elements": [button("feedback_up", "👍 Helpful"), button("feedback_down", "👎 Not helpful")]}


def answer_blocks(answer: Answer, turn_key: str | None, *, max_sources: int = 5,
                  see_also: int = 3) -> list[dict[str, Any]]:
    """The answer with its [n] keys, a compact sources list, then 👍/👎. An abstention looks
    different: a note and the closest papers as "see also", never as sources."""
    if answer.abstained:
        blocks = [_context(ABSTAINED_NOTE, "abstained")]
        closest = [escape(r.label) for r in answer.retrieved[:see_also]]
        if closest:
            blocks.append(_context(f"*{SEE_ALSO}:* " + " · ".join(closest), "see-also"))
    else:
        blocks = [_section(to_mrkdwn(escape(clip(answer.text, 2900))), "answer"), *table_blocks(answer),
                  {"type": "divider"}]
        blocks += [_context(source_line(c), f"source-{c.key}") for c in answer.citations[:max_sources]]
        if len(answer.citations) > max_sources:
            blocks.append(_context(f"and {len(answer.citations) - max_sources} more source(s)", "more"))
    if turn_key:
        blocks.append(feedback_actions(turn_key))
    return blocks


def table_blocks(answer: Answer) -> list[dict[str, Any]]:
    """A list or comparison answer's evidence table as one compact Block Kit table: source key,
    figure, what it measures, on what (the passage stays in the sources below)."""
    if not answer.table:
        return []

    def cell(text: str) -> dict[str, str]:
        return {"type": "raw_text", "text": clip(text, 80) or "–"}

    header = [cell(h) for h in ("Source", "Figure", "Measures", "On")]
    rows = [[cell(f"[{r.key}] {r.paper}"), cell(r.finding), cell(r.measures), cell(r.on)] for r in answer.table]
    return [{"type": "table", "block_id": "evidence-table", "rows": [header, *rows[:99]],
             "column_settings": [{"is_wrapped": True}, {"align": "right"}, {"is_wrapped": True},
                                 {"is_wrapped": True}]}]


def answer_text(answer: Answer) -> str:
    """The plain fallback text (notifications, clients without blocks)."""
    return clip(answer.text, 3000)


def notice_blocks(text: str) -> list[dict[str, Any]]:
    """An apology or a problem with the question, shown in place of the answer."""
    return [_context(f":warning: {escape(text)}", "notice")]


# ---- the bot's SQLite tables (in the service's service.sqlite) ------------------------------

_TABLES = """
CREATE TABLE IF NOT EXISTS slack_seen (key TEXT PRIMARY KEY, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS slack_turns (
    turn_key TEXT PRIMARY KEY, created REAL NOT NULL, conversation_id TEXT NOT NULL,
    slack_channel TEXT NOT NULL, question TEXT NOT NULL, answer TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS slack_turns_conversation ON slack_turns(conversation_id);
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY, created REAL NOT NULL, turn_key TEXT NOT NULL,
    vote TEXT NOT NULL CHECK (vote IN ('up', 'down')), user_hash TEXT NOT NULL,
    channel TEXT NOT NULL, slack_channel TEXT NOT NULL, question TEXT NOT NULL,
    answer TEXT NOT NULL, citations TEXT NOT NULL, UNIQUE (turn_key, user_hash));
"""


def user_hash(team_id: str, user_id: str) -> str:
    """Who voted, without keeping the Slack user id."""
    return hashlib.sha256(f"slack:{team_id}:{user_id}".encode()).hexdigest()


class SlackStore:
    """The bot's tables in the service's SQLite file: events already handled, the answers given
    (so a button click finds its turn), and the votes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, check_same_thread=False, timeout=10)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_TABLES)
        self.lock = threading.Lock()
        self.claims = 0

    def claim(self, key: str) -> bool:
        """True the first time a key is seen (across workers and restarts), then False."""
        now = time.time()
        with self.lock, self.db:
            claimed = self.db.execute("INSERT OR IGNORE INTO slack_seen VALUES (?, ?)", (key, now)).rowcount
            self.claims += 1
            if self.claims % 500 == 1:  # forget what is older than a day (Slack retries for minutes)
                self.db.execute("DELETE FROM slack_seen WHERE created < ?", (now - 86_400,))
        return bool(claimed)

    def save_turn(self, conversation_id: str, slack_channel: str, result: Answer) -> str:
        key = uuid.uuid4().hex
        with self.lock, self.db:
            self.db.execute("INSERT INTO slack_turns VALUES (?,?,?,?,?,?)", (
                key, time.time(), conversation_id, slack_channel, result.question,
                json.dumps(result.to_dict(), ensure_ascii=False)))
        return key

    def has_conversation(self, conversation_id: str) -> bool:
        with self.lock:
            return self.db.execute("SELECT 1 FROM slack_turns WHERE conversation_id = ? LIMIT 1",
                                   (conversation_id,)).fetchone() is not None

    def vote(self, turn_key: str, vote: str, voter: str, slack_channel: str) -> bool:
        """Store (or change) one person's vote on an answer; False if the turn is unknown."""
        with self.lock, self.db:
            row = self.db.execute("SELECT question, answer FROM slack_turns WHERE turn_key = ?",
                                  (turn_key,)).fetchone()
            if row is None:
                return False
            given = json.loads(row[1])
            self.db.execute(
                "INSERT INTO feedback (created, turn_key, vote, user_hash, channel, slack_channel, question,"
                " answer, citations) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (turn_key, user_hash) DO UPDATE"
                " SET vote = excluded.vote, created = excluded.created",
                (time.time(), turn_key, vote, voter, "slack", slack_channel, row[0], given["text"],
                 json.dumps(given["citations"], ensure_ascii=False)))
        return True

    def close(self) -> None:
        self.db.close()


def export_feedback(path: Path, out_path: Path) -> int:
    """👎'd answers as draft eval cases (the dataset format), one per answer, for a maintainer to
    complete with the right papers and facts. The rejected answer is kept beside it for review."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT turn_key, question, answer, citations, count(*) FROM feedback WHERE vote = 'down'"
            " GROUP BY turn_key ORDER BY min(id)").fetchall()
    except sqlite3.OperationalError:  # no feedback table yet: nothing was voted on
        rows = []
    finally:
        db.close()
    cases = [{"id": f"slack-{turn_key[:12]}", "question": question, "gold_papers": [],
              "reference_answer": "", "key_facts": [], "type": "single",
              "tags": ["from-slack", "thumbs-down", "needs-review"],
              "rejected_answer": text, "rejected_papers": [c["paper_id"] for c in json.loads(cited)],
              "votes_down": votes} for turn_key, question, text, cited, votes in rows]
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    return len(cases)
