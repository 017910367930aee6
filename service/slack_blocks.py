"""The pure parts of the Slack bot: its settings, Slack text to a plain question, and an Answer as
Block Kit. No Slack SDK, web framework or engine imports here, so ``rag.settings`` can import
``SlackSettings`` without an import cycle (``service/slack.py`` has the Bolt app)."""

from __future__ import annotations

import re
from html import unescape
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, SecretStr, field_validator

if TYPE_CHECKING:
    from rag.types import Answer, Citation

SLACK_API_URL = "https://slack.com/api/"
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
_YEARS = re.compile(r"\s*(\d{4})?\s*(-)?\s*(\d{4})?\s*")


class SlackFilters(BaseModel):
    """A channel's default metadata filters (as ``rag ask --author/--year/--venue/--source``)."""

    author: str | None = None
    year: str | None = Field(None, description='"2023", "2023-2025", "2023-" or "-2021"')
    venue: str | None = None
    source: str | None = None

    @field_validator("year")
    @classmethod
    def _a_year_or_range(cls, value: str | None) -> str | None:
        match = _YEARS.fullmatch(value) if value is not None else None
        if value is not None and not (match and (match[1] or match[3])):
            raise ValueError(f"year {value!r} is not a year or range; use 2023, 2023-2025, 2023- or -2021")
        return value


class ChannelSettings(BaseModel):
    answer: bool = Field(True, description="answer questions in this channel at all")
    require_mention: bool = Field(True, description="False: answer every top-level message, and "
                                  "follow-ups in threads the bot answered (needs channels:history)")
    filters: SlackFilters = SlackFilters()
    k: int | None = Field(None, ge=1, le=50, description="papers passed to the answerer")


class SlackSettings(BaseModel):
    """``RAG_SLACK__BOT_TOKEN``, ``RAG_SLACK__SIGNING_SECRET`` (HTTP mode), ``RAG_SLACK__APP_TOKEN``
    (Socket Mode), and per-channel behaviour by channel id, e.g.
    ``RAG_SLACK__CHANNELS='{"C0123ABCD": {"require_mention": false, "filters": {"year": "2023-"}}}'``."""

    bot_token: SecretStr | None = Field(None, description="xoxb-… (OAuth & Permissions)")
    signing_secret: SecretStr | None = Field(None, description="Basic Information > App Credentials")
    app_token: SecretStr | None = Field(None, description="xapp-… with connections:write (Socket Mode)")
    api_url: str = Field(SLACK_API_URL, description="Slack Web API base URL")
    channels: dict[str, ChannelSettings] = Field(default_factory=dict, description="by channel id")
    default_channel: ChannelSettings = Field(default_factory=ChannelSettings,
                                             description="channels not listed in `channels`")
    direct_messages: bool = Field(True, description="answer direct messages (default filters apply)")
    max_sources: int = Field(5, ge=1, le=20, description="sources shown under an answer")
    see_also: int = Field(3, ge=0, le=10, description="closest papers shown when it abstains")
    workers: int = Field(2, ge=1, le=32, description="questions answered at the same time")
    ignore_retries: bool = Field(True, description="ack Slack's retries without processing them")

    @property
    def http_ready(self) -> bool:
        return bool(self.bot_token and self.signing_secret)

    @property
    def socket_ready(self) -> bool:
        return bool(self.bot_token and self.app_token)

    def for_channel(self, channel_id: str, *, direct: bool = False) -> ChannelSettings | None:
        """How to answer in this channel, or None where the bot does not answer. In a direct
        message no mention is needed; a DM channel may still be listed for its own filters."""
        conf = self.channels.get(channel_id, self.default_channel)
        if direct:
            return conf.model_copy(update={"require_mention": False}) if self.direct_messages else None
        return conf if conf.answer else None


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


def source_line(citation: Citation) -> str:
    """``[1] Label (id) — authors · venue year`` and the cited sentence as a quote."""
    head = f"*[{citation.key}]* {escape(citation.label)}"
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
        blocks = [_section(escape(clip(answer.text, 2900)), "answer"), {"type": "divider"}]
        blocks += [_context(source_line(c), f"source-{c.key}") for c in answer.citations[:max_sources]]
        if len(answer.citations) > max_sources:
            blocks.append(_context(f"and {len(answer.citations) - max_sources} more source(s)", "more"))
    if turn_key:
        blocks.append(feedback_actions(turn_key))
    return blocks


def answer_text(answer: Answer) -> str:
    """The plain fallback text (notifications, clients without blocks)."""
    return clip(answer.text, 3000)


def notice_blocks(text: str) -> list[dict[str, Any]]:
    """An apology or a problem with the question, shown in place of the answer."""
    return [_context(f":warning: {escape(text)}", "notice")]
