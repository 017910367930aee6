"""Pure metric functions: retrieval over gold papers, key facts matched in text (word boundaries,
number forms, negation, the "near" word), the leading yes/no verdict, citations, abstention."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence

from eval.dataset import Fact
from rag.text.vocab import NEGATIONS


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
                         "\u2014": "-", "\u2212": "-", "\u00d7": "x", "\u2019": "'"})
_NUMBER_FORMS = (
    (re.compile(r"(?<=\d),(?=\d{3}\b)"), ""),                       # 1,000 -> 1000
    (re.compile(r"(\d)\s*(?:%|percent\b|per cent\b)"), r"\1%"),      # 35 % / 35 percent -> 35%
    (re.compile(r"(\d)\s*(?:x|times)\b"), r"\1x"),                  # 2 x / 2 times / 2× -> 2x
    (re.compile(r"(?<=[a-z])(?=\d+(?:\.\d+)?%)"), " "),              # "sim99%" (a lost \sim) -> "sim 99%"
)
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?%?[a-z0-9]*")
# Where a clause ends: a negation before this point does not reach a fact after it.
_CLAUSE_END = re.compile(r"[;:()\[\]]|,(?!\d)|[.!?](?:\s|$)|\*\*|\b(?:but|whereas|while|although|"
                         r"though|however|unlike)\b")
_BARE_NUMBER = re.compile(r"\d+(?:\.\d+)?")
NEGATION_WINDOW = 4  # words before a fact that a negation may stand in


def _normalise(text: str) -> str:
    text = text.lower().translate(_DASHES)
    for pattern, repl in _NUMBER_FORMS:
        text = pattern.sub(repl, text)
    return text


def fact_tokens(text: str) -> list[str]:
    """Lower-cased word tokens with number forms normalised: "35 %", "35 percent" -> "35%",
    "1,000" -> "1000", "2×" -> "2x"; hyphens and dashes separate words."""
    return [t.rstrip(".") for t in _TOKEN.findall(_normalise(text))]


def _spans(text: str) -> tuple[str, list[tuple[str, int]]]:
    norm = _normalise(text)
    return norm, [(m.group().rstrip("."), m.start()) for m in _TOKEN.finditer(norm)]


def _same(fact: str, word: str) -> bool:
    """Token equality, except that a bare number in a fact also matches that number with its
    unit ("10.0" matches "10.0%", "1.45" matches "1.45x"; "35%" still never matches "135%")."""
    return fact == word or (_BARE_NUMBER.fullmatch(fact) is not None and word in (fact + "%", fact + "x"))


def _matches(words: Sequence[str], needle: Sequence[str]) -> list[int]:
    """Indexes where the token sequence ``needle`` starts in ``words``."""
    n = len(needle)
    return [i for i in range(len(words) - n + 1)
            if n and all(_same(f, w) for f, w in zip(needle, words[i:i + n], strict=True))]


def _find(tokens: Sequence[tuple[str, int]], needle: Sequence[str]) -> list[int]:
    """Start positions (in characters) of every occurrence of the token sequence."""
    return [tokens[i][1] for i in _matches([t for t, _ in tokens], needle)]


def _negated(norm: str, start: int) -> bool:
    """A negation word (rag.text.lexicon.NEGATIONS) among the few words before ``start``, in
    the same clause: "It is not ChemAgent", "does not rely on a static tokenizer"."""
    before = norm[:start]
    ends = [m.end() for m in _CLAUSE_END.finditer(before)]
    clause = before[ends[-1]:] if ends else before
    words = re.findall(r"[a-z]+(?:'[a-z]+)?", clause)[-NEGATION_WINDOW:]
    return any(w in NEGATIONS for w in words)


def fact_covered(alternatives: Sequence[str], answer: str) -> bool:
    """Any alternative in the text at word boundaries, ignoring case, hyphenation and number
    forms: "MoD" does not match "models", "35%" does not match "135%"."""
    tokens = fact_tokens(answer)
    return any(_matches(tokens, fact_tokens(a)) for a in alternatives)


def fact_state(fact: Fact, sentence: str) -> str:
    """"stated" when an alternative is in the sentence outside a negation (and, for a fact with
    near words, the sentence says one); "negated" when it is there only under a negation;
    "wrong quantity" when the figure is there without its near word; else "missing"."""
    norm, tokens = _spans(sentence)
    starts = [s for alt in fact.any for s in _find(tokens, fact_tokens(alt))]
    if not starts:
        return "missing"
    if fact.near and not fact_covered(fact.near, sentence):
        return "wrong quantity"
    return "stated" if any(not _negated(norm, s) for s in starts) else "negated"


def countable_facts(key_facts: Sequence[Fact], question: str) -> list[Fact]:
    """The facts an answer has to earn: a fact already said in the question is free, so it is
    not counted (the dataset test rejects such facts; this guards hand-made sets too)."""
    return [f for f in key_facts if not fact_covered(f.any, question)]


_VERDICT = re.compile(r"^[\s*_#>\-\"'`]*(yes|no)\b", re.IGNORECASE)


def leading_verdict(answer: str) -> str | None:
    """"yes" or "no" when the answer opens with it ("**No**: ...", "Yes, ...", "No. ..."), else
    None: a verdict buried later in the text is not the answer's verdict."""
    match = _VERDICT.match(answer)
    return match.group(1).lower() if match else None


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
    return bool(needle) and any(needle in " ".join(s.lower().split()) for s in sources)


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
