"""The code blocks of README.md and docs/*.md run as written (issue 28: "the README's code blocks
are executed by a test").

- Python blocks are executed, on a small index built here with the real offline embedder (one
  bundled file and the invented papers of tests/support.py) that ``RAG_DATA_DIR`` names, as a
  reader's shell would. A block that talks to ``http://127.0.0.1:8000`` gets a real ``rag serve``
  app on a free loopback port instead.
- Every ``rag ...`` command line of a shell block must parse: the command, its subcommand and its
  options exist (``--help`` appended, exit 0). The ``rag ask`` and ``rag search`` lines of the
  README and docs/usage.md are also run, on the same index.
- A block that cannot run here says so on the line before its fence:
  ``<!-- docs-test: not run: <the reason> -->``. Those are listed by a test, never skipped silently.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from rag.settings import PROJECT_ROOT, Settings
from rag.testing.live import running
from tests.support import SUPREMIX_FILE, write_papers

DOCS = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
RUN_COMMANDS_FROM = {"README.md", "docs/usage.md"}
RUN_SUBCOMMANDS = {"ask", "search"}
NOT_RUN = re.compile(r"<!--\s*docs-test:\s*not run:\s*(\S.*?)\s*-->")
SERVICE_URL = "http://127.0.0.1:8000"


@dataclass(frozen=True)
class Block:
    path: str  # relative to the checkout
    line: int  # of the opening fence
    lang: str
    code: str
    not_run: str | None  # the reason, when marked


def code_blocks(text: str, path: str) -> list[Block]:
    """Fenced blocks with a language (a bare fence is sample output, not code)."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        lang = lines[i][3:].strip()
        if lang:
            before = next((line for line in reversed(lines[:i]) if line.strip()), "")
            marked = NOT_RUN.search(before)
            out.append(Block(path, i + 1, lang, "\n".join(lines[i + 1:end]), marked and marked.group(1)))
        i = end + 1
    return out


def rag_commands(shell: str) -> list[list[str]]:
    """The arguments of every ``rag`` command in a shell block: continuations joined, comments,
    ``VAR=value`` prefixes and everything after ``&&``, ``|``, ``;`` or ``&`` set apart."""
    commands, pending = [], ""
    for line in shell.replace("\\\n", " ").splitlines():
        pending += line + "\n"
        lexer = shlex.shlex(pending, posix=True, punctuation_chars=True)
        lexer.whitespace_split, lexer.commenters = True, "#"
        try:
            tokens = [*lexer, ";"]
        except ValueError:  # a quote that closes on a later line
            continue
        pending, words = "", []
        for token in tokens:
            if token and set(token) <= set("&|;()<>"):
                while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                    words.pop(0)
                if words[:1] == ["rag"]:
                    commands.append(words[1:])
                words = []
            else:
                words.append(token)
    return commands


def _all_blocks() -> list[Block]:
    return [b for path in DOCS for b in code_blocks(path.read_text(encoding="utf-8"),
                                                     str(path.relative_to(PROJECT_ROOT)))]


BLOCKS = _all_blocks()
PYTHON = [b for b in BLOCKS if b.lang == "python" and not b.not_run]
COMMANDS = [(b, args) for b in BLOCKS if b.lang in ("bash", "sh", "shell") and not b.not_run
            for args in rag_commands(b.code)]


def _id(block: Block, args: list[str] | None = None) -> str:
    return f"{block.path}:{block.line}" + (f":rag {' '.join(args)[:40]}" if args is not None else "")


@pytest.fixture(scope="module")
def docs_index(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A small index with the real offline embedder, as `rag ingest` would build it."""
    from rag.index.library import open_library
    from rag.ingest.pipeline import ingest

    root = tmp_path_factory.mktemp("docs")
    settings = Settings(data_dir=root / "index")
    lib = open_library(settings)
    try:
        ingest(lib, [SUPREMIX_FILE, write_papers(root / "invented.jsonl")])
    finally:
        lib.close()
    return settings


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A reader's environment: no RAG_ variable, no .env of the checkout."""
    import os

    for name in [n for n in os.environ if n.startswith("RAG_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def reader_env(docs_index: Settings, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """... with RAG_DATA_DIR naming the small index."""
    monkeypatch.setenv("RAG_DATA_DIR", str(docs_index.data_dir))
    return docs_index


@contextmanager
def service_for(block: Block, settings: Settings) -> Iterator[str | None]:
    """A real server in place of `rag serve`'s 127.0.0.1:8000, for the blocks that talk to it."""
    if SERVICE_URL not in block.code:
        yield None
        return
    from service.app import create_app

    with running(create_app(settings)) as url:
        yield url


def test_the_docs_have_code_blocks_to_run():
    names = {b.path for b in PYTHON}
    assert {"README.md", "docs/usage.md"} <= names, names
    assert len(COMMANDS) >= 30


@pytest.mark.slow
@pytest.mark.parametrize("block", PYTHON, ids=[_id(b) for b in PYTHON])
def test_a_python_block_runs_as_written(block: Block, reader_env: Settings, capsys) -> None:
    with service_for(block, reader_env) as url:
        code = block.code.replace(SERVICE_URL, url) if url else block.code
        exec(compile(code, f"{block.path}:{block.line}", "exec"), {"__name__": "__docs__"})  # noqa: S102
    assert capsys.readouterr().out.strip(), f"{_id(block)} printed nothing"


@pytest.mark.parametrize("block, args", COMMANDS, ids=[_id(b, a) for b, a in COMMANDS])
def test_a_rag_command_line_parses(block: Block, args: list[str], clean_env: None) -> None:
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output, f"{_id(block, args)}: {result.output}"


RUNNABLE = [(b, a) for b, a in COMMANDS if b.path in RUN_COMMANDS_FROM and a[:1] and a[0] in RUN_SUBCOMMANDS]


@pytest.mark.slow
@pytest.mark.parametrize("block, args", RUNNABLE, ids=[_id(b, a) for b, a in RUNNABLE])
def test_an_ask_or_search_line_runs(block: Block, args: list[str], reader_env: Settings) -> None:
    result = CliRunner().invoke(cli, args)
    honest_refusal = (result.exit_code == 2 and "the filters leave no paper" in result.output) or (
        result.exit_code == 1 and "nothing to export" in result.output)  # said, not silent (this index is small)
    assert result.exit_code == 0 or honest_refusal, f"{_id(block, args)}: {result.output}"
    if args[0] == "ask":  # an answer or an abstention, never silence (a search may find nothing here)
        assert result.output.strip(), f"{_id(block, args)} printed nothing"


def test_blocks_that_cannot_run_here_say_why_and_are_few():
    marked = [(_id(b), b.not_run) for b in BLOCKS if b.not_run]
    assert all(reason for _, reason in marked) and len(marked) <= 3, marked


def test_the_block_reader_finds_languages_markers_and_commands():
    text = ("intro\n```bash\nRAG_X=1 rag ask \"a b\" -k 2 && rag search q | head  # c\n"
            "rag eval --split test \\\n  --resume runs/x\nsource .venv/bin/activate\n```\n"
            "```\nsample output\n```\n<!-- docs-test: not run: needs a Slack workspace -->\n"
            "```python\nprint(1)\n```\n")
    shell, python = code_blocks(text, "x.md")
    assert (shell.lang, shell.line, shell.not_run) == ("bash", 2, None)
    assert rag_commands(shell.code) == [["ask", "a b", "-k", "2"], ["search", "q"],
                                        ["eval", "--split", "test", "--resume", "runs/x"]]
    assert (python.lang, python.code, python.not_run) == ("python", "print(1)", "needs a Slack workspace")
