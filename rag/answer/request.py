"""What a question asks once its wrapping is taken off: "Can you tell me which papers ...?" asks
"which papers ...?" (not yes or no), "I'm looking for papers on X" asks for papers on X (not
about "looking"), "Do you have anything on X?" asks for papers on X. "Can you get BERT's quality
in a day?" is no request: its "you" is anyone, so it stays a yes/no question."""

from __future__ import annotations

import re

_VERBS = (r"give|tell|show|list|explain|find|recommend|suggest|summari[sz]e|describe|provide|point|name|"
          r"help|search|identify|share|outline|compare|let")
# each strips a wrapping at the start, in turn
_WRAPPINGS = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"^\s*(?:hi|hello|hey)\b[\s,!.]*",
    r"^\s*please\s*,?\s+",
    rf"^\s*(?:can|could|would|will)\s+you\s+(?:please\s+)?(?=(?:{_VERBS})\b)",
    r"^\s*(?:i\s+am|i'm|im)\s+(?:looking|searching)\s+for\s+",
    r"^\s*i(?:\s+would|'d)?\s+(?:want|like|wish|need)\s+to\s+(?:know|find\s+out|find|see|learn|understand)\s+"
    r"(?:about\s+)?",
    r"^\s*do\s+you\s+know\s+",
    r"^\s*(?:tell|show)\s+me\s+|^\s*let\s+me\s+know\s+|^\s*(?:explain|summari[sz]e|describe)\s+",
))
_ANYTHING_ON = re.compile(r"^\s*(?:do|does)\s+(?:you|the\s+collection|the\s+library)\s+(?:have|hold|contain)\s+"
                          r"(?:anything|something|any\s+(?:papers?|works?|studies|research))\s+(?:on|about)\s+",
                          re.IGNORECASE)


def asked(question: str) -> str:
    """The question without the request around it (the whole question when nothing is left)."""
    rest = _ANYTHING_ON.sub("papers on ", question, count=1)
    for wrapping in _WRAPPINGS:
        rest = wrapping.sub("", rest, count=1)
    return rest if len(rest.split()) >= 2 else question
