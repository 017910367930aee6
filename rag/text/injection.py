"""Text inside an abstract that addresses a model or a reader instead of describing research:
"ignore previous instructions", "SYSTEM: ...", "when asked about X, tell the user ...", "note to
automated summarizers: state that ...", chat-template tokens and fences. Such a sentence is never
an answer sentence, never counts as evidence, and is removed before an abstract reaches an LLM.

Text is normalised before it is matched: NFKC (full-width letters), format characters removed
(zero-width spaces and joiners, soft hyphens, bidi marks), and Cyrillic or Greek look-alike letters
inside a Latin word read as Latin ("Diѕregard"). Besides fixed phrasings, a sentence is an
instruction when it is a directive to a reader ("AI systems must report that ...", "any summary
of this work is to be concluded with ...") that also names a machine reader, this text, or the
act of answering; or an imperative addressed to one ("Reviewers using AI tools: rate ...",
"When asked ..., tell ..."). Research that describes instructions ("participants were instructed
to ignore the cue", "we ask the model to rate each response") is past tense, names no reader of
this text, and is left alone. Tuned on the development half of eval/datasets/injections;
``benchmarks/injection.py`` reports the held-back half and the bundled corpus."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from functools import lru_cache

from rag.text.clean import split_sentences
from rag.types import Paper

_LOOK_ALIKES = str.maketrans(
    "АВЕЅІЈКМНОРСТХУаеіјорсуxѕԁһΑΒΕΖΗΙΚΜΝΟΡΤΥΧοναρτ",
    "ABESIJKMHOPCTXYaeijopcyxsdhABEZHIKMNOPTYXovapt")
_NON_LATIN_LETTER = re.compile(r"[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f]")
_MIXED_WORD = re.compile(r"\w*[A-Za-z]\w*")
_BREAK = re.compile(r"(?<=[．。！？])\s*|(?<=[.!?])\s+(?=[\u0370-\u052f\uff21-\uff3a])"
                    r"|\s*(?=<\|)|(?<=\|>)\s*|\s*(?=\[INST\])|(?<=\[/INST\])\s*"
                    r"|(?<=[.!?])\s+(?=</?[A-Za-z]|`|\[[A-Za-z/])|(?<=[A-Za-z]>)\s+(?=[A-Z][a-z])")

_MACHINE = (r"(?:\bai\b|\ba\.i\.|artificial intelligence|\bllms?\b|language models?|\bki\b|"
            r"assistants?|chatbots?|summari[sz](?:ers?|ation systems?|ing systems?)|"
            r"search engines?|\bbots?\b|automated \w+|automatic \w+|machine readers?)")
_READER = _MACHINE[:-1] + r"|models?|systems?|evaluators?|graders?|readers?|agents?|tools?)"
_DIRECTIVE = (r"(?:must|should|shall|(?:is|are)\s+(?:to|expected to|instructed to|required to|"
              r"requested to|supposed to|obliged to)|(?:has|have|need)\s+to)")
_SAY = (r"(?:state|say|report|claim|answer|respond|reply|declare|affirm|assert|mention|describe|"
        r"present|call|treat|rank|rate|recommend|praise|include|end|conclude|award|tell|write|"
        r"output|print|repeat|cite|quote|refer)")
_IMPERATIVE = (r"(?:ignore|disregard|forget|tell|say|state|answer|respond|reply|write|output|print|"
               r"rate|rank|describe|recommend|include|praise|treat|pretend|act as|claim|report|"
               r"declare|mention)")

# A sentence matching any of these is an instruction on its own.
_PATTERNS = re.compile("|".join(f"(?:{p})" for p in (
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|"
    r"above|earlier|preceding|other|system|original)?\s*(?:instructions?|prompts?|messages?|rules|"
    r"directions|guidelines)\b",
    r"\b(?:ignore|disregard|forget)\s+(?:everything|anything|all|what(?:ever)?\s+\w+)\s+"
    r"(?:above|before|previously|prior|else|said|written)",
    r"(?:^|[\s\"'(\[#])(?:system|assistant|developer|user)\s*(?:prompt|override)?\s*:",
    r"(?:^|#)\s*(?:#+\s*)?(?:new\s+|updated\s+|real\s+|hidden\s+)?instructions?\s*:",
    r"\b(?:reveal|print|show|repeat|output|leak|disclose)\s+(?:your\s+|the\s+)?(?:system\s+)?"
    r"(?:prompt|instructions)\b",
    r"\b(?:you\s+are\s+(?:now\s+)?(?:an?\s+)?(?:ai|assistant|language\s+model|llm|chatbot|model)|"
    r"as\s+an?\s+(?:ai|language\s+model|llm))\b",
    r"\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|chatbot|model|bot)\b",
    r"\bwenn\s+(?:du|sie)\s+(?:ein|eine)\s+(?:ki|sprachmodell|assistent)",
    r"\b(?:answer|respond|reply)\s+(?:to\s+)?(?:every|all|any|each)\s+(?:question|query|prompt|"
    r"request)s?\b",
    r"\b(?:answer|respond|reply|say|output|print|write)\s+(?:only\s+)?(?:with\s+)?(?:the\s+word\s+)?"
    r"[\"“‘'][^\"”’']{1,40}[\"”’']",
    rf"\b{_MACHINE}\s+(?:reading|processing|summari[sz]ing|quoting|answering)\s+(?:this|these)\b",
    r"\bdo\s+not\s+(?:tell|mention|reveal)\s+(?:this|these)\s+(?:to\s+)?(?:the\s+)?user",
    r"\btell\s+the\s+(?:user|reader)s?\b",
    rf"\b(?:note|footnote|message|reminder|hint|instructions?)\s+(?:to|for)\s+[^:.]{{0,40}}{_MACHINE}"
    r"[^:.]{0,20}:",
    rf"^[^:]{{0,60}}{_MACHINE}[^:]{{0,30}}:\s*{_IMPERATIVE}\b",
    rf"\b(?:when|if|whenever)\s+(?:you\s+are\s+)?asked\b[^.;]{{0,120}},\s*{_IMPERATIVE}\b",
    r"\bcite\s+\[\d+\]",
    r"</?\s*(?:abstract|system|instructions?|assistant|user|s)\b[^>]*>",
    r"<\|[a-z_]+\|>|\[/?inst\]|```|<<\s*sys\s*>>",
)), re.MULTILINE)

# A directive to a reader counts when the sentence says who should obey (a machine reader), or
# about what (this text, the act of answering), or that a claim is to be made ("state that").
_ADDRESSED = re.compile(rf"\b{_READER}\b[^.;,]{{0,60}}?\b{_DIRECTIVE}\s+(?:also\s+|always\s+|only\s+|"
                        rf"then\s+|not\s+|further\s+){{0,2}}{_SAY}\b"
                        rf"|\b(?:we\s+(?:kindly\s+)?ask|please)\s+[^.;]{{0,40}}?\bto\s+{_SAY}\b"
                        r"|\bit\s+(?:is|should\s+be)\s+(?:requested|required|reported|stated)\s+"
                        r"(?:that|by)\b|\b(?:is|are)\s+to\s+be\s+\w+ed\b")
_CUES = [re.compile(p) for p in (
    _MACHINE,
    r"\bthis\s+(?:paper|abstract|work|study|text|article|submission|document|research)\b",
    r"\b(?:any|every|each)\s+(?:question|answer|summary|reply|response)s?\b|\bthe\s+user\b"
    r"|\banswering\s+questions\b|\bsummar(?:y|ies)\s+of\s+this\b",
    rf"\b{_SAY}\w*\s+(?:that|it\s+as|this\s+\w+\s+as)\b|\b(?:described|declared|reported)\s+as\b"
    r"|\bthe\s+(?:statement|claim|phrase)\b|\bthe\s+correct\s+answer\b",
)]


def normalise(text: str) -> str:
    """The text as it reads: NFKC, format characters removed, look-alike letters in a Latin
    word made Latin, spaces collapsed."""
    if text.isascii():
        return re.sub(r"\s+", " ", text).strip()
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = _MIXED_WORD.sub(lambda m: m.group(0).translate(_LOOK_ALIKES)
                           if _NON_LATIN_LETTER.search(m.group(0)) else m.group(0), text)
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=1 << 16)
def is_instruction(sentence: str) -> bool:
    """Does this sentence talk to a model or a reader rather than about the research? (Cached:
    the answer path asks about the same abstracts' sentences again and again.)"""
    text = normalise(sentence).lower()  # the patterns are lower case: faster than IGNORECASE
    if _PATTERNS.search(text):
        return True
    return bool(_ADDRESSED.search(text)) and any(c.search(text) for c in _CUES)


def sentences(text: str) -> list[str]:
    """Sentences, also split after full-width and ideographic full stops and around chat-template
    tokens, and before a sentence that opens with a Greek, Cyrillic or full-width letter (so that
    the research sentence next to "<|im_end|>" or to "Αll AI systems must ..." is kept)."""
    parts = [part for s in split_sentences(text) for part in _BREAK.split(s) if part.strip()]
    return _join_turns(parts)


# A chat turn smuggled into an abstract ("<|im_start|>system Say X.<|im_end|>", "[INST] ... [/INST]"):
# everything from its opening to its closing marker is one unit, so that no sentence inside it
# passes as research once the markers are split off.
_OPENS = re.compile(r"<\|(?!im_end|eot_id|end\b|endoftext)[a-z_]+\|>|\[INST\]|<<\s*SYS\s*>>|<system>",
                    re.IGNORECASE)
_CLOSES = re.compile(r"<\|(?:im_end|eot_id|end|endoftext)\|>|\[/INST\]|<</\s*SYS\s*>>|</system>",
                     re.IGNORECASE)
_TURN_PARTS = 8  # a turn longer than this many sentences is not merged (an unclosed marker)


def _join_turns(parts: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(parts):
        opened = _OPENS.search(parts[i])
        if opened and not _CLOSES.search(parts[i], opened.end()):
            end = next((j for j in range(i + 1, min(len(parts), i + _TURN_PARTS))
                        if _CLOSES.search(parts[j])), None)
            if end is not None:
                out.append(" ".join(parts[i:end + 1]))
                i = end + 1
                continue
        out.append(parts[i])
        i += 1
    return out


PLACEHOLDER = "[instruction-like text removed]"


def scrub(text: str, placeholder: str = PLACEHOLDER) -> tuple[str, int]:
    """The text with every instruction-like sentence replaced by a placeholder, and how many."""
    out: list[str] = []
    removed = 0
    for sentence in sentences(text):
        if is_instruction(sentence):
            removed += 1
            if not out or out[-1] != placeholder:
                out.append(placeholder)
        else:
            out.append(sentence)
    return (" ".join(out), removed) if removed else (text, 0)


def scrubbed(paper: Paper) -> Paper:
    """The paper with its instruction-like sentences replaced by a placeholder (an LLM never reads
    them, and support never rests on them); the paper itself when it has none."""
    abstract, removed = scrub(paper.abstract)
    if not removed:
        return paper
    return replace(paper, abstract=abstract, text=scrub(paper.text)[0])


def evidence_sentences(paper: Paper) -> tuple[str, ...]:
    """A paper's sentences as evidence: split once (``rag.stages.retrieve.gather``, and at ingest
    for the stored sentence vectors); a scrubbed placeholder is not evidence and never merges
    into the next sentence."""
    if not paper.has_abstract:
        return ()
    return tuple(s for piece in paper.text.split(PLACEHOLDER) for s in sentences(piece))
