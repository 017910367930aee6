"""The answer's Markdown as each front end shows it. The engine writes plain Markdown ("- X: ",
"**99%**: ", "[1]"); API clients get it as is, chat clients get the sources appended as a
Markdown reference list (which a follow-up's message history carries back), Slack gets mrkdwn."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.types import Citation

SOURCES_HEADING = "**Sources**"
# "- [2] [Title](https://…) (Doe et al., 2021) · `paper-id`": the id is the last code span.
_SOURCE_LINE = re.compile(r"^\s*[-*]\s+\[(\d{1,3})\]\s.*`([^`\s]+)`\s*$")


def _markdown_label(citation: Citation) -> str:
    label = citation.label.replace("[", "(").replace("]", ")")
    title, link = citation.title, citation.link
    if title and link and label.startswith(title.replace("[", "(").replace("]", ")")):
        head = label[: len(title)]
        return f"[{head}](<{link}>){label[len(title):]}"
    return label + (f" <{link}>" if link else "")


def reference_list(citations: Sequence[Citation]) -> str:
    """The numbered sources as a Markdown list to append to an answer ("" without any): every
    chat client shows them, and the paper id in each line lets a follow-up resolve "the
    second one" from the message history alone."""
    if not citations:
        return ""
    lines = [f"- [{c.key}] {_markdown_label(c)} · `{c.paper_id}`" for c in sorted(citations, key=lambda c: c.key)]
    return "\n\n" + SOURCES_HEADING + "\n\n" + "\n".join(lines)


def sources_in(message: str) -> tuple[str, ...]:
    """The paper ids of the reference list in an earlier assistant message, [1] first."""
    if SOURCES_HEADING not in message:
        return ()
    found: dict[int, str] = {}
    for line in message.split(SOURCES_HEADING, 1)[1].splitlines():
        if match := _SOURCE_LINE.match(line):
            found.setdefault(int(match.group(1)), match.group(2))
    return tuple(found[k] for k in sorted(found))


_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_BULLET = re.compile(r"^(\s*)[-*]\s+", re.MULTILINE)


def to_mrkdwn(escaped_markdown: str) -> str:
    """Markdown (already escaped for Slack) as mrkdwn: **bold** -> *bold*, "- " -> "• "."""
    text = _BULLET.sub(lambda m: f"{m.group(1)}• ", escaped_markdown)
    return _BOLD.sub(lambda m: f"*{m.group(1)}*", text)
