"""All configuration in one pydantic-settings object, built in the entry point and passed down.

Environment variables use the prefix ``RAG_`` and ``__`` between groups, for example
``RAG_RETRIEVAL__TOP_K=8`` or ``RAG_DATA_DIR=/srv/rag``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from rag.errors import ConfigError
from rag.settings_sources import Group, OurDotEnv, UnknownRagVariables, explain

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_CORPUS = PROJECT_ROOT / "data"


class ChunkingSettings(Group):
    """How abstracts are cut into chunks before embedding (about 2/3 of the bundled abstracts fit
    in one). Changing any of these needs ``rag ingest --rebuild``."""

    tokenizer: str = Field("cl100k_base", description="tiktoken encoding that counts the tokens")
    chunk_size: int = Field(256, ge=32, le=8192, description="tokens per chunk")
    chunk_overlap: int = Field(32, ge=0, le=1024, description="tokens shared by neighbouring chunks")

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkingSettings:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size "
                             f"({self.chunk_size})")
        return self


class IngestSettings(Group):
    """What ``rag ingest`` accepts."""

    max_abstract_chars: int = Field(
        20_000, ge=100, description="a longer abstract is reported and skipped (its row only)")
    sentence_vectors: bool = Field(
        True, description="embed each abstract's sentences at ingest, so a question embeds only "
        "itself (about 1 s per 130 sentences on two cores); off, each question embeds them")


class EmbeddingSettings(Group):
    """The embedder. The default runs offline from an installed package; changing the backend or
    model needs ``rag ingest --rebuild``."""

    backend: Literal["minilm-onnx", "openai", "sentence-transformers"] = Field(
        "minilm-onnx", description="minilm-onnx: offline int8 MiniLM; openai: any /embeddings "
        "endpoint; sentence-transformers: a local model of that library")
    model: str = Field("all-MiniLM-L6-v2", description="model name for the openai and "
                       "sentence-transformers backends")
    base_url: str | None = Field(None, description="endpoint of the openai backend")
    api_key: SecretStr | None = Field(None, description="key of the openai backend")
    batch_size: int = Field(16, ge=1, le=1024, description="texts embedded per call")
    max_tokens: int = Field(320, ge=16, le=512, description="word pieces seen by MiniLM")
    threads: int = Field(0, ge=0, description="onnxruntime intra-op threads; 0 = all cores")


class RetrievalSettings(Group):
    """Hybrid retrieval: dense and keyword lists (and papers whose method name the question says),
    fused by reciprocal rank."""

    top_k: int = Field(5, ge=1, le=50, description="papers passed to the answerer")
    list_k: int = Field(10, ge=1, le=50, description="papers passed to the answerer for a list "
                        "question ('which papers ...'), whose answer may name many")
    candidates: int = Field(30, ge=1, le=500, description="chunks each retriever fetches")
    rrf_k: int = Field(60, ge=1, le=1000, description="reciprocal-rank fusion constant")
    dense_weight: float = Field(1.0, ge=0, le=10, description="weight of the dense (vector) list in the fusion")
    keyword_weight: float = Field(1.0, ge=0, le=10, description="weight of the keyword (BM25) list in the fusion")
    name_weight: float = Field(1.0, ge=0, le=10, description="papers whose method name the query says")
    metadata_weight: float = Field(0.5, ge=0, le=10, description="papers listed without an abstract "
                                   "that match the filters (fixed: only filtered searches use it, and no "
                                   "eval question has a filter to fit it on)")
    title_weight: float = Field(3.0, ge=1, le=50, description="fixed (a small invented fixture scores "
                                "2-10 the same): keyword search counts a title word this many times an "
                                "abstract word (BM25 column weight)")
    mmr: bool = Field(False, description="diversify the papers passed to the answerer")
    mmr_weight: float = Field(0.7, ge=0, le=1, description="relevance vs. novelty in MMR")
    mmr_pool: int = Field(15, ge=1, le=500, description="fused papers MMR chooses from")

    @model_validator(mode="after")
    def _top_k_within_pools(self) -> RetrievalSettings:
        if max(self.top_k, self.list_k) > self.candidates:
            raise ValueError(f"top_k ({self.top_k}) and list_k ({self.list_k}) cannot exceed candidates "
                             f"({self.candidates}), the chunks each retriever fetches")
        if self.mmr and self.top_k > self.mmr_pool:
            raise ValueError(f"top_k ({self.top_k}) cannot exceed mmr_pool ({self.mmr_pool}) with mmr on")
        return self


class AnswerSettings(Group):
    """How the offline answer is laid out from what the fitted reader chose (its weights and
    thresholds are data: rag/assets/reader.json, written by ``rag train-reader``). Marked
    "fitted": chosen on the dev split by ``benchmarks/tune.py`` (never on test). Marked "fixed":
    hand-set, with the reason."""

    max_question_chars: int = Field(2000, ge=10, le=100_000, description="fixed (a cap, not a weight): "
                                    "a longer question is refused with a message")
    max_sentences: int = Field(4, ge=1, le=10, description="fitted: the longest answer, in sentences")
    answer_sentences: int = Field(4, ge=1, le=10, description="fitted: sentences for a one-paper answer")
    second_ratio: float = Field(0.6, ge=0, le=1, description="fitted: a further sentence scores this "
                                "share of the best one")
    yes_no_coverage: float = Field(
        0.15, ge=0, le=1, description="fitted: a sentence must say this share of a yes/no question's "
        "focus terms to answer it yes or no")
    yes_no_candidates: int = Field(5, ge=1, le=20, description="fixed: the best sentences searched "
                                   "for a denial of what a yes/no question asks")
    yes_no_contrast_candidates: int = Field(3, ge=1, le=20, description="fitted: a sentence saying the "
                                            "opposite of an asked word ('small' for 'large') answers no "
                                            "only among the first this many that decide; a negation among all searched")
    figure_candidates: int = Field(3, ge=1, le=20, description="fixed: the best sentences searched "
                                   "for one holding the asked figure or name")
    list_papers: int = Field(8, ge=1, le=30, description="fixed (a display cap): papers a list answer "
                             "shows at most")
    list_line_words: int = Field(40, ge=10, le=200, description="fixed (a display cap, as the eval's "
                                 "LINE_WORDS): a list line longer than this shows the paper's best "
                                 "sentence that fits, when it scores second_ratio of the best")
    support_threshold: float = Field(
        0.54, ge=0, le=1, description="fitted on the dev split of eval/datasets/support_pairs.jsonl: "
        "a sentence whose cited abstracts score below this (rag.answer.support's aligned checker: "
        "similarity to the best-matching abstract sentence and word coverage, lowered for a figure "
        "or name the abstracts lack, contradicted negation, or absolute wording) is unsupported")
    keep_unsupported: bool = Field(False, description="keep unsupported sentences, marked "
                                   "(unsupported), instead of removing them")
    cross_encoder: bool = Field(True, description="reorder the reader's best sentences with the shipped "
                                "cross-encoder (rag.answer.rerank; how many and how much are fitted on dev "
                                "and kept in its manifest); off reads with the fitted reader alone")
    cross_encoder_dir: Path | None = Field(None, description="a folder holding another cross-encoder "
                                           "(cross_encoder.onnx and its cross_encoder.json, as "
                                           "`python -m eval.train_cross_encoder --out` writes them) "
                                           "instead of the shipped one; unset, a collection's own "
                                           "(<data dir>/cross-encoder, installed by `rag train-reader "
                                           "--cross-encoder`) when it has one")


class SupportSettings(Group):
    """How the aligned support checker combines its parts; fitted on the dev split of the
    labelled support pairs by ``benchmarks/support_checker.py --fit``."""

    similarity: float = Field(0.7, ge=0, le=1, description="share of the base score from embedding "
                              "similarity; the rest is word coverage")
    number: float = Field(0.3, ge=0, le=1, description="factor when the sentence gives a figure the "
                          "abstracts do not")
    name: float = Field(0.3, ge=0, le=1, description="... says a name they do not")
    negation: float = Field(0.5, ge=0, le=1, description="... negates what the abstracts assert, or "
                            "asserts what they negate")
    overreach: float = Field(0.3, ge=0, le=1, description="... uses universal or absolute wording the "
                             "aligned sentence does not")


class LLMSettings(Group):
    """An OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, LM Studio, llama.cpp server).
    Unset base_url and api_key: the offline answerer is used."""

    base_url: str | None = Field(None, description="the endpoint, e.g. http://localhost:11434/v1; "
                                 "unset = offline answerer")
    model: str = Field("gpt-4o-mini", description="model name sent to the endpoint")
    api_key: SecretStr | None = Field(None, description="sent as Authorization: Bearer")
    temperature: float = Field(0.0, ge=0, le=2, description="sampling temperature")
    max_tokens: int = Field(400, ge=16, le=8192, description="longest reply, in tokens")
    timeout: float = Field(60.0, gt=0, description="seconds per answer, shared by all its LLM "
                           "calls (rewrite, rerank, answer, retries)")
    retries: int = Field(1, ge=0, le=10, description="retries of a call that failed quickly "
                         "(refused, HTTP 429/5xx), within the answer's time")
    breaker_seconds: float = Field(15.0, ge=0, description="after a failure, the endpoint is not "
                                   "called for this long (answers fall back at once)")
    mode: Literal["prose", "structured"] = Field(
        "prose", description="prose: the model reads the top abstracts and writes a cited answer; "
        "structured: it picks numbered sentences as JSON under a schema (for small models), and "
        "the answer is built from those sentences verbatim")
    abstracts: int = Field(5, ge=1, le=20, description="top retrieved abstracts the model reads "
                           "(prose mode), by fused retrieval score")
    sentences: int = Field(12, ge=2, le=60, description="numbered sentences the model picks from "
                           "(structured mode): the reader's best, over the top abstracts")
    schema_style: Literal["json_object", "json_schema"] = Field(
        "json_object", description="how a JSON schema is sent: json_object (llama.cpp, vLLM) or "
        "json_schema (OpenAI)")
    rewrite_followups: bool = Field(True, description="condense follow-ups with the LLM")
    rerank: bool = Field(False, description="let the LLM reorder retrieved papers")

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key)


class StoreSettings(Group):
    """Where the vectors live: Chroma embedded in the process (files in the data directory; one
    writer process at a time) or a Chroma server (``chroma run``) that many processes and
    machines share."""

    mode: Literal["embedded", "server"] = Field(
        "embedded", description="embedded: Chroma files in the data directory; server: a Chroma "
        "server (`chroma run`)")
    host: str = Field("127.0.0.1", description="the Chroma server's host (server mode)")
    port: int = Field(8001, ge=1, le=65535, description="the Chroma server's port (server mode)")
    ssl: bool = Field(False, description="https to the Chroma server")
    token: SecretStr | None = Field(None, description="sent as Authorization: Bearer (a proxy's or Chroma's auth)")
    tenant: str = Field("default_tenant", description="Chroma tenant (server mode)")
    database: str = Field("default_database", description="Chroma database (server mode)")
    reload_seconds: float = Field(1.0, ge=0, description="how often a running service looks for a new index generation")
    snapshot_dir: Path | None = Field(
        None, description="a folder all machines share: ingest publishes each generation's catalogue "
        "there, services copy the newest into their data directory (server mode; docs/scaling.md)")


class ServiceSettings(Group):
    """``rag serve``: the HTTP API, the OpenAI-compatible endpoint and the chat page."""

    host: str = Field("127.0.0.1", description="address to listen on (not loopback: API keys needed)")
    port: int = Field(8000, ge=1, le=65535, description="port to listen on")
    api_keys: list[SecretStr] = Field(default_factory=list, description="Bearer keys; none = loopback only")
    rate_limit_per_minute: int = Field(120, ge=1, description="requests per key (or client) per minute")
    wrong_keys_per_minute: int = Field(10, ge=1, le=10_000, description="requests with a missing or "
                                       "wrong API key one client address may send per minute; then 429")
    max_body_bytes: int = Field(64_000, ge=1_000, description="bytes of a request body read, at most")
    open_paths: list[str] = Field(
        default_factory=lambda: ["/healthz", "/readyz"],
        description="paths that need no API key when keys are set; an entry ending in '/' opens "
        "everything under it (e.g. /docs, /openapi.json, /metrics, /v1/models, /static/)")
    trusted_proxies: list[str] = Field(
        default_factory=list, description="addresses of reverse proxies whose X-Forwarded-For "
        "and X-Forwarded-Proto are believed; none = the socket's peer is the client")
    conversation_turns: int = Field(6, ge=0, description="earlier questions used for follow-ups")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RAG_", env_nested_delimiter="__", env_file=".env", extra="forbid"
    )

    data_dir: Path = Field(PROJECT_ROOT / ".rag-data", description="index and paper catalogue")
    corpus_dir: Path = Field(BUNDLED_CORPUS, description="what `rag ingest` reads by default")
    collection: str = Field("abstracts", description="Chroma collection name (a rebuild adds -gN)")
    store: StoreSettings = StoreSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    ingest: IngestSettings = IngestSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    answer: AnswerSettings = AnswerSettings()
    support: SupportSettings = SupportSettings()
    llm: LLMSettings = LLMSettings()
    service: ServiceSettings = ServiceSettings()
    prompts_dir: Path = Field(PROJECT_ROOT / "prompts", description="prompt templates")

    # ``RAG_SLACK__*`` configure the Slack bot, a front end: service/slack_settings.py reads and
    # checks them. Here they are passed over, neither settings of the engine nor misspellings.
    front_end_groups: ClassVar[frozenset[str]] = frozenset({"slack"})

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: Any,
                                   env_settings: Any, dotenv_settings: Any,
                                   file_secret_settings: Any) -> tuple[PydanticBaseSettingsSource, ...]:
        """A misspelt ``RAG_`` variable (in the environment or in .env) is an error; other
        variables in .env belong to other programs and are left alone."""
        return (init_settings, env_settings, UnknownRagVariables(settings_cls),
                OurDotEnv(settings_cls), file_secret_settings)


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment and .env, with every problem named by its variable."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(explain(exc, Settings)) from None
