"""Pure metric functions: retrieval over gold papers, key facts matched in text (word boundaries,
number forms, negation, the "near" word), the leading yes/no verdict, citations, abstention."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence

from eval.dataset import Fact
from rag.text.lexicon import stem, tokens
from rag.text.vocab import CONTRASTS, DENYING_PHRASES, FORWARD_NEGATIONS, NEGATIONS, SCOPE_ENDS


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
# Where a clause ends: punctuation, bold markup, and the toolkit's scope-ending and contrast
# words (rag/text/vocab.py): a negation in one clause does not reach a fact in the next.
_CLAUSE_END = re.compile(r"[;:()\[\]]|,(?!\d)|[.!?](?:\s|$)|\*\*|\s[-\u2013\u2014]\s|\b(?:"
                         + "|".join(sorted(SCOPE_ENDS | CONTRASTS)) + r")\b")
# Where a role's reach ends: a clause, but a role may sit in brackets beside its thing.
_ROLE_END = re.compile(_CLAUSE_END.pattern.replace(r"[;:()\[\]]", "[;:]", 1))
# Where a measure's reach ends: commas and "and" do not end it, so that "precision, recall and
# F1 of 98.4, 97.0 and 97.7" gives 97.7 its F1 (the toolkit's scope ends less "and", contrasts).
_NEAR_END = re.compile(r"[;:]|[.!?](?:\s|$)|\*\*|\s[-\u2013\u2014]\s|\b(?:"
                       + "|".join(sorted((SCOPE_ENDS - {"and"}) | CONTRASTS)) + r")\b")
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_BARE_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _normalise(text: str) -> str:
    text = text.lower().translate(_DASHES)
    for pattern, repl in _NUMBER_FORMS:
        text = pattern.sub(repl, text)
    return text


def fact_tokens(text: str) -> list[str]:
    """Lower-cased word tokens with number forms normalised: "35 %", "35 percent" -> "35%",
    "1,000" -> "1000", "2×" -> "2x"; hyphens and dashes separate words."""
    return [t.rstrip(".") for t in _TOKEN.findall(_normalise(text))]


def _spans(text: str) -> tuple[str, list[tuple[str, int, int]]]:
    norm = _normalise(text)
    return norm, [(m.group().rstrip("."), m.start(), m.end()) for m in _TOKEN.finditer(norm)]


def _same(fact: str, word: str) -> bool:
    """Token equality, except that a bare number in a fact also matches that number with its
    unit ("10.0" matches "10.0%", "1.45" matches "1.45x"; "35%" still never matches "135%")."""
    return fact == word or (_BARE_NUMBER.fullmatch(fact) is not None and word in (fact + "%", fact + "x"))


def _matches(words: Sequence[str], needle: Sequence[str]) -> list[int]:
    """Indexes where the token sequence ``needle`` starts in ``words``."""
    n = len(needle)
    return [i for i in range(len(words) - n + 1)
            if n and all(_same(f, w) for f, w in zip(needle, words[i:i + n], strict=True))]


def _find(tokens: Sequence[tuple[str, int, int]], needle: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) in characters of every occurrence of the token sequence."""
    words = [t for t, _, _ in tokens]
    return [(tokens[i][1], tokens[i + len(needle) - 1][2]) for i in _matches(words, needle)]


def _clause(norm: str, start: int, end: int, ends: re.Pattern[str] = _CLAUSE_END) -> tuple[int, int, str]:
    """The clause around norm[start:end]: its bounds, and the word that opened it (a contrast
    such as "unlike" opens a clause whose content it sets apart)."""
    before = list(ends.finditer(norm, 0, start))
    after = ends.search(norm, end)
    opener = before[-1].group().strip() if before else ""
    return (before[-1].end() if before else 0), (after.start() if after else len(norm)), opener


def _words(text: str) -> list[str]:
    return [w.lower() for w in tokens(text) if w[0].isalpha()]


def denied(norm: str, start: int, end: int, asked: Collection[str] = frozenset()) -> bool:
    """The fact at norm[start:end] is denied in its clause: a negation anywhere in it, before
    or after the fact ("it is not X", "X is not used"; after it, not one that governs only what
    follows it: "X identifies the model without training"); a contrast that opens its clause
    ("avoids X", "instead of X", "rather than X", "unlike X"); "it is false that X"; or "X-free".
    Words of the toolkit's lists (rag/text/vocab.py); a cue the question itself says ("Which
    method works without labels?") denies nothing."""
    low, high, opener = _clause(norm, start, end)
    if opener in CONTRASTS and opener not in asked:
        return True
    ahead, behind = _words(norm[low:start]), _words(norm[end:high])
    if any(w in NEGATIONS for w in ahead if w not in asked):
        return True
    if any(w in NEGATIONS and w not in FORWARD_NEGATIONS for w in behind if w not in asked):
        return True
    said = " ".join(ahead)
    return any(phrase in said for phrase in DENYING_PHRASES) or norm[end:end + 5] == "-free"


def _sits_with(norm: str, start: int, end: int, words: Sequence[str], ends: re.Pattern[str]) -> bool:
    """One of ``words`` (compared stemmed: "hard negatives" says "hard negative") is within the
    reach (``ends``) of the fact at norm[start:end]."""
    if ends is _ROLE_END:  # an aside in brackets does not part a thing from its role
        norm = _BRACKETED.sub(lambda m: m.group() if m.start() <= start < m.end() else " " * len(m.group()), norm)
    low, high, _ = _clause(norm, start, end, ends)
    said = [stem(t) for t in fact_tokens(norm[low:high])]
    return any(_matches(said, [stem(t) for t in fact_tokens(w)]) for w in words)


def fact_covered(alternatives: Sequence[str], answer: str) -> bool:
    """Any alternative in the text at word boundaries, ignoring case, hyphenation and number
    forms: "MoD" does not match "models", "35%" does not match "135%"."""
    tokens = fact_tokens(answer)
    return any(_matches(tokens, fact_tokens(a)) for a in alternatives)


def fact_state(fact: Fact, sentence: str, asked: Collection[str] = frozenset(), limit: int | None = None) -> str:
    """"stated" when an alternative is in the sentence, not denied in its clause, with its role
    in that clause and its near word (the measure) in its part of the sentence; "negated" when it is there only denied;
    "wrong quantity" when it is there without its near word or role; else "missing". ``limit``:
    only an occurrence that ends within the sentence's first ``limit`` characters counts (the answer's
    lead); ``asked``: the question's words (see ``denied``)."""
    norm, spans = _spans(sentence)
    bound = len(norm) if limit is None else len(_normalise(sentence[:limit]))
    found = [(a, b) for alt in fact.any for a, b in _find(spans, fact_tokens(alt)) if b <= bound]
    if not found:
        return "missing"
    states = set()
    for a, b in found:
        if denied(norm, a, b, asked):
            states.add("negated")
        elif any(group and not _sits_with(norm, a, b, group, ends)
                 for group, ends in ((fact.near, _NEAR_END), (fact.role, _ROLE_END))):
            states.add("wrong quantity")
        else:
            return "stated"
    return "negated" if "negated" in states else "wrong quantity"


def countable_facts(key_facts: Sequence[Fact], question: str) -> list[Fact]:
    """The facts an answer has to earn: a fact already said in the question is free, so it is
    not counted (the dataset test rejects such facts; this guards hand-made sets too)."""
    return [f for f in key_facts if not fact_covered(f.any, question)]


# "Yes" or "No" standing alone: followed by punctuation, closing markup, a spaced dash or the end.
_VERDICT = re.compile(r"^[\s*_#>\-\"'`]*(yes|no)(?=\*\*|\s*[,.:;!?)]|\s+[-\u2013\u2014]\s|\s*$)", re.IGNORECASE)


def leading_verdict(answer: str) -> str | None:
    """"yes" or "no" when the answer's first sentence is that verdict ("**No**: ...", "Yes, ...",
    "No. ..."), else None: a verdict buried later is not the answer's verdict, and an opening
    word that only looks like one ("No doubt, it does", "Not only", "Yes-man") is none."""
    match = _VERDICT.match(answer)
    return match.group(1).lower() if match else None


def answer_words(text: str) -> int:
    """Words a reader reads: whitespace-separated pieces with a letter or digit, citation keys
    ("[1]", "[1, 2]") left out."""
    return sum(1 for w in text.split() if any(c.isalnum() for c in w) and not _KEY.fullmatch(w.strip(".,;:")))


def within_words(text: str, count: int) -> int | None:
    """The character offset where ``text``'s first ``count`` words (see ``words``) end; None when
    it has no more than that."""
    if count <= 0:
        return 0
    seen = 0
    for match in re.finditer(r"\S+", text):
        piece = match.group()
        if any(c.isalnum() for c in piece) and not _KEY.fullmatch(piece.strip(".,;:")):
            seen += 1
            if seen == count:
                return match.end() if count else 0
    return None


_KEY = re.compile(r"(?:\[\d+(?:\s*,\s*\d+)*\])+")


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
