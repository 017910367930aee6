"""Follow-ups that point at what the previous answer showed. "How does the second one work?"
after an answer with sources [1] KV-Distill and [2] VQKV becomes "How does VQKV work?" before
retrieval: the reference is resolved against the numbered sources of the previous turn (and the
paper the user opened last), not guessed from the words of earlier questions. Pure functions,
no LLM: the names come from ``name_of`` (the engine passes a catalogue lookup). A follow-up
that points at no source ("and what about memory?") is left to the query rewriter."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from rag.retrieve.query import QueryRewriter
from rag.text.referring import COUNTS, ORDINALS, PATTERNS
from rag.types import Answer, Paper, Turn

MAX_PLURAL = 5  # "they" names at most this many sources


@dataclass(frozen=True)
class Resolution:
    """The follow-up as it stands alone, and the papers it pointed at (none: it pointed nowhere)."""

    question: str
    papers: tuple[str, ...] = ()


def as_turns(history: Sequence[Turn | str]) -> list[Turn]:
    """Earlier turns; a bare string is a question whose sources are not known."""
    return [t if isinstance(t, Turn) else Turn(str(t)) for t in history]


def _pick(kind: str, match: re.Match[str], turn: Turn) -> tuple[str, ...]:
    sources = turn.sources
    if kind == "key":
        n = int(match.group(1) or match.group(2))
        return (sources[n - 1],) if 1 <= n <= len(sources) else ()
    if kind == "range":
        count = COUNTS[match.group(2).lower()]
        return sources[-count:] if match.group(1).lower() == "last" else sources[:count]
    if kind == "ordinal":
        n = ORDINALS[match.group(1).lower()]
        if n == -1:
            return sources[-1:]
        return (sources[n - 1],) if n <= len(sources) else ()
    if kind in ("plural", "plural_possessive"):
        return sources[:MAX_PLURAL] if len(sources) > 1 else sources
    focus = turn.focus or (sources[0] if sources else None)
    return (focus,) if focus else ()


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _said(kind: str, names: list[str], match: re.Match[str]) -> str:
    if kind in ("possessive", "plural_possessive"):
        noun = match.group("noun")
        return f"the {noun} of {_join(names)}" if noun else _join([f"{n}'s" for n in names])
    return _join(names)


def resolve(question: str, history: Sequence[Turn | str],
            name_of: Callable[[str], str | None]) -> Resolution:
    """Replace each phrase that points at the latest answer's sources with the papers' names.
    The first kind of phrase found wins ("the second one" before "it"); a number past the end
    of the list points at nothing and the question is left as asked."""
    turn = next((t for t in reversed(as_turns(history)) if t.sources or t.focus), None)
    if turn is None:  # no earlier answer showed a source (an abstention shows none)
        return Resolution(question)
    for kind, pattern in PATTERNS:
        found: list[str] = []
        text = pattern.sub(partial(_named, kind, turn=turn, name_of=name_of, found=found), question)
        if found:
            return Resolution(_capitalised(text), tuple(found))
    return Resolution(question)


def _named(kind: str, match: re.Match[str], *, turn: Turn, name_of: Callable[[str], str | None],
           found: list[str]) -> str:
    """The names that replace one pointing phrase (the phrase itself when none is known)."""
    ids = _pick(kind, match, turn)
    names = [n for pid in ids if (n := name_of(pid))]
    if not names:
        return match.group(0)
    found.extend(pid for pid in ids if pid not in found)
    return _said(kind, names, match)


def _capitalised(text: str) -> str:
    return text[0].upper() + text[1:] if text else text


def standalone(question: str, history: Sequence[Turn | str], rewriter: QueryRewriter,
               name_of: Callable[[str], str | None]) -> str:
    """The question as retrieval reads it: references to shown sources resolved by name; any
    other follow-up rewritten from the earlier questions (rule-based, or by an LLM)."""
    turns = as_turns(history)
    resolved = resolve(question, turns, name_of)
    if resolved.papers:
        return resolved.question
    return rewriter.rewrite(question, [t.question for t in turns])


def short_name(paper: Paper | None) -> str | None:
    """How a resolved follow-up names a paper: the method it introduces, else its title, else
    its label (which carries the id)."""
    if paper is None:
        return None
    return paper.method or (f'"{paper.title}"' if paper.title else paper.label)


def turn_of(answer: Answer, focus: str | None = None) -> Turn:
    """The turn an answer leaves for the next question: what it asked (as it stood alone) and
    the papers of its numbered sources, in order."""
    sources = tuple(c.paper_id for c in sorted(answer.citations, key=lambda c: c.key))
    return Turn(answer.standalone_question or answer.question, sources, focus)
