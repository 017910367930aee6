"""The chat page with API keys set (issue 27, items 9 and 14), in a real browser: the page loads
without a key, asks for one on the first 401, keeps it in the browser and sends it with every call;
and the source panel opens a Zotero item, whose id holds '/'."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from rag.engine import build_engine
from rag.index.library import open_library
from rag.settings import ServiceSettings, Settings
from rag.testing.fakes import FakeEmbedder
from rag.testing.live import running
from service.app import create_app
from tests.service.test_web_page import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, _require_browser
from tests.support import FIXTURES, ingest_with_fake_embedder

pytestmark = pytest.mark.integration
ZOTERO = FIXTURES / "zotero_csl.json"


def test_the_page_asks_for_a_key_once_and_opens_a_zotero_source(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    _require_browser()
    settings = Settings(data_dir=tmp_path / "index", service=ServiceSettings(api_keys=[SecretStr("k3y")]))
    ingest_with_fake_embedder(settings, ZOTERO)
    engine = build_engine(settings, library=open_library(settings, embedder=FakeEmbedder(), pinned=True))
    prompts: list[str] = []
    with running(create_app(settings, engine=engine)) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context().new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("dialog", lambda dialog: (prompts.append(dialog.message), dialog.accept("k3y")))
        try:
            page.goto(url + "/")
            page.fill("#question", "What is GroundNet, the neural surrogate of grounding lines?")  # its own words
            page.click("#ask")
            answer = page.locator(".answer").nth(0)
            expect(answer).to_have_attribute("data-state", "done", timeout=TIMEOUT_MS)
            expect(answer).to_contain_text("GroundNet")
            page.locator(".cite").first.click()
            panel = page.locator("#source-panel")
            expect(panel).to_contain_text("http://zotero.org/users/local/kL2Fh1Qn/items/8XK2PQ3M")
            expect(panel.locator(".abstract")).to_contain_text("Ice-sheet models")
            assert page.evaluate("localStorage.getItem('rag-api-key')") == "k3y"
            page.reload()  # the key is kept: no second prompt
            page.fill("#question", "Which classifier detects freezing rain?")
            page.click("#ask")
            expect(page.locator(".answer").nth(0)).to_have_attribute("data-state", "done", timeout=TIMEOUT_MS)
        finally:
            browser.close()
    assert len(prompts) == 1 and "API key" in prompts[0]
