"""Prompt templates, one file each in ``prompts/``: a system part, a ``=== user ===`` line and
a user part with named placeholders. Loaded and checked once at start-up: a missing file, a
missing or an unknown placeholder stops start-up with the file's name."""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path

from rag.errors import PromptError

SEPARATOR = "=== user ==="
EXPECTED = {
    "answer": {"question", "sources"},
    "condense": {"history", "question"},
    "rerank": {"question", "sources"},
    "structured": {"question", "sentences"},  # rag/llm/structured.py: numbered sentences in, JSON out
    "judge": {"passage", "claim"},  # eval/judge.py: one claim against its cited passage
}


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user: str

    def messages(self, **values: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": self.user.format(**values)}]


def _fields(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def load_prompt(directory: Path, name: str) -> Prompt:
    path = directory / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PromptError(f"prompt file {path} cannot be read ({exc.strerror}); "
                          "restore it from the repository or set RAG_PROMPTS_DIR.") from exc
    system, sep, user = text.partition(SEPARATOR)
    if not sep:
        raise PromptError(f"{path.name}: no '{SEPARATOR}' line between system and user parts.")
    try:
        found = _fields(system) | _fields(user)
    except ValueError as exc:
        raise PromptError(f"{path.name}: malformed placeholder ({exc}); double literal braces.") from exc
    expected = EXPECTED[name]
    if found != expected or _fields(system):
        missing, unknown = sorted(expected - found), sorted(found - expected)
        raise PromptError(f"{path.name}: placeholders must be {sorted(expected)} in the user part"
                          f" (missing: {missing or 'none'}, unknown: {unknown or 'none'}).")
    return Prompt(name, system.strip(), user.strip())


def load_prompts(directory: Path) -> dict[str, Prompt]:
    return {name: load_prompt(directory, name) for name in EXPECTED}
