"""Question handling before retrieval: strip chatter, recognise author questions, and rewrite a
follow-up so that it stands alone (rule-based here; an LLM rewriter can replace it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from rag.text.lexicon import STOPWORDS, tokens
from rag.text.names import is_name

_GREETING = r"^\s*(?:(?:hi|hello|hey)[,!.]?\s+)?(?:(?:please|kindly)\s+)?"  # "Hi, please ..."
_CHATTER = re.compile(
    _GREETING + r"(?:(?:can|could|would) you\s+"
    r"(?:please\s+)?)?(?:tell me(?: about)?|i(?:'d| would) like to know(?: about)?|i want to know"
    r"(?: about)?|give me an? (?:overview|summary) of|explain to me|do you know|"
    r"(?:i am|i'm|im) (?:looking|searching) for|show me(?=\s+(?:how|why|what|which)\b))"
    r"\s*[,:]?\s*", re.IGNORECASE)
# "Do you have anything on X?" asks for the papers on X, not whether there are any
_ANYTHING_ON = re.compile(r"^\s*(?:do|does)\s+(?:you|the\s+(?:collection|library))\s+(?:have|hold|contain)\s+"
                          r"(?:anything|something|any\s+(?:papers?|works?|studies|research))\s+(?:on|about)\s+",
                          re.IGNORECASE)
# "Could you list ...", "Can you explain ...": a request, not a yes/no question; the verb stays
_REQUEST = re.compile(
    _GREETING + r"(?:can|could|would|will) you\s+(?:please\s+)?"
    r"(?=(?:list|name|show me|find|"
    r"give|explain|describe|summari[sz]e|outline|recommend|suggest|point|compare|identify|help me find)\b)",
    re.IGNORECASE)
_TRAILING_POLITE = re.compile(r"\s*[,.]?\s*(?:please|thanks|thank you)[.!?]*\s*$", re.IGNORECASE)

_NAME = r"([A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-.]*){1,3})"
_AUTHOR_PATTERNS = (  # (?i:...) makes the wording case-insensitive but not the name
    re.compile(r"\b(?i:papers?|works?|publications?|articles?)\s+(?i:written\s+|authored\s+|"
               r"co-?authored\s+)?(?i:by|from)\s+" + _NAME),
    re.compile(r"\b(?i:did|does|has|have)\s+" + _NAME + r"\s+(?i:co-?)?(?i:author|write|wrote|"
               r"written|publish|work)"),
    re.compile(r"\b(?i:list|lists|include|includes|have|has|with)\s+" + _NAME +
               r"\s+(?i:as|among)\s+(?:\w+\s+){0,2}(?i:authors?|co-?authors?)"),
    re.compile(r"\b(?i:authored|co-?authored|written)\s+(?i:by)\s+" + _NAME),
    re.compile(r"\b(?i:with|by)\s+" + _NAME + r"\s+(?i:as\s+(?:an?\s+)?(?:co-?)?author)"),
    re.compile(_NAME + r"(?:'s|’s)\s+(?i:papers?|work|publications?)"),
    re.compile(r"\b(?i:published\s+by)\s+" + _NAME),
)


def clean_question(question: str) -> str:
    """Drop greetings, "tell me about", "I'm looking for" and the "could you" of a request ("Could
    you list the papers on X?" asks for a list, not whether it can be listed; "Do you have anything
    on X?" for the papers on X); keep method names, numbers and the question itself."""
    text = _REQUEST.sub("", _CHATTER.sub("", _ANYTHING_ON.sub("papers on ", question.strip(), count=1)))
    text = _TRAILING_POLITE.sub("", text)
    text = text.strip() or question.strip()
    return text[0].upper() + text[1:] if text else text


def author_in_question(question: str) -> str | None:
    """The person a question asks about as an author ("papers by Zhouhan Lin"), if any."""
    for pattern in _AUTHOR_PATTERNS:
        match = pattern.search(question)
        if match:
            return match.group(1).strip(" .?!,")
    return None


T = TypeVar("T")


def recent(history: Sequence[T], turns: int) -> list[T]:
    """The last ``turns`` earlier questions of a conversation (none for 0): what a front end
    passes to the engine, RAG_SERVICE__CONVERSATION_TURNS of them. The engine trims nothing."""
    return list(history[-turns:]) if turns > 0 else []


class QueryRewriter(Protocol):
    def rewrite(self, question: str, history: Sequence[str]) -> str: ...


_REFERS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|the same|the method|the model|the paper|the authors|"
    r"this (?:method|model|paper|approach|work)|that (?:method|model|paper|approach|work))\b|"
    r"^\s*(?:and|what about|how about|also|why|how so)\b", re.IGNORECASE)
def _subject(previous: str) -> str:
    """What a previous question was about: its method names, else its content words."""
    words = tokens(previous)
    names = [w for w in words if is_name(w)]
    if names:
        return " ".join(dict.fromkeys(names))
    content = [w for w in words if w.lower() not in STOPWORDS and len(w) > 2]
    return " ".join(dict.fromkeys(content[:8]))


class RuleRewriter:
    """A follow-up that points back ("it", "the model", "what about ...") or has at most one
    content word and no name gets the subject of the latest earlier question that had one
    appended, in parentheses."""

    def rewrite(self, question: str, history: Sequence[str]) -> str:
        if not history:
            return question
        words = tokens(question)
        names = [w for w in words if is_name(w) or any(c.isdigit() for c in w)]
        content = [w for w in words if w.lower() not in STOPWORDS]
        stands_alone = not _REFERS_BACK.search(question) and (names or len(content) > 1)
        if stands_alone:
            return question
        for previous in reversed(history):
            subject = _subject(previous)
            if subject and subject.lower() not in question.lower():
                return f"{question.rstrip()} ({subject})"
        return question
