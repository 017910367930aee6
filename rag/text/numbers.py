"""Numbers as abstracts and answers write them: spans that can answer "how many/how much"
("69.73%", "2.5x", "1,024 GPUs", "nine times") and the values a text states ("35 %", "thirty-five
percent", "5.5B"), so figures are compared by value, not by spelling."""

from __future__ import annotations

import re

from rag.text.lexicon import STOPWORDS, alnum_words, stem

# A number as a claim states it: "69.73%", "2.5x", "1,024 GPUs", "3.5 points", "10 times",
# "1 trillion", "nine times", "six benchmarks". "one" is left out: it is mostly not a count.
SPELLED = ("two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
           "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
           "ninety hundred").split()
NUMBER = re.compile(  # a range ("350-700M", "3–5%", "2 ~ 5 times") is one figure
    r"(?<![\w.])(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?[-–~]\s?(?=\d))?"
    r"(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|(?:" + "|".join(SPELLED) + r")\b)"
    r"(?:\s(?:thousand|million|billion|trillion)\b)?"
    r"(?:\s?(?:%|×|x\b|times\b|percent\b|pp\b|percentage\s+points?\b|points?\b|[KMBT]\b|k\b|"
    r"-fold\b|fold\b))?", re.IGNORECASE)
_YEARLIKE = re.compile(r"^(?:19|20)\d\d$")


def number_spans(sentence: str, given: str = "") -> list[re.Match[str]]:
    """Numbers in a sentence that can answer "how many/how much": not years or list markers, not
    part of a name ("ResNet-50", "Top-1", "Chat-7B"), and not a figure the question ``given``
    already says."""
    said = {m.group(0).lower() for m in NUMBER.finditer(given)}
    references = [c.span() for c in _REFERENCE.finditer(sentence)]  # found once, not once per number
    return [m for m in NUMBER.finditer(sentence) if not _YEARLIKE.match(re.split(r"[-–~]\s?", m.group(0))[-1])
            and not re.search(r"[A-Za-z]-$", sentence[max(0, m.start() - 2):m.start()])
            and not _MARKER.match(sentence[max(0, m.start() - 1):m.end() + 1])
            and not any(start < m.start() < end for start, end in references)
            and m.group(0).lower() not in said]


_MARKER = re.compile(r"(?:\(|^|\s)\d{1,2}\)")  # "(3) open-source models lag", "1) ...": an item's number
# "information [11].", "as in [3, 12]", "[4-6]": a reference to the paper's bibliography, no figure
_REFERENCE = re.compile(r"\[\d{1,3}(?:\s?[,–-]\s?\d{1,3})*\]")


def counts_things(text: str, m: re.Match[str]) -> bool:
    """A whole number followed by a plural noun counts things ("three benchmarks", "12 tasks")."""
    if re.search(r"[.%]", m.group(0)):
        return False
    after = re.match(r"\s+(?:[a-z][\w-]*\s+){0,2}?([A-Za-z][\w-]*s)\b", text[m.end():])
    return after is not None and not after.group(1).lower().endswith(("ss", "us", "is"))


def could_score(text: str, m: re.Match[str]) -> bool:
    """The figure at ``m`` could be a score ("75.5%", "52.6 IEX", "0.83"): written in digits, and
    no count of things ("three benchmarks", "six languages", the "Ten" of a title)."""
    return m.group(0)[0].isdigit() and not counts_things(text, m)


def percent(span: str) -> bool:
    return "%" in span or "percent" in span


def times(span: str) -> bool:
    return bool(re.search(r"(?:×|x|times|fold)$", span, re.IGNORECASE))


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
    words = [w.lower() for w in alnum_words(text) if w.isalpha()]
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


def scaled_figures(text: str) -> dict[float, str]:
    """The figures a text gives with a scale or as a share ("360M", "7 billion", "50%"), by value,
    each with its spelling: the kind that names a variant or a setting rather than asks how many."""
    out = {}
    for m in _DIGITS.finditer(_spelled_compounds(text)):
        raw = float(m.group(1).replace(",", ""))
        if m.group(2):
            out[raw * SCALES[m.group(2).lower()]] = m.group(0).strip()
        elif m.group(0).rstrip().endswith("%"):
            out[raw] = m.group(0).strip()
    return out


def claimed_numbers(text: str) -> list[tuple[str, set[float]]]:
    """The figures a claim states, each with the values it may stand for."""
    text = _spelled_compounds(text)
    out = []
    for m in _DIGITS.finditer(text):
        raw = float(m.group(1).replace(",", ""))
        scaled = {raw * SCALES[m.group(2).lower()]} if m.group(2) else set()
        out.append((m.group(0), {raw} | scaled))
    for word in (w for w in alnum_words(text) if w.isalpha()):
        key = word.lower().removesuffix("fold")
        if key in NUMBER_WORDS:
            out.append((word, {float(NUMBER_WORDS[key])}))
    return out


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


_COUNT = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)$")
_WORD = re.compile(r"(?:\d{1,3}(?:,\d{3})+|[A-Za-z0-9][\w-]*)[,.;:]?")
_BEFORE_THE_THING = frozenset("new other more additional further".split())  # stop words, not the thing
SINGULAR_COUNTS = {"single": 1.0, "one": 1.0}  # only before the thing counted ("one of the" is not)


def _count(word: str) -> float | None:
    if _COUNT.match(word) and not _YEARLIKE.match(word):
        return float(word.replace(",", ""))
    value = NUMBER_WORDS.get(word, SINGULAR_COUNTS.get(word))
    return float(value) if value is not None and value >= 1 else None


def _singular(word: str) -> str:
    """"days" and "day", "GPUs" and "GPU" alike (stem leaves short words as they are)."""
    return stem(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)


def counts(text: str) -> dict[str, set[float]]:
    """What a text counts, by the stem of each word of the counted thing: "on a single chest X-ray
    dataset" -> {chest, x-ray, dataset: {1}}; "six datasets spanning MRI" -> {dataset, span: {6}}.
    The thing runs from the count to the next stop word, count or clause end (at most four words)."""
    words = _WORD.findall(_spelled_compounds(text))
    out: dict[str, set[float]] = {}
    for i, raw in enumerate(words):
        value = _count(raw.lower().rstrip(",.;:"))
        if value is None or raw[-1] in ",.;:":
            continue
        for following in words[i + 1 : i + 5]:
            word = following.lower().rstrip(",.;:")
            if word in _BEFORE_THE_THING:  # "two new metrics" counts metrics
                continue
            if word in STOPWORDS or _count(word) is not None or not word[0].isalpha():
                break
            out.setdefault(_singular(word), set()).add(value)
            if following[-1] in ",.;:":
                break
    return out


_BOUND = re.compile(r"(?:over|above|beyond|exceeding|under|below|than|least|most|>|<)\s*$", re.IGNORECASE)
_ABOUT = re.compile(r"(?:nearly|almost|about|around|roughly|approximately|some|~)\s*$", re.IGNORECASE)
ABOUT = 0.2  # "about 25%" holds within a fifth of 25 either way


def _shares(text: str) -> dict[float, float]:
    """The shares a text claims ("75%"), each with how far off it may be: none for a share given
    as such, a fifth of it for one given as about ("about 25%"); a bound ("over 90%") claims none."""
    out = {}
    for m in _DIGITS.finditer(text):
        if m.group(0).rstrip().endswith("%") and not _BOUND.search(text[: m.start()]):
            value = float(m.group(1).replace(",", ""))
            out[value] = ABOUT * value if _ABOUT.search(text[: m.start()]) else 0.0
    return out


def shares_differ(asked: str, stated: str) -> bool:
    """The question gives a share the sentence gives otherwise: "cut length by up to 75%" against
    "reduce lengths by up to 99%", "by about 25%" against "by 56.6%". A bound ("over 90%") is no
    such claim; a sentence with no share differs in nothing."""
    mine, theirs = _shares(asked), _shares(stated)
    return bool(mine and theirs) and not shares_agree(asked, stated)


def shares_agree(asked: str, stated: str) -> bool:
    """A share the question gives is one the sentence gives too (within "about")."""
    theirs = _shares(stated)
    return any(close(a, b) or abs(a - b) <= off for a, off in _shares(asked).items() for b in theirs)


def counts_agree(asked: str, stated: str) -> bool:
    """The sentence counts a thing the question counts, as many."""
    stated_counts = counts(stated)
    return any(close(a, b) for thing, values in counts(asked).items()
               for a in values for b in stated_counts.get(thing, ()))


def counts_differ(asked: str, stated: str) -> bool:
    """The question counts a thing the sentence also counts, and no count agrees: "a single
    dataset" against "six datasets". Different things counted, or nothing counted, differ in nothing."""
    stated_counts = counts(stated)
    for thing, values in counts(asked).items():
        other = stated_counts.get(thing)
        if other and not any(close(a, b) for a in values for b in other):
            return True
    return False


_MAGNITUDE = re.compile(
    r"(?<![A-Za-z0-9.])(?<![A-Za-z]-)(?:(\d+(?:\.\d+)?)\s?[-–]\s?)?(\d+(?:\.\d+)?)\s?(k|K|M|B|T|thousand|million|"
    r"billion|trillion)\b|\b(several|a\s+few|many|tens\s+of|hundreds\s+of)\s+(thousand|million|billion|trillion)s?\b",
    re.IGNORECASE)
_VAGUE = {"several": (2, 10), "a few": (2, 10), "many": (2, 1000), "tens of": (10, 100), "hundreds of": (100, 1000)}
_VARIANTS = frozenset({"model", "variant", "version", "checkpoint", "scale", "size", "llm", "lm"})


def magnitudes(text: str) -> dict[str, list[tuple[float, float]]]:
    """What a text gives with a scale, by the stem of each word of the thing, as ranges of values:
    "350-700M tokens" -> {token: [(3.5e8, 7e8)]}, "several billion training tokens" ->
    {train: [(2e9, 1e10)], token: [...]}. "The 6.7B model" names a variant: no amount of models."""
    out: dict[str, list[tuple[float, float]]] = {}
    for m in _MAGNITUDE.finditer(text):
        if m.group(2):
            scale = SCALES[m.group(3).lower()]
            hi = float(m.group(2)) * scale
            lo = float(m.group(1)) * scale if m.group(1) else hi
        else:
            scale = SCALES[m.group(5).lower()]
            a, b = _VAGUE[re.sub(r"\s+", " ", m.group(4).lower())]
            lo, hi = a * scale, b * scale * 0.999
        for raw in _WORD.findall(re.sub(r"^[-\s]*(?:of\s+)?", " ", text[m.end():]))[:3]:
            word = raw.lower().rstrip(",.;:")
            if word in STOPWORDS or not word[0].isalpha():
                break
            if _singular(word) in _VARIANTS:  # "the 6.7B model" names a variant, not an amount
                break
            out.setdefault(_singular(word), []).append((lo, hi))
            if raw[-1] in ",.;:":
                break
    return out


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] * 1.1 and b[0] <= a[1] * 1.1


def magnitudes_agree(asked: str, stated: str) -> bool:
    theirs = magnitudes(stated)
    return any(_overlap(a, b) for thing, ranges in magnitudes(asked).items()
               for a in ranges for b in theirs.get(thing, ()))


def magnitudes_differ(asked: str, stated: str) -> bool:
    """The question gives a scaled amount of a thing the sentence gives at another scale:
    "several billion training tokens" against "only 350-700M tokens"."""
    theirs = magnitudes(stated)
    return any(theirs.get(thing) for thing in magnitudes(asked)) and not magnitudes_agree(asked, stated)


def amounts_differ(asked: str, stated: str) -> bool:
    """A count, share or scaled amount the question gives, which the sentence gives otherwise."""
    return counts_differ(asked, stated) or shares_differ(asked, stated) or magnitudes_differ(asked, stated)


def amounts_agree(asked: str, stated: str) -> bool:
    """A count, share or scaled amount the question gives, which the sentence gives too."""
    return counts_agree(asked, stated) or shares_agree(asked, stated) or magnitudes_agree(asked, stated)
