"""The chat page end to end: the real app on a loopback port, headless Chromium (Debian's package)
driven by Playwright. Asks a question, waits for the streamed answer, opens a citation's source
panel, asks a question the abstracts cannot answer, and takes a screenshot.

Needs `/usr/bin/chromium` (`apt-get install -y chromium`) and the `playwright` package; Playwright's
own browser download (`playwright install`) is never used. Skipped without them, except in CI."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.testing.live import running
from service.app import create_app

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 60_000


def _require_browser() -> None:
    missing = []
    if not CHROMIUM.exists():
        missing.append(f"{CHROMIUM} (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package (pip install playwright)")
    if missing:
        pytest.fail("the page test needs " + " and ".join(missing) + " (.ci/run installs both)")


@pytest.fixture(scope="module")
def base_url(real_index) -> Iterator[str]:  # type: ignore[no-untyped-def]
    _require_browser()
    with running(create_app(real_index), ready="/healthz") as url:
        yield url


@pytest.fixture
def page(base_url: str):  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        # The page must work offline: any request that leaves the app fails the test.
        outside: list[str] = []

        def only_the_app(route):  # type: ignore[no-untyped-def]
            if route.request.url.startswith(base_url) or route.request.url.startswith("data:"):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", only_the_app)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        try:
            yield page
        finally:
            context.close()
            browser.close()
        assert not outside, f"the page fetched from outside the app: {outside}"
        assert not errors, f"the page logged errors: {errors}"


def test_ask_cite_abstain_in_a_real_browser(page, base_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto(base_url + "/")
    expect(page).to_have_title("Ask the abstracts")
    for selector in ("#question", "#ask", "#author", "#year"):
        expect(page.locator(selector)).to_be_visible()
    expect(page.locator("#source-panel")).to_be_hidden()

    # A question the abstracts answer: streamed, cited, and the citation opens its source.
    page.fill("#question", "What does SupReMix use as hard negatives?")
    page.click("#ask")
    first = page.locator(".answer").nth(0)
    expect(first).to_have_attribute("data-state", "done", timeout=TIMEOUT_MS)
    expect(first).not_to_have_class(re.compile(r"\babstained\b"))
    expect(first).to_contain_text("anchor-inclusive mixtures")
    expect(first.locator(".sources")).to_contain_text("SupReMix")
    expect(first.locator(".meta")).to_contain_text("offline")

    cite = page.locator(".cite").first
    expect(cite).to_have_text("[1]")
    cite.click()
    panel = page.locator("#source-panel")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("SupReMix")
    expect(panel).to_contain_text("000-0001")
    passage = panel.locator(".passage").first.inner_text().strip()
    assert passage and passage in first.inner_text(), "the source opens on the sentence [1] cites"
    # the full abstract, fetched from /api/papers/000-0001
    expect(panel.locator(".abstract")).to_contain_text("medical image regression")

    # A follow-up in the same conversation that the abstracts cannot answer: abstained, see-also.
    page.fill("#question", "Who won the 2018 FIFA World Cup?")
    page.press("#question", "Enter")
    abstained = page.locator(".answer.abstained")
    expect(abstained).to_have_count(1, timeout=TIMEOUT_MS)
    expect(page.locator(".answer")).to_have_count(2)
    expect(abstained).to_have_attribute("data-state", "done")
    expect(abstained).to_contain_text("The indexed abstracts do not answer this.")
    expect(abstained.locator(".see-also")).to_contain_text("not claimed to answer")
    expect(abstained.locator(".cite")).to_have_count(0)
    expect(page.locator("#conversation-status")).to_contain_text("2 questions")

    shot = tmp_path / "page.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0
    if os.environ.get("WEB_PAGE_SCREENSHOT"):  # to look at the page by hand
        shutil.copy(shot, os.environ["WEB_PAGE_SCREENSHOT"])

    # A new conversation clears the page and forgets the conversation id.
    page.click("#new-conversation")
    expect(page.locator(".answer")).to_have_count(0)
    expect(page.locator("#conversation-status")).to_have_text("New conversation")


def test_the_source_panel_shows_readable_text_not_latex(page, base_url: str, real_index) -> None:  # type: ignore[no-untyped-def]
    """The bundled abstracts carry LaTeX (``82.8\\%``); the panel shows "82.8%", and neither
    the page nor the catalogue holds ``\\%``, ``$\\times$`` or ``{\\"``."""
    from playwright.sync_api import expect

    from rag.index.catalog import Catalog
    from rag.index.stamp import read_stamp

    page.goto(base_url + "/")
    page.fill("#question", "What compression ratio does VQKV reach by vector quantization of the cache?")
    page.click("#ask")
    answer = page.locator(".answer").nth(0)
    expect(answer).to_have_attribute("data-state", "done", timeout=TIMEOUT_MS)
    page.locator(".answer .cite").first.click()
    panel = page.locator("#source-panel")
    expect(panel.locator(".abstract")).to_contain_text("82.8% compression ratio")
    shown = page.locator("body").inner_text()
    for residue in ("\\%", "$\\times$", '{\\"'):
        assert residue not in shown, residue

    catalog = Catalog(real_index.data_dir / read_stamp(real_index).catalog)
    try:
        texts = [t for (t,) in catalog.db.execute("SELECT text FROM chunks")]
        shown_fields = [f for p in catalog.papers() for f in (p.abstract, p.label, *p.authors)]
    finally:
        catalog.close()
    for residue in ("\\%", "$\\times$", '{\\"'):
        assert not any(residue in t for t in texts + shown_fields), residue
