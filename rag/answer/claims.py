"""What a claim says that its source does not. Four domain-free checks, each comparing a sentence
with the abstract (or the abstract sentence it aligns with) that it cites:

- numbers, compared by value: "35 %", "35 percent" and "thirty-five percent" agree, "1,000" is
  "1k", "5.5B" is "5.5 billion", "fivefold" is 5; a figure the source never gives is a mismatch;
- names, compared as whole words: "CIFAR-10" is not in a text that says "CIFAR-100";
- negation: the claim negates what the aligned source sentence asserts, or the other way round;
- universal and absolute wording ("every", "always", "eliminates", "fastest") the source lacks.

The word lists are general English, not phrases of particular papers, and live in the one text
toolkit (``rag.text.vocab``); figures are read by ``rag.text.numbers``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rag.text.lexicon import STOPWORDS, alnum_words, content_terms, stem, tokens
from rag.text.names import is_name
from rag.text.numbers import claimed_numbers, close, number_values
from rag.text.vocab import ABSOLUTE_GROUPS, GENERIC_NAMES, NEGATIONS, SCOPE_ENDS

# -- numbers -------------------------------------------------------------------------------------

def missing_numbers(claim: str, source: str) -> list[str]:
    """Figures in the claim whose value the source never states."""
    known = number_values(source)
    return [span for span, values in claimed_numbers(claim)
            if not any(close(v, k) for v in values for k in known)]


# -- names ---------------------------------------------------------------------------------------

def _words(text: str) -> list[str]:
    """The text's words (tokens without a trailing hyphen)."""
    return [w for w in (t.strip("-") for t in tokens(text)) if w]


def _vocabulary(text: str) -> set[str]:
    """Stems of a text's words, whole and split at hyphens ("Qwen3-style" -> qwen3, style)."""
    vocab: set[str] = set()
    for token in _words(text):
        vocab.add(stem(token))
        vocab.update(stem(p) for p in token.split("-") if p)
    return vocab


def claimed_names(claim: str) -> list[str]:
    """Names the claim relies on: tokens with inner capitals or digits ("SupReMix", "K2"), all-caps
    acronyms, and capitalised words that do not open the sentence ("London", "Finnish")."""
    out = []
    for i, token in enumerate(_words(claim)):
        if token[0].isdigit() or token.lower() in GENERIC_NAMES:
            continue  # figures are compared by value, in missing_numbers
        capitalised = token[0].isupper() and i > 0 and token.lower() not in STOPWORDS
        if is_name(token) or capitalised or (len(token) > 1 and token.isupper()):
            out.append(token)
    return list(dict.fromkeys(out))


def missing_names(claim: str, source: str) -> list[str]:
    """Names in the claim that the source does not say as a whole word. A hyphenated name is found
    when the source says it whole, or says each of its parts that is itself a name or a figure."""
    vocab = _vocabulary(source)
    missing = []
    for name in claimed_names(claim):
        if stem(name) in vocab:
            continue
        parts = [p for p in name.split("-") if p and (is_name(p) or p[0].isupper() or p.isdigit())]
        if parts and all(stem(p) in vocab for p in parts) and len(parts) < len(name.split("-")):
            continue
        missing.append(name)
    return missing


# -- negation ------------------------------------------------------------------------------------

SCOPE_WORDS = 5  # a cue negates up to this many content words after it, within its clause


def negated_terms(text: str) -> set[str]:
    """Stemmed content words that a negation governs: the first few content words after a cue,
    before the next comma or contrasting conjunction; and the stem of an "X-free" compound."""
    return _scoped(text)[1]


def _scoped(sentence: str) -> tuple[set[str], set[str]]:
    """(content words said outside any negation's scope, content words inside one)."""
    plain: set[str] = set()
    negated: set[str] = set()
    for clause in re.split(r"[,;:.()]", sentence):  # a negation's scope ends with its clause
        left = 0
        for word in tokens(clause):
            low = word.lower()
            if low in NEGATIONS or low.endswith("n't"):
                left = SCOPE_WORDS
                continue
            if low in SCOPE_ENDS:
                left = 0
                continue
            left = _take(low, left, plain, negated)
    return plain, negated


def _take(low: str, left: int, plain: set[str], negated: set[str]) -> int:
    """File one word's content terms as plain or negated; returns the negation scope left."""
    terms = content_terms(low.removesuffix("-free"))
    if low.endswith("-free"):
        negated |= terms
    elif left and terms:
        negated |= terms
        left -= 1
    else:
        plain |= terms
    return left


def _polarities(text: str) -> tuple[set[str], set[str]]:
    """(content words the text ever says un-negated, content words it ever says negated)."""
    plain: set[str] = set()
    negated: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        p, n = _scoped(sentence)
        plain |= p
        negated |= n
    return plain, negated


def polarity_mismatch(claim: str, source: str) -> bool:
    """The claim negates what the source only asserts ("does not improve" against "improves"), or
    asserts what the source only negates ("requires" against "does not require")."""
    c_plain, c_neg = _polarities(claim)
    s_plain, s_neg = _polarities(source)
    denied = (c_neg & s_plain) - s_neg  # the claim denies what the source only asserts
    asserted = (c_plain & s_neg) - s_plain  # the claim asserts what the source only denies
    return bool(denied or asserted)


# -- overreach -----------------------------------------------------------------------------------



# "each" only distributes over things the sentence names; it counts as said for "every".
_NOT_CUES = frozenset({"each"})


def overreach_cues(claim: str, source: str) -> list[str]:
    """Universal or absolute words in the claim whose group the source does not use."""
    said = {w.lower() for w in alnum_words(source)}
    words = [w.lower() for w in alnum_words(claim) if w.lower() not in _NOT_CUES]
    return [w for w in dict.fromkeys(words)
            for group in ABSOLUTE_GROUPS if w in group and not group & said]


def best_aligned(claim: str, sentences: Sequence[str], similarities: Iterable[float]) -> int:
    """The index of the source sentence the claim most resembles: shared content words
    (as a share of the claim's) and embedding similarity, equally weighted."""
    terms = content_terms(claim)
    scored = [(len(terms & content_terms(s)) / max(1, len(terms)) + float(sim), i)
              for i, (s, sim) in enumerate(zip(sentences, similarities, strict=True))]
    return max(scored)[1] if scored else -1
