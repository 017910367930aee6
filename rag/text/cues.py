"""What kind of statement a sentence is, by its wording: it introduces the work ("we propose"),
says how ("by using", "via", "based on"; not a "by" that names who did it), reports results
("experiments show", "outperforms", "significant gains"), and whether a question asks about
results. General English of abstracts; the fitted reader weighs these as features, it does not
follow them as rules."""

from __future__ import annotations

import re

INTRO = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\b[^.]{0,40}\b(?:propose|present|introduce)")
MECHANISM = re.compile(r"\b(?:by\s+(?:\w+ly\s+)?\w+ing\b|by\s+means\s+of|through|via|using|based\s+on|"
                       r"relies\s+on|leverag\w*|employ\w*|"
                       r"consists?\s+of|instead\s+of|rather\s+than|specifically|concretely|"
                       r"in\s+particular)\b", re.IGNORECASE)
RESULT = re.compile(r"\b(?:experiments?|empirical(?:ly)?|results?|evaluations?)\b[^.]{0,30}"
                    r"\b(?:show|demonstrate|indicate|confirm|verify)|\boutperform|"
                    r"\bstate[- ]of[- ]the[- ]art\b|\bsurpass|"
                    r"\b(?:experiments?|results?|evaluations?)\b[^.]{0,30}\b(?:prove|reveal)|"
                    r"\b(?:significant|consistent|substantial|notable|considerable)(?:ly)?\s+(?:\w+\s+){0,2}"
                    r"(?:improvements?|gains?)\b|\b(?:improvements?|gains?)\s+(?:are|were)\s+(?:achieved|obtained|observed)",
                    re.IGNORECASE)
ASKS_RESULTS = re.compile(r"\b(?:better|best|worse|outperform\w*|beat\w*|faster|slower|accura\w*|score\w*|"
                          r"results?|perform\w*|gains?|improv\w*|compar\w*|benchmark\w*|state[- ]of)\b",
                          re.IGNORECASE)
# the question asks for an example ("given as an example of", "which X does it cite as an
# example"); a sentence gives one ("such as", "e.g.", "for instance", "including")
ASKS_EXAMPLE = re.compile(r"\b(?:as\s+(?:an?|its|one)\s+(?:\w+\s+)?example|examples?\s+of|"
                          r"for\s+(?:example|instance))\b", re.IGNORECASE)
GIVES_EXAMPLE = re.compile(r"\bsuch\s+as\b|\be\.g\.|\bfor\s+(?:example|instance)\b|\bincluding\b", re.IGNORECASE)
OWN_WORK = re.compile(r"^(?:\W*)(?:we|our|this|it|the\s+(?:proposed|resulting))\b|\b(?:we|our)\b",
                      re.IGNORECASE)
