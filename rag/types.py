"""The domain: small frozen dataclasses. Change a value with ``dataclasses.replace``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


@dataclass(frozen=True)
class Paper:
    """One paper record. ``abstract`` is the text shown (LaTeX made readable: "82.8%", not
    ``82.8\\%``); ``original`` the abstract exactly as found, when that differs; ``text`` the
    normalised form used for chunking, keyword search and embedding. Metadata-only records
    (papers listed without an abstract) have ``abstract == ""``. ``doi`` is bare
    ("10.1000/x"), ``arxiv_id`` too ("2101.00001"); ``url`` is an http(s) address."""

    id: str
    abstract: str
    text: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    authors_truncated: bool = False
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    source: str = ""
    line: int | None = None
    method: str | None = None
    aliases: tuple[str, ...] = ()
    doi: str | None = None
    arxiv_id: str | None = None
    original: str | None = None

    @property
    def has_abstract(self) -> bool:
        return bool(self.abstract)

    @property
    def link(self) -> str | None:
        """Where the paper can be read: its DOI, else its arXiv page, else its URL."""
        if self.doi:
            return f"https://doi.org/{self.doi}"
        if self.arxiv_id:
            return f"https://arxiv.org/abs/{self.arxiv_id}"
        return self.url

    @property
    def label(self) -> str:
        """An honest short label. With a real title: "Title (Doe et al., 2021)". Without one
        (the bundled corpus): the method name the abstract introduces and/or the first author,
        with the id: "SupReMix, Deng et al. 2024 (000-0001)". Never a guessed title."""
        who = ""
        if self.authors:
            surname = self.authors[0].split()[-1]
            more = len(self.authors) > 1 or self.authors_truncated
            who = f"{surname} et al." if more else surname
        if self.title:
            about = ", ".join(str(p) for p in (who, self.year) if p)
            return f"{self.title} ({about})" if about else self.title
        parts = [p for p in (self.method, who) if p]
        if self.year and who:
            parts[-1] = f"{parts[-1]} {self.year}"
        head = ", ".join(parts)
        return f"{head} ({self.id})" if head else self.id

    @property
    def readable_label(self) -> str:
        """The label, except that a record with nothing to name it by (no title, method or
        author: the label would be a bare id) shows the opening words of its abstract, quoted:
        '“Equipping large language models (LLMs) with latent-space…” (000-0011)'."""
        if self.label != self.id or not self.abstract:
            return self.label
        words = self.abstract.split()
        opening = " ".join(words[:8]) + ("…" if len(words) > 8 else "")
        return f"“{opening}” ({self.id})"


@dataclass(frozen=True)
class Chunk:
    """A token-bounded piece of one paper's normalised text; never loses its paper."""

    id: str
    paper_id: str
    index: int
    text: str
    text_hash: str


@dataclass(frozen=True)
class ScoredChunk:
    chunk: Chunk
    score: float


@dataclass(frozen=True)
class ScoredPaper:
    """A paper as retrieved. ``score`` is the fused rank score; ``similarity`` the cosine
    similarity of its best chunk to the question (the evidence strength the answerer trusts);
    ``ranks`` says where each retriever put it: (retriever, 1-based rank, its own score)."""

    paper: Paper
    score: float
    best_chunk: Chunk | None = None
    similarity: float = 0.0
    ranks: tuple[tuple[str, int, float], ...] = ()


@dataclass(frozen=True)
class Evidence:
    """The papers a question is answered from, ranked, as every stage after retrieval reads them:
    instruction-like sentences scrubbed out once, and each abstract split into sentences once
    (``rag.stages.retrieve.gather``). The reader, the LLM and the support check all read this."""

    papers: tuple[ScoredPaper, ...]
    sentences: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # paper id -> sentences

    def sentences_of(self, paper_id: str) -> tuple[str, ...]:
        return self.sentences.get(paper_id, ())

    @property
    def with_abstracts(self) -> tuple[ScoredPaper, ...]:
        return tuple(e for e in self.papers if e.paper.has_abstract)


@dataclass(frozen=True)
class Replace:
    """A stream event: the text sent so far is replaced by ``text`` (a later sentence failed its
    check, or the answer fell back after some sentences were sent). Every client honours it."""

    text: str


@dataclass(frozen=True)
class Citation:
    """One cited paper. ``label`` is what every front end shows ("Title (Doe et al., 2021)");
    when ``title`` and ``link`` are both known, the label starts with the title and front ends
    link that part to ``link`` (the DOI, arXiv or URL address)."""

    key: int
    paper_id: str
    label: str
    passage: str
    authors: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    title: str | None = None
    link: str | None = None


@dataclass(frozen=True)
class RetrievedPaper:
    paper_id: str
    label: str
    score: float


@dataclass(frozen=True)
class SentenceSupport:
    """How well one answer sentence is backed by the papers it cites (0..1)."""

    text: str
    keys: tuple[int, ...]
    score: float
    supported: bool


class Route(StrEnum):
    """Which path produced an answer; clients read this, never the generator's name."""

    OFFLINE = "offline"  # the offline answerer, no LLM configured (or none needed)
    LLM = "llm"  # the configured LLM wrote it; the engine checked every sentence
    FALLBACK = "fallback"  # offline, after the LLM failed or its answer was not usable
    METADATA = "metadata"  # answered from the catalogue (authors, venues, years)


@dataclass(frozen=True)
class DraftSentence:
    """A sentence and the papers it claims to come from. A framing sentence ("X is among the
    authors of:") makes no claim of its own and carries no citation."""

    text: str
    paper_ids: tuple[str, ...]
    score: float = 0.0
    framing: bool = False
    prefix: str = ""  # shown before the sentence ("- KV-Distill (004-0253): ", "**69.73%**: ")


@dataclass(frozen=True)
class Draft:
    """What a generator returns: sentences with their papers; the citation step adds keys."""

    sentences: tuple[DraftSentence, ...]
    abstained: bool = False
    unknown_keys: int = 0  # citation keys the model invented (never in its context), removed
    attributed: int = 0  # uncited sentences given a source after the fact
    declined: bool = False  # the model said the abstracts do not answer (the engine decides)
    reason: str = ""  # why there is no answer, said to the user with the abstention


@dataclass(frozen=True)
class EvidenceRow:
    """One paper in the evidence table of a list or comparison answer (rag.answer.table)."""

    key: int
    paper_id: str
    paper: str  # the citation's label
    link: str | None
    finding: str  # the figure ("63%"), else the finding in a sentence
    measures: str  # what the figure measures ("reduces sonar archive storage"), "" if unknown
    on: str  # on what ("four survey fleets"), "" if the sentence does not say
    passage: str  # the cited passage


@dataclass(frozen=True)
class Turn:
    """One earlier turn of a conversation, as a follow-up reads it: the question (as it stood
    alone), the paper ids of the numbered sources its answer showed, in order ([1] first), and
    the paper the user opened last, if any."""

    question: str
    sources: tuple[str, ...] = ()
    focus: str | None = None


@dataclass(frozen=True)
class Answer:
    question: str
    text: str
    citations: tuple[Citation, ...]
    abstained: bool
    retrieved: tuple[RetrievedPaper, ...] = ()
    generator: str = "offline"
    timings: dict[str, float] = field(default_factory=dict)
    standalone_question: str | None = None  # a follow-up as rewritten for retrieval
    sentences: tuple[SentenceSupport, ...] = ()
    removed_keys: int = 0  # citation keys the generator invented, stripped
    removed_sentences: int = 0  # sentences dropped because their citations did not support them
    route: Route = Route.OFFLINE
    fallback_reason: str | None = None  # why the LLM's answer was not used
    abstain_reason: str | None = None  # why the abstracts do not answer, when abstained
    see_also: tuple[RetrievedPaper, ...] = ()  # the nearest papers, when abstained
    table: tuple[EvidenceRow, ...] = ()  # list and comparison answers: one row per cited paper

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
