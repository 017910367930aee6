"""The page as a researcher keeps it open, in Debian's Chromium (see tests/service/test_web_page.py for
the browser set-up, reused here): a list question answered as Markdown (no raw asterisks) with
an evidence table (sortable, copied as Markdown), export links that our own readers parse
back, "How does the second one work?" answered about the first answer's second source, "it"
meaning the source the user opened, and the question box's length cap and empty-question hint.
On the invented follow-up corpus (three named methods shrinking sonar archives).

A second collection ("other", the GlimmerMix papers) is picked from the page's selector.

With UX_SCREENS=<folder> it also saves the screenshots of the page described in the notes."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.index.collections import in_collection
from rag.ingest.formats import read_file
from rag.settings import Settings
from rag.testing.live import running
from service.app import create_app
from tests.service.test_web_page import TIMEOUT_MS, _require_browser, page  # noqa: F401 (the page fixture)
from tests.support import FOLLOWUP_LIST_QUESTION, FOLLOWUP_PAPERS, INVENTED_PAPERS, QUESTION, index_papers

pytestmark = pytest.mark.integration
NAMES = {p["id"]: p["title"].split(":")[0] for p in FOLLOWUP_PAPERS if "title" in p}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The app over the invented corpus (real embedder) on a loopback port."""
    _require_browser()
    folder = tmp_path_factory.mktemp("tour")
    settings = index_papers(Settings(data_dir=folder / "index"), folder, FOLLOWUP_PAPERS)
    # a second collection: the page's picker
    index_papers(in_collection(settings, "other"), folder, INVENTED_PAPERS, name="other")
    with running(create_app(settings), ready="/readyz") as url:
        yield url


def ask(page, text: str, index: int):  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    page.fill("#question", text)
    page.press("#question", "Enter")
    answer = page.locator(".answer").nth(index)
    expect(answer).to_have_attribute("data-state", "done", timeout=TIMEOUT_MS)
    return answer


def test_a_list_answer_reads_as_markdown_with_a_sortable_copyable_table(page, base_url, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(base_url + "/")
    first = ask(page, FOLLOWUP_LIST_QUESTION, 0)
    text = first.locator(".answer-text")
    expect(text.locator("li")).to_have_count(3)
    expect(text.locator("strong").first).to_have_text(re.compile(r"^\d+%$"))
    assert "**" not in text.inner_text() and "- " not in text.inner_text()

    rows = first.locator(".evidence-table tbody tr")
    expect(rows).to_have_count(3)
    figure = first.locator(".evidence-table th.col-finding button")
    figure.click()
    assert [rows.nth(i).locator(".col-finding").inner_text() for i in range(3)] == ["28%", "41%", "63%"]
    figure.click()
    expect(rows.first.locator(".col-finding")).to_have_text("63%")
    expect(rows.first.locator(".col-measures")).to_have_text("reduces sonar archive storage")

    first.get_by_role("button", name="Copy as Markdown").click()
    expect(first.locator(".copy-status")).to_have_text("Copied.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("| Paper | Figure or finding |") and "| 63% |" in copied

    bib = first.locator('.export-link[data-format="bib"]')
    reply = page.request.get(base_url + bib.get_attribute("href"))
    (tmp_path / "cited.bib").write_bytes(reply.body())
    assert {p.title.split(":")[0] for p in read_file(tmp_path / "cited.bib")} == set(NAMES.values())


def test_the_second_one_is_the_second_source_and_it_is_the_opened_source(page, base_url):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(base_url + "/")
    first = ask(page, FOLLOWUP_LIST_QUESTION, 0)
    sources = [first.locator(f'.source-open[data-key="{k}"]').get_attribute("data-paper-id") for k in (1, 2, 3)]
    second = ask(page, "How does the second one work?", 1)
    expect(second.locator(".read-as")).to_contain_text(f"How does {NAMES[sources[1]]} work?")
    assert second.locator(".source-open").first.get_attribute("data-paper-id") == sources[1]
    expect(page.locator("#conversation-status")).to_contain_text("2 questions")
    if os.environ.get("UX_SCREENS"):
        _screens(page, os.environ["UX_SCREENS"])
        page.set_viewport_size({"width": 1280, "height": 860})

    first.locator('.source-open[data-key="3"]').click()  # the user opens the third source
    expect(page.locator("#source-panel")).to_be_visible()
    page.click("#close-panel")
    third = ask(page, "What does it reduce, and by how much?", 2)
    expect(third.locator(".read-as")).to_contain_text(NAMES[sources[2]])


def _screens(page, folder: str) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """The list answer's table and the follow-up in view, at desktop width and at 390 px."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    for name, size in (("page-desktop", {"width": 1280, "height": 1500}),
                       ("page-390px", {"width": 390, "height": 2400})):
        page.set_viewport_size(size)
        page.locator(".answer").nth(0).locator(".answer-text").scroll_into_view_if_needed()
        page.evaluate("document.querySelector('#conversation').scrollTop = "
                      "document.querySelector('.answer').offsetTop - 120")
        page.screenshot(path=f"{folder}/{name}.png")


def test_the_question_box_keeps_to_the_cap_and_says_when_it_is_empty(page, base_url):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(base_url + "/")
    page.click("#ask")
    expect(page.locator("#question-count")).to_have_text("Type a question first.")
    expect(page.locator(".answer")).to_have_count(0)
    limit = Settings().answer.max_question_chars
    expect(page.locator("#question")).to_have_attribute("maxlength", str(limit))
    page.fill("#question", "why " * 1250)  # 5,000 characters, as pasted
    assert len(page.input_value("#question")) == limit
    expect(page.locator("#question-count")).to_have_text(f"{limit} / {limit} characters")


def test_filters_that_leave_nothing_are_said_and_the_facets_fill_the_filter(page, base_url):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(base_url + "/")
    facets = page.locator("#facets")
    expect(facets).to_be_visible()
    facets.locator("summary").click()
    expect(facets.locator('.facet[data-value="2024"]')).to_have_text("2024 (1)")
    page.fill("#year", "1990")
    failed = ask(page, FOLLOWUP_LIST_QUESTION, 0)
    expect(failed).to_have_class(re.compile(r"\berror\b"))
    expect(failed).to_contain_text("year 1990 keeps 0")
    facets.locator('.facet[data-value="2024"]').click()
    expect(page.locator("#year")).to_have_value("2024")
    answered = ask(page, FOLLOWUP_LIST_QUESTION, 1)
    expect(answered.locator(".source-open")).to_have_count(1)


def test_markdown_from_an_abstract_cannot_inject_html(page, base_url):  # noqa: F811
    page.goto(base_url + "/")
    shown = page.evaluate("""() => {
      const box = document.createElement("div");
      window.RagRender.markdown(box, "- **<img src=x onerror=window.hit=1>** and <b>bold</b> [1]\\n"
        + "<script>window.hit=2</script>", () => null);
      return {html: box.innerHTML, text: box.textContent, tags: [...box.querySelectorAll("*")].map((n) => n.tagName)};
    }""")
    assert shown["tags"] == ["UL", "LI", "STRONG", "P"]  # only the Markdown's own elements
    assert "<img src=x onerror=window.hit=1>" in shown["text"] and "<script>" in shown["text"]
    assert page.evaluate("window.hit === undefined")


def test_the_page_picks_a_collection_and_answers_from_it_alone(page, base_url):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(base_url + "/")
    picker = page.locator("#collection")
    expect(page.locator("#collection-field")).to_be_visible()
    expect(picker.locator("option")).to_have_text(["demo (5 papers)", "other (5 papers)"])
    picker.select_option("other")
    answer = ask(page, QUESTION.replace("SupReMix", "GlimmerMix"), 0)
    expect(answer.locator(".source-open").first).to_have_attribute("data-paper-id", "inv-1")
    assert "collection=other" in answer.locator(".export-link").first.get_attribute("href")
    answer.locator(".source-open").first.click()  # the paper is fetched from the same collection
    expect(page.locator("#source-panel .abstract")).to_contain_text("GlimmerMix")
