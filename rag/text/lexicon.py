"""The words of the one text toolkit: the tokenizer, the stop words, the stemmer, content and
focus terms. Question parsing, sentence scoring, support checks, follow-up rewriting, keyword
search and the author lookup all read words through this module (names in ``names``, numbers in
``numbers``, word lists in ``vocab``), so they agree on what a word is.

Two ways to cut text into words, each for its own use:
- ``tokens``: words as a reader sees them, hyphenated compounds whole ("KV-cache", "GPT-4o"),
  negative contractions whole ("doesn't"), numbers with their decimals and "%";
- ``alnum_words``: runs of letters and digits of any script, as SQLite FTS5's unicode61 tokenizer
  cuts them, for the keyword index, content keys and author names.

One stemmer, ``stem``: a light suffix strip ("negatives" -> "negative", "compresses" ->
"compress"). The keyword index stems with FTS5's Porter stemmer inside SQLite; nothing else
stems."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# a word opens with a letter of any script ("Sámi", "Ωμέγα"), as FTS5's unicode61 reads letters
TOKEN = re.compile(r"[^\W\d_](?:[^\W_]|-)*(?:'t)?|\d+(?:\.\d+)?%?")
ALNUM = re.compile(r"[^\W_]+")
# letters and digits of any script; a character of a script written without spaces (Chinese,
# Japanese, Korean, Thai) is a word of its own
_IDEOGRAPH = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
WORDS_ANY_SCRIPT = re.compile(rf"[{_IDEOGRAPH}]|[^\W_{_IDEOGRAPH}]+")
_RUN = re.compile(rf"[{_IDEOGRAPH}]+")
_RUN_OR_REST = re.compile(rf"[{_IDEOGRAPH}]+|[^{_IDEOGRAPH}]+")
_BETWEEN = re.compile(rf"(?<=[{_IDEOGRAPH}])(?=[{_IDEOGRAPH}])")

STOPWORDS = frozenset("""
a an the of in on for to and or with by from at as is are was were be been being which what who
whom whose how why when where do does did can could should would will this that these those it
its their there they them paper papers work works study studies studied method methods approach
approaches use uses used using about any some all most me tell show find give list explain propose
proposes proposed introduce introduces describe describes via than into has have had not no new
also i we our you your my he she his her such so if then both each other more much many only
one ones same whether whereas while during between over under up out yes please
cannot can't don't doesn't didn't isn't aren't wasn't weren't won't
""".split())

# Words that say little about *what* is asked: "How does X perform?" asks about all of X.
GENERIC_TERMS = frozenset("""do doe make made model result perform performance achieve
improve work mean main idea key contribution goal problem address solve task help differ compare
comparison difference get call name named kind type way thing something exactly actually really
report reported paper abstract author find finding conclusion conclude takeaway summarize summarise
summary summaries overview""".split())


@lru_cache(maxsize=1 << 16)  # called for every word of every candidate sentence, per question
def stem(word: str) -> str:
    """A light suffix strip so that "negatives" meets "negative" and "compresses" "compress"."""
    word = word.lower()
    if word.endswith("ies") and len(word) > 5:
        word = word[:-3] + "y"
    elif word.endswith("es") and len(word) > 5 and word[-3] in "sxz":
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 4:
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    """A run of a script written without spaces counts as its overlapping character pairs
    ("机器学习" -> "机器", "器学", "学习"), as the keyword index reads it (``spaced``)."""
    out = TOKEN.findall(text)
    if not _RUN.search(text):
        return out
    return [p for t in out for p in (pairs(t) if _RUN.search(t) else (t,))]


def word_count(text: str) -> int:
    """Words as a reader counts them: those between spaces, where a character of a script written
    without spaces counts as one ("该方法将计算量降低了一半" is twelve)."""
    return len(spaced(text).split())


def spaced(text: str) -> str:
    """The text with a space between two characters of a script written without spaces, so that
    the keyword index (FTS5's unicode61, which cuts at spaces and punctuation) holds each
    character as a word; any other text is returned as it is."""
    return _BETWEEN.sub(" ", text)


def pairs(word: str) -> list[str]:
    """A word's runs of such characters as overlapping pairs (one character alone stays one);
    the rest of the word stays whole."""
    out = []
    for piece in _RUN_OR_REST.findall(word):
        if _RUN.fullmatch(piece):
            out += [piece[i: i + 2] for i in range(max(1, len(piece) - 1))]
        else:
            out.append(piece)
    return out


def alnum_words(text: str) -> list[str]:
    return ALNUM.findall(text)


def words_any_script(text: str) -> list[str]:
    """Words of any script, case-folded and in Unicode's compatibility form (for content keys
    and near-duplicate shingles: "Ωμέγα" is a word, "ＡＢＣ" is "abc")."""
    return WORDS_ANY_SCRIPT.findall(unicodedata.normalize("NFKC", text).casefold())


def content_terms(text: str) -> set[str]:
    """Stemmed words that carry meaning (no stop words, no single letters)."""
    return {stem(t) for t in tokens(text) if t.lower() not in STOPWORDS and len(t) > 1}


def focus_terms(text: str) -> set[str]:
    """Content terms minus the generic ones: what a question is specifically about."""
    return content_terms(text) - {stem(w) for w in GENERIC_TERMS}


def mentions(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as a whole word (case-insensitive)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w])", text, re.IGNORECASE) is not None
