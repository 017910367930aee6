"""Author names, normalised once for storage and lookup: case, diacritics, initials and the
"Surname, Given" order do not matter ("Lin, Zhouhan", "Z. Lin", "ZHOUHAN LIN" and "Zhóuhan Lin"
are the same person to a query), so "papers by X" is an indexed lookup, not a scan."""

from __future__ import annotations

import unicodedata

from rag.text.lexicon import alnum_words


def fold(text: str) -> str:
    """Lower case without diacritics: "Zhóuhan" -> "zhouhan"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def name_tokens(name: str) -> tuple[str, ...]:
    """The words of a name in given-name-first order: "Lin, Zhouhan" -> ("zhouhan", "lin")."""
    if name.count(",") == 1:
        surname, given = name.split(",")
        name = f"{given} {surname}"
    return tuple(alnum_words(fold(name)))


def token_matches(query: str, stored: str) -> bool:
    """A query word matches a stored one exactly; an initial matches the words it starts."""
    if len(query) == 1:
        return stored.startswith(query)
    if len(stored) == 1:
        return query.startswith(stored)
    return query == stored


def name_matches(query: str, author: str) -> bool:
    """Every word of the query is (an initial of) a word of the author's name."""
    wanted, have = name_tokens(query), name_tokens(author)
    return bool(wanted) and all(any(token_matches(q, h) for h in have) for q in wanted)


def anchor(tokens: tuple[str, ...]) -> str | None:
    """The query word to look up in the index first: the longest full word (usually the
    surname); None when the query is only initials."""
    full = [t for t in tokens if len(t) > 1]
    return max(full, key=len) if full else None
