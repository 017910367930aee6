"""Text clean-up for embedding, sentence splitting and honest labels.

The original text is kept for display; these functions produce the normalised form.
"""

from __future__ import annotations

import hashlib
import re

from rag.text.latex import latex_to_text

_MISSING_SPACE = re.compile(r"(?<=[a-z0-9\)\]%])([.?!])(?=[A-Z][a-z])")
_HYPHEN_BREAK = re.compile(r"\b([A-Za-z]{2,})- (?!and\b|or\b|to\b|as\b|vs\b)([a-z]{2,})\b")
_FOOTNOTE_TAIL = re.compile(r"(?<=[.!?])\s+\d{1,2}\s*$")
_SPACES = re.compile(r"\s+")
_GLUED_TIMES = re.compile(r"(?<=\d)times(?=\d|\b)")  # "200times faster": a lost LaTeX \times


_URL = re.compile(r"(https?://[^\s{}]+)")


def _clean_prose(t: str) -> str:
    t = latex_to_text(t)
    t = _MISSING_SPACE.sub(r"\1 ", t)
    t = _GLUED_TIMES.sub("×", t)
    return _HYPHEN_BREAK.sub(r"\1\2", t)


def normalise(text: str) -> str:
    """Clean one abstract for chunking and embedding (see data/README.md, 'Known quirks').
    URLs are left exactly as written."""
    t = _FOOTNOTE_TAIL.sub("", text.strip())
    parts = _URL.split(t)  # odd positions are URLs
    t = "".join(part if i % 2 else _clean_prose(part) for i, part in enumerate(parts))
    return _SPACES.sub(" ", t).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def dedupe_key(text: str) -> str:
    """Identical for texts that differ only in case, spacing and punctuation."""
    return content_hash(re.sub(r"[^a-z0-9]+", "", text.lower()))


def shingles(text: str, n: int = 5) -> set[int]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {hash(tuple(words[i : i + n])) for i in range(max(1, len(words) - n + 1))}


STOPWORDS = frozenset("""
a an the of in on for to and or with by from at as is are was were be been which what who
whom whose how why when where do does did can could should would will this that these those
it its their there paper papers work works study studies method methods approach approaches
use uses used using about any some all most me tell show find give list propose proposes
proposed introduce introduces describe describes via than into has have had not no new also
""".split())

_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "Fig.", "Eq.", "cf.", "approx.", "No.")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split normalised abstract text into sentences, keeping common abbreviations intact."""
    pieces = _SENTENCE_END.split(text.strip())
    sentences: list[str] = []
    for piece in pieces:
        if sentences and sentences[-1].endswith(_ABBREVIATIONS):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return [s.strip() for s in sentences if s.strip()]


_NAME = r"([A-Z][A-Za-z0-9]*(?:[-‑][A-Za-z0-9]+)*)"
_INTRO_PATTERNS = (
    re.compile(r"\b(?:named|called|dubbed|termed|coined|codenamed)\s+[\"“']?" + _NAME),
    re.compile(
        r"\b(?:[Ww]e|[Tt]his (?:paper|work|study))\s+(?:also\s+|further\s+)?(?:propose|present|"
        r"introduce|release|develop|design|build|construct|curate|offer)s?\s+(?:the\s+|a\s+|an\s+)?"
        + _NAME
    ),
    re.compile(
        r"\b(?:propose|present|introduce|develop|design)s?\b[^.]{0,120}?\(([A-Z][A-Za-z0-9-]*)\)"
    ),
    re.compile(r"\b(?:propose|present|introduce)s?\b[^.]{0,80}?,\s+" + _NAME + r","),
    re.compile(_NAME + r"\s*(?:,|:|\()\s*(?:a|an|the)\s+(?:novel|new|simple|general|unified)\b"),
)
_NOT_METHODS = {
    "LLM", "LLMs", "NLP", "AI", "GPT", "GPTs", "CNN", "CNNs", "RNN", "RNNs", "SOTA", "API",
    "APIs", "MLLM", "MLLMs", "VLM", "VLMs", "LM", "LMs", "PLM", "PLMs", "BERT", "NLG", "NLU",
    "QA", "RL", "KV", "MoE", "RoPE", "GPU", "GPUs", "CPU", "ImageNet", "GNN", "GNNs", "DNN", "DNNs", "ViT",
    "In", "A", "An", "The", "This", "Our",
}


def _looks_like_a_name(token: str) -> bool:
    inner_caps = any(c.isupper() for c in token[1:])
    has_digit = any(c.isdigit() for c in token)
    long_enough = len(token) >= 3 or has_digit
    return (inner_caps or has_digit) and long_enough and token not in _NOT_METHODS


def method_name(text: str) -> str | None:
    """The name of the method or resource an abstract introduces, if it says so plainly."""
    for pattern in _INTRO_PATTERNS:
        for match in pattern.finditer(text):
            token = match.group(1).rstrip("-")
            if _looks_like_a_name(token):
                return token
    return None
