"""What kind of statement a sentence is, by its wording: it introduces the work ("we propose"),
says how ("by", "via", "based on"), reports results ("experiments show", "outperforms"), and
whether a question asks about results. General English of abstracts; the fitted reader weighs
these as features, it does not follow them as rules."""

from __future__ import annotations

import re

INTRO = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\b[^.]{0,40}\b(?:propose|present|introduce)")
MECHANISM = re.compile(r"\b(?:by|through|via|using|based\s+on|relies\s+on|leverag\w*|employ\w*|"
                       r"consists?\s+of|instead\s+of|rather\s+than|specifically|concretely|"
                       r"in\s+particular)\b", re.IGNORECASE)
RESULT = re.compile(r"\b(?:experiments?|empirical(?:ly)?|results?|evaluations?)\b[^.]{0,30}"
                    r"\b(?:show|demonstrate|indicate|confirm|verify)|\boutperform|"
                    r"\bstate[- ]of[- ]the[- ]art\b|\bsurpass", re.IGNORECASE)
ASKS_RESULTS = re.compile(r"\b(?:better|best|worse|outperform\w*|beat\w*|faster|slower|accura\w*|score\w*|"
                          r"results?|perform\w*|gains?|improv\w*|compar\w*|benchmark\w*|state[- ]of)\b",
                          re.IGNORECASE)
OWN_WORK = re.compile(r"^(?:\W*)(?:we|our|this|it|the\s+(?:proposed|resulting))\b|\b(?:we|our)\b",
                      re.IGNORECASE)
