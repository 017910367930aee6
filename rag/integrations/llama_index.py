"""This project as LlamaIndex components, for a LlamaIndex user's own pipeline:

- ``AbstractRetriever``: a ``BaseRetriever`` whose ``NodeWithScore`` results are the retrieved
  chunks (the best chunk of each retrieved paper, fused dense + keyword + method-name ranking,
  author questions answered from the author lists), each with its paper's metadata.
- ``AbstractQueryEngine``: a ``CustomQueryEngine`` that answers through this project's one answer
  path (``rag.engine.answer``: evidence-decided abstention, citation keys mapped back to papers,
  every sentence's support checked) and returns a ``Response`` whose ``source_nodes`` are the
  cited passages.
- ``LlamaIndexChatModel``: any LlamaIndex ``LLM`` as the engine's chat model, so the answers
  can come from the user's model while the engine still checks them.

Both are built from ``Settings`` (``from_settings``) like every other entry point; nothing here
is global, and nothing is downloaded (the tokenizer files ship with llama-index-core)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.base.response.schema import Response
from llama_index.core.llms import LLM
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from rag.engine import Engine, answer, build_engine, search
from rag.errors import LLMError
from rag.index.chunking import tiktoken_cache_dir
from rag.index.filters import Filters
from rag.settings import Settings
from rag.types import Citation, Paper, ScoredPaper

__all__ = ["AbstractQueryEngine", "AbstractRetriever", "LlamaIndexChatModel", "paper_metadata"]


def paper_metadata(paper: Paper) -> dict[str, Any]:
    """Flat metadata (strings and numbers: any vector store can keep it)."""
    return {"paper_id": paper.id, "label": paper.label, "title": paper.title or "",
            "authors": "; ".join(paper.authors), "year": paper.year or 0, "venue": paper.venue or "",
            "link": paper.link or "", "source": paper.source}


def _node(found: ScoredPaper) -> NodeWithScore:
    paper, chunk = found.paper, found.best_chunk
    node = TextNode(id_=chunk.id if chunk else paper.id, text=chunk.text if chunk else paper.abstract,
                    metadata=paper_metadata(paper),
                    excluded_embed_metadata_keys=["paper_id", "link", "source", "label"],
                    excluded_llm_metadata_keys=["link", "source"])
    return NodeWithScore(node=node, score=found.score)


def _offline_tokenizer() -> None:
    """LlamaIndex's prompt helpers load tiktoken: point it at the files llama-index-core ships."""
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tiktoken_cache_dir()))


class AbstractRetriever(BaseRetriever):
    def __init__(self, engine: Engine, *, k: int | None = None, filters: Filters = Filters(),
                 mode: str = "hybrid", **kwargs: Any) -> None:
        _offline_tokenizer()
        self.engine, self.k, self.filters, self.mode = engine, k, filters, mode
        super().__init__(**kwargs)

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **kwargs: Any) -> AbstractRetriever:
        """Open the index the settings name (``RAG_DATA_DIR``); close with ``retriever.close()``."""
        return cls(build_engine(settings or Settings()), **kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = search(self.engine, query_bundle.query_str, self.k, filters=self.filters, mode=self.mode)
        return [_node(f) for f in found]

    def close(self) -> None:
        self.engine.close()


class AbstractQueryEngine(CustomQueryEngine):
    engine: Any  # rag.engine.Engine (a dataclass: pydantic is told nothing more of it)
    k: int | None = None
    filters: Filters = Filters()

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, llm: LLM | None = None,
                      k: int | None = None) -> AbstractQueryEngine:
        """With ``llm``, answers come from that LlamaIndex LLM (checked by the engine); without
        it, from the LLM the settings name, or the offline answerer."""
        _offline_tokenizer()
        chat_model = LlamaIndexChatModel(llm) if llm is not None else None
        return cls(engine=build_engine(settings or Settings(), chat_model=chat_model), k=k)

    def custom_query(self, query_str: str) -> Response:
        result = answer(self.engine, query_str, k=self.k, filters=self.filters)
        papers = self.engine.library.catalog.get_many(c.paper_id for c in result.citations)
        nodes = [self._cited(c, papers.get(c.paper_id)) for c in result.citations]
        return Response(response=result.text, source_nodes=nodes, metadata={
            "abstained": result.abstained, "route": result.route, "generator": result.generator,
            "citations": {c.key: {"label": c.label, "link": c.link} for c in result.citations}})

    @staticmethod
    def _cited(citation: Citation, paper: Paper | None) -> NodeWithScore:
        metadata = paper_metadata(paper) if paper else {"paper_id": citation.paper_id, "label": citation.label}
        node = TextNode(id_=f"{citation.paper_id}#cited-{citation.key}", text=citation.passage,
                        metadata={**metadata, "key": citation.key})
        return NodeWithScore(node=node, score=None)

    def close(self) -> None:
        self.engine.close()


class LlamaIndexChatModel:
    """A LlamaIndex ``LLM`` behind this project's ``ChatModel`` protocol."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.name = f"llm:llama-index:{getattr(llm.metadata, 'model_name', type(llm).__name__)}"

    @staticmethod
    def _messages(messages: Sequence[dict[str, str]]) -> list[ChatMessage]:
        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def complete(self, messages: Sequence[dict[str, str]], schema: dict[str, Any] | None = None) -> str:
        try:
            return self.llm.chat(self._messages(messages)).message.content or ""
        except Exception as exc:  # noqa: BLE001  any failure of the user's model is a fallback
            raise LLMError(f"{type(exc).__name__}: {exc}") from exc

    def stream(self, messages: Sequence[dict[str, str]]) -> Iterator[str]:
        try:
            for part in self.llm.stream_chat(self._messages(messages)):
                yield part.delta or ""
        except Exception as exc:  # noqa: BLE001
            raise LLMError(f"{type(exc).__name__}: {exc}") from exc
