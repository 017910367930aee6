"""All configuration in one pydantic-settings object, built in the entry point and passed down.

Environment variables use the prefix ``RAG_`` and ``__`` between groups, for example
``RAG_RETRIEVAL__TOP_K=8`` or ``RAG_DATA_DIR=/srv/rag``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_CORPUS = PROJECT_ROOT / "data"


class ChunkingSettings(BaseModel):
    tokenizer: str = "cl100k_base"
    chunk_size: int = Field(256, ge=32, le=8192, description="tokens per chunk")
    chunk_overlap: int = Field(32, ge=0, le=1024, description="tokens shared by neighbouring chunks")


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
    mmr: bool = Field(False, description="diversify the papers passed to the answerer")
    mmr_weight: float = Field(0.7, ge=0, le=1, description="relevance vs. novelty in MMR")
    mmr_pool: int = Field(15, ge=1, description="fused papers MMR chooses from")


class AnswerSettings(BaseModel):
    max_question_chars: int = Field(2000, ge=10)
    max_sentences: int = Field(4, ge=1, le=10)
    min_evidence: float = Field(
        0.30, description="abstain when the best paper's cosine similarity is below this"
    )
    min_sentence_score: float = Field(
        0.30, description="drop candidate sentences whose relevance is below this"
    )
    support_threshold: float = Field(
        0.5, description="a sentence whose cited passages score below this is unsupported"
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
    timeout: float = Field(60.0, gt=0, description="seconds per request")
    retries: int = Field(1, ge=0, le=10)
    rewrite_followups: bool = Field(True, description="condense follow-ups with the LLM")
    rerank: bool = Field(False, description="let the LLM reorder retrieved papers")

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key)


class ServiceSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    api_keys: list[SecretStr] = Field(default_factory=list, description="Bearer keys; none = loopback only")
    rate_limit_per_minute: int = Field(120, ge=1, description="requests per key (or client) per minute")
    max_body_bytes: int = Field(64_000, ge=1_000)
    conversation_turns: int = Field(6, ge=0, description="earlier questions used for follow-ups")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RAG_", env_nested_delimiter="__", env_file=".env", extra="ignore"
    )

    data_dir: Path = Field(PROJECT_ROOT / ".rag-data", description="index and paper catalogue")
    corpus_dir: Path = Field(BUNDLED_CORPUS, description="what `rag ingest` reads by default")
    collection: str = "abstracts"
    chunking: ChunkingSettings = ChunkingSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    answer: AnswerSettings = AnswerSettings()
    llm: LLMSettings = LLMSettings()
    service: ServiceSettings = ServiceSettings()
    prompts_dir: Path = Field(PROJECT_ROOT / "prompts", description="prompt templates")
