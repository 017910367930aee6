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
- A figure of a thing the question names ("84.12% F1-score on MNRE") comes before the others.
- Among the rest, the figure nearest the question's words.
- The lead keeps the bound the figure is given under and the asked words that follow it ("over
  25k classes", "up to 5x speedup", "104 models"): "25k" alone would say more than is known."""

from __future__ import annotations

import re

from rag.answer.evidence import is_share
from rag.answer.intent import Part
from rag.text.abbreviations import definitions
from rag.text.lexicon import stem, tokens
from rag.text.names import names
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
_BOUND_BEFORE = re.compile(  # "over 25k", "up to 5x"; not "averaged over three"
    r"\b(?:(?<!ed\s)(?<!ing\s)over|up\s+to|more\s+than|less\s+than|fewer\s+than|nearly|almost|about|"
    r"around|roughly|approximately|at\s+least|at\s+most|under|below|above|"
    r"as\s+(?:high|low|much|many|few|small|large|little)\s+as)\s+$", re.IGNORECASE)
_PHRASE_ENDS = frozenset("""with and or of on in for to from by that which who whom than at as across per while
whereas but where when over under into onto is are was were be been has have had each compared against using
via after before during within without""".split())  # words after which a noun phrase has ended
_WORD_AFTER = re.compile(r"\s+([A-Za-z][\w-]*)")
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
    said = names(part.text)
    asked = (part.counted or part.focus) | {stem(w) for n in said for w in tokens(n)}  # "on MNRE": its figure
    longs = definitions(abstract) if abstract else {}
    named = [len(asked & _following(text, m.end(), longs)) for m in spans]
    spans = [m for m, n in zip(spans, named, strict=True) if n == max(named)]
    if part.counted:  # "how many domains" over "12 metrics across 12 domains": the one it counts
        spans = [m for m in spans if _next_word(text, m.end()) in part.counted] or spans
    anchors = [m.start() for t in (part.unit, *part.focus, *said) if t
               for m in re.finditer(re.escape(t[:5]), text, re.IGNORECASE)]
    best = min(spans, key=lambda m: min((abs(m.start() - a) for a in anchors), default=0))
    start, end = _with_its_whole(best, every, text)
    return _widened(text, start, end, part.counted or part.focus)


def _next_word(text: str, end: int) -> str:
    word = _WORD_AFTER.match(text, end)
    return stem(word.group(1).lower()) if word else ""


def _widened(text: str, start: int, end: int, asked: frozenset[str]) -> str:
    """The figure with the bound it is given under ("over 25k", "up to 5x") and the asked words
    that follow it ("104 models", "350-700M tokens"): "25k" alone would overstate what is known."""
    bound = _BOUND_BEFORE.search(text[:start])
    if bound:
        start = bound.start()
    widened = end
    for word in _WORD_AFTER.finditer(text, end):
        if word.start() != widened or stem(word.group(1).lower()) not in asked or word.group(1).lower() in _PHRASE_ENDS:
            break
        widened = word.end()
    after = _WORD_AFTER.match(text, widened)  # "6.16% label errors": half a noun phrase is none
    if after and after.group(1).lower() not in _PHRASE_ENDS:
        widened = end
    return text[start:widened]


def _is_difference(text: str, m: re.Match[str]) -> bool:
    return bool(_DIFFERENCE_AFTER.match(text[m.end():]) or _DIFFERENCE_BEFORE.search(text[:m.start()]))


def _with_its_whole(best: re.Match[str], every: list[re.Match[str]], text: str) -> tuple[int, int]:
    """"11 out of 14": the part and the whole it is counted out of, whichever of the two was chosen."""
    for a, b in zip(every, every[1:], strict=False):
        if best in (a, b) and _OUT_OF.fullmatch(text[a.end():b.start()]):
            return a.start(), b.end()
    return best.span()


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
