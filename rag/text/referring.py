"""The words a follow-up uses to point back at the sources of the previous answer: ordinals
("the second one", "the first two"), source numbers ("[2]", "source 3"), singular pointers
("it", "its", "that paper") and plural ones ("they", "both", "these methods"). The follow-up
resolver (rag.retrieve.followups) reads them from here, as every module reads words through
rag.text."""

from __future__ import annotations

import re

ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
            "fifth": 5, "5th": 5, "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8, "8th": 8,
            "last": -1, "final": -1}
COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_THING = (r"(?:one|paper|source|result|study|work|article|method|approach|model|reference|citation|"
          r"entry|system|technique)")
_THINGS = (r"(?:ones|papers|sources|results|studies|works|articles|methods|approaches|models|references|"
           r"citations|entries|systems|techniques)")
# An ordinal with no noun counts only where a noun could not follow ("the second?", "the second do").
_BARE_END = (r"(?=\s*[?.,!;:)]|\s*$|\s+(?:do|does|did|is|was|use|uses|used|work|works|say|says|report|"
             r"reports|propose|proposes|achieve|achieves|reach|reaches|measure|measures|have|has|"
             r"mean|means|need|needs|handle|handles|compare|compares|get|gets)\b)")
_ORDINAL = "|".join(sorted(map(re.escape, ORDINALS), key=len, reverse=True))
_COUNT = "|".join(COUNTS)

# What "its"/"their" own: up to four words, up to a word that starts a new phrase. "its throughput"
# is read as "the throughput of X" (a name with "'s" reads worse for retrieval than "of X").
_PHRASE_BREAK = r"(?:on|in|for|with|at|to|of|and|or|than|when|while|compared|versus|vs|is|are|was|were|do|does)"
_NOUN = rf"[A-Za-z][\w-]*(?:\s+(?!{_PHRASE_BREAK}\b)[A-Za-z][\w-]*){{0,3}}"

# Each pattern: (kind, regex). kind says how the match is resolved (see followups.resolve).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("key", re.compile(r"\[(\d{1,2})\]|\b(?:source|paper|reference|ref\.?|citation)\s*#?\s*(\d{1,2})\b",
                       re.IGNORECASE)),
    ("range", re.compile(rf"\bthe\s+(first|last|top)\s+({_COUNT})(?:\s+{_THINGS})?\b", re.IGNORECASE)),
    ("ordinal", re.compile(rf"\bthe\s+({_ORDINAL})(?:\s+{_THING}\b(?!\s+(?:to|that|which|who|of)\b)|{_BARE_END})",
                           re.IGNORECASE)),
    ("plural", re.compile(rf"\b(?:both(?:\s+of\s+them|\s+{_THINGS})?|all\s+of\s+them|each\s+of\s+them|"
                          rf"(?:these|those|the\s+two|the\s+three)\s+{_THINGS}|they|them)\b", re.IGNORECASE)),
    ("plural_possessive", re.compile(rf"\btheir\b(?:\s+(?P<noun>{_NOUN}))?", re.IGNORECASE)),
    ("possessive", re.compile(rf"\bits\b(?:\s+(?P<noun>{_NOUN}))?", re.IGNORECASE)),
    ("single", re.compile(rf"\b(?:(?:this|that|the\s+same)\s+{_THING}|the\s+(?:paper|method|approach|"
                          r"model|study|article)\b(?!\s+(?:to|that|which|who|of)\b)|"
                          r"it\b(?!\s+(?:is\s+)?(?:possible|true|likely|necessary|the\s+case|worth)\b))",
                          re.IGNORECASE)),
)
