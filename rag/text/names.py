"""Names of methods, models and datasets as abstracts and questions write them: by shape
("SupReMix", "K2", "GPT-4o"; not a generic acronym like "LLM"), the name an abstract introduces
("we propose X", "named X"), and a pattern that finds a name however it is hyphenated."""

from __future__ import annotations

import re

from rag.text.lexicon import STOPWORDS, TOKEN
from rag.text.vocab import GENERIC_NAMES

# letters of any script: a name may be "Ümlaut-Net" or "Ωμέγα-2" ("[^\W_]": a letter or digit)
_UPPER = "A-Z" + "".join(re.escape(c) for c in map(chr, range(0x80, 0x2000)) if c.isupper())
_LOWER = "a-z" + "".join(re.escape(c) for c in map(chr, range(0x80, 0x2000)) if c.islower())
_CAPITALISED = re.compile(r"(?<![\w\-.])([" + _UPPER + "][" + _LOWER + r"](?:[^\W_]|-){2,})")
_NOTHING = re.compile(r"(?!)")  # the pattern of a name with no letter or digit


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


# a name's own token: a version or size after a point ("Qwen2-1.5B", "GPT-4.5") and a "+" that
# ends a word ("Rodimus+-1.6B", "C++") belong to it; "GPT+RAG" is two names
_PART = r"(?:[^\W_]|-|\+(?![^\W_]))"
_NAME_TOKEN = re.compile(rf"[^\W\d_]{_PART}*(?:\.\d+{_PART}*)*")


def names(text: str) -> list[str]:
    """The names a text says, in order, once each ("top-1" and "layer-12" are not names)."""
    found = (_core(t) for t in _NAME_TOKEN.findall(text) if not re.fullmatch(r"[a-z]+-\d+", t))
    return list(dict.fromkeys(t for t in found if is_name(t)))


def family_members(text: str, name: str) -> bool:
    """Each capitalised part of a hyphenated name is written as a member of one family, after the
    same family name and a hyphen: "Bison-Gecko" of "PaLM2-Bison and PaLM2-Gecko"."""
    parts = name.split("-")
    if len(parts) < 2 or not all(len(w) > 2 and w[0].isupper() and w.isalpha() for w in parts):
        return False
    families = [set(re.findall(rf"(?<![\w-])([A-Za-z][\w.]*)-{re.escape(w)}(?![\w-])", text)) for w in parts]
    return bool(set.intersection(*families))


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


def capitalised_terms(text: str) -> list[str]:
    """Capitalised words that do not open a sentence and are not stop words or generic acronyms:
    candidates for names the lexicon cannot recognise by shape ("Quillformer", "Criteo")."""
    out = []
    for match in _CAPITALISED.finditer(text):
        before = text[: match.start()].rstrip()
        if not before or before[-1] in ".?!:;\"'(":
            continue
        word = match.group(1).rstrip("-")
        if word.lower() in STOPWORDS or word.lower() in GENERIC_NAMES or is_name(word):
            continue
        out.append(word)
    return list(dict.fromkeys(out))


def name_pattern(name: str) -> re.Pattern[str]:
    """"LLaMA-7B" also matches "LLaMA 7B" and "llama7b", "Rodimus+-1.6B" "Rodimus+ 1.6B";
    always at word boundaries."""
    pieces = re.findall(r"[^\W\d_]+|\d+(?:\.\d+)?", name)
    if not pieces:
        return _NOTHING
    return re.compile(r"(?<![^\W_])" + r"\+?[\s\-_]?".join(map(re.escape, pieces)) + r"(?![^\W_])",
                      re.IGNORECASE)


_NAME = "([" + _UPPER + r"][^\W_]*(?:[-‑][^\W_]+)*)"
_INTRO_PATTERNS = (
    re.compile(r"\b(?:named|called|dubbed|termed|coined|codenamed)\s+[\"“']?" + _NAME),
    re.compile(
        r"\b(?:[Ww]e|[Tt]his (?:paper|work|study))\s+(?:also\s+|further\s+)?(?:propose|present|"
        r"introduce|release|develop|design|build|construct|curate|offer)s?\s+(?:the\s+|a\s+|an\s+)?"
        + _NAME
    ),
    re.compile(
        r"\b(?:propose|present|introduce|develop|design)s?\b[^.]{0,120}?\(([" + _UPPER + r"](?:[^\W_]|-)*)\)"
    ),
    re.compile(r"\b(?:propose|present|introduce)s?\b[^.]{0,80}?,\s+" + _NAME + r","),
    re.compile(_NAME + r"\s*(?:,|:|\()\s*(?:a|an|the)\s+(?:novel|new|simple|general|unified)\b"),
)
def _looks_like_a_name(token: str) -> bool:
    """A name by shape, at least three characters long unless it has a digit ("K2")."""
    return is_name(token) and (len(token) >= 3 or any(c.isdigit() for c in token))


# "Entropy-Based Adaptive Weighting for Self-Training (EAST)": a matched name that only opens a
# longer capitalised phrase is the phrase's first word; the short name follows it in brackets
_SPELLED_OUT = re.compile(r"(?:[\s\-]+(?:[" + _UPPER + r"][\w\-]*|for|of|and|with|to|in|on|via|the|a|an)){1,12}?"
                          r"\s*\(([" + _UPPER + r"](?:[^\W_]|-)*)\)")


def _short_name(text: str, end: int) -> str | None:
    short = _SPELLED_OUT.match(text, end)
    name = short.group(1).rstrip("-") if short else ""
    return name if _looks_like_a_name(name) else None


def spelled_out(text: str, name: str) -> str | None:
    """The short name in brackets after the capitalised phrase ``name`` opens, if any."""
    at = text.find(name)
    return _short_name(text, at + len(name)) if at >= 0 else None


def method_name(text: str) -> str | None:
    """The name of the method or resource an abstract introduces, if it says so plainly: the
    short name where the abstract spells a name out before it ("Item-Language Model (ILM)")."""
    for pattern in _INTRO_PATTERNS:
        for match in pattern.finditer(text):
            token = match.group(1).rstrip("-")
            if _looks_like_a_name(token):
                return _short_name(text, match.end(1)) or token
    return None
