"""Retrieval metrics over gold papers: pure functions of a ranked list and a gold set."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence


def recall_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Share of the gold papers found in the top k."""
    if not gold:
        return 0.0
    return len(set(ranked[:k]) & set(gold)) / len(set(gold))


def hit_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1 if any gold paper is in the top k."""
    return 1.0 if set(ranked[:k]) & set(gold) else 0.0


def mrr_at(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float:
    """Reciprocal rank of the first gold paper in the top k (0 if none)."""
    for rank, item in enumerate(ranked[:k], start=1):
        if item in gold:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float:
    """Binary-relevance nDCG: DCG of the ranking over the DCG of a perfect one."""
    gains = sum(1.0 / math.log2(rank + 1) for rank, item in enumerate(ranked[:k], start=1)
                if item in gold)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(set(gold)), k) + 1))
    return gains / ideal if ideal else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-",
                         "\u2014": "-", "\u2212": "-", "\u00d7": "x"})
_NUMBER_FORMS = (
    (re.compile(r"(?<=\d),(?=\d{3}\b)"), ""),                       # 1,000 -> 1000
    (re.compile(r"(\d)\s*(?:%|percent\b|per cent\b)"), r"\1%"),      # 35 % / 35 percent -> 35%
    (re.compile(r"(\d)\s*(?:x|times)\b"), r"\1x"),                  # 2 x / 2 times / 2× -> 2x
)


def fact_tokens(text: str) -> list[str]:
    """Lower-cased word tokens with number forms normalised: "35 %", "35 percent" -> "35%",
    "1,000" -> "1000", "2×" -> "2x"; hyphens and dashes separate words."""
    text = text.lower().translate(_DASHES)
    for pattern, repl in _NUMBER_FORMS:
        text = pattern.sub(repl, text)
    return [t.rstrip(".") for t in re.findall(r"[a-z0-9]+(?:\.[0-9]+)?%?[a-z0-9]*", text)]


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    return n > 0 and any(list(haystack[i:i + n]) == list(needle) for i in range(len(haystack) - n + 1))


def fact_covered(alternatives: Sequence[str], answer: str) -> bool:
    """Any alternative in the answer at word boundaries, ignoring case, hyphenation and number
    forms: "MoD" does not match "models", "35%" does not match "135%"."""
    tokens = fact_tokens(answer)
    return any(_contains(tokens, fact_tokens(a)) for a in alternatives)


def countable_facts(key_facts: Sequence[Sequence[str]], question: str) -> list[Sequence[str]]:
    """The facts an answer has to earn: a fact already said in the question is free, so it is
    not counted (the dataset test rejects such facts; this guards hand-made sets too)."""
    return [alts for alts in key_facts if not fact_covered(alts, question)]


def key_fact_coverage(key_facts: Sequence[Sequence[str]], answer: str,
                      question: str = "") -> float | None:
    """Share of the required facts (each a list of alternatives) that the answer states; None
    when there is no fact left to earn."""
    facts = countable_facts(key_facts, question)
    if not facts:
        return None
    return sum(fact_covered(alts, answer) for alts in facts) / len(facts)


_LEADING_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


def yes_no_correct(expected: str, answer: str) -> bool:
    """The answer opens with the expected "Yes" or "No"."""
    match = _LEADING_YES_NO.match(answer)
    return match is not None and match.group(1).lower() == expected.lower()


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD-style token F1 between an answer and the reference answer."""
    pred = re.findall(r"[a-z0-9]+", prediction.lower())
    ref = re.findall(r"[a-z0-9]+", reference.lower())
    if not pred or not ref:
        return float(pred == ref)
    common: dict[str, int] = {}
    for token in pred:
        common[token] = common.get(token, 0) + 1
    overlap = 0
    for token in ref:
        if common.get(token, 0) > 0:
            overlap += 1
            common[token] -= 1
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(pred), overlap / len(ref)
    return 2 * precision * recall / (precision + recall)


def citation_precision(cited: Sequence[str], gold: Collection[str]) -> float | None:
    """Share of the cited papers that are gold papers (None if nothing is cited)."""
    if not cited:
        return None
    return sum(1 for p in cited if p in gold) / len(cited)


def citation_recall(cited: Collection[str], gold: Collection[str]) -> float:
    """Share of the gold papers the answer cites."""
    return len(set(cited) & set(gold)) / len(set(gold)) if gold else 0.0


def is_verbatim(sentence: str, sources: Sequence[str]) -> bool:
    """The sentence is copied from one of its sources (ignoring spacing and case)."""
    needle = " ".join(sentence.lower().split()).rstrip(".")
    return any(needle in " ".join(s.lower().split()) for s in sources)


def citation_validity(valid_keys: int, invented_keys: int) -> float:
    """Keys that pointed at a real source / all keys the generator wrote (1.0 if none)."""
    total = valid_keys + invented_keys
    return valid_keys / total if total else 1.0


def abstention_scores(abstained: Sequence[bool], unanswerable: Sequence[bool]) -> dict[str, float]:
    """Precision and recall of abstaining, treating 'unanswerable' as the positive class."""
    pairs = list(zip(abstained, unanswerable, strict=True))
    tp = sum(a and u for a, u in pairs)
    fp = sum(a and not u for a, u in pairs)
    fn = sum(u and not a for a, u in pairs)
    return {"precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0}
