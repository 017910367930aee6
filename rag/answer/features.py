"""What the fitted reader knows about a candidate sentence for one part of a question, as numbers:
how close it is to the part (MiniLM cosine, BM25, IDF-weighted coverage of the part's terms),
what it holds (a figure, a name the question does not say, the asked kind of answer), what kind of
statement it is (introduces the work, says how, reports results), where it sits, and how well
its paper was retrieved. No feature names a question's words; the weights are fitted
(``rag train-reader``) and read from a data file."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rag.answer.evidence import holds, says
from rag.answer.intent import Intent, Part
from rag.text.cues import ASKS_EXAMPLE, ASKS_RESULTS, GIVES_EXAMPLE, INTRO, MECHANISM, RESULT
from rag.text.injection import is_instruction
from rag.text.injection import sentences as injection_aware_sentences
from rag.text.lexicon import content_terms, mentions, stem, tokens, word_count
from rag.text.names import name_pattern, names
from rag.text.numbers import number_spans
from rag.text.vocab import NEGATIONS
from rag.types import ScoredPaper

KINDS = ("name", "number", "yes_no", "how", "list", "comparison", "describe")
CUES = ("holds", "intro", "mechanism", "result", "has_number", "new_name", "cos", "named_intro")
BASE = ("cos", "cos_gap", "bm25", "idf_coverage", "coverage", "names_said", "paper_says_names",
        "paper_rank", "paper_similarity", "paper_similarity_gap", "first", "position", "length",
        "intro", "mechanism", "result", "negation", "has_number", "holds", "new_name",
        "method_said", "result_asked", "paper_named", "named_elsewhere", "example_asked")
FEATURES = BASE + tuple(f"{k}" for k in KINDS) + tuple(f"{k}*{c}" for k in KINDS for c in CUES)
MIN_WORDS = 5  # shorter pieces are headings or fragments, not claims
# "It takes ...", "This method ...": a sentence that speaks of the method the one before names
_ANAPHORA = re.compile(r"^(?:It|This\s+(?:method|approach|framework|model|strategy|technique|module|system)|"
                       r"Our\s+(?:method|approach|framework|model)|The\s+proposed\s+\w+)\b")


@dataclass(frozen=True)
class Candidate:
    """A sentence of a retrieved abstract that might answer."""

    paper: ScoredPaper
    text: str
    position: int  # 0-based place in its abstract
    sentences: int  # sentences in its abstract
    rank: int  # its paper's retrieval rank, 1-based


def candidates(evidence: Sequence[ScoredPaper],
               split: Mapping[str, tuple[str, ...]] | None = None) -> list[Candidate]:
    """Every claim-sized sentence of the retrieved abstracts, instructions left out. ``split``
    holds each abstract's sentences as the retrieve stage split them (``Evidence.sentences``);
    an abstract missing from it is split here."""
    out = []
    for rank, item in enumerate(evidence, start=1):
        if not item.paper.has_abstract:
            continue
        # split around chat-template tokens too, so the research sentence beside one is kept
        sentences = list(split[item.paper.id]) if split and item.paper.id in split \
            else injection_aware_sentences(item.paper.text)
        out += [Candidate(item, s, i, len(sentences), rank) for i, s in enumerate(sentences)
                if word_count(s) >= MIN_WORDS and not is_instruction(s)]
    return out


def _surface(question: str) -> dict[str, str]:
    """Each stem of the question and a word form of it, for looking words up in the index."""
    return {stem(w): w for w in tokens(question) if w[0].isalpha()}


def _bm25(terms: dict[str, float], words: Counter[str], length: int, average: float) -> float:
    k1, b = 1.2, 0.75
    return sum(idf * words[t] * (k1 + 1) / (words[t] + k1 * (1 - b + b * length / average))
               for t, idf in terms.items() if words[t])


def is_named(paper: ScoredPaper, asked: Sequence[str]) -> bool:
    """The question names this paper: a name it asks about is the paper's own method name (or an
    alias), or leads its title, or is a title it quotes that the abstract says ("a reproducibility
    study of 'Teaching CLIP to Count to Ten'")."""
    p = paper.paper
    own = [a for a in (p.method or "", *p.aliases) if a]
    title = (p.title or "").split(":")[0]
    return any(mentions(a, n) for n in asked for a in own) or any(
        title and name_pattern(n).match(title.strip()) for n in asked) or any(
        len(n.split()) > 1 and name_pattern(n).search(p.text) for n in asked)


def kind_of(part: Part) -> str:
    return part.kind if part.kind in KINDS else "describe"


def _speaks_of(c: Candidate, method: str, texts: Mapping[tuple[str, int], str]) -> bool:
    """The sentence names the method, or opens with "It" / "This method" ... right after the
    sentence of its abstract that does (``texts``: the pool's sentences by paper and place)."""
    if mentions(c.text, method):
        return True
    before = texts.get((c.paper.paper.id, c.position - 1), "")
    return bool(_ANAPHORA.match(c.text)) and mentions(before, method)


def part_features(intent: Intent, part: Part, pool: Sequence[Candidate], sims: np.ndarray,
                  idf: Callable[[str], float]) -> np.ndarray:
    """One row of FEATURES per candidate, for one part of the question."""
    surface = _surface(intent.question)
    weights = {t: max(0.0, idf(surface.get(t, t))) for t in part.focus}
    total = sum(weights.values()) or 1.0
    bags = [Counter(stem(w) for w in tokens(c.text)) for c in pool]
    average = sum(sum(b.values()) for b in bags) / max(1, len(bags))
    bm25 = np.array([_bm25(weights, bag, sum(bag.values()), average or 1.0) for bag in bags])
    bm25 = bm25 / bm25.max() if bm25.size and bm25.max() > 0 else bm25
    best_sim = max((c.paper.similarity for c in pool), default=0.0)
    top_cos = float(sims.max()) if sims.size else 0.0
    said = {n.lower() for n in intent.names}
    named = {c.paper.paper.id for c in pool if is_named(c.paper, intent.names)}
    texts = {(c.paper.paper.id, c.position): c.text for c in pool}
    rows = []
    results_asked = float(bool(ASKS_RESULTS.search(part.text)))  # of the part: once, not per sentence
    example_asked = bool(ASKS_EXAMPLE.search(part.text))
    for c, cos, bm in zip(pool, sims, bm25, strict=True):
        terms = content_terms(c.text)
        cues = {
            "holds": float(holds(part, c.text, terms, c.paper, intent.names)),
            "intro": float(bool(INTRO.search(c.text))),
            "mechanism": float(bool(MECHANISM.search(c.text))),
            "result": float(bool(RESULT.search(c.text))),
            "has_number": float(bool(number_spans(c.text, part.text))),
            "new_name": float(any(n.lower() not in said for n in names(c.text))),
            "cos": float(cos),
            # "We propose X, a ...": of a paper the question names, it tells what the asker knows
            "named_intro": float(c.paper.paper.id in named and bool(INTRO.search(c.text))),
        }
        method = c.paper.paper.method
        base = {
            "cos": float(cos), "cos_gap": float(cos) - top_cos, "bm25": float(bm),
            "idf_coverage": sum(w for t, w in weights.items() if t in terms) / total,
            "coverage": len(part.focus & terms) / max(1, len(part.focus)),
            "names_said": min(2, sum(bool(name_pattern(n).search(c.text)) for n in intent.names)) / 2,
            "paper_says_names": (sum(says(c.paper, n) for n in intent.names) / len(intent.names)
                                 if intent.names else 0.0),
            "paper_rank": 1.0 / c.rank, "paper_similarity": c.paper.similarity,
            "paper_similarity_gap": c.paper.similarity - best_sim,
            "first": float(c.position == 0), "position": c.position / max(1, c.sentences - 1),
            "length": math.log1p(len(c.text.split())),
            "negation": float(any(w.lower() in NEGATIONS for w in tokens(c.text))),
            "method_said": float(bool(method and _speaks_of(c, method, texts))),
            "result_asked": results_asked * cues["result"],
            "example_asked": float(example_asked and bool(GIVES_EXAMPLE.search(c.text))),
            "paper_named": float(c.paper.paper.id in named),
            # the question names a retrieved paper, and this sentence is another paper's
            "named_elsewhere": float(bool(named) and c.paper.paper.id not in named),
        } | {k: cues[k] for k in ("intro", "mechanism", "result", "has_number", "holds", "new_name")}
        kind = kind_of(part)
        row = [base[f] for f in BASE] + [float(kind == k) for k in KINDS]
        row += [cues[cue] if kind == k else 0.0 for k in KINDS for cue in CUES]
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(len(pool), len(FEATURES))
