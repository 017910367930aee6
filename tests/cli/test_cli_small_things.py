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


def test_see_also_names_an_unnamed_paper_by_the_opening_of_its_abstract(tmp_path):
    """A record with no title, method or author used to be shown as a bare id ("004-0027")."""
    from tests.support import write_papers

    rows = [{"id": "bare-1", "abstract": "Ice cores from three alpine glaciers record dust storms over "
             "four centuries of measurements."}]
    env = {"RAG_DATA_DIR": str(tmp_path / "idx")}
    assert CliRunner().invoke(cli, ["ingest", str(write_papers(tmp_path / "p.jsonl", rows))], env=env).exit_code == 0
    result = CliRunner().invoke(cli, ["ask", "Who won the 2018 FIFA World Cup?"], env=env)
    assert "See also (not claimed to answer): “Ice cores from three alpine glaciers record dust…” (bare-1)" \
        in result.output


def test_a_skipped_row_is_reported_once(tmp_path):
    papers = tmp_path / "p.jsonl"
    papers.write_text('{"id": "a", "abstract": "We study lake ice with radar over three winters."}\n'
                      '{"id": broken\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["ingest", str(papers)], env={"RAG_DATA_DIR": str(tmp_path / "idx")})
    assert result.exit_code == 0
    assert result.output.count("p.jsonl:2") == 1 and "skipped p.jsonl:2: not valid JSON" in result.output
    assert "; skipped" not in result.output
