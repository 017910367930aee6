"""What a catalogue answer says of each paper, from the paper alone: its "we propose" sentence,
else its first; a paper listed without an abstract says where it was listed."""

from __future__ import annotations

from rag.answer.listings import contribution
from rag.types import Paper


def paper(abstract: str, **more) -> Paper:  # type: ignore[no-untyped-def]
    return Paper("p1", abstract, abstract, **more)


def test_the_line_is_the_sentence_that_introduces_the_work():
    text = "Sonar archives grow fast. We propose TideZip, a dictionary coder for pings. It saves 41%."
    assert contribution(paper(text)) == "We propose TideZip, a dictionary coder for pings."


def test_without_an_introducing_sentence_the_line_is_the_first():
    assert contribution(paper("Kelp forests are shrinking. Surveys measure it.")) == "Kelp forests are shrinking."


def test_a_paper_without_an_abstract_says_where_it_was_listed():
    assert contribution(paper("", venue="ACL", year=2019)) == "Listed in ACL, 2019 without an abstract."
