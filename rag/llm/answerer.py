"""The LLM answerer: retrieved abstracts go to the model fenced and keyed [1]..[n]; its reply
is parsed back into sentences with paper ids. Keys it invents are removed and counted; a
sentence it left uncited is attributed after the fact to the abstract that supports it best
(small models ignore citation instructions), or left uncited for the support check to drop.

``stream`` gives the same sentences as the model writes them: each as soon as the next one has
begun (so its end, and any key after its full stop, has arrived), then the whole ``Draft``."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from rag.answer.evidence import Reading
from rag.answer.support import SupportScorer
from rag.errors import LLMError
from rag.llm.client import ChatModel
from rag.llm.prompts import Prompt
from rag.text.clean import split_sentences
from rag.text.lexicon import content_terms
from rag.types import Draft, DraftSentence, Evidence, Paper, ScoredPaper

_FENCE = re.compile(r"</?\s*abstract\b[^>]*>", re.IGNORECASE)
_KEYS = re.compile(r"\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]")
_BRACKETED = re.compile(r"\s*\[[^\]\n]{0,40}\]")
_KEY_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[[\d,;\s]+\]\s*)+)")
# A reply (or a sentence of one) saying that the abstracts do not hold the answer. The model
# decides nothing by saying it: the engine weighs the evidence (see engine._generate_checked).
_DECLINES = re.compile(
    r"(?:do(?:es)?\s+not|don't|doesn't|cannot|can't|fail\s+to)\s+(?:directly\s+|explicitly\s+|"
    r"specifically\s+)?(?:answer|address|say|mention|provide|contain|specify|state|include|report|"
    r"give|discuss|describe|indicate)|\bnot\s+(?:answered|mentioned|reported|specified|stated|"
    r"provided|given|available|found|discussed)\b|\bno\s+(?:information|mention|details?|data)\b"
    r"|\bunable\s+to\s+(?:answer|find|determine)", re.IGNORECASE)


def fence(text: str) -> str:
    """Abstract text with anything that could close or open a fence removed."""
    return _FENCE.sub("[fence removed]", text)


def build_sources(evidence: Sequence[ScoredPaper]) -> tuple[str, dict[int, str]]:
    keymap: dict[int, str] = {}
    blocks = []
    for key, item in enumerate((e for e in evidence if e.paper.has_abstract), start=1):
        keymap[key] = item.paper.id
        blocks.append(f'<abstract key="{key}" id="{item.paper.id}">\n{fence(item.paper.abstract)}'
                      f"\n</abstract>")
    return "\n\n".join(blocks), keymap


class LLMAnswerer:
    """The prose ``Generator``: the model reads the top RAG_LLM__ABSTRACTS abstracts and writes."""

    def __init__(self, model: ChatModel, prompt: Prompt, scorer: SupportScorer,
                 threshold: float, abstracts: int = 5) -> None:
        self.model, self.prompt, self.scorer, self.threshold = model, prompt, scorer, threshold
        self.abstracts = abstracts
        self.name = model.name

    def _context(self, question: str, evidence: Evidence):  # type: ignore[no-untyped-def]
        top = list(evidence.with_abstracts[: self.abstracts])
        sources, keymap = build_sources(top)
        return self.prompt.messages(question=question, sources=sources), keymap, top

    def generate(self, question: str, reading: Reading, evidence: Evidence) -> Draft:
        messages, keymap, top = self._context(question, evidence)
        return self.parse(self.model.complete(messages), keymap, top, evidence.sentences)

    def stream(self, question: str, reading: Reading, evidence: Evidence) -> Iterator[DraftSentence | Draft]:
        """Each sentence as soon as the model has begun the next one, then the whole Draft
        (parsed from the whole reply, as ``generate`` would)."""
        messages, keymap, top = self._context(question, evidence)
        papers = {e.paper.id: e.paper for e in top}
        reply, done = "", 0
        for token in self.model.stream(messages):
            reply += token
            complete = _raw_sentences(reply)[:-1]  # the last one may still grow
            for raw in complete[done:]:
                parsed = self._sentence(raw, keymap, papers, evidence.sentences)
                if isinstance(parsed, DraftSentence):
                    yield parsed
            done = max(done, len(complete))
        if not reply.strip():
            raise LLMError("empty reply")  # as complete() says of content: null; the endpoint works
        yield self.parse(reply, keymap, top, evidence.sentences)

    def parse(self, reply: str, keymap: dict[int, str], evidence: Sequence[ScoredPaper],
              split: Mapping[str, tuple[str, ...]] | None = None) -> Draft:
        raws = _raw_sentences(reply)
        if not raws:
            return Draft((), abstained=True)
        papers = {e.paper.id: e.paper for e in evidence}
        sentences, unknown, attributed, declines = [], 0, 0, 0
        for raw in raws:
            unknown += sum(1 for n in _numbers(raw) if n not in keymap)
            parsed = self._sentence(raw, keymap, papers, split)
            if parsed == "decline":
                declines += 1  # "The abstracts do not say ...": not a claim
            elif isinstance(parsed, DraftSentence):
                attributed += bool(parsed.paper_ids) and not any(n in keymap for n in _numbers(raw))
                sentences.append(parsed)
        declined = declines > 0 and not any(s.paper_ids for s in sentences)
        return Draft(tuple(sentences), abstained=not sentences, unknown_keys=unknown,
                     attributed=attributed, declined=declined)

    def _sentence(self, raw: str, keymap: dict[int, str], papers: dict[str, Paper],
                  split: Mapping[str, tuple[str, ...]] | None) -> DraftSentence | str | None:
        """One sentence of the reply: its text with the papers its keys name (or, uncited, the
        paper that supports it best); "decline" for a sentence saying the abstracts do not
        answer; None for filler."""
        numbers = _numbers(raw)
        ids = tuple(dict.fromkeys(keymap[n] for n in numbers if n in keymap))
        clean = _BRACKETED.sub("", raw).strip()
        clean = re.sub(r"\s+([.,;:!?])", r"\1", clean)
        if not numbers and _DECLINES.search(clean):
            return "decline"
        if len(content_terms(clean)) < 3 and not _lead(clean):
            return None  # filler ("The answer is:"), not a claim
        return DraftSentence(clean, ids or self._attribute(clean, papers, split))

    def _attribute(self, sentence: str, papers: dict[str, Paper],
                   split: Mapping[str, tuple[str, ...]] | None) -> tuple[str, ...]:
        """An uncited sentence goes to the abstract that supports it best, if one does."""
        scored = [(self.scorer.score(sentence, [p], split), p.id) for p in papers.values()]
        best_score, best_id = max(scored, key=lambda sp: sp[0], default=(0.0, ""))
        return (best_id,) if best_score >= self.threshold else ()


def _numbers(raw: str) -> list[int]:
    return [int(n) for group in _KEYS.findall(raw) for n in re.split(r"[,;]", group)]


def _raw_sentences(reply: str) -> list[str]:
    """The reply's sentences, keys still in them. List items and lines are sentences of their
    own ("are:\n1. X [1]\n2. Y [2]"); a key after a full stop moves before it."""
    lines = [re.sub(r"^\s*(?:\d+[.)]|[-*•])\s+", "", line).strip() for line in reply.splitlines()]
    text = " ".join(" ".join(line.split()) + ("" if re.search(r"[.!?:]$", line) else ".")
                    for line in lines if line.strip())
    if not text:
        return []
    text = _KEY_AFTER_STOP.sub(lambda m: f" {m.group(2).strip()}{m.group(1)} ", text)
    return split_sentences(text)


_LEAD = re.compile(r"^(?:yes|no)\b", re.IGNORECASE)


def _lead(sentence: str) -> bool:
    """A short direct answer ("Yes.", "No, it is training-free [1].") is kept."""
    return bool(_LEAD.match(sentence))
