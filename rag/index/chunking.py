"""Token-bounded chunks (tiktoken through llama-index's sentence-aware splitter), offline.

tiktoken downloads its BPE files on first use. llama-index-core ships ``cl100k_base`` and
``o200k_base`` in ``llama_index/core/_static/tiktoken_cache``; we point ``TIKTOKEN_CACHE_DIR``
there before the first encoding is loaded, so nothing is fetched.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from rag.errors import RagError
from rag.settings import ChunkingSettings
from rag.text.clean import content_hash
from rag.types import Chunk, Paper

SHIPPED_ENCODINGS = ("cl100k_base", "o200k_base")


def tiktoken_cache_dir() -> Path:
    import llama_index.core

    return Path(llama_index.core.__file__).parent / "_static" / "tiktoken_cache"


@lru_cache(maxsize=4)
def encoding(name: str):  # type: ignore[no-untyped-def]
    """A tiktoken encoding loaded from the files llama-index-core ships; never downloads."""
    if name not in SHIPPED_ENCODINGS:
        raise RagError(
            f"tokenizer {name!r} is not shipped offline; use one of {', '.join(SHIPPED_ENCODINGS)} "
            "(setting RAG_CHUNKING__TOKENIZER)."
        )
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tiktoken_cache_dir()))
    import tiktoken

    return tiktoken.get_encoding(name)


def chunker_signature(settings: ChunkingSettings) -> str:
    """What the index records about the chunker (no llama-index import needed to check it)."""
    return f"{settings.tokenizer}/size={settings.chunk_size}/overlap={settings.chunk_overlap}"


class Chunker:
    """Splits a paper's normalised text into overlapping token windows on sentence bounds."""

    def __init__(self, settings: ChunkingSettings) -> None:
        from llama_index.core.node_parser import SentenceSplitter

        if settings.chunk_overlap >= settings.chunk_size:
            raise RagError("chunk_overlap must be smaller than chunk_size (RAG_CHUNKING__*).")
        self.settings = settings
        tokenize: Callable[[str], list[int]] = encoding(settings.tokenizer).encode
        self._splitter = SentenceSplitter(
            chunk_size=settings.chunk_size,
            chunk_overlap=settings.chunk_overlap,
            tokenizer=tokenize,
        )

    @property
    def signature(self) -> str:
        return chunker_signature(self.settings)

    def chunks(self, paper: Paper) -> list[Chunk]:
        if not paper.text:
            return []
        pieces = self._splitter.split_text(paper.text) or [paper.text]
        return [
            Chunk(id=f"{paper.id}#{i}", paper_id=paper.id, index=i, text=piece,
                  text_hash=content_hash(piece))
            for i, piece in enumerate(pieces)
        ]
