"""The offline composer: the default ``Generator``. It composes a short extractive answer from
the retrieved abstracts' own sentences: no key, no network, deterministic.

The reader (``rag.answer.reader``, the read stage) has already scored every candidate sentence
for every part of the question and decided whether the abstracts answer at all; this module only
lays the answer out:
- one part, one paper: the best sentence, led by the short span it holds (a figure, a name, a
  yes/no verdict), and the paper's next sentences that score nearly as well;
- several parts: each from its own best sentence, and a part nothing answers is named;
- a list ("which papers ..."): one line per paper the reader finds qualifying, each with its own
  sentence, and its own figure when the question asks "how much" (or a line saying it has none);
- a comparison: each side from its own paper."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rag.answer.evidence import Reading, Sentence, is_share, says
from rag.answer.features import is_named
from rag.answer.figures import lead_figure
from rag.answer.intent import Intent, Part, parse_intent
from rag.answer.model import ReaderModel
from rag.answer.verdict import false_premise, read_yes_no
from rag.settings import AnswerSettings
from rag.text.abbreviations import spelled_out
from rag.text.cues import INTRO, OWN_WORK
from rag.text.lexicon import stem, tokens
from rag.text.names import name_pattern
from rag.text.numbers import times
from rag.types import Draft, DraftSentence, Evidence

ABSTAIN_TEXT = "The indexed abstracts do not answer this."


def lead_span(part: Part, sentence: Sentence, question: str) -> str:
    """The short answer a figure or name part asks for, cut from the sentence itself (never made
    up); a yes/no part's verdict is read in ``OfflineComposer._best``."""
    text = sentence.text
    if part.kind == "number":
        return lead_figure(part, text, question, sentence.paper.paper.abstract or "")
    if part.kind == "name":  # the paper's own method name, when the sentence says it
        method = sentence.paper.paper.method
        if method and name_pattern(method).search(text) and not name_pattern(method).search(question):
            return method
        return ""
    return ""


_PRIOR = re.compile(r"\b(?:existing|previous|prior|earlier|conventional|traditional|current|standard|"
                    r"baselines?|vanilla|typical(?:ly)?|usual(?:ly)?)\b", re.IGNORECASE)
_EARLIER_WORK = re.compile(r"\b(?:existing|previous|prior|earlier|most|current)\s+(?:[a-z-]+\s+)?(?:research|works?|"
                           r"studies|methods|approaches|models|systems|literature)\b|\bresearch\s+to\s+date\b",
                           re.IGNORECASE)
_URL = re.compile(r"https?://|www\.|github\.com", re.IGNORECASE)
_AVAILABILITY = re.compile(r"\b(?:code|available|availab\w*|releas\w*|open[- ]?source\w*|github|download\w*|"
                           r"url|link|repositor\w*|weights|checkpoints?|project page)\b", re.IGNORECASE)


def _stems(text: str) -> set[str]:
    return {stem(w) for w in tokens(text) if w[0].isalpha()}


class OfflineComposer:
    """Lays out the sentences the reader chose, each citing its own paper."""

    name = "offline"

    def __init__(self, settings: AnswerSettings, model: ReaderModel) -> None:
        self.settings, self.model = settings, model

    def generate(self, question: str, reading: Reading, evidence: Evidence) -> Draft:
        return self.compose(reading.intent or parse_intent(question), reading)

    def compose(self, intent: Intent, reading: Reading) -> Draft:
        if not reading.answerable:
            return Draft((), abstained=True, reason=reading.reason)
        if not _AVAILABILITY.search(intent.question):  # "Our code is at https://..." answers only
            reading = replace(reading, parts=tuple(  # a question about code or data to download
                (part, tuple(c for c in cands if not _URL.search(c.text)) or cands) for part, cands in reading.parts))
        if intent.kind == "comparison":
            compared = self._compare(intent, reading)
            if compared:
                return Draft(tuple(compared))
        if intent.lists_papers:
            listed = self._list(intent, reading)
            # one qualifying paper is still a list, unless the question names it ("what datasets
            # does X use?" asks about X: its own sentences answer) or asks more than the list does
            if len(listed) > 1 or (listed and not _names_a_paper(intent, reading)
                                   and all(p.kind == "number" for p in intent.parts[1:])):
                return Draft(tuple(listed))
        return Draft(tuple(self._per_part(intent, reading)))

    def _best(self, part: Part, cands: Sequence[Sentence], intent: Intent) -> tuple[Sentence, str]:
        """The best sentence for a part and its lead span. A figure or name part prefers a
        sentence that holds one among the closest few; a yes/no part the first that decides."""
        if part.kind == "yes_no":  # a count or share the first paper gives otherwise, anywhere in
            # it, is a false premise; a denial among the best few is the more telling evidence; a
            # contrast ("small" where "large" is asked) only among the closest
            own = [c for c in cands if c.paper.paper.id == cands[0].paper.paper.id]
            if (at := false_premise(part.text, [c.text for c in own])) is not None:
                return own[at], "No"
            # past false_premise, another figure of the first paper denies nothing: one of its
            # sentences gives the asked figure, or none gives any other
            read = [(c, *read_yes_no(part, c.text, self.settings.yes_no_coverage,
                                     spelled_out(c.text, c.paper.paper.abstract),
                                     amounts=c.paper.paper.id != own[0].paper.paper.id))
                    for c in cands[: self.settings.yes_no_candidates]]
            prior = bool(_PRIOR.search(intent.question))  # "However, this fails to ..." before "We
            # introduce X" denies what earlier work does, not what the question asks of X
            decided = [(c, v, plain) for c, v, plain in read
                       if v and (prior or v != "No" or not _background(c))]
            denials = [(c, v) for i, (c, v, plain) in enumerate(decided)
                       if v == "No" and (i < self.settings.yes_no_contrast_candidates or plain == "No")]
            return denials[0] if denials else (decided[0][0], decided[0][1]) if decided else (cands[0], "")
        if part.kind in ("describe", "how", "name", "number"):  # "What does X do?", "How does X
            # ...?", "What problem does X address?", X's figure: X's own abstract answers
            named = [c for c in cands if is_named(c.paper, intent.names)]
            if not named and part.kind == "number":  # a figure of named things ("CodeLlama-7B on
                named = [c for c in cands if all(says(c.paper, n) for n in intent.names)]  # SVAMP")
            cands = named or cands
        if part.kind in ("number", "name"):
            close = [c for c in cands[: self.settings.figure_candidates] if c.holds]
            if part.kind == "name":  # the name of the paper the reader reads first, not of a paper
                # it ranks below ("Which tasks does Ordered Memory ...?" is not answered "CItruS")
                close = [c for c in close if c.paper.paper.id == cands[0].paper.paper.id]
            for c in close or cands[:1]:
                if lead := lead_span(part, c, intent.question):
                    return c, lead
        return cands[0], lead_span(part, cands[0], intent.question)

    def _per_part(self, intent: Intent, reading: Reading) -> list[DraftSentence]:
        chosen: list[DraftSentence] = []
        single = len(reading.parts) == 1
        for part, cands in reading.parts:
            fresh = [c for c in cands if c.text not in {s.text for s in chosen}]
            if not fresh or (not single and fresh[0].score < self.model.threshold("part", 0.0)):
                chosen.append(DraftSentence(f"The abstracts do not say {_clause(part)}.", (), framing=True))
                continue
            best, lead = self._best(part, fresh, intent)
            chosen.append(DraftSentence(best.text, (best.paper.paper.id,), best.score, prefix=_bold(lead)))
            if single:
                chosen += self._more(fresh, best)
        return chosen[: self.settings.max_sentences]

    def _more(self, cands: Sequence[Sentence], best: Sentence) -> list[DraftSentence]:
        """Further sentences of the same paper that score nearly as well as the best one."""
        more = [c for c in cands if c.paper.paper.id == best.paper.paper.id and c.text != best.text
                and c.score >= self.settings.second_ratio * best.score]
        return [DraftSentence(c.text, (c.paper.paper.id,), c.score)
                for c in more[: max(0, self.settings.answer_sentences - 1)]]

    def _list(self, intent: Intent, reading: Reading) -> list[DraftSentence]:
        """One line per paper the reader finds qualifying, with its best sentence, the best
        sentences first; with a "how much" part, each line also carries its own figure, or says it
        gives none."""
        (part, cands), *rest = reading.parts
        number = next(((p, c) for p, c in rest if p.kind == "number"), None)
        best: dict[str, Sentence] = {}
        for c in cands:
            best.setdefault(c.paper.paper.id, c)
        if reading.qualifying:  # the paper model says which; the order stays its best sentence's
            floor = self.model.threshold("qualifies", 0.5)
            listed = {pid for pid, p in reading.qualifying if p >= floor}
            ranked = [c for pid, c in best.items() if pid in listed]
        else:  # no paper model: each paper's best sentence against the list threshold
            floor = self.model.threshold("list", 0.5)
            ranked = [c for c in best.values() if c.score >= floor]
        ranked = ranked[: self.settings.list_papers] or list(best.values())[:1]
        lines = []
        for c in ranked:
            head = f"- {c.paper.paper.label}: "
            c = self._scannable(part, c, cands, head)
            figure = self._figure(number[0], number[1], c, intent) if number is not None else None
            if figure is not None and figure.text == c.text:
                lines.append(DraftSentence(c.text, (c.paper.paper.id,), c.score, prefix=head + figure.prefix))
                continue
            lines.append(DraftSentence(c.text, (c.paper.paper.id,), c.score, prefix=head))
            if figure is not None:
                lines.append(figure)
        return lines

    def _scannable(self, part: Part, best: Sentence, cands: Sequence[Sentence], head: str) -> Sentence:
        """A list line is read at a glance: when the paper's best sentence makes it longer than
        ``list_line_words``, its best sentence that fits, if that scores nearly as well, says
        something the question asks about, and is no pointer ("Our code is available at ...")."""
        budget = self.settings.list_line_words - len(head.split())
        if len(best.text.split()) <= budget:
            return best
        said = len(part.focus & _stems(best.text))
        fits = (c for c in cands if c.paper.paper.id == best.paper.paper.id and len(c.text.split()) <= budget
                and c.score >= self.settings.second_ratio * best.score
                and len(part.focus & _stems(c.text)) >= min(said, 1) and not _URL.search(c.text))
        return next(fits, best)

    def _figure(self, part: Part, cands: Sequence[Sentence], line: Sentence, intent: Intent) -> DraftSentence:
        """The figure one listed paper gives for the "how much" part, or a line saying it has none."""
        own = [c for c in cands if c.paper.paper.id == line.paper.paper.id and c.holds]
        leads = [(c, lead) for c in own[:4] if (lead := lead_span(part, c, intent.question))]
        # "how much" asks for an amount of change: a share or a factor before a bare count
        leads.sort(key=lambda cl: not (is_share(cl[1]) or times(cl[1])))
        if leads:
            c, lead = leads[0]
            return DraftSentence(c.text, (c.paper.paper.id,), c.score, prefix=_bold(lead))
        name = line.paper.paper.method or line.paper.paper.title or "its"
        return DraftSentence(f"({name} abstract gives no figure for this.)" if name == "its" else
                             f"(The {name} abstract gives no figure for this.)", (), framing=True)

    def _compare(self, intent: Intent, reading: Reading) -> list[DraftSentence]:
        """Each side of a comparison from its own paper: its best sentence (one holding a figure
        first when the question asks which is bigger, faster, ...)."""
        part, cands = next(((p, c) for p, c in reading.parts if p.kind == "comparison"), reading.parts[0])
        if len(intent.names) >= 2 and cands and all(says(cands[0].paper, n) for n in intent.names) \
                and len({c.paper.paper.id for c in cands if is_named(c.paper, intent.names)}) < 2:
            return []  # "Clip-Cov and KL-Cov": two things of one paper, read as one question
        sides = list(dict.fromkeys(c.paper.paper.id for c in cands))[:2]
        if len(sides) < 2:
            return []
        out: list[DraftSentence] = []
        for pid in sides:
            own = sorted((c for c in cands if c.paper.paper.id == pid), key=lambda c: (not c.holds, -c.score))
            out.append(DraftSentence(own[0].text, (pid,), own[0].score, prefix=f"- {own[0].paper.paper.label}: "))
        return out


def _background(c: Sentence) -> bool:
    """The sentence describes earlier work: it does not speak of the work itself, and either says
    so ("existing methods", "most research to date") or comes before its abstract introduces the
    work ("we propose ...")."""
    if OWN_WORK.search(c.text):
        return False
    if _EARLIER_WORK.search(c.text):  # "However, most research to date has not investigated ..."
        return True
    abstract = c.paper.paper.abstract
    intro, at = INTRO.search(abstract), abstract.find(c.text)
    if intro is None or at < 0:
        return False
    return at + len(c.text) <= intro.start()


def _names_a_paper(intent: Intent, reading: Reading) -> bool:
    """The question names a paper the reading read (its method name or title)."""
    return bool(intent.names) and any(is_named(s.paper, intent.names) for _, cands in reading.parts for s in cands)


def _bold(span: str) -> str:
    return f"**{span}**: " if span else ""


def _clause(part: Part) -> str:
    text = re.sub(r"^\s*(?:and\s+)?", "", part.text).rstrip(" ?.")
    return text[0].lower() + text[1:] if text else "this"
