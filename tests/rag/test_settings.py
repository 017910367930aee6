"""Settings are strict: a misspelt variable, a value out of its bounds, or two values that
contradict each other is an error that names the variable, in the environment and in .env;
other programs' variables in .env are left alone. The CLI says it in one line."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli.main import cli
from rag.errors import ConfigError
from rag.settings import load_settings
from service.slack_settings import load_slack_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env of the checkout
    for name in [n for n in __import__("os").environ if n.startswith("RAG_")]:
        monkeypatch.delenv(name)


@pytest.mark.parametrize("variable, named, suggested", [
    ("RAG_ANSWER__SECOND_RATO", "RAG_ANSWER__SECOND_RATO", "RAG_ANSWER__SECOND_RATIO"),
    ("RAG_DATA_DRI", "RAG_DATA_DRI", "RAG_DATA_DIR"),
    ("RAG_RETRIEVAL__TOPK", "RAG_RETRIEVAL__TOPK", "RAG_RETRIEVAL__TOP_K"),
    ("RAG_LLM__BASEURL", "RAG_LLM__BASEURL", "RAG_LLM__BASE_URL"),
])
def test_a_misspelt_variable_is_an_error_that_names_it_and_the_closest_setting(monkeypatch, variable, named,
                                                                               suggested):
    monkeypatch.setenv(variable, "0.9")
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert named in str(raised.value) and f"did you mean {suggested}" in str(raised.value)


def test_a_misspelt_channel_setting_of_the_slack_bot_is_an_error(monkeypatch):
    monkeypatch.setenv("RAG_SLACK__CHANNELS", '{"C0123": {"requiremention": false}}')
    with pytest.raises(ConfigError, match="REQUIREMENTION is not a setting"):
        load_slack_settings()


def test_the_slack_bots_variables_are_the_services_to_read_and_a_misspelt_group_is_still_refused(monkeypatch):
    monkeypatch.setenv("RAG_SLACK__BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("RAG_SLACK__DEFAULT_CHANNEL__ANSWER", "false")
    assert not hasattr(load_settings(), "slack")
    slack = load_slack_settings()
    assert slack.bot_token.get_secret_value() == "xoxb-1" and slack.default_channel.answer is False
    monkeypatch.setenv("RAG_SLAK__BOT_TOKEN", "xoxb-1")
    with pytest.raises(ConfigError, match="RAG_SLAK__BOT_TOKEN is not a setting"):
        load_settings()
    monkeypatch.setenv("RAG_SLACK__BOT_TOKN", "xoxb-1")
    with pytest.raises(ConfigError, match="RAG_SLACK__BOT_TOKN is not a setting.*did you mean RAG_SLACK__BOT_TOKEN"):
        load_slack_settings()


def test_slack_variables_in_dot_env_reach_the_bot_and_nothing_else(tmp_path):
    (tmp_path / ".env").write_text("RAG_SLACK__BOT_TOKEN=xoxb-2\nRAG_ANSWER__SECOND_RATIO=0.25\n")
    assert load_settings().answer.second_ratio == 0.25
    assert load_slack_settings().bot_token.get_secret_value() == "xoxb-2"
    (tmp_path / ".env").write_text("RAG_SLACK__SEE_ALSOO=2\n")
    load_settings()
    with pytest.raises(ConfigError, match="RAG_SLACK__SEE_ALSOO is not a setting"):
        load_slack_settings()


def test_rag_serve_refuses_a_misspelt_slack_variable_in_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["serve"], env={"RAG_SLACK__MAX_SOURCE": "3", "RAG_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 2
    assert result.output.strip().startswith("error: invalid settings: RAG_SLACK__MAX_SOURCE is not a setting")


@pytest.mark.parametrize("variable, value, says", [
    ("RAG_ANSWER__LIST_PAPERS", "99", "less than or equal to 30"),
    ("RAG_ANSWER__SUPPORT_THRESHOLD", "1.5", "less than or equal to 1"),
    ("RAG_SUPPORT__NEGATION", "-0.1", "greater than or equal to 0"),
    ("RAG_RETRIEVAL__RRF_K", "0", "greater than or equal to 1"),
])
def test_a_weight_or_threshold_out_of_its_bounds_is_refused(monkeypatch, variable, value, says):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=says) as raised:
        load_settings()
    assert variable in str(raised.value)


def test_a_chunk_overlap_as_large_as_the_chunk_is_refused(monkeypatch):
    monkeypatch.setenv("RAG_CHUNKING__CHUNK_OVERLAP", "256")
    with pytest.raises(ConfigError, match=r"chunk_overlap \(256\) must be smaller than chunk_size \(256\)"):
        load_settings()


def test_top_k_beyond_what_the_retrievers_fetch_is_refused(monkeypatch):
    monkeypatch.setenv("RAG_RETRIEVAL__TOP_K", "40")
    with pytest.raises(ConfigError, match=r"top_k \(40\) and list_k \(10\) cannot exceed candidates \(30\)"):
        load_settings()
    monkeypatch.setenv("RAG_RETRIEVAL__CANDIDATES", "60")
    assert load_settings().retrieval.top_k == 40


def test_dot_env_typos_are_refused_and_other_programs_variables_left_alone(tmp_path):
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-other-program\nRAG_ANSWER__SECOND_RATIO=0.25\n")
    assert load_settings().answer.second_ratio == 0.25
    (tmp_path / ".env").write_text("OPENAI_API_KEY=x\nRAG_ANSWER__SECOND_RATIOO=0.25\n")
    with pytest.raises(ConfigError, match="RAG_ANSWER__SECOND_RATIOO is not a setting"):
        load_settings()


def test_well_spelt_variables_are_read(monkeypatch):
    monkeypatch.setenv("RAG_ANSWER__YES_NO_COVERAGE", "0.4")
    monkeypatch.setenv("RAG_SUPPORT__NUMBER", "0.2")
    settings = load_settings()
    assert settings.answer.yes_no_coverage == 0.4 and settings.support.number == 0.2


def test_the_cli_says_what_is_wrong_in_one_line_and_exits_2(tmp_path):
    result = CliRunner().invoke(cli, ["ask", "anything"], env={"RAG_ANSWER__SECOND_RATO": "0.9",
                                                               "RAG_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("error: invalid settings: RAG_ANSWER__SECOND_RATO")
    assert "Traceback" not in result.output
