"""What a claim says that its source does not. Four domain-free checks, each comparing a sentence
with the abstract (or the abstract sentence it aligns with) that it cites:

- numbers, compared by value: "35 %", "35 percent" and "thirty-five percent" agree, "1,000" is
  "1k", "5.5B" is "5.5 billion", "fivefold" is 5; a figure the source never gives is a mismatch;
- names, compared as whole words: "CIFAR-10" is not in a text that says "CIFAR-100";
- negation: the claim negates what the aligned source sentence asserts, or the other way round;
- universal and absolute wording ("every", "always", "eliminates", "fastest") the source lacks.

The word lists are general English, not phrases of particular papers. (They belong in
``rag.text.lexicon`` once the answering modules share them.)"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rag.text.lexicon import GENERIC_NAMES, STOPWORDS, content_terms, is_name, stem

# -- numbers -------------------------------------------------------------------------------------

# "one" is left out: it is a pronoun ("one of the", "only one model") far more often than a count.
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "twice": 2, "double": 2, "doubles": 2, "doubling": 2,
    "triple": 3, "half": 0.5, "dozen": 12,
}
# How a source may say "two" without the word: a claim's "two sentences" for its "sentence pair".
SOURCE_TWOS = frozenset("pair pairs both dual twin twofold".split())
SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9,
          "t": 1e12, "trillion": 1e12}
# A figure written with digits, not glued to a name ("ResNet34", "GPT-4", "CIFAR-100" are names).
_DIGITS = re.compile(r"(?<![A-Za-z0-9.])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
                     r"(?:\s?(k|K|M|B|T|thousand|million|billion|trillion)\b)?(?:\s?%)?")
_WORD = re.compile(r"[A-Za-z]+")
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9}
_COMPOUND = re.compile(rf"\b({'|'.join(_TENS)})[- ]({'|'.join(_UNITS)})\b", re.IGNORECASE)


def _spelled_compounds(text: str) -> str:
    """"thirty-five" -> "35", so that it is read as one figure."""
    return _COMPOUND.sub(lambda m: str(_TENS[m[1].lower()] + _UNITS[m[2].lower()]), text)


def number_values(text: str) -> set[float]:
    """Every figure a text states, as values: digits with their scale, and number words."""
    text = _spelled_compounds(text)
    values: set[float] = set()
    for m in _DIGITS.finditer(text):
        raw = float(m.group(1).replace(",", ""))
        values.add(raw)
        if m.group(2):
            values.add(raw * SCALES[m.group(2).lower()])
    words = [w.lower() for w in _WORD.findall(text)]
    if SOURCE_TWOS & set(words):
        values.add(2.0)
    for i, word in enumerate(words):
        word = word.removesuffix("fold")
        if word in NUMBER_WORDS:
            value = float(NUMBER_WORDS[word])
            values.add(value)
            if i + 1 < len(words) and words[i + 1] in SCALES:
                values.add(value * SCALES[words[i + 1]])
    return values


def claimed_numbers(text: str) -> list[tuple[str, set[float]]]:
    """The figures a claim states, each with the values it may stand for."""
    text = _spelled_compounds(text)
    out = []
    for m in _DIGITS.finditer(text):
        raw = float(m.group(1).replace(",", ""))
        scaled = {raw * SCALES[m.group(2).lower()]} if m.group(2) else set()
        out.append((m.group(0), {raw} | scaled))
    for word in _WORD.findall(text):
        key = word.lower().removesuffix("fold")
        if key in NUMBER_WORDS:
            out.append((word, {float(NUMBER_WORDS[key])}))
    return out


def missing_numbers(claim: str, source: str) -> list[str]:
    """Figures in the claim whose value the source never states."""
    known = number_values(source)
    return [span for span, values in claimed_numbers(claim)
            if not any(_close(v, k) for v in values for k in known)]


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


# -- names ---------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z0-9]")


def _forms(token: str) -> set[str]:
    t = token.lower()
    return {t, t.removesuffix("s"), t.removesuffix("es"), t + "s"}


def _vocabulary(text: str) -> set[str]:
    """Lower-cased words of a text, whole and split at hyphens ("Qwen3-style" -> qwen3, style)."""
    vocab: set[str] = set()
    for token in _TOKEN.findall(text):
        low = token.lower()
        vocab.add(low)
        vocab.update(p for p in low.split("-") if p)
    return vocab


def claimed_names(claim: str) -> list[str]:
    """Names the claim relies on: tokens with inner capitals or digits ("SupReMix", "K2"), all-caps
    acronyms, and capitalised words that do not open the sentence ("London", "Finnish")."""
    tokens = _TOKEN.findall(claim)
    out = []
    for i, token in enumerate(tokens):
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
        if _forms(name) & vocab:
            continue
        parts = [p for p in name.split("-") if p and (is_name(p) or p[0].isupper() or p.isdigit())]
        if parts and all(_forms(p) & vocab for p in parts) and len(parts) < len(name.split("-")):
            continue
        missing.append(name)
    return missing


# -- negation ------------------------------------------------------------------------------------

NEGATION_CUES = frozenset("""not no never none nothing nowhere neither nor without cannot
can't don't doesn't didn't isn't aren't wasn't weren't won't wouldn't couldn't shouldn't fail fails
failed failing unable lack lacks lacking rarely seldom hardly barely""".split())
_SCOPE_END = frozenset("but while whereas although though however yet and".split())
SCOPE_WORDS = 5  # a cue negates up to this many content words after it, within its clause
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9'\-]*|[,;:.()]")


def negated_terms(text: str) -> set[str]:
    """Stemmed content words that a negation governs: the first few content words after a cue,
    before the next comma or contrasting conjunction; and the stem of an "X-free" compound."""
    return _scoped(text)[1]


def _scoped(sentence: str) -> tuple[set[str], set[str]]:
    """(content words said outside any negation's scope, content words inside one)."""
    plain: set[str] = set()
    negated: set[str] = set()
    left = 0
    for word in _WORDS.findall(sentence):
        low = word.lower()
        if low in NEGATION_CUES or low.endswith("n't"):
            left = SCOPE_WORDS
            continue
        if low in ",;:.()" or low in _SCOPE_END:
            left = 0
            continue
        terms = content_terms(low.removesuffix("-free"))
        if low.endswith("-free"):
            negated |= terms
        elif left and terms:
            negated |= terms
            left -= 1
        else:
            plain |= terms
    return plain, negated


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

# Words that make a claim universal or absolute; a group counts as said when any member is.
OVERREACH_GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "every each", "all", "any whatever whichever", "always invariably", "never",
    "eliminate eliminates eliminated eliminating", "solve solves solved solving",
    "completely entirely fully totally wholly", "perfect perfectly flawless flawlessly",
    "guarantee guarantees guaranteed", "prove proves proved proven", "universal universally",
    "cause causes caused causing because", "exact exactly",
    "best fastest largest highest lowest smallest strongest greatest", "sole solely exclusively",
))


# "each" only distributes over things the sentence names; it counts as said for "every".
_NOT_CUES = frozenset({"each"})


def overreach_cues(claim: str, source: str) -> list[str]:
    """Universal or absolute words in the claim whose group the source does not use."""
    said = {w.lower() for w in _WORD.findall(source)}
    words = [w.lower() for w in _WORD.findall(claim) if w.lower() not in _NOT_CUES]
    return [w for w in dict.fromkeys(words)
            for group in OVERREACH_GROUPS if w in group and not group & said]


def best_aligned(claim: str, sentences: Sequence[str], similarities: Iterable[float]) -> int:
    """The index of the source sentence the claim most resembles: shared content words
    (as a share of the claim's) and embedding similarity, equally weighted."""
    terms = content_terms(claim)
    scored = [(len(terms & content_terms(s)) / max(1, len(terms)) + float(sim), i)
              for i, (s, sim) in enumerate(zip(sentences, similarities, strict=True))]
    return max(scored)[1] if scored else -1


__all__ = ["NEGATION_CUES", "NUMBER_WORDS", "OVERREACH_GROUPS", "best_aligned", "claimed_names",
           "claimed_numbers", "missing_names", "missing_numbers", "negated_terms", "number_values",
           "overreach_cues", "polarity_mismatch", "stem"]
