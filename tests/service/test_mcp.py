"""`rag mcp` with the MCP SDK's own client, over both transports, as a real process: stdio (the
client starts `python -m cli mcp`) and streamable HTTP (`rag mcp --transport http` on a loopback
port). The client lists the tools, gets a checked, cited answer through the one engine, searches,
reads a paper as a resource and lists the collections. On the invented follow-up corpus."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from cli.main import cli
from rag.settings import PROJECT_ROOT
from rag.testing.live import free_port
from tests.support import FOLLOWUP_LIST_QUESTION, FOLLOWUP_PAPERS, write_papers

pytestmark = pytest.mark.integration
TOOLS = {"search", "ask", "get_paper", "list_collections"}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("mcp")
    papers = write_papers(folder / "papers.jsonl", FOLLOWUP_PAPERS)
    result = CliRunner().invoke(cli, ["ingest", str(papers)], env={"RAG_DATA_DIR": str(folder / "idx")})
    assert result.exit_code == 0, result.output
    return folder / "idx"


def _env(data_dir: Path) -> dict[str, str]:
    return {"RAG_DATA_DIR": str(data_dir), "PYTHONPATH": str(PROJECT_ROOT), "PATH": os.environ["PATH"]}


async def _session(client: Client) -> dict:
    tools = await client.list_tools()
    asked = await client.call_tool("ask", {"question": FOLLOWUP_LIST_QUESTION})
    empty = await client.call_tool("ask", {"question": "   "})
    found = await client.call_tool("search", {"query": "learned codebook quantization", "k": 2})
    paper = await client.read_resource("paper://arc-2")
    collections = await client.call_tool("list_collections", {})
    return {"tools": {t.name for t in tools.tools}, "asked": asked, "empty": empty, "found": found,
            "paper": paper.contents[0].text, "collections": collections.structured_content}


def _check(seen: dict) -> None:
    assert seen["tools"] >= TOOLS
    asked = seen["asked"]
    assert not asked.is_error
    text = asked.content[0].text
    cited = [c["paper_id"] for c in asked.structured_content["citations"]]
    assert set(cited) == {"arc-1", "arc-2", "arc-3"}  # the three papers that give a figure
    assert "[1]" in text and "**Sources**" in text and all(f"`{pid}`" in text for pid in cited)
    assert {r["finding"] for r in asked.structured_content["table"]} == {"41%", "63%", "28%"}
    assert seen["empty"].is_error and "question is empty" in seen["empty"].content[0].text
    assert seen["found"].structured_content["result"][0]["id"] == "arc-2"
    assert '"ReefPack: learned quantization of sonar archives"' in seen["paper"]
    assert seen["collections"]["result"] == [{"name": "demo", "papers": 5, "active": True}]


def test_the_mcp_client_over_stdio_lists_tools_and_gets_a_cited_answer(data_dir):
    params = StdioServerParameters(command=sys.executable, args=["-m", "cli", "mcp"], env=_env(data_dir),
                                   cwd=str(PROJECT_ROOT))

    async def run() -> dict:
        async with Client(params, read_timeout_seconds=120) as client:
            return await _session(client)

    _check(asyncio.run(asyncio.wait_for(run(), 180)))


def test_the_mcp_client_over_streamable_http_lists_tools_and_gets_a_cited_answer(data_dir, tmp_path):
    port = free_port()
    log = (tmp_path / "mcp.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "mcp", "--transport", "http", "--port", str(port)],
                            env=_env(data_dir), cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 120
        while True:  # up when /mcp answers at all (a GET without a session is refused)
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "mcp.log").read_text()
                assert time.monotonic() < deadline, "rag mcp did not listen within 120 s"
                time.sleep(0.3)

        async def run() -> dict:
            async with Client(url, read_timeout_seconds=120) as client:
                return await _session(client)

        _check(asyncio.run(asyncio.wait_for(run(), 180)))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()
