"""docs/configuration.md is generated from the settings classes (``python -m cli.settings_docs``):
the committed page is the generated one, it names every setting with its default and bounds, and
every variable it names is one the settings really accept."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from cli.settings_docs import COMMAND, PAGE, generate, main
from rag.settings import Settings, load_settings
from service.slack_settings import SlackSettings, load_slack_settings

ROW = re.compile(r"^\| `(RAG_[A-Z0-9_]+)` \| (?:\\\||[^|])+ \| (`[^`]*`|unset) \|", re.MULTILINE)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env of the checkout
    for name in [n for n in __import__("os").environ if n.startswith("RAG_")]:
        monkeypatch.delenv(name)


def _leaves(model: type[BaseModel], prefix: str) -> set[str]:
    out = set()
    for name, field in model.model_fields.items():
        inner = field.annotation
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            out |= _leaves(inner, f"{prefix}{name.upper()}__")
        else:
            out.add(f"{prefix}{name.upper()}")
    return out


def test_the_committed_configuration_page_is_the_generated_one():
    assert PAGE.read_text(encoding="utf-8") == generate(), \
        f"docs/configuration.md is not what the settings say: run `{COMMAND}` and commit the page"


def test_the_check_command_fails_on_a_stale_page(monkeypatch, tmp_path, capsys):
    page = tmp_path / "configuration.md"
    monkeypatch.setattr("cli.settings_docs.PAGE", page)
    assert main(["--check"]) == 1  # no page yet
    assert main([]) == 0 and main(["--check"]) == 0
    top_k = "`RAG_RETRIEVAL__TOP_K` | int | `5`"
    page.write_text(page.read_text().replace(top_k, top_k.replace("5", "6")))
    capsys.readouterr()
    assert main(["--check"]) == 1 and f"out of date: run {COMMAND}" in capsys.readouterr().out


def test_every_setting_of_the_engine_and_the_slack_bot_is_on_the_page():
    page = generate()
    documented = {name for name, _ in ROW.findall(page)}
    wanted = _leaves(Settings, "RAG_") | _leaves(SlackSettings, "RAG_SLACK__")
    assert wanted - documented == set()
    assert "| `RAG_RETRIEVAL__TOP_K` | int | `5` | ≥ 1, ≤ 50 | papers passed to the answerer |" in page
    assert "| `RAG_DATA_DIR` | Path | `.rag-data` |" in page  # relative to the checkout, not this machine's path
    assert "| `filters.year` | str | unset |" in page  # a Slack channel entry's own keys


def test_every_variable_on_the_page_is_accepted_with_its_documented_default(monkeypatch):
    rows = ROW.findall(generate())
    assert len(rows) > 60
    for name, default in rows:
        if default == "unset":
            continue
        monkeypatch.setenv(name, default.strip("`"))
        load_settings()
        load_slack_settings()
        monkeypatch.delenv(name)
