"""The optional judge, apart from the engine's own support checker: a chat model (by default
the local Qwen that `rag local-llm` serves) labels each answer sentence SUPPORTED or
UNSUPPORTED against the passage it cites. Its prompts are short (the cited abstracts' few
sentences nearest the claim) because a 1.5B model on two cores reads about 45 tokens a second.
Before its rate is trusted, `rag eval judge-agreement` measures it on the labelled pairs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rag.errors import LLMError
from rag.llm.answerer import fence
from rag.llm.client import ChatModel
from rag.llm.prompts import Prompt
from rag.settings import LLMSettings
from rag.text.clean import split_sentences
from rag.text.lexicon import content_terms
from rag.types import Paper

LOCAL_JUDGE = LLMSettings(base_url="http://127.0.0.1:8080/v1", model="qwen", timeout=300,
                          max_tokens=16, retries=1, breaker_seconds=0)
_LABEL = re.compile(r"\b(UNSUPPORTED|NOT\s+SUPPORTED|SUPPORTED)\b", re.IGNORECASE)


def passage_for(claim: str, papers: Sequence[Paper], most: int = 3) -> str:
    """The cited abstracts' sentences sharing most content words with the claim (at most
    ``most``, in their own order): enough to judge one sentence, short enough for a small model."""
    wanted = content_terms(claim)
    found = [(len(wanted & content_terms(s)), i, j, s) for i, p in enumerate(papers)
             for j, s in enumerate(split_sentences(p.text))]
    best = sorted(sorted(found, key=lambda t: -t[0])[:most], key=lambda t: (t[1], t[2]))
    return fence(" ".join(s for *_, s in best))


def parse_label(reply: str) -> bool | None:
    """True for SUPPORTED, False for UNSUPPORTED / NOT SUPPORTED, None when it says neither."""
    match = _LABEL.search(reply)
    if not match:
        return None
    return match.group(1).upper() == "SUPPORTED"


@dataclass
class Judge:
    model: ChatModel
    prompt: Prompt
    calls: int = 0

    def label(self, claim: str, papers: Sequence[Paper]) -> bool | None:
        """The judge's label for one claim against its cited papers (None: no usable reply)."""
        if not papers:
            return False
        self.calls += 1
        try:
            reply = self.model.complete(self.prompt.messages(passage=passage_for(claim, papers),
                                                             claim=fence(claim)))
        except LLMError:
            return None
        return parse_label(reply)

    def rate(self, claims: Sequence[tuple[str, Sequence[str]]],
             catalogue: Mapping[str, Paper]) -> tuple[float | None, list[bool | None]]:
        """(share of the labelled claims the judge calls supported, each claim's label)."""
        labels = [self.label(text, [catalogue[p] for p in papers if p in catalogue])
                  for text, papers in claims]
        known = [x for x in labels if x is not None]
        return (sum(known) / len(known) if known else None), labels


def agreement(pairs: Sequence[tuple[bool, bool | None]]) -> dict[str, float]:
    """How a judge's labels agree with the truth, over (truth, label) pairs: accuracy, Cohen's
    kappa, and precision / recall of "unsupported" (a reply with no label counts as wrong)."""
    n = len(pairs)
    right = sum(label is truth for truth, label in pairs)
    said_no = [truth for truth, label in pairs if label is False]
    truly_no = sum(not truth for truth, _ in pairs)
    p_yes_truth = sum(truth for truth, _ in pairs) / n if n else 0.0
    p_yes_judge = sum(label is True for _, label in pairs) / n if n else 0.0
    p_no_judge = sum(label is False for _, label in pairs) / n if n else 0.0
    chance = p_yes_truth * p_yes_judge + (1 - p_yes_truth) * p_no_judge
    accuracy = right / n if n else 0.0
    return {"pairs": n, "accuracy": accuracy,
            "kappa": (accuracy - chance) / (1 - chance) if chance < 1 else 0.0,
            "unsupported_precision": sum(not t for t in said_no) / len(said_no) if said_no else 0.0,
            "unsupported_recall": sum(not t for t in said_no) / truly_no if truly_no else 0.0,
            "no_label": sum(label is None for _, label in pairs)}
