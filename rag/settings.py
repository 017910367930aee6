"""All configuration in one pydantic-settings object, built in the entry point and passed down.

Environment variables use the prefix ``RAG_`` and ``__`` between groups, for example
``RAG_RETRIEVAL__TOP_K=8`` or ``RAG_DATA_DIR=/srv/rag``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rag.errors import InputError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_CORPUS = PROJECT_ROOT / "data"


class ChunkingSettings(BaseModel):
    tokenizer: str = "cl100k_base"
    chunk_size: int = Field(256, ge=32, le=8192, description="tokens per chunk")
    chunk_overlap: int = Field(32, ge=0, le=1024, description="tokens shared by neighbouring chunks")


class IngestSettings(BaseModel):
    max_abstract_chars: int = Field(
        20_000, ge=100, description="a longer abstract is reported and skipped (its row only)")


class EmbeddingSettings(BaseModel):
    backend: Literal["minilm-onnx", "openai", "sentence-transformers"] = "minilm-onnx"
    model: str = "all-MiniLM-L6-v2"
    base_url: str | None = None
    api_key: SecretStr | None = None
    batch_size: int = Field(16, ge=1, le=1024)
    max_tokens: int = Field(320, ge=16, le=512, description="word pieces seen by MiniLM")
    threads: int = Field(0, ge=0, description="onnxruntime intra-op threads; 0 = all cores")


class RetrievalSettings(BaseModel):
    top_k: int = Field(5, ge=1, le=50, description="papers passed to the answerer")
    candidates: int = Field(30, ge=1, le=500, description="chunks each retriever fetches")
    rrf_k: int = Field(60, ge=1, description="reciprocal-rank fusion constant")
    dense_weight: float = Field(1.0, ge=0)
    keyword_weight: float = Field(1.0, ge=0)
    name_weight: float = Field(1.0, ge=0, description="papers whose method name the query says")
    title_weight: float = Field(3.0, ge=1, le=50, description="keyword search: a word of a paper's "
                                "title counts this many times a word of its abstract (BM25 column weight)")
    mmr: bool = Field(False, description="diversify the papers passed to the answerer")
    mmr_weight: float = Field(0.7, ge=0, le=1, description="relevance vs. novelty in MMR")
    mmr_pool: int = Field(15, ge=1, description="fused papers MMR chooses from")


class AnswerSettings(BaseModel):
    """Every weight and threshold below is fitted on the dev split by ``benchmarks/tune.py``
    (never on the test split, which the README reports)."""

    max_question_chars: int = Field(2000, ge=10)
    max_sentences: int = Field(4, ge=1, le=10)
    answer_sentences: int = Field(4, ge=1, le=10, description="sentences for a one-paper answer")
    second_ratio: float = Field(0.6, ge=0, le=1, description="a further sentence scores this "
                                "share of the best one")
    min_evidence: float = Field(
        0.30, description="papers whose best chunk's cosine similarity is below this are not read"
    )
    min_topic_overlap: float = Field(
        0.2, ge=0, le=1, description="abstain when no read abstract says this share of the "
        "question's focus terms")
    unknown_term_overlap: float = Field(
        0.5, ge=0, le=1, description="a question with a capitalised word no abstract contains is "
        "declined unless a read abstract says this share of its focus terms")
    rare_name_chunks: int = Field(
        3, ge=0, le=50, description="a capitalised word in at most this many chunks counts as a name")
    yes_no_coverage: float = Field(
        0.15, ge=0, le=1, description="a sentence must say this share of a yes/no question's focus "
        "terms to answer it yes or no")
    yes_no_window: int = Field(5, ge=1, le=12, description="words before a term in which a "
                               "negation (not, without, -free, fixed, ...) denies it")
    evidence_margin: float = Field(0.1, ge=0, description="read papers within this of the best")
    min_answer_score: float = Field(
        0.35, description="abstain when no sentence that holds the asked kind of answer scores this"
    )
    min_sentence_score: float = Field(
        0.2, description="a paper's best sentence must score this to be listed"
    )
    weight_similarity: float = Field(0.55, ge=0, description="sentence-question cosine")
    weight_overlap: float = Field(0.35, ge=0, description="share of the question's focus terms said")
    weight_paper: float = Field(0.2, ge=0, description="the paper's retrieval similarity")
    weight_name: float = Field(0.30, ge=0, description="per name from the question the sentence says")
    weight_intro: float = Field(0.30, ge=0, description='"we propose ..." for what/which questions')
    weight_result: float = Field(0.1, ge=0, description='taken off "experiments show ...", '
                                 '"outperforms ..." when a how/what question does not ask about results')
    weight_mechanism: float = Field(0.1, ge=0, description='"by", "via", "based on" ... for how '
                                    "and comparison questions")
    strong_evidence: float = Field(
        0.55, description="an LLM that declines with evidence this strong is retried, then overruled"
    )
    support_threshold: float = Field(
        0.54, description="a sentence whose cited abstracts score below this (rag.answer.support's aligned "
        "checker: similarity to the best-matching abstract sentence and word coverage, lowered for a "
        "figure or name the abstracts lack, contradicted negation, or absolute wording) is "
        "unsupported; chosen on the dev split of eval/datasets/support_pairs.jsonl"
    )
    keep_unsupported: bool = Field(False, description="show unsupported sentences, marked")


class LLMSettings(BaseModel):
    """An OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, LM Studio, llama.cpp server).
    Unset base_url and api_key: the offline answerer is used."""

    base_url: str | None = None
    model: str = "gpt-4o-mini"
    api_key: SecretStr | None = None
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(400, ge=16, le=8192)
    timeout: float = Field(60.0, gt=0, description="seconds per answer, shared by all its LLM "
                           "calls (rewrite, rerank, answer, retries)")
    retries: int = Field(1, ge=0, le=10, description="retries of a call that failed quickly "
                         "(refused, HTTP 429/5xx), within the answer's time")
    breaker_seconds: float = Field(15.0, ge=0, description="after a failure, the endpoint is not "
                                   "called for this long (answers fall back at once)")
    rewrite_followups: bool = Field(True, description="condense follow-ups with the LLM")
    rerank: bool = Field(False, description="let the LLM reorder retrieved papers")

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key)


class StoreSettings(BaseModel):
    """Where the vectors live: Chroma embedded in the process (files in the data directory; one
    writer process at a time) or a Chroma server (``chroma run``) that many processes and
    machines share."""

    mode: Literal["embedded", "server"] = "embedded"
    host: str = "127.0.0.1"
    port: int = Field(8001, ge=1, le=65535)
    ssl: bool = Field(False, description="https to the Chroma server")
    token: SecretStr | None = Field(None, description="sent as Authorization: Bearer (a proxy's or Chroma's auth)")
    tenant: str = "default_tenant"
    database: str = "default_database"
    reload_seconds: float = Field(1.0, ge=0, description="how often a running service looks for a new index generation")
    snapshot_dir: Path | None = Field(
        None, description="a folder all machines share: ingest publishes each generation's catalogue "
        "there, services copy the newest into their data directory (server mode; docs/scaling.md)")


class ServiceSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    api_keys: list[SecretStr] = Field(default_factory=list, description="Bearer keys; none = loopback only")
    rate_limit_per_minute: int = Field(120, ge=1, description="requests per key (or client) per minute")
    max_body_bytes: int = Field(64_000, ge=1_000, description="bytes of a request body read, at most")
    open_paths: list[str] = Field(
        default_factory=lambda: ["/healthz", "/readyz"],
        description="paths that need no API key when keys are set; an entry ending in '/' opens "
        "everything under it (e.g. /docs, /openapi.json, /metrics, /v1/models, /static/)")
    trusted_proxies: list[str] = Field(
        default_factory=list, description="addresses of reverse proxies whose X-Forwarded-For "
        "and X-Forwarded-Proto are believed; none = the socket's peer is the client")
    conversation_turns: int = Field(6, ge=0, description="earlier questions used for follow-ups")


SLACK_API_URL = "https://slack.com/api/"
_YEARS = re.compile(r"\s*(\d{4})?\s*(-)?\s*(\d{4})?\s*")


def parse_years(text: str | None) -> tuple[int | None, int | None]:
    """"2023", "2023-2025", "2023-" or "-2021" -> (from, to)."""
    if not text:
        return None, None
    match = _YEARS.fullmatch(text)
    if not match or not (match[1] or match[3]):
        raise InputError(f"year {text!r} is not a year or range; use 2023, 2023-2025, 2023- or -2021.")
    start = int(match[1]) if match[1] else None
    end = int(match[3]) if match[3] else (start if not match[2] else None)
    return start, end


class SlackFilters(BaseModel):
    """A channel's default metadata filters (as ``rag ask --author/--year/--venue/--source``)."""

    author: str | None = None
    year: str | None = Field(None, description='"2023", "2023-2025", "2023-" or "-2021"')
    venue: str | None = None
    source: str | None = None

    @field_validator("year")
    @classmethod
    def _a_year_or_range(cls, value: str | None) -> str | None:
        try:
            parse_years(value)
        except InputError as exc:
            raise ValueError(str(exc)) from None
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



class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RAG_", env_nested_delimiter="__", env_file=".env", extra="ignore"
    )

    data_dir: Path = Field(PROJECT_ROOT / ".rag-data", description="index and paper catalogue")
    corpus_dir: Path = Field(BUNDLED_CORPUS, description="what `rag ingest` reads by default")
    collection: str = "abstracts"
    store: StoreSettings = StoreSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    ingest: IngestSettings = IngestSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    answer: AnswerSettings = AnswerSettings()
    llm: LLMSettings = LLMSettings()
    service: ServiceSettings = ServiceSettings()
    slack: SlackSettings = SlackSettings()
    prompts_dir: Path = Field(PROJECT_ROOT / "prompts", description="prompt templates")
