"""The structured reader, for small models: the best sentences of the top abstracts go in
numbered, JSON comes out under a schema (the sentence numbers and a short answer per part, or
``answerable: false``), and the answer is built from those sentences verbatim, so every sentence
is the abstract's own. An answer span the sentence does not contain is dropped, never shown."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rag.answer.evidence import Reading
from rag.errors import LLMError
from rag.llm.client import ChatModel
from rag.llm.prompts import Prompt
from rag.types import Draft, DraftSentence, Evidence

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answerable": {"type": "boolean"},
        "parts": {"type": "array", "maxItems": 8, "items": {
            "type": "object",
            "properties": {"sentences": {"type": "array", "maxItems": 3, "items": {"type": "integer"}},
                           "answer": {"type": "string", "maxLength": 120}},
            "required": ["sentences", "answer"]}},
    },
    "required": ["answerable", "parts"],
}


@dataclass(frozen=True)
class Numbered:
    """A sentence offered to the model: its paper, and a short name for that paper."""

    paper_id: str
    source: str
    text: str


class StructuredReader:
    """The structured ``Generator``: the reader's best RAG_LLM__SENTENCES sentences go in
    numbered; the answer is built from the ones the model picks."""

    def __init__(self, model: ChatModel, prompt: Prompt, sentences: int = 12) -> None:
        self.model, self.prompt, self.sentences = model, prompt, sentences
        self.name = f"{model.name} (structured)"

    def generate(self, question: str, reading: Reading, evidence: Evidence) -> Draft:
        offered = numbered(reading, self.sentences)
        listing = "\n".join(f"[{i}] ({s.source}) {s.text}" for i, s in enumerate(offered, start=1))
        reply = self.model.complete(self.prompt.messages(question=question, sentences=listing), schema=SCHEMA)
        return parse(reply, offered)


def numbered(reading: Reading, limit: int) -> list[Numbered]:
    """The sentences offered to the model: the reader's best over every part, each once,
    instruction-like text already left out (rag.answer.features.candidates)."""
    best: dict[str, tuple[float, Numbered]] = {}
    for _, cands in reading.parts:
        for c in cands:
            paper = c.paper.paper
            source = paper.method or paper.id
            if c.text not in best or best[c.text][0] < c.score:
                best[c.text] = (c.score, Numbered(paper.id, source, c.text))
    ranked = sorted(best.values(), key=lambda sn: -sn[0])[:limit]
    return [n for _, n in ranked]


def parse(reply: str, sentences: Sequence[Numbered]) -> Draft:
    """The model's JSON as a Draft of the chosen sentences; numbers it invented are counted and
    dropped; ``answerable: false`` is the model declining."""
    try:
        data = json.loads(reply)
        answerable, parts = bool(data["answerable"]), list(data["parts"])
    except (ValueError, KeyError, TypeError) as exc:
        raise LLMError(f"the model's reply is not the JSON asked for ({type(exc).__name__})") from exc
    if not answerable:
        return Draft((), abstained=True, declined=True)
    chosen: list[DraftSentence] = []
    invented = 0
    for part in parts:
        numbers = [n for n in part.get("sentences", []) if isinstance(n, int)] if isinstance(part, dict) else []
        answer = str(part.get("answer", "")).strip() if isinstance(part, dict) else ""
        for position, n in enumerate(numbers):
            if not 1 <= n <= len(sentences):
                invented += 1
                continue
            s = sentences[n - 1]
            if any(c.text == s.text for c in chosen):
                continue
            verdict = answer.lower().rstrip(".") in ("yes", "no")
            lead = answer if position == 0 and answer and (verdict or answer.lower() in s.text.lower()) else ""
            chosen.append(DraftSentence(s.text, (s.paper_id,), prefix=f"**{lead}**: " if lead else ""))
    return Draft(tuple(chosen), abstained=not chosen, unknown_keys=invented)
