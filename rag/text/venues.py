"""Venues and years as questions name them: the one venue table, and what a pure listing
question ("Which papers appeared at EMNLP 2023?") is made of."""

from __future__ import annotations

import re

from rag.text.lexicon import tokens

# Venue acronyms a question may use, longest-first where one contains another (EACL, ACL).
ACRONYMS = ("EMNLP", "NAACL", "EACL", "COLING", "ACL", "NeurIPS", "ICLR", "ICML", "AAAI", "IJCAI",
            "CVPR", "ICCV", "ECCV", "KDD", "SIGIR", "WWW", "TACL")
# ... and, where the bundled venue strings spell them out, how.
SPELLED_OUT = {
    "EMNLP": "Empirical Methods in Natural Language Processing",
    "NAACL": "Americas Chapter of the Association for Computational Linguistics",
    "EACL": "European Chapter of the Association for Computational Linguistics",
    "ACL": "Annual Meeting of the Association for Computational Linguistics",
}
_ACRONYM = {a: re.compile(rf"\b{a}\b") for a in ACRONYMS}
_YEAR = re.compile(r"\b(19|20)\d\d\b")
_VENUE_OR_YEAR = re.compile(r"\b(?:" + "|".join(ACRONYMS) + r"|(?:19|20)\d\d)\b")
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.IGNORECASE)

# Words of a listing question that are not a topic: "which papers appeared at ACL 2024?"
LISTING_WORDS = frozenset("""collection corpus index indexed listed list papers paper works work
publish published publication publications appear appeared appearing accept accepted present
presented conference venue proceedings meeting annual workshop track volume long short year
years held main findings which what show me all any there were was are is in at of the from
during on for""".split())


def venue_and_year(text: str) -> tuple[str | None, int | None]:
    """"at EMNLP 2023" -> a venue (spelled out where the bundled venue strings spell it out)
    and a year."""
    short = next((a for a in ACRONYMS if _ACRONYM[a].search(text)), None)
    venue = SPELLED_OUT.get(short, short) if short else None
    year = _YEAR.search(text)
    return venue, int(year.group(0)) if year else None


def names_a_venue_or_year(text: str) -> bool:
    return bool(_VENUE_OR_YEAR.search(text))


def without_venues_and_years(text: str) -> str:
    return _VENUE_OR_YEAR.sub(" ", text)


def only_listing_words(text: str) -> bool:
    """Every word is a venue, a year, an ordinal ("62nd") or a listing word: no topic is asked
    about."""
    acronyms = {a.upper() for a in ACRONYMS}
    return all(w.lower() in LISTING_WORDS or w.upper() in acronyms or w.isdigit()
               for w in tokens(_ORDINAL.sub(" ", text)))
