"""Template questions made from the collection, each labelled by construction. A template is a
question *shape* over what an abstract says ("we propose X, a ...", a figure next to a measure
word, "A rather than B"), never a particular question's words.

- ``describe``: "What does X do?" -> the sentence that introduces X;
- ``figure``: "What <measure> does X report?" -> the sentence giving X's figure for that measure;
- near misses (nothing in the paper answers): the same paper asked for a measure it never
  reports (F1 where it gives recall), for a quantity it never gives (parameters, GPU hours), or
  about a sibling entity (another method's name, another model size);
- yes/no pairs: a contrast ("A rather than B", "A instead of B") asked both ways, and a claim
  asked with its direction word reversed ("improves" / "degrades"), so yes and no are balanced."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from eval.training.corpus import Sentence
from rag.text.cues import INTRO
from rag.text.lexicon import mentions
from rag.types import Paper

MEASURES = ("accuracy", "F1", "recall", "precision", "BLEU", "ROUGE", "perplexity", "speedup",
            "latency", "AUC", "error rate", "win rate", "exact match", "throughput", "memory")
MISSING = (("parameters", "How many parameters does {m} have?"),
           ("GPU", "How many GPU hours does training {m} take?"),
           ("languages", "How many languages is {m} evaluated on?"),
           ("hospital", "In how many hospitals was {m} tested?"),
           ("tokens", "How many training tokens was {m} trained on?"),
           ("annotators", "How many annotators labelled the data for {m}?"),
           ("latency", "What inference latency does {m} have?"),
           ("learning rate", "What learning rate does {m} use?"))
_FIGURE = re.compile(r"\d+(?:\.\d+)?\s?(?:%|x\b|×|points?\b)")
_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)([BM])\b")
_CONTRAST = re.compile(r"\b((?:[\w-]+ ){0,2}[\w-]+) (rather than|instead of) "
                       r"((?:[\w-]+ ){0,2}[\w-]+)(?=[,.;)]|$| and| while)")
ANTONYMS = {"improves": "degrades", "increases": "decreases", "outperforms": "underperforms",
            "higher": "lower", "faster": "slower", "reduces": "increases", "better": "worse",
            "larger": "smaller", "more": "less", "significantly": "barely", "enables": "prevents"}
ANTONYMS |= {v: k for k, v in list(ANTONYMS.items())}
_ASK = ("Is it true that {c}?", "Does the paper find that {c}?", "According to the abstract, is it the case that {c}?")


def _pick(key: str, n: int) -> int:
    """A stable choice among n from a sentence key (``hash`` changes from run to run)."""
    return int(key.rsplit(":", 1)[1], 16) % n


def _claim(text: str) -> str:
    text = text.rstrip(" .")
    return text[0].lower() + text[1:] if text[:2] != text[:2].upper() else text


def describe(paper: Paper, sentences: Sequence[Sentence]) -> Iterator[tuple[str, Sentence]]:
    """"What does X do?" answered by the sentence that introduces X."""
    if not paper.method:
        return
    for s in sentences:
        if mentions(s.text, paper.method) and INTRO.search(s.text):
            yield f"What does {paper.method} do?", s
            yield f"What is {paper.method}?", s
            return


def figures(paper: Paper, sentences: Sequence[Sentence]) -> Iterator[tuple[str, Sentence | None]]:
    """"What <measure> does X report?" with the sentence that gives it, and the same paper asked
    for a measure its abstract never names (answered by nothing: a near miss)."""
    subject = paper.method or "the proposed method"
    text = paper.text.lower()
    said = [m for m in MEASURES if m.lower() in text]
    absent = [m for m in MEASURES if m.lower() not in text]
    for s in sentences:
        low = s.text.lower()
        found = [m for m in said if re.search(rf"\b{re.escape(m.lower())}\b", low)]
        if found and _FIGURE.search(s.text):
            yield f"What {found[0]} does {subject} report?", s
            if absent:
                yield f"What {absent[_pick(s.key, len(absent))]} does {subject} report?", None
            return


def missing(paper: Paper) -> Iterator[str]:
    """Quantities the paper never gives, asked about its own method."""
    if not paper.method:
        return
    text = paper.text.lower()
    for unit, template in MISSING:
        if unit.lower() not in text:
            yield template.format(m=paper.method)


def sibling_entity(question: str, paper: Paper, others: Sequence[str]) -> str | None:
    """The question asked about another method (one this abstract never names), or about another
    model size than the one it names: what the sentence says is then about something else."""
    if paper.method and mentions(question, paper.method):
        for other in others:
            if other != paper.method and not mentions(paper.text, other):
                return re.sub(rf"(?<![\w-]){re.escape(paper.method)}(?!\w)", other, question)
    size = _SIZE.search(question)
    if size:
        for factor in ("0.5", "3", "13", "70", "360"):
            swapped = f"{factor}{size.group(2)}"
            if swapped not in paper.text:
                return question[: size.start()] + swapped + question[size.end():]
    return None


def yes_no(sentence: Sentence) -> Iterator[tuple[str, bool]]:
    """A claim asked both ways: the contrast's kept side (yes) and its rejected side (no), or the
    claim (yes) and the claim with its direction word reversed (no)."""
    ask = _ASK[_pick(sentence.key, len(_ASK))]
    m = _CONTRAST.search(sentence.text)
    if m:
        kept = sentence.text[: m.start()] + m.group(1) + sentence.text[m.end():]
        rejected = sentence.text[: m.start()] + m.group(3) + sentence.text[m.end():]
        yield ask.format(c=_claim(kept)), True
        yield ask.format(c=_claim(rejected)), False
        return
    words = sentence.text.split()
    for i, w in enumerate(words):
        if w.lower() in ANTONYMS and len(words) <= 45:
            reversed_ = " ".join(words[:i] + [ANTONYMS[w.lower()]] + words[i + 1:])
            yield ask.format(c=_claim(sentence.text)), True
            yield ask.format(c=_claim(reversed_)), False
            return
