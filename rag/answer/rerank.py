"""The cross-encoder's part in reading: it reorders the fitted reader's best candidates.

For each part of a question, the ``k`` candidates the fitted reader scores highest are read again
by the cross-encoder (question and sentence together); each gets the fitted reader's log-odds plus
``weight`` times the cross-encoder's ``answers`` score (centred over the ``k``), and the ``k`` are
put in that order. Both ``k`` and ``weight`` are fitted on dev, out of fold, by
``python -m eval.fit_rerank`` and kept in the cross-encoder's manifest; without them (or with
``answer.cross_encoder`` off) nothing is reordered.

Only the order changes: the ``k`` probabilities are handed out again in the new order, so whether
the abstracts answer (the gate, fitted on the reader's probabilities) and which papers a list
names are decided before, and exactly as, without it. The cross-encoder reads no names, so when
the question names a paper, that paper's sentences among the ``k`` and the others are reordered
each among themselves: the places the reader gave the named paper stay its own ("What results
does CompFuser report?" is never led by another paper's results sentence). ``eval.fit_rerank``
fitted ``k`` and ``weight`` without this grouping."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from rag.answer.cross_encoder import HEADS, CrossEncoder
from rag.answer.features import is_named
from rag.answer.reader import Scored


def asked(question: str, part: str, parts: int) -> str:
    """What the cross-encoder reads as the question: the whole question, or the part of one in
    several parts (its training asks the same way: eval.train_cross_encoder.pool_groups)."""
    return question if parts == 1 else part


def log_odds(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q))


def reorder(probabilities: np.ndarray, cross: np.ndarray, weight: float) -> np.ndarray:
    """``probabilities`` (the k best, any order) handed out again by the combined score."""
    combined = log_odds(probabilities) + weight * (cross - cross.mean())
    out = np.empty_like(probabilities)
    out[np.argsort(-combined, kind="stable")] = np.sort(probabilities)[::-1]
    return out


class PairScorer(Protocol):
    """Scores (question, text) pairs: one row per text, one column per head of HEADS."""

    def logits(self, question: str, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Reranker:
    encoder: PairScorer
    k: int
    weight: float

    @classmethod
    def shipped(cls, encoder: CrossEncoder) -> Reranker | None:
        """The reranker the model's manifest describes, or None when it was never fitted."""
        fitted = encoder.manifest.rerank
        if not fitted:
            return None
        return cls(encoder, int(fitted["k"]), float(fitted["weight"]))

    def apply(self, scored: Scored) -> Scored:
        intent = scored.intent
        parts = []
        for part, probs in zip(intent.parts, scored.probabilities, strict=True):
            if probs.size < 2 or self.weight == 0:
                parts.append(probs)
                continue
            top = np.argsort(-probs, kind="stable")[: self.k]
            texts = [scored.pool[i].text for i in top]
            cross = self.encoder.logits(asked(intent.question, part.text, len(intent.parts)), texts)
            new = probs.copy()
            # the sentences of a paper the question names, and the others, are each reordered
            # among themselves: the cross-encoder reads no names, the reader's place for them stays
            named = np.array([is_named(scored.pool[i].paper, intent.names) for i in top], dtype=bool)
            for group in (named, ~named):
                if group.any():
                    new[top[group]] = reorder(probs[top[group]], cross[group, HEADS.index("answers")], self.weight)
            parts.append(new)
        return replace(scored, probabilities=tuple(parts))
