"""Yes or no, read from a sentence the way English scopes a negation: a cue ("not", "without",
"fails to", "instead of", "avoids", or a minimiser: "minimal", "negligible") governs the few content
words after it in its own clause,
a state word ("frozen", "fixed", "unchanged") denies its whole clause, and an "X-free" compound
denies X. "Instead of prompting, GlimmerNet fine-tunes the encoder" therefore affirms that it
fine-tunes the encoder: "instead" governs "prompting", not the clause after the comma. "Not only X
but also Y" says X. What the question denies too agrees ("trained with no natural videos?" over
"without natural videos" is a yes). A sentence that says the opposite of a word the question asks
and does not say that word ("large datasets?" over "on small datasets"; WordNet's antonyms, in
``rag.text.antonyms``) answers "No", and so does one that moves a thing the question moves the other
way ("did it hurt generalization?" over "while maintaining generalization")."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from rag.answer.intent import Part
from rag.text.antonyms import contrasted
from rag.text.lexicon import STOPWORDS, stem, tokens
from rag.text.names import names
from rag.text.numbers import amounts_agree, amounts_differ
from rag.text.vocab import DENIALS, KEEPS, LOWERS, MINIMISERS, NEGATIONS, RAISES, SCOPE_ENDS, STATE_DENIALS

SCOPE = 4  # content words a cue reaches, within its clause
# after what a denial verb takes ("eliminates X", "avoids X"), a place or target is not denied
_PLACE = frozenset("on in at from across within into onto".split())  # not "to": "the need to modify"
QUANTITIES = frozenset("more less many few fewer much".split())  # stop words read for their opposite
_NEGATED_ASK = re.compile(r"^\s*(?:isn't|aren't|doesn't|don't|didn't|can't|cannot|wasn't|weren't|"
                          r"won't|wouldn't|shouldn't|hasn't|haven't)\b|^\s*\w+\s+not\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[,;:()]|\s[-–—]\s")


def denied_terms(sentence: str, asked: set[str]) -> set[str]:
    """Stems of the words the sentence negates or denies. Cues the question itself uses ("Does
    it work without labels?") deny nothing: the question asks about them."""
    denied: set[str] = set()
    for clause in _CLAUSE.split(sentence):
        words = [w.lower() for w in tokens(clause) if w[0].isalpha()]
        if any(w in STATE_DENIALS and w not in asked for w in words):
            denied |= {stem(w) for w in words}
            continue
        left, object_of = 0, False
        for i, w in enumerate(words):
            if w == "not" and words[i + 1: i + 2] in (["only"], ["just"], ["merely"], ["simply"]):
                continue  # "not only X but also Y" says X
            if w.endswith("-free") and w not in asked:
                denied.add(stem(w.removesuffix("-free")))
            elif (w in NEGATIONS or w in DENIALS or w in MINIMISERS) and w not in asked:
                left, object_of = SCOPE, w in DENIALS
            elif w in SCOPE_ENDS or (object_of and left < SCOPE and w in _PLACE):
                left = 0  # "eliminating adverse influences on the head": the head is not eliminated
            elif left and w not in STOPWORDS:
                denied.add(stem(w))
                left -= 1
    return denied


def false_premise(asked: str, sentences: Sequence[str]) -> int | None:
    """The place of the first of one abstract's sentences that counts the asked thing otherwise, or
    gives the asked share otherwise, when none of them agrees: "evaluated with just one LLM?" over
    its "employing five LLMs", "several billion tokens?" over its "only 350-700M tokens", wherever
    that sentence ranks."""
    if any(amounts_agree(asked, s) for s in sentences):
        return None
    return next((i for i, s in enumerate(sentences) if amounts_differ(asked, s)), None)


_AGAINST = frozenset("over than versus vs compared relative".split())  # what a change is measured against
_OPPOSED = {"raise": {"lower"}, "lower": {"raise", "keep"}, "keep": {"lower"}}
_GIVES_UP = re.compile(r"\b(?:give|gives|gave|giving|trade|trades|traded|trading)\s+(?:up|away)\b", re.IGNORECASE)


def moved_terms(text: str) -> dict[str, list[str]]:
    """The words a text moves, by direction ("raise", "lower", "keep"), in order and as written:
    a direction word governs the few content words after it in its clause ("reduces the model's
    dependency on depth" lowers "model", "dependency", "depth"). A negated direction moves nothing
    ("does not improve" is no claim that it lowers)."""
    moved: dict[str, list[str]] = {}
    for clause in _CLAUSE.split(_GIVES_UP.sub("sacrifices", text)):
        words = [w for w in tokens(clause) if w[0].isalpha()]
        way, left = "", 0
        for i, word in enumerate(words):
            w = word.lower()
            kind = "raise" if w in RAISES else "lower" if w in LOWERS else "keep" if w in KEEPS else ""
            if kind:
                negated = any(p.lower() in NEGATIONS or p.lower() in DENIALS for p in words[max(0, i - 2): i])
                way, left = ("", 0) if negated else (kind, SCOPE)
            elif w in SCOPE_ENDS or w in NEGATIONS or w in DENIALS or w in _AGAINST:
                way, left = "", 0  # "an improvement over the BPE baseline" does not raise the baseline
            elif left and w not in STOPWORDS:
                moved.setdefault(way, []).append(word)
                left -= 1
    return moved


def moved_apart(asked: str, said: str) -> bool:
    """The sentence moves a thing the question moves, the other way: "did fine-tuning hurt
    generalization?" over "while maintaining generalization"; "lower joint goal accuracy?" over
    "a 7-10% improvement in JGA" (a short form meets the words it is made of)."""
    mine, theirs = moved_terms(asked), moved_terms(said)
    for way, words in mine.items():
        lower = [w.lower() for w in words]
        initials = {"".join(w[0] for w in lower[i:j]) for i in range(len(lower)) for j in range(i + 2, len(lower) + 1)}
        for other in _OPPOSED[way]:
            for b in theirs.get(other, ()):
                if any(_kin(a, b.lower()) for a in lower) or (b.isupper() and b.lower() in initials):
                    return True
    return False


_BEATS = re.compile(r"\b(?:outperform|surpass|beat|exceed|outrun|outscore)(?:s|es|ed|ing)?\b|"
                    r"\b(?:better|stronger|faster)\s+(?:[a-z]+\s+)?than\b|\bsuperior\s+to\b", re.IGNORECASE)
_PASSIVE = re.compile(r"^\s*by\b", re.IGNORECASE)


def _ranked(text: str) -> list[tuple[set[str], set[str]]]:
    """Who beats whom, as (winners, losers) by name: the names before a "beats" word in its clause
    and those after it, up to the next ("B surpasses C and outperforms A" puts B over C and over A;
    "A is outperformed by B" puts B over A)."""
    out = []
    for clause in _CLAUSE.split(text):
        cues = list(_BEATS.finditer(clause))
        for i, cue in enumerate(cues):
            end = cues[i + 1].start() if i + 1 < len(cues) else len(clause)
            before, after = _who(clause[: cue.start()]), _who(clause[cue.end(): end])
            passive = cue.group(0).lower().endswith("ed") and _PASSIVE.match(clause[cue.end():])
            out.append((after, before) if passive else (before, after))
    return out


def _who(text: str) -> set[str]:
    """What a side of a ranking says: its names, and its content words' stems ("dense models",
    "lottery-ticket models" as "lottery" and "ticket")."""
    words = (p for w in tokens(text) if w[0].isalpha() for p in w.lower().split("-") if p)
    return set(names(text)) | {stem(w) for w in words if w not in STOPWORDS}


def ranked_apart(asked: str, said: str) -> bool:
    """The question puts A over B and the sentence B over A: "did LOMO outperform BAdam?" over
    "BAdam ... more substantially outperforms LOMO"."""
    return any(b in theirs_win and a in theirs_lose and a not in theirs_win
               for mine_win, mine_lose in _ranked(asked)[:1] for a in mine_win for b in mine_lose
               for theirs_win, theirs_lose in _ranked(said))


# (not "following" or "preceding": "on the following benchmarks" puts nothing after anything)
_WHEN = (("before", re.compile(r"\b(?:before|prior\s+to|ahead\s+of)\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.I)),
         ("after", re.compile(r"\bafter\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.I)),
         ("after", re.compile(r"\bbetween\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+and\b", re.I)))  # "between A
# and B" comes after A


def _when(text: str) -> list[tuple[str, set[str]]]:
    """What a text puts before or after what: ("before", stems of the few words after "before")."""
    return [(way, {stem(w.lower()) for w in tokens(m[1]) if w[0].isalpha() and w.lower() not in STOPWORDS})
            for way, pattern in _WHEN for m in pattern.finditer(text)]


def ordered_apart(asked: str, said: str) -> bool:
    """The question puts a step before a thing and the sentence after it, or the other way:
    "run before pretraining?" over "an intermediate stage between pretraining and fine-tuning"."""
    theirs = _when(said)
    return any(way != other and any(_kin(a, b) for a in mine for b in words)
               for way, mine in _when(asked) for other, words in theirs)


def _kin(a: str, b: str) -> bool:
    """One word, or words of one root ("efficient" and "efficiency", "depend" and "dependency"):
    they agree up to the last two letters of the shorter, and in six letters at least."""
    common = len(os.path.commonprefix([a, b]))
    return a == b or common >= max(6, min(len(a), len(b)) - 2)


def _root(stemmed: str) -> str:
    """A stem without its final "e", so that "improve" meets "improving" ("improv")."""
    return stemmed[:-1] if stemmed.endswith("e") and len(stemmed) > 4 else stemmed


def yes_or_no(part: Part, sentence: str, coverage: float = 0.5, spelled: str = "") -> str:
    """"Yes" when the sentence says what the question asks about, "No" when it negates or
    denies it, counts the asked thing otherwise or says the opposite of an asked word, "" when it
    covers less than ``coverage`` of the question's focus. ``spelled`` holds the long forms of the
    short forms the sentence uses ("Reasoning Reflection Reward" for "R3"), which it says too."""
    return read_yes_no(part, sentence, coverage, spelled)[0]


_AUXILIARY = re.compile(r",\s+(?=(?:is|are|does|do|did|can|could|was|were|has|have|will|would|should|must)\b)",
                        re.IGNORECASE)


def _asking_clause_terms(part: Part) -> set[str]:
    """The focus of the clause that asks ("In the study of morphological information ..., were the
    lemmatizers evaluated out of domain?" asks about the evaluation): a denial of what the opening
    clause takes as given answers nothing."""
    pieces = _AUXILIARY.split(part.text)
    asked = {_root(stem(w.lower())) for w in tokens(pieces[-1]) if w[0].isalpha()}
    return {_root(f) for f in part.focus} & asked


def read_yes_no(part: Part, sentence: str, coverage: float = 0.5, spelled: str = "",
                amounts: bool = True) -> tuple[str, str]:
    """The verdict of ``yes_or_no``, and the verdict of the sentence's negations and counts alone
    (a contrast of words left out): a caller can weigh the two kinds of evidence apart.
    ``amounts`` False: another figure of the sentence is no denial (a sentence of the same
    abstract gives the asked one: "beyond 160k tokens?" is not denied by "up to 16k tokens")."""
    said = [w for w in tokens(f"{sentence} {spelled}") if w[0].isalpha()]
    words = {_root(stem(w.removesuffix("-free"))) for w in said}
    focus = {_root(f) for f in part.focus}
    hits = focus & words
    if not focus or len(hits) < coverage * len(focus):
        return "", ""
    if (amounts and amounts_differ(part.text, sentence)) or ranked_apart(part.text, sentence) \
            or ordered_apart(part.text, sentence):  # a false premise:
        return "No", "No"  # "a single dataset" where it says six, "75%" where it says 99%
    asked = {w.lower() for w in tokens(part.text) if w[0].isalpha()}
    # what both deny agrees: "with no natural videos" asked, "without natural videos" said
    denied = {_root(d) for d in denied_terms(sentence, asked) - denied_terms(part.text, set())}
    negated = bool(hits & denied & _asking_clause_terms(part))
    content = ([w for w in ws if w not in STOPWORDS or w in QUANTITIES] for ws in (asked, [w.lower() for w in said]))
    contrast = bool(contrasted(*content)) or moved_apart(part.text, sentence)
    flipped = bool(_NEGATED_ASK.match(part.text))  # "Isn't X ...?": a denial agrees
    return ("No" if (negated or contrast) != flipped else "Yes"), ("No" if negated != flipped else "Yes")
