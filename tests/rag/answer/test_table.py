"""The evidence table of list and comparison answers: one row per cited paper with its figure,
what the figure measures, on what, and the cited passage; built from the checked answer only;
in the JSON answer and as a Slack table block. (The page's table: tests/service/test_web_page_tour.py.)"""

from __future__ import annotations

from rag.answer.table import evidence_table
from rag.types import Answer, Citation, SentenceSupport
from service.slack_blocks import answer_blocks
from tests.support import FOLLOWUP_LIST_QUESTION

SENTENCES = ("TideZip reduces sonar archive storage by 41% on four survey fleets by sharing dictionaries.",
             "ReefPack reduces sonar archive storage by 63% while keeping accuracy.")
CITATIONS = (Citation(1, "arc-1", "TideZip: dictionary coding (Marangoni et al., 2023)", SENTENCES[0],
                      title="TideZip: dictionary coding", link="https://doi.org/10.1/tz"),
             Citation(2, "arc-2", "ReefPack: learned quantization (Quillfeather, 2024)", SENTENCES[1],
                      title="ReefPack: learned quantization"))
LISTED = Answer(FOLLOWUP_LIST_QUESTION,
                f"- TideZip: dictionary coding (Marangoni et al., 2023): **41%**: {SENTENCES[0]} [1]\n"
                f"- ReefPack: learned quantization (Quillfeather, 2024): **63%**: {SENTENCES[1]} [2]",
                CITATIONS, False,
                sentences=tuple(SentenceSupport(s, (i + 1,), 0.9, True) for i, s in enumerate(SENTENCES)))


def test_a_list_answer_gets_a_row_per_paper_with_figure_measure_and_dataset():
    rows = evidence_table(LISTED, listing=True)
    assert [(r.key, r.paper_id, r.finding) for r in rows] == [(1, "arc-1", "41%"), (2, "arc-2", "63%")]
    assert rows[0].measures == "reduces sonar archive storage" and rows[0].on == "four survey fleets"
    assert rows[1].on == "" and rows[0].link == "https://doi.org/10.1/tz" and rows[1].link is None
    assert rows[0].passage == SENTENCES[0]


def test_a_single_paper_or_a_non_list_answer_gets_no_table():
    assert evidence_table(LISTED, listing=False) == ()
    one = Answer("q", LISTED.text.splitlines()[0], CITATIONS[:1], False, sentences=LISTED.sentences[:1])
    assert evidence_table(one, listing=True) == ()


def test_a_row_without_a_figure_keeps_the_finding_as_a_sentence():
    said = "KelpCodec drops silent returns before encoding."
    plain = Answer("q", f"- A: {said} [1]\n- B: {SENTENCES[1]} [2]",
                   (Citation(1, "arc-3", "A", said), CITATIONS[1]), False,
                   sentences=(SentenceSupport(said, (1,), 0.9, True), SentenceSupport(SENTENCES[1], (2,), 0.9, True)))
    rows = evidence_table(plain, listing=True)
    assert rows[0].finding == said and rows[0].measures == "" and rows[1].finding == "63%"


def test_slack_shows_the_table_as_a_compact_table_block():
    from dataclasses import replace

    answer = replace(LISTED, table=evidence_table(LISTED, listing=True))
    blocks = answer_blocks(answer, "turn-1")
    table = next(b for b in blocks if b["type"] == "table")
    cells = [[c["text"] for c in row] for row in table["rows"]]
    assert cells[0] == ["Source", "Figure", "Measures", "On"]
    assert cells[1][:2] == ["[1] TideZip: dictionary coding (Marangoni et al., 2023)", "41%"]
    assert len(cells) == 3 and all(len(row) == 4 for row in cells)
    text = next(b for b in blocks if b.get("block_id") == "answer")["text"]["text"]
    assert "*41%*" in text and "**" not in text and text.startswith("• ")  # mrkdwn, not raw Markdown
