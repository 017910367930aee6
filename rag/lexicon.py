"""The one lexicon of the engine: tokens, stemming, stop words, name detection and number spans.
Question parsing, sentence scoring, support checks, follow-up rewriting and the author lookup
all read words through this module, so they agree on what a word, a name and a number are."""

from __future__ import annotations

import re

TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9\-]*|\d+(?:\.\d+)?%?")

STOPWORDS = frozenset("""
a an the of in on for to and or with by from at as is are was were be been being which what who
whom whose how why when where do does did can could should would will this that these those it
its their there they them paper papers work works study studies method methods approach
approaches use uses used using about any some all most me tell show find give list propose
proposes proposed introduce introduces describe describes via than into has have had not no new
also i we our you your my he she his her such so if then both each other more much many only
one ones same whether whereas while during between over under up out yes please
""".split())

# Words that say little about *what* is asked: "How does X perform?" asks about all of X.
GENERIC_TERMS = frozenset("""do doe make made model result perform performance achieve
improve work mean main idea key contribution goal problem address solve task help differ compare
comparison difference get call name named kind type way thing something exactly actually really
report reported paper abstract author""".split())

# Acronyms that are vocabulary, not the name of one paper's method or dataset.
GENERIC_NAMES = frozenset({
    "llm", "llms", "nlp", "ai", "gpt", "gpts", "cnn", "cnns", "rnn", "rnns", "sota", "api", "apis",
    "mllm", "mllms", "vlm", "vlms", "lm", "lms", "plm", "plms", "nlg", "nlu", "qa", "rl", "kv",
    "moe", "gpu", "gpus", "cpu", "cpus", "dnn", "dnns", "gnn", "gnns", "ml", "asr", "tts", "ocr",
    "rag", "sft", "rlhf", "mt", "nmt", "ner", "pos", "iot", "3d", "2d", "1d", "4k", "8k",
})

NEGATIONS = frozenset("""not no never without cannot can't don't doesn't didn't isn't aren't wasn't
weren't fails fail unable lack lacks lacking neither nor none free""".split())


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
    return TOKEN.findall(text)


def content_terms(text: str) -> set[str]:
    """Stemmed words that carry meaning (no stop words, no single letters)."""
    return {stem(t) for t in TOKEN.findall(text) if t.lower() not in STOPWORDS and len(t) > 1}


def focus_terms(text: str) -> set[str]:
    """Content terms minus the generic ones: what a question is specifically about."""
    return content_terms(text) - {stem(w) for w in GENERIC_TERMS}


def is_name(token: str) -> bool:
    """A method, model or dataset name: inner capitals or digits ("SupReMix", "K2", "GPT-4o"),
    not a generic acronym ("LLM") and not a bare number."""
    if not token or not token[0].isalpha():
        return False
    inner_caps = any(c.isupper() for c in token[1:])
    digit = any(c.isdigit() for c in token)
    return (inner_caps or digit) and token.lower().rstrip("s") not in GENERIC_NAMES \
        and token.lower() not in GENERIC_NAMES


def names(text: str) -> list[str]:
    """The names a text says, in order, once each."""
    return list(dict.fromkeys(t.rstrip("-") for t in TOKEN.findall(text) if is_name(t.rstrip("-"))))


def rare_terms(text: str) -> set[str]:
    """Names and numbers, lower-cased: the tokens a wrong sentence most often gets wrong."""
    return {t.lower() for t in TOKEN.findall(text)
            if any(c.isdigit() for c in t) or any(c.isupper() for c in t[1:])}


def mentions(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as a whole word (case-insensitive)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w])", text, re.IGNORECASE) is not None


# A number as a claim states it: "69.73%", "2.5x", "1,024 GPUs", "3.5 points", "10 times".
NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:%|×|x\b|times\b|"
                    r"percent\b|pp\b|points?\b|[KMBT]\b|k\b))?")
_YEARLIKE = re.compile(r"^(?:19|20)\d\d$")


def number_spans(sentence: str) -> list[re.Match[str]]:
    """Numbers in a sentence that can answer "how many/how much", without years or list markers."""
    return [m for m in NUMBER.finditer(sentence) if not _YEARLIKE.match(m.group(0))]


def percent(span: str) -> bool:
    return "%" in span or "percent" in span


def times(span: str) -> bool:
    return bool(re.search(r"(?:×|x|times)$", span))
