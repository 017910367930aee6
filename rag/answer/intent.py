"""What a question asks, parsed once: its kind, its parts, the things it names, its focus terms.

The answerers and the engine's route decisions read this instead of re-matching the question
text. The patterns here describe question *shapes* ("how many X", "is/does ...", "compare X and
Y"), never particular questions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.retrieve.query import author_in_question, clean_question
from rag.text.lexicon import STOPWORDS, focus_terms, stem
from rag.text.names import names
from rag.text.venues import names_a_venue_or_year, only_listing_words, venue_and_year, without_venues_and_years

Kind = Literal["name", "number", "yes_no", "how", "list", "comparison", "metadata", "describe"]

# Metric acronyms count only as written ("mAP", "EM", "FID"): lower-case "map" and "em" are words.
_ACRONYMS = r"(?-i:AUC|AUROC|R?MSE|MAPE|[mM]AP|n?DCG|NDCG|MRR|WER|CER|FID|PSNR|SSIM|IoU|IOU|mIoU|EM)"
_MEASURE = (r"percentage|percent|proportion|fraction|share|number|count|amount|ratio|factor|rate|"
            r"score|accuracy|precision|recall|f1|bleu|rouge|speed-?up|size|gain|improvement|"
            r"reduction|drop|decrease|increase|error|cost|latency|throughput|perplexity|margin|"
            r"compression|parameters|" + _ACRONYMS + r"|exact\s+match|top-?[15]|"
            r"pass@\d+|hit@\d+|win\s+rate|overhead|memory|footprint|budget|length")
_NUMBER_Q = re.compile(
    r"\b(?:how\s+many|how\s+much|by\s+how\s+(?:much|many)|to\s+what\s+extent|"
    r"how\s+(?:large|big|small|fast|long|often|far|high|low|deep)\b|"
    r"what\s+(?:is\s+|was\s+|are\s+|were\s+)?(?:the\s+)?(?:(?!of\b)[\w-]+\s+){0,3}?(?:" + _MEASURE + r")\b)",
    re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?!times\b|percentage\b)((?:[A-Za-z][\w\-]*\s*){1,4})",
                       re.IGNORECASE)
_PERCENT_Q = re.compile(r"\b(?:percentage|percent|proportion|share|fraction|%)", re.IGNORECASE)
_SCORE_Q = re.compile(r"\b(?:accuracy|precision|recall|f1|rate|score|bleu|rouge|" + _ACRONYMS +
                      r"|exact\s+match|top-?[15]|pass@\d+|hit@\d+)\b",
                      re.IGNORECASE)
_TIMES_Q = re.compile(r"\b(?:speed-?up|times|factor|fold)\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\s*(?:is|are|does|do|did|can|could|was|were|has|have|will|would|should|"
                     r"must)\b", re.IGNORECASE)
# "Is there a method that ...?" asks for the method, not for a yes or a no.
_EXISTS = re.compile(r"^\s*(?:is|are)\s+there\b|^\s*(?:do|does)\s+(?:any|some)\b", re.IGNORECASE)
_COMPARATIVE = re.compile(r"\b(?:bigger|larger|smaller|faster|slower|higher|lower|better|worse|"
                          r"cheaper|stronger|weaker|longer|shorter|more|less|fewer)\b", re.IGNORECASE)
_COMPARISON = re.compile(r"\b(?:each|compare[sd]?|comparison|differ(?:s|ence|ences)?|versus|vs\.?|"
                         r"which\s+(?:one|of\s+the\s+two)|"
                         r"contrast)\b|\bboth\b.+\band\b", re.IGNORECASE)
_EACH_OF_TWO = re.compile(r"\band\b[^?]{1,80}?\beach\b", re.IGNORECASE)  # "A and B each ..."
_HOW = re.compile(r"^\s*(?:(?:explain|describe|show)\s+)?(?:how|why)\b(?!\s+(?:many|much)\b)|\bin\s+what\s+way\b|"
                  r"\bwhat\s+(?:mechanism|technique|strategy|idea)\b|\bhow\s+(?:does|do|is|are|can)\b",
                  re.IGNORECASE)
_LIST = re.compile(r"\b(?:which|what|list|name|any|are\s+there)\b.{0,40}\b(?:papers|works(?!\s+(?:best|better|"
                   r"well|worse|poorly|most|least)\b)|studies|"
                   r"methods|approaches|models|benchmarks|datasets|articles|publications|"
                   r"systems|techniques)\b|\bpapers\b|\bstudies\b", re.IGNORECASE)
_LIST_FIRST = re.compile(_LIST.pattern.replace(".{0,40}", ".{0,40}?"), re.IGNORECASE)  # the first plural
# "Which recurrent architectures ...", "List the GNN designs ...": a plural asked for; and a
# question that browses the collection ("anything in here on ...", "what does each paper ...")
_PLURAL_ASKED = re.compile(r"^\s*(?:which|list|name)\s+(?:the\s+|all\s+)?(?:[\w-]+\s+){0,3}?"
                           r"[a-z-]{2,}(?<![suia'])s\s+(?:that|which|who|are|were|have|do|did|can|could)\b",
                           re.IGNORECASE)
_BROWSE = re.compile(r"\banything\b[^?]{0,30}\b(?:on|about)\b|\bwhat(?:'s|\s+is)\s+(?:there\s+)?in\s+(?:here|"
                     r"the\s+(?:collection|library))\b|\beach\s+(?:paper|study|work)\b", re.IGNORECASE)
_NAME_Q = re.compile(r"^\s*(?:which|what)\s+(?!(?:is|are|was|were|does|do|did|can|papers?|"
                     r"kind|sort|results?|findings?|gains?|improvements?|performance|contributions?|problems?|"
                     r"failures?|issues?|limitations?|challenges?|weakness(?:es)?|drawbacks?|shortcomings?|"
                     r"happens?|happened|causes?|caused|makes?|drives?|determines?|explains?|leads?)\b)[a-z-]+\b|"
                     r"\bwhat\s+is\s+(?:the\s+)?name\b|\bwhat\s+(?:is|are)\s+(?:it|they)\s+called\b", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:[,;]\s*(?:and\s+)?|\s+and\s+|\?\s+)(?=(?:(?:on|in|for|with|by|at|to|from|"
                    r"of|under)\s+)?(?:what|which|how|who|why|when|where|does|do|did|is|are|was|were|"
                    r"can)\b)", re.IGNORECASE)


_VERBS = frozenset("""used needed required trained train run ran does do did were was are is has have
reach reached achieve achieved cover covers contain contains include includes make makes made
take takes took form forms comprise comprises compose composes appear appears exist exists
involve involves need needs needed get gets got go went""".split())


@dataclass(frozen=True)
class Part:
    """One thing to answer: "Which model ..., and how many GPUs ...?" has two."""

    text: str
    kind: Kind
    focus: frozenset[str]
    unit: str | None = None  # "%", "x", or the stemmed noun of "how many X"
    counted: frozenset[str] = frozenset()  # "how many galaxy images": {"galaxy", "image"}


@dataclass(frozen=True)
class Intent:
    question: str
    kind: Kind
    parts: tuple[Part, ...]
    names: tuple[str, ...]
    focus: frozenset[str]
    multi_paper: bool = False
    author: str | None = None  # "papers by X": answered from the author lists
    venue: str | None = None  # a venue the question names ("at EMNLP 2023")
    year: int | None = None
    listing: bool = False  # only a venue and/or year, no topic: answered from the catalogue

    @property
    def lists_papers(self) -> bool:
        """Answered as a list of papers, one line each (not a comparison, not the catalogue)."""
        return self.multi_paper and self.kind in ("list", "describe", "how", "name", "number")

    @property
    def wants_number(self) -> bool:
        return any(p.kind == "number" for p in self.parts)


def _counted(text: str) -> list[str]:
    """The noun phrase of "how many X ...": the words before the verb, stemmed."""
    many = _HOW_MANY.search(text)
    if not many:
        return []
    found = many.group(1).split()
    # "how many new recipes", "how many more layers": the phrase starts at its first content word
    words = found[next((i for i, w in enumerate(found) if not _stop(w)), 0):]
    end = next((i for i, w in enumerate(words) if _stop(w)), len(words))
    plural = next((i + 1 for i, w in enumerate(words[:end]) if _plural(w)), end)
    return [stem(w) for w in (words[:min(end, plural)] or words[:1])]


def _stop(word: str) -> bool:
    return word.lower() in STOPWORDS or word.lower() in _VERBS


def _plural(word: str) -> bool:
    """ "models", "GPUs", "languages": the head noun of "how many X ..." ends the phrase."""
    w = word.lower()
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is"))


def _unit(text: str) -> str | None:
    """ "%" (a share), "x" (a factor), "score" (a metric, with or without %), or the stemmed
    noun of "how many X"."""
    counted = _counted(text)
    if counted:  # the counted noun: the last word of "how many training tokens"
        return counted[-1]
    if _PERCENT_Q.search(text):
        return "%"
    if _TIMES_Q.search(text):
        return "x"
    if _SCORE_Q.search(text):
        return "score"
    return None


_ASKS = re.compile(r"^(?:(?:on|in|for|with|by|at|to|from|of|under)\s+)?(?:what|which|how|who|whom|whose|why|when|"
                   r"where|does|do|did|is|are|was|were|can|could|has|have|had|will|would|should|list|name|"
                   r"give|explain|describe|tell|compare|summari[sz]e|show|find)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"^(?:when|where|if|once|after|before|while|since)\s+(?!(?:is|are|was|were|does|do|did|"
                     r"can|could|has|have|will|would)\b)", re.IGNORECASE)


def part_kind(text: str, whole: str) -> Kind:
    context, _, asked = text.partition(", ")
    if asked and _YES_NO.match(asked) and (not _ASKS.match(context) or _CLAUSE.match(context)):
        text = asked  # "During its post-training, does X ...": the kind is the asking clause's
    if _EXISTS.match(text):
        return "list" if re.search(r"\b(?:papers|works|studies|methods|models)\b", text) else "name"
    if _YES_NO.match(text):
        return "yes_no"
    if _NUMBER_Q.search(text):
        return "number"
    said = names(whole)
    named = len(said)
    if named >= 2 and (re.search(r"\beach\b", text) or (
            re.search(r"\bor\b", text) and _COMPARATIVE.search(text))):
        return "comparison"
    if _EACH_OF_TWO.search(text) or (named >= 2 and _joined(text, said[0], said[1])):
        return "comparison"  # "How do LumiNet and dual-head distillation each ...", "... in A and in B"
    compared = _COMPARISON.search(text)
    if compared and not re.search(r"\beach\b", compared[0]) and named and (
            named >= 2 or not re.fullmatch(r"compared|comparison", compared[0], re.IGNORECASE)):
        return "comparison"  # one name "compared with" the original work, or "a head-by-head
        # comparison" it makes, asks about that one paper: two are compared, or it differs from one
    if _HOW.search(text):
        return "how"
    if _asks_papers(text):
        return "list"
    if _NAME_Q.search(text):
        return "name"
    return "describe"


_SINGULAR = r"(?:[\w-]*ss|[\w-]+(?<!s))"  # a word that is no plural ("loss", "harm")
# a wh-word, the noun it asks for, then the clause's auxiliary: a plural after it is the subject
_HEAD_THEN_AUX = re.compile(rf"(?:which|what)\s+(?:[\w-]+\s+){{0,2}}?{_SINGULAR}\s+"
                            r"(?:do|does|did|is|are|was|were|can|could|has|have|had|will|would|should)\b",
                            re.IGNORECASE)


# a wh-word and a singular noun it asks for, then a phrase that qualifies it: a plural there is in
# that phrase ("Which environmental harm of training big models ...?" asks for one harm); not a
# collective noun ("which set of methods", "what kinds of models" ask for the plural)
_HEAD_THEN_PHRASE = re.compile(r"(?:which|what)\s+(?:[\w-]+\s+)?(?!(?:kind|type|sort|set|group|family|class|"
                               r"list|number|range|variety|pair|series|subset|category|combination|line|body|"
                               rf"collection|selection|suite|mix|mixture)\b){_SINGULAR}\s+"
                               r"(?:of|for|in|on|about|behind|from|to|against|between)\s", re.IGNORECASE)


def _asks_papers(text: str) -> bool:
    """"Which papers/methods/models ...": a plural asked for, not the last word of a name the
    question gives ("Which technique do Decomposed Reward Models apply ...?" asks about one)."""
    for m in _LIST_FIRST.finditer(text):
        last = m[0].split()[-1]
        if m.end() - len(last) > 0 and last[0].isupper():  # capitalised, and not the question's first word
            continue
        if _HEAD_THEN_AUX.match(m[0]) or _HEAD_THEN_PHRASE.match(m[0]):  # "Which loss did earlier
            continue  # methods rely on?", "Which harm of training big models ...?": one is asked
        return True
    return False


def _joined(text: str, first: str, second: str) -> bool:
    """Two names the question joins with "and" ("in Self-MoE and in ELREA"), side by side."""
    pattern = rf"{re.escape(first)}\W+(?:and|&)\s+(?:in\s+|for\s+|of\s+)?{re.escape(second)}"
    return re.search(pattern, text) is not None


def split_parts(question: str) -> list[str]:
    """The question's parts. A leading clause that asks nothing before a yes/no question ("During
    its RL post-training, does X ...", "When X was tuned, did ...") is part of it. Before one
    wh-question it stays a part of its own (on dev that reads its context sentence too), after the
    part that asks, so that the answer leads with what is asked. A bare
    "how" or "why" after a part ("What does X address, and how?") asks it of that part."""
    pieces = [p.strip(" ,;?") for p in _SPLIT.split(question.strip())]
    # "What does X address, and how?": a bare "how" or "why" asks it of the part before it
    pieces = [f"{p}: {pieces[i - 1]}" if i and p.lower() in ("how", "why") else p for i, p in enumerate(pieces)]
    pieces = [p for p in pieces if len(p.split()) >= 2] or [question.strip(" ?")]
    if len(pieces) > 1 and (not _ASKS.match(pieces[0]) or _CLAUSE.match(pieces[0])):
        if _YES_NO.match(pieces[1]):
            pieces[:2] = [f"{pieces[0]}, {pieces[1]}"]
        elif len(pieces) == 2:  # "To stop X, which constraints does Y add?": what is asked
            pieces = [pieces[1], pieces[0]]  # leads, its context follows (with several asked parts,
            # they follow their shared context in the question's order)
    return pieces


def _part(text: str, question: str, said: tuple[str, ...]) -> Part:
    kind = part_kind(text, question)
    focus = frozenset(focus_terms(text) - {n.lower() for n in said} - {stem(n) for n in said})
    if kind == "how" and said and not focus:  # "How does X work?" asks nothing but what X does
        kind = "describe"
    if kind == "comparison" and _COMPARATIVE.search(text) and not _HOW.search(text):
        return Part(text, kind, focus, "figure")  # "which is bigger": each side's figure; not "how
        # does each make models better", which asks for each side's way
    if kind != "number":
        return Part(text, kind, focus)
    return Part(text, kind, focus, _unit(text), frozenset(_counted(text)))


_QUOTED = re.compile(r"(?:(?<=\s)|^)[\"'“‘]([^\"'“”‘’]{3,120}?)[\"'”’](?=[\s?!,.;:)]|$)")


def quoted(question: str) -> list[str]:
    """Titles the question quotes ("the 'Teaching CLIP to Count to Ten' method"): a name it asks
    about, as a paper or an abstract may say it. One quoted word is emphasis, not a title."""
    return [q.strip() for q in _QUOTED.findall(question) if len(q.split()) >= 2]


def parse_intent(question: str) -> Intent:
    """Parse a (stand-alone) question once."""
    author = author_in_question(question)
    said = tuple(dict.fromkeys([*quoted(question), *(n for n in names(question)
                                                     if not (author and n in author.split()))]))
    # "Can you tell me which papers ...?" is a request, not a yes/no question: read what it asks
    texts = split_parts(clean_question(question))
    parts = tuple(_part(t, question, said) for t in texts)
    kinds = [p.kind for p in parts]
    multi = bool(_asks_papers(question) or _PLURAL_ASKED.search(question) or _BROWSE.search(question)) \
        or "comparison" in kinds
    if author or (names_a_venue_or_year(question) and _LIST.search(question) and not focus_terms(
            without_venues_and_years(question)) - {"publish", "appear", "accept", "conference"}):
        kind: Kind = "metadata"
    elif "comparison" in kinds:
        kind = "comparison"
    elif len(parts) == 1:
        kind = parts[0].kind
    else:
        kind = next((k for k in kinds if k != "describe"), "describe")
    venue, year = venue_and_year(question)
    listing = not author and bool(venue or year) and only_listing_words(question)
    return Intent(question, kind, parts, said, frozenset(focus_terms(question)), multi, author,
                  venue, year, listing)
