"""The layout shows the architecture and the imports keep to it: ``rag/`` knows nothing of
``service/``, ``eval/`` or ``cli/``, and inside ``rag/`` a stage imports only from the stages
below it (text < settings < index < ingest, retrieve < answer < llm < engine < live). The
checker is tested on a planted upward import, so a broken checker cannot pass silently."""

from __future__ import annotations

import ast
from pathlib import Path

from rag.settings import PROJECT_ROOT

ENTRY_POINTS = ("service", "eval", "cli")
# rank of each part of rag/; a module may import from a lower rank or from its own part
RANKS = {"types": 0, "errors": 0, "text": 1, "settings_sources": 1.5,
         "settings": 2, "index": 3, "ingest": 4, "retrieve": 4, "answer": 5, "llm": 6, "stages": 6.5, "engine": 7,
         "live": 8, "integrations": 9, "testing": 10}
MAX_LINES = 300


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in a file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = list(path.parent.relative_to(root).parts)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                prefix = ".".join(package[: len(package) - node.level + 1])
                out.append((node.lineno, f"{prefix}.{node.module}" if node.module else prefix))
            elif node.module:
                out.append((node.lineno, node.module))
    return out


def _part(module: str) -> str | None:
    pieces = module.split(".")
    return pieces[1] if pieces[0] == "rag" and len(pieces) > 1 else None


def upward_imports(root: Path) -> list[str]:
    """Every import in ``root/rag`` that points up the layers or out to an entry point."""
    problems = []
    for path in sorted((root / "rag").rglob("*.py")):
        mine = path.relative_to(root / "rag").parts[0].removesuffix(".py")
        for line, module in _imports(path, root):
            where = f"{path.relative_to(root)}:{line} imports {module}"
            if module.split(".")[0] in ENTRY_POINTS:
                problems.append(f"{where} (rag/ must not import an entry point)")
                continue
            theirs = _part(module)
            if theirs is None or theirs == mine or theirs not in RANKS or mine not in RANKS:
                continue
            if RANKS[theirs] >= RANKS[mine]:
                problems.append(f"{where} ({theirs} is not below {mine})")
    return problems


def test_rag_imports_only_downwards_and_never_an_entry_point():
    assert upward_imports(PROJECT_ROOT) == []


def test_every_part_of_rag_has_a_rank():
    parts = {p.name.removesuffix(".py") for p in (PROJECT_ROOT / "rag").iterdir()
             if (p.suffix == ".py" or p.is_dir()) and not p.name.startswith(("_", "."))}
    assert parts - {"assets"} <= set(RANKS), f"give these a rank in RANKS: {parts - set(RANKS) - {'assets'}}"


def test_the_checker_catches_a_planted_upward_import(tmp_path):
    for folder, text in {"rag/text/words.py": "from rag.answer.intent import Intent\n",
                         "rag/index/store.py": "from ..llm import client\n",
                         "rag/answer/intent.py": "import service.app\n",
                         "rag/answer/reader.py": "from rag.text import words\nfrom rag.answer import intent\n",
                         }.items():
        (tmp_path / folder).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / folder).write_text(text)
    found = upward_imports(tmp_path)
    assert len(found) == 3, found
    assert any("rag/text/words.py:1 imports rag.answer.intent" in f for f in found)
    assert any("imports rag.llm" in f for f in found)
    assert any("entry point" in f for f in found)


def test_no_module_of_rag_is_over_300_lines():
    long = {str(p.relative_to(PROJECT_ROOT)): n for p in (PROJECT_ROOT / "rag").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
