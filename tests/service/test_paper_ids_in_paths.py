"""Any id can be fetched at /api/papers/{id}, a Zotero item's ``http://zotero.org/...`` too, URL-
encoded (as the page's source panel sends it) or as is (issue 27, item 9)."""

from __future__ import annotations

from urllib.parse import quote

import httpx

from rag.engine import build_engine
from rag.index.library import open_library
from rag.testing.fakes import FakeEmbedder
from rag.testing.live import running
from service.app import create_app
from tests.support import FIXTURES, ingest_with_fake_embedder

ZOTERO_ID = "http://zotero.org/users/local/kL2Fh1Qn/items/8XK2PQ3M"


def test_a_zotero_id_is_fetched_over_real_http_encoded_or_not(settings):
    ingest_with_fake_embedder(settings, FIXTURES / "zotero_csl.json")
    library = open_library(settings, embedder=FakeEmbedder(), pinned=True)
    app = create_app(settings, engine=build_engine(settings, library=library))
    with running(app) as url:
        encoded = httpx.get(f"{url}/api/papers/{quote(ZOTERO_ID, safe='')}")  # encodeURIComponent
        raw = httpx.get(f"{url}/api/papers/{ZOTERO_ID}")
        missing = httpx.get(f"{url}/api/papers/{quote('http://zotero.org/nope', safe='')}")
    assert encoded.status_code == 200 and encoded.json()["id"] == ZOTERO_ID
    assert raw.status_code == 200 and raw.json()["id"] == ZOTERO_ID
    assert missing.status_code == 404 and missing.json()["code"] == "paper_not_found"
