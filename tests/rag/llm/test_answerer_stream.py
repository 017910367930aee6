"""The prose LLM's reply, read as it streams: each sentence comes out as soon as the next one
has begun (its key after the full stop has arrived), parsed exactly as the whole reply is."""

from __future__ import annotations

from rag.answer.evidence import Reading
from rag.llm.answerer import LLMAnswerer
from rag.llm.prompts import load_prompts
from rag.settings import Settings
from rag.testing.fakes import FakeChatModel
from rag.types import Draft, DraftSentence, Evidence, Paper, ScoredPaper

PAPERS = [ScoredPaper(Paper(pid, text, text), 1.0) for pid, text in (
    ("p1", "OrbitNet predicts satellite drag and lowers the error by 12%."),
    ("p2", "KelpCodec halves the storage of kelp survey images."))]
EVIDENCE = Evidence(tuple(PAPERS))
REPLY = "OrbitNet lowers the drag error by 12 percent. [1] KelpCodec halves image storage [2][9]."


class Nothing:
    def score(self, sentence, papers, split=None):  # type: ignore[no-untyped-def]
        return 0.0


def answerer(reply: str) -> LLMAnswerer:
    prompt = load_prompts(Settings().prompts_dir)["answer"]
    return LLMAnswerer(FakeChatModel(reply), prompt, Nothing(), 0.5, abstracts=5)


def test_each_sentence_streams_with_its_key_and_the_whole_draft_comes_last():
    items = list(answerer(REPLY).stream("q", Reading((), EVIDENCE.papers), EVIDENCE))
    *sentences, whole = items
    assert sentences == [DraftSentence("OrbitNet lowers the drag error by 12 percent.", ("p1",))]
    assert isinstance(whole, Draft) and whole.unknown_keys == 1
    assert [s.paper_ids for s in whole.sentences] == [("p1",), ("p2",)]
    assert whole == answerer(REPLY).generate("q", Reading((), EVIDENCE.papers), EVIDENCE)
