"""Short forms an abstract defines: "the Reasoning Reflection Reward (R3)" makes R3 stand for
"Reasoning Reflection Reward" in the rest of that abstract. A reader of a later sentence ("R3 is
computed internally") then knows it speaks of the reward the question names in full.

The long form is found the way Schwartz and Hearst (2003) find it: the fewest words before the
parenthesis whose letters hold the short form's letters in order, the first letter opening a
word, unless as many words as the short form has letters open with them in turn; a letter with
a digit stands for as many words ("R3": three words opening with R)."""

from __future__ import annotations

import re
from functools import lru_cache

_DEFINED = re.compile(r"\(([A-Za-z][A-Za-z0-9\-]{1,11})\)")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*")


def _long_form(short: str, before: list[str]) -> list[str] | None:
    """The last words of ``before`` that spell ``short``, or None."""
    letters: list[str] = []
    for ch in short.lower():  # "R3": three words opening with r
        if ch in "2345" and letters and letters[-1].isalpha():
            letters += letters[-1:] * (int(ch) - 1)
        elif ch.isalnum():
            letters.append(ch)
    if not letters or not any(ch.isalpha() for ch in short):
        return None
    initials = [w[0].lower() for w in before[-len(letters):]]
    if initials == letters:  # an initialism: "Reasoning Reflection Reward (R3)"
        return before[-len(letters):]
    if any(ch.isdigit() for ch in short):
        return None
    limit = min(len(letters) + 5, 2 * len(letters))
    window = before[-limit:]
    text = " ".join(window).lower()
    li, ti = len(letters) - 1, len(text) - 1
    while li >= 0:  # match from the end; the first letter must open a word
        while ti >= 0 and (text[ti] != letters[li] or (li == 0 and ti > 0 and text[ti - 1].isalnum())):
            ti -= 1
        if ti < 0:
            return None
        li, ti = li - 1, ti - 1
    start = text.rfind(" ", 0, ti + 1) + 1
    words = text[start:].split()
    if len(words) < 2 or len(words) > limit:
        return None
    return window[len(window) - len(words):]


def definitions(abstract: str) -> dict[str, str]:
    """Each short form the abstract defines in parentheses, with the words it stands for."""
    return dict(_definitions(abstract))


@lru_cache(maxsize=4096)
def _definitions(abstract: str) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for m in _DEFINED.finditer(abstract):
        short = m.group(1)
        if not any(ch.isupper() for ch in short):
            continue
        before = _WORD.findall(abstract[max(0, m.start() - 200): m.start()])
        words = _long_form(short, before)
        if words:
            found.setdefault(short, " ".join(words))
    return tuple(found.items())


def spelled_out(sentence: str, abstract: str) -> str:
    """The long forms of the short forms the sentence uses (space-joined), from the abstract's
    definitions; "" when it uses none."""
    used = set(_WORD.findall(sentence))
    return " ".join(long for short, long in _definitions(abstract) if short in used)
