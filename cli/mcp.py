"""`rag mcp`: the collection as an MCP server (service/mcp.py), over stdio (a client such as
Claude Desktop starts it) or streamable HTTP (http://HOST:PORT/mcp)."""

from __future__ import annotations

import click

from rag.settings import Settings


@click.command()
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: the MCP client starts this command; http: streamable HTTP at /mcp.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --transport http.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="With --transport http.")
@click.pass_obj
def mcp(settings: Settings, transport: str, host: str, port: int) -> None:
    """Serve the collection to MCP clients: tools search, ask, get_paper, list_collections;
    resources paper://{id}."""
    from rag.engine import build_engine, require_index
    from service.mcp import serve

    engine = build_engine(settings)
    try:
        require_index(engine)  # fail now, with what to run, not at the first tool call
        if transport == "http":
            click.echo(f"abstract-rag MCP server: http://{host}:{port}/mcp", err=True)
        serve(engine, "stdio" if transport == "stdio" else "streamable-http", host, port)
    finally:
        engine.close()
