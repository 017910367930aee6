"""Which figure of a sentence answers a figure part ("how many", "how much", "by what factor"):
the one that measures what was asked, cut from the sentence as it is written (never made up).

- A figure given "respectively" is the one in the asked thing's place (``rag.text.respectively``).
- A figure measures what follows it ("nine ... languages", "100 times reduction in perplexity"):
  the figures followed by most of the asked words come first. A short form the abstract defines
  is read as its long form ("13 different HCMs" follows "hardness characterization methods").
- "How much better/faster/more ..." asks for a difference: a figure said as one ("22% more
  inputs than", "by 5.4%", "a 3x speedup") comes before a count ("three datasets").
- "What accuracy ...?" asks for a score: a whole number that counts things ("three benchmarks")
  or a number said in words ("six", "Ten") is none.
- "11 out of 14 datasets" is one figure: the lead is "11 out of 14", never half of it.
- Among the rest, the figure nearest the question's words."""

from __future__ import annotations

import re

from rag.answer.evidence import is_share
from rag.answer.intent import Part
from rag.text.abbreviations import definitions
from rag.text.lexicon import stem, tokens
from rag.text.numbers import could_score, number_spans, times
from rag.text.respectively import respective

_ASKS_DIFFERENCE = re.compile(r"\bhow\s+much\s+(?:better|more|less|faster|slower|higher|lower|larger|smaller|"
                              r"cheaper|stronger|further|quicker)\b|\bby\s+how\s+much\b", re.IGNORECASE)
_DIFFERENCE_AFTER = re.compile(r"^\s*(?:points?\s+|pp\s+|absolute\s+|relative\s+|percentage\s+points?\s+)?"
                               r"(?:\w+\s+)?(?:more|less|fewer|higher|lower|better|faster|slower|smaller|larger|"
                               r"improvements?|gains?|increases?|reductions?|speed-?ups?|boosts?|drops?)\b",
                               re.IGNORECASE)
_DIFFERENCE_BEFORE = re.compile(r"\b(?:by|of)\s+(?:up\s+to\s+|about\s+|around\s+|nearly\s+|over\s+)?$",
                                re.IGNORECASE)
_OUT_OF = re.compile(r"\s+(?:out\s+)?of\s+(?:the\s+)?", re.IGNORECASE)  # between "11" and "14"


def lead_figure(part: Part, text: str, question: str, abstract: str = "") -> str:
    """The figure ``part`` asks for in ``text``, or "" when the sentence holds none of its kind."""
    every = number_spans(text, question)
    spans = [m for m in every if part.unit != "%" or is_share(m.group(0))]
    spans = [m for m in spans if part.unit != "x" or times(m.group(0))] or spans
    if part.unit == "score":  # "what accuracy": a score, not "three benchmarks" nor "six"
        spans = [m for m in spans if could_score(text, m)]
    if not spans:
        return ""
    placed = respective(text, every, question)  # "5.8, 3.9, and 2.1 on A, B, and C,
    if placed and placed[1].span() in {m.span() for m in spans}:  # respectively": C's is 2.1
        return placed[0].group(0)
    if _ASKS_DIFFERENCE.search(part.text):
        spans = [m for m in spans if _is_difference(text, m)] or spans
    asked = part.counted or part.focus
    longs = definitions(abstract) if abstract else {}
    named = [len(asked & _following(text, m.end(), longs)) for m in spans]
    spans = [m for m, n in zip(spans, named, strict=True) if n == max(named)]
    anchors = [m.start() for t in (part.unit, *part.focus) if t
               for m in re.finditer(re.escape(t[:5]), text, re.IGNORECASE)]
    best = min(spans, key=lambda m: min((abs(m.start() - a) for a in anchors), default=0))
    return _with_its_whole(text, best, every)


def _is_difference(text: str, m: re.Match[str]) -> bool:
    return bool(_DIFFERENCE_AFTER.match(text[m.end():]) or _DIFFERENCE_BEFORE.search(text[:m.start()]))


def _with_its_whole(text: str, best: re.Match[str], every: list[re.Match[str]]) -> str:
    """"11 out of 14": the part and the whole it is counted out of, whichever of the two was chosen."""
    for a, b in zip(every, every[1:], strict=False):
        if best in (a, b) and _OUT_OF.fullmatch(text[a.end():b.start()]):
            return text[a.start():b.end()]
    return best.group(0)


def _following(text: str, end: int, longs: dict[str, str], words: int = 6) -> set[str]:
    """The stems of the few words after a figure, within its clause ("8.6 million 512 times 512
    pixel galaxy stamps": the figures between are part of the phrase, not words of it); a short
    form the abstract defines counts as the words it stands for."""
    clause = re.split(r"[,;:()]|\band\b", text[end:], maxsplit=1)[0]
    said = [w for w in tokens(clause) if w[0].isalpha()][:words]
    out = {stem(w) for w in said}
    for w in said:
        if w in longs:
            out |= {stem(x) for x in tokens(longs[w])}
    return out
