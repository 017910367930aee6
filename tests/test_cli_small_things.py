"""Small things a new user meets on the command line: `rag serve` on a busy port says so and
what to do, without first announcing a URL it will not serve."""

from __future__ import annotations

import socket

from click.testing import CliRunner

from cli.main import cli


def test_rag_serve_on_a_busy_port_says_so_before_announcing_a_url(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port)], env={"RAG_DATA_DIR": str(tmp_path)})
    assert result.exit_code != 0
    assert f"cannot listen on 127.0.0.1:{port}" in result.output and f"--port {port + 1}" in result.output
    assert "http://" not in result.output
