"""The collection as an MCP server (the `mcp` SDK, 2.x): `rag mcp` serves it to any MCP client
(Claude Desktop, IDEs, agents) over stdio or streamable HTTP. Tools: ``search`` (retrieval
only), ``ask`` (the same checked, cited answer as every other front end: one engine, one answer
path), ``get_paper`` and ``list_collections``; each paper is a resource ``paper://{id}``.

The engine is built once, by the entry point, and passed in; errors the user can act on
(an empty question, an unknown paper) come back as tool errors with the engine's message."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import MCPServerError, ResourceNotFoundError, ToolError
from mcp_types import CallToolResult, TextContent

from rag.engine import Engine, answer, require_index, search
from rag.errors import InputError, RagError
from rag.index.collections import list_collections, name_of
from rag.index.filters import Filters
from rag.types import Paper
from service.rendering import reference_list

INSTRUCTIONS = ("Questions over a collection of scientific paper abstracts. Use `ask` for a "
                "checked answer in which every sentence cites the papers it comes from (or an "
                "honest 'the abstracts do not answer this'); `search` to find papers; `get_paper` "
                "or the paper://{id} resource for one paper's abstract and metadata.")


def paper_json(paper: Paper) -> dict[str, Any]:
    return {"id": paper.id, "label": paper.label, "title": paper.title, "authors": list(paper.authors),
            "year": paper.year, "venue": paper.venue, "doi": paper.doi, "arxiv_id": paper.arxiv_id,
            "link": paper.link, "abstract": paper.abstract}


def _paper(engine: Engine, paper_id: str) -> Paper:
    paper = engine.library.catalog.get(paper_id.strip())
    if paper is None:
        raise InputError(f"no paper with id {paper_id!r} in this collection; `search` gives ids.")
    return paper


@contextmanager
def told(kind: type[MCPServerError] = ToolError) -> Iterator[None]:
    """A RagError reaches the client as the tool's error, with the engine's message (what
    happened and what to do); anything else stays a crash, logged on the server."""
    try:
        yield
    except RagError as exc:
        raise kind(str(exc)) from None


def build_mcp(engine: Engine) -> MCPServer:
    server = MCPServer(name="abstract-rag", title="Ask the abstracts", instructions=INSTRUCTIONS,
                       version="0.1.0")

    @server.tool(structured_output=False)
    def ask(question: str, author: str | None = None, year: str | None = None) -> CallToolResult:
        """Answer a question from the collection's abstracts. Every sentence of the answer cites
        its sources as [n]; the sources follow as a Markdown list with their paper ids. Filters:
        author (a name), year ("2023", "2021-2024"). Returns the answer as Markdown and, as
        structured content, the whole checked answer (citations, table, abstained)."""
        with told():
            result = answer(engine, question, filters=Filters.parse(author=author, year=year))
        text = result.text + reference_list(result.citations)
        if result.abstained and result.abstain_reason:
            text += f"\n\n({result.abstain_reason})"
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=json.loads(json.dumps(asdict(result), default=str)))

    @server.tool(name="search")
    def search_papers(query: str, k: int = 5) -> list[dict[str, Any]]:
        """Find papers for a query (keyword and vector retrieval, fused): id, label, link,
        score, and the start of the abstract. No answer is composed."""
        with told():
            hits = search(engine, query, max(1, min(k, 50)))
        return [{"id": h.paper.id, "label": h.paper.label, "link": h.paper.link,
                 "score": round(h.score, 5), "abstract": h.paper.abstract[:400]} for h in hits]

    @server.tool()
    def get_paper(paper_id: str) -> dict[str, Any]:
        """One paper's metadata and whole abstract, by id (an id from `search` or a citation)."""
        with told():
            require_index(engine)
            return paper_json(_paper(engine, paper_id))

    @server.tool(name="list_collections")
    def list_collections_tool() -> list[dict[str, Any]]:
        """The collections on this machine (the bundled `demo` and any of your own) with their
        paper counts; `active` marks the one this server answers from."""
        active = name_of(engine.settings)
        return [{"name": c.name, "papers": c.papers, "active": c.name == active}
                for c in list_collections(engine.settings)]

    @server.resource("paper://{paper_id}", name="paper", mime_type="application/json",
                     description="A paper of the collection: metadata and whole abstract")
    def paper_resource(paper_id: str) -> str:
        with told(ResourceNotFoundError):
            return json.dumps(paper_json(_paper(engine, paper_id)), ensure_ascii=False)

    return server


def serve(engine: Engine, transport: str, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run until stopped: stdio (a client starts `rag mcp`) or streamable HTTP at /mcp."""
    server = build_mcp(engine)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
