"""report.html for two runs of invented questions, side by side: it renders in headless Chromium
with the headline and per-type tables (with intervals), the charts (values printed on them), the
failures gallery (passages with the matched span highlighted, the reason) and the flips."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.compare import compare_rows
from eval.report import highlight, write_report
from eval.run import grade, summarise
from rag.types import Answer
from tests.eval_cases import PAPERS, answer_of, question

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
LIBRARY = "ChemAgent builds a self-updating library of sub-tasks from its own runs."
DECLINED = Answer("q", "The indexed abstracts do not answer this.", (), True, abstain_reason="no abstract says so")


def _runs() -> tuple[list[dict], list[dict]]:
    single = question(id="s1", gold_papers=["p1"], key_facts=[["self-updating library"]])
    yes_no = question(id="y1", question="Does ChemAgent need labelled data?", gold_papers=["p1"], yes_no="no",
                      key_facts=[["from its own runs"]])
    listing = question(id="l1", type="list", question="Which papers build chemistry agents or rankers?",
                       gold_papers=["p1", "p2"], key_facts=[["ChemAgent"], ["MolTide"]])
    unanswerable = question(id="u1", type="unanswerable", question="What GPU trained ChemAgent?", tags=["near-domain"])
    right = answer_of(("", LIBRARY, ("p1",), True))
    cases_a = [(single, right), (yes_no, answer_of(("**No**: ", LIBRARY, ("p1",), True))),
               (listing, answer_of(("- ChemAgent (p1): ", "We present ChemAgent, an agent.", ("p1",), True),
                                   ("- MolTide (p2): ", "We introduce MolTide, which ranks reactions.", ("p2",),
                                    True))),
               (unanswerable, DECLINED)]
    cases_b = [(single, answer_of(("", "ChemAgent does not build a self-updating library.", ("p1",), True))),
               (yes_no, answer_of(("**Yes**: ", LIBRARY, ("p1",), True))),
               (listing, answer_of(("- RouteNet (p3): ", "We propose RouteNet, a router.", ("p3",), True))),
               (unanswerable, answer_of(("", "The model has 82B parameters.", ("p1",), True)))]
    cases_a.append((question(id="s2", gold_papers=["p2"], key_facts=[["energy model"]]), DECLINED))
    cases_b.append((question(id="s2", gold_papers=["p2"], key_facts=[["energy model"]]),
                    answer_of(("", "We introduce MolTide, which ranks reactions with a learned energy model.",
                               ("p2",), True))))

    def rows(cases):
        return [grade(q, a, PAPERS, ["p1", "p2"]) | {"latency_ms": 50.0 + 10 * i}
                for i, (q, a) in enumerate(cases)]
    return rows(cases_a), rows(cases_b)


def test_the_matched_spans_are_highlighted_and_the_rest_escaped():
    marked = highlight("We use <b> and a self-updating  library here.", ["We use <b> and"], ["self-updating library"])
    assert marked.startswith('<mark class="used">We use &lt;b&gt; and</mark>')
    assert '<mark class="fact">self-updating  library</mark>' in marked


@pytest.mark.integration
def test_the_report_renders_tables_charts_gallery_and_flips_in_chromium(tmp_path):
    from playwright.sync_api import sync_playwright

    rows_a, rows_b = _runs()
    flips = compare_rows(rows_a, rows_b).flips
    page_file = tmp_path / "report.html"
    write_report(page_file, [("before", rows_a, summarise(rows_a)), ("after", rows_b, summarise(rows_b))], flips)
    shot = tmp_path / "report.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1600})
        outside: list[str] = []
        page.on("request", lambda r: outside.append(r.url) if not r.url.startswith("file:") else None)
        page.goto(page_file.as_uri())
        assert page.locator("h1").inner_text() == "Eval: before (5 questions) vs after (5 questions)"
        headline = page.locator("#headline")
        assert headline.is_visible() and "[" in headline.inner_text() and "majority baseline" in headline.inner_text()
        assert page.locator("#per-type th").all_inner_texts()[1:] == ["list", "single", "unanswerable"]
        assert page.locator("svg.chart").count() == 3 and page.locator("svg.chart rect.bar").count() >= 10
        values = page.locator("svg.chart text.value").all_text_contents()
        assert "1.00" in values and all(v.replace(".", "").isdigit() for v in values)
        reasons = " ".join(page.locator("#gallery .reason").all_inner_texts())
        for reason in ("fact negated", "wrong verdict", "wrong paper", "answered the unanswerable",
                       "false abstention"):
            assert reason in reasons, reason
        assert page.locator("#gallery mark.used").count() >= 3 and page.locator("#gallery mark.fact").count() >= 1
        assert page.locator("#flips tr.flip-bad").count() == 4 and page.locator("#flips tr.flip-good").count() == 1
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    assert not outside, f"the report loaded {outside}"
    assert shot.stat().st_size > 50_000
