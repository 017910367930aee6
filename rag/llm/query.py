"""LLM versions of the follow-up rewriter and the reranker. Both fall back to the rule-based
behaviour when the endpoint fails or answers with something unusable."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from rag.errors import LLMError
from rag.llm.answerer import build_sources
from rag.llm.client import ChatModel
from rag.llm.prompts import Prompt
from rag.retrieve.query import RuleRewriter
from rag.types import ScoredPaper

log = logging.getLogger(__name__)


class LLMRewriter:
    def __init__(self, model: ChatModel, prompt: Prompt) -> None:
        self.model, self.prompt, self.fallback = model, prompt, RuleRewriter()

    def rewrite(self, question: str, history: Sequence[str]) -> str:
        if not history:
            return question
        try:
            reply = self.model.complete(self.prompt.messages(
                history="\n".join(f"- {h}" for h in history), question=question))
        except LLMError as exc:
            log.warning("follow-up rewrite by LLM failed (%s); using the rule", exc)
            return self.fallback.rewrite(question, history)
        line = reply.strip().splitlines()[0].strip(' "') if reply.strip() else ""
        if not line or len(line) > 4 * len(question) + 200:
            return self.fallback.rewrite(question, history)
        return line


class LLMReranker:
    def __init__(self, model: ChatModel, prompt: Prompt) -> None:
        self.model, self.prompt = model, prompt

    def rerank(self, question: str, papers: Sequence[ScoredPaper]) -> list[ScoredPaper]:
        sources, keymap = build_sources(papers)
        try:
            reply = self.model.complete(self.prompt.messages(question=question, sources=sources))
        except LLMError as exc:
            log.warning("LLM rerank failed (%s); keeping the fused order", exc)
            return list(papers)
        order = [keymap[int(n)] for n in re.findall(r"\d+", reply) if int(n) in keymap]
        position = {pid: i for i, pid in enumerate(dict.fromkeys(order))}
        return sorted(papers, key=lambda p: position.get(p.paper.id, len(position)))
