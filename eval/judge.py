"""Optional LLM judge (RAGAS-style faithfulness and answer relevancy), only when an endpoint is
configured and asked for; its scores are labelled `judge_*` and never mixed with the
deterministic metrics."""

from __future__ import annotations

import re

from rag.errors import LLMError
from rag.llm.answerer import fence
from rag.llm.client import ChatModel
from rag.llm.prompts import Prompt
from rag.types import Answer, Paper

_SCORE = re.compile(r"(faithfulness|relevancy)\s*[=:]\s*([01](?:\.\d+)?)", re.IGNORECASE)


def judge(model: ChatModel, prompt: Prompt, result: Answer,
          papers: dict[str, Paper]) -> dict[str, float | None]:
    """{"judge_faithfulness", "judge_relevancy"}; None when the judge fails or says nothing usable."""
    cited = [papers[c.paper_id] for c in result.citations if c.paper_id in papers]
    sources = "\n\n".join(f'<abstract id="{p.id}">\n{fence(p.abstract)}\n</abstract>' for p in cited)
    empty: dict[str, float | None] = {"judge_faithfulness": None, "judge_relevancy": None}
    if result.abstained:
        return empty
    try:
        reply = model.complete(prompt.messages(question=result.question, sources=sources or "(none)",
                                               answer=result.text))
    except LLMError:
        return empty
    found = {name.lower(): float(value) for name, value in _SCORE.findall(reply)}
    return {"judge_faithfulness": found.get("faithfulness"), "judge_relevancy": found.get("relevancy")}
