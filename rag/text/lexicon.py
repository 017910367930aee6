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
weren't fails fail failed unable lack lacks lacking neither nor none free""".split())
# Words that deny a change or a need: "keeps the weights frozen" answers "does it change them?".
DENIALS = frozenset("""frozen freeze freezing fixed unchanged intact untouched eliminates eliminate
eliminating avoids avoid avoiding instead rather decouple decouples decoupled decoupling
independent independently""".split())


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


def _core(token: str) -> str:
    """A name without the common words hyphenated onto it: "MAE-pretrained" -> "MAE",
    "BERT-style" -> "BERT"; "ViT-L", "GPT-4o" and "Bison-Gecko" stay whole."""
    pieces = token.rstrip("-").split("-")
    kept = [p for p in pieces if not (p.isalpha() and p.islower() and len(p) > 2)]
    return "-".join(kept) if kept else ""


def names(text: str) -> list[str]:
    """The names a text says, in order, once each ("top-1" and "layer-12" are not names)."""
    found = (_core(t) for t in TOKEN.findall(text) if not re.fullmatch(r"[a-z]+-\d+", t))
    return list(dict.fromkeys(t for t in found if is_name(t)))


def is_coined(name: str) -> bool:
    """A coined method name ("SupReMix", "Zorblax7", "K2", "GPT-4o"), as opposed to an all-caps
    acronym ("DNA", "GLUE", "OOP") that is as likely ordinary vocabulary."""
    letters = [c for c in name if c.isalpha()]
    return any(c.isdigit() for c in name) or (any(c.islower() for c in letters)
                                              and any(c.isupper() for c in letters[1:]))


def rare_terms(text: str) -> set[str]:
    """Names and numbers, lower-cased: the tokens a wrong sentence most often gets wrong."""
    return {t.lower() for t in TOKEN.findall(text)
            if any(c.isdigit() for c in t) or any(c.isupper() for c in t[1:])}


def mentions(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as a whole word (case-insensitive)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w])", text, re.IGNORECASE) is not None


# A number as a claim states it: "69.73%", "2.5x", "1,024 GPUs", "3.5 points", "10 times",
# "1 trillion", "nine times", "six benchmarks". "one" is left out: it is mostly not a count.
SPELLED = ("two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
           "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
           "ninety hundred").split()
NUMBER = re.compile(
    r"(?<![\w.])(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|(?:" + "|".join(SPELLED) + r")\b)"
    r"(?:\s(?:thousand|million|billion|trillion)\b)?"
    r"(?:\s?(?:%|×|x\b|times\b|percent\b|pp\b|percentage\s+points?\b|points?\b|[KMBT]\b|k\b|"
    r"-fold\b|fold\b))?", re.IGNORECASE)
_YEARLIKE = re.compile(r"^(?:19|20)\d\d$")


def number_spans(sentence: str, given: str = "") -> list[re.Match[str]]:
    """Numbers in a sentence that can answer "how many/how much": not years or list markers, not
    part of a name ("ResNet-50", "Top-1", "Chat-7B"), and not a figure the question ``given``
    already says."""
    said = {m.group(0).lower() for m in NUMBER.finditer(given)}
    return [m for m in NUMBER.finditer(sentence) if not _YEARLIKE.match(m.group(0))
            and not re.search(r"[A-Za-z]-$", sentence[max(0, m.start() - 2):m.start()])
            and m.group(0).lower() not in said]


def percent(span: str) -> bool:
    return "%" in span or "percent" in span


def times(span: str) -> bool:
    return bool(re.search(r"(?:×|x|times|fold)$", span, re.IGNORECASE))


def capitalised_terms(text: str) -> list[str]:
    """Capitalised words that do not open a sentence and are not stop words or generic acronyms:
    candidates for names the lexicon cannot recognise by shape ("Quillformer", "Criteo")."""
    out = []
    for match in re.finditer(r"(?<![\w\-.])([A-Z][a-z][A-Za-z0-9\-]{2,})", text):
        before = text[: match.start()].rstrip()
        if not before or before[-1] in ".?!:;\"'(":
            continue
        word = match.group(1).rstrip("-")
        if word.lower() in STOPWORDS or word.lower() in GENERIC_NAMES or is_name(word):
            continue
        out.append(word)
    return list(dict.fromkeys(out))
