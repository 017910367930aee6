"""The service against its own OpenAPI schema: schemathesis (its command line, in a subprocess)
sends generated requests, valid and invalid, to a real uvicorn server on a loopback port.
Every answer must have a documented status and body, no 500s, and invalid requests must be
refused. Bounded: a few dozen examples per operation, and a time cap."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rag.engine import build_engine
from rag.settings import ServiceSettings
from rag.testing.live import running
from service.app import create_app

pytestmark = pytest.mark.integration
EXAMPLES, SECONDS = 30, 300  # about 600 requests, 10-20 s here; the cap only guards a hang
# A 413 (body over RAG_SERVICE__MAX_BODY_BYTES) is a proper refusal of a schema-violating body.
CONFIG = """[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 404, 406, 413, 422, 428]
"""


@pytest.fixture(scope="module")
def base_url(library):
    settings = library.settings.model_copy(update={"service": ServiceSettings(rate_limit_per_minute=100_000)})
    app = create_app(settings, engine=build_engine(settings, library=library))
    with running(app) as url:
        yield url


def test_every_operation_keeps_its_documented_contract(base_url, tmp_path):
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
         f"{base_url}/openapi.json", "--checks", "all", "--max-examples", str(EXAMPLES),
         "--phases", "examples,coverage,fuzzing", "--seed", "11", "--no-color",
         "--generation-database", "none", "--workers", "1", "--request-timeout", "30",
         "--report-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=SECONDS, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-12_000:] + done.stderr[-3_000:]
    assert "No issues found" in done.stdout
