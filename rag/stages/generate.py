"""Stage 4, generate: the ``Reading`` and the ``Evidence`` in, a checked ``Generated`` out. A
``Generator`` (``rag.answer.evidence``) writes the draft: the offline composer, or the configured
LLM (prose, or structured for small models). The fallback policy lives here and only here:

- no LLM configured, or no abstract to read: the offline composer writes;
- the LLM fails (dead endpoint, timeout, unreadable reply): the offline answer, route
  ``fallback``, saying why;
- none of the LLM's sentences survives the check while the reader finds an answer: the offline
  answer, route ``fallback``;
- the LLM declines: an abstention, saying so (the reader's verdict never vetoes the model).

The offline draft is composed only when it is used. ``stream`` does the same sentence by sentence
while a prose LLM writes: each sentence is checked as soon as it is complete and sent only if it
is supported; when the final answer is not the text already sent (a fallback after some sentences
were sent, or a later parse differing), a ``Replace`` carries the final text."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from rag.answer.citations import attach_citations
from rag.answer.evidence import Generator, Reading
from rag.errors import LLMError
from rag.stages.verify import Checked, papers_of
from rag.types import Draft, DraftSentence, Evidence, Route

DECLINED = "the model found no answer in the top abstracts"
UNSUPPORTED = "none of the model's sentences was supported by the abstracts"
Check = Callable[[Draft, Route], Checked]


@dataclass(frozen=True)
class Generated:
    checked: Checked
    generator: str
    route: Route
    fallback_reason: str | None = None


@dataclass(frozen=True)
class Writers:
    offline: Generator
    llm: Generator | None = None  # the configured LLM's generator, prose or structured


def generate(writers: Writers, question: str, reading: Reading, evidence: Evidence, check: Check) -> Generated:
    def offline(route: Route = Route.OFFLINE, name: str = "offline", why: str | None = None) -> Generated:
        return Generated(check(writers.offline.generate(question, reading, evidence), route), name, route, why)

    if writers.llm is None or not reading.papers:
        return offline()
    try:
        draft = writers.llm.generate(question, reading, evidence)
    except LLMError as exc:
        return offline(Route.FALLBACK, f"offline (LLM unavailable: {exc})", f"LLM unavailable: {exc}")
    return _after_llm(writers.llm, draft, reading, check, offline)


def _after_llm(llm: Generator, draft: Draft, reading: Reading, check: Check,
               offline: Callable[..., Generated]) -> Generated:
    if draft.declined:
        draft = replace(draft, reason=DECLINED)
    checked = check(draft, Route.LLM)
    if not checked.answered and not draft.declined and reading.answerable:
        return offline(Route.FALLBACK, "offline", UNSUPPORTED)
    return Generated(checked, llm.name, Route.LLM)


def streams(writers: Writers) -> bool:
    """Does the configured generator write sentence by sentence (a prose LLM)?"""
    return writers.llm is not None and callable(getattr(writers.llm, "stream", None))


def stream(writers: Writers, question: str, reading: Reading, evidence: Evidence,
           check: Check) -> Iterator[str | Generated]:
    """Checked text as the model writes it (each sentence once complete and supported), then the
    ``Generated``, decided as ``generate`` decides it."""
    def offline(route: Route = Route.OFFLINE, name: str = "offline", why: str | None = None) -> Generated:
        return Generated(check(writers.offline.generate(question, reading, evidence), route), name, route, why)

    if writers.llm is None or not reading.papers:
        yield offline()
        return
    shown: list[DraftSentence] = []
    sent = ""
    papers = papers_of(evidence)
    try:
        for item in writers.llm.stream(question, reading, evidence):  # type: ignore[attr-defined]
            if isinstance(item, Draft):
                yield _after_llm(writers.llm, item, reading, check, offline)
                return
            if check(Draft((item,)), Route.LLM).answered:
                shown.append(item)
                text, _ = attach_citations(Draft(tuple(shown)), papers)
                yield text[len(sent):]
                sent = text
    except LLMError as exc:
        yield offline(Route.FALLBACK, f"offline (LLM unavailable: {exc})", f"LLM unavailable: {exc}")
