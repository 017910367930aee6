"""The layout shows the architecture and the imports keep to it: ``rag/`` knows nothing of
``service/``, ``eval/`` or ``cli/``, and inside ``rag/`` a stage imports only from the stages
below it (text < settings < index < ingest, retrieve < answer < llm < engine < live). Inside a
part, modules import each other without a circle (a lazy import inside a function counts too).
Both checkers are tested on planted violations, so a broken checker cannot pass silently."""

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


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_cycles(root: Path) -> list[str]:
    """Every circle of imports between modules of ``root/rag`` (each reported once, as
    ``a -> b -> a``). ``from rag.x import y`` counts as an import of ``rag.x.y`` when that is a
    module; imports under ``if TYPE_CHECKING:`` are only for the type checker and do not count."""
    modules = {_module_of(p, root): p for p in (root / "rag").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = set()
        for module, names in _runtime_imports(path, root):
            targets = [f"{module}.{n}" for n in names if f"{module}.{n}" in modules] or [module]
            graph[name] |= {t for t in targets if t in modules and t != name}
    return _cycles(graph)


def _runtime_imports(path: Path, root: Path) -> list[tuple[str, list[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(n) for node in ast.walk(tree)
               if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
               for stmt in node.body for n in ast.walk(stmt)}
    package = list(path.parent.relative_to(root).parts)
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                prefix = ".".join(package[: len(package) - node.level + 1])
                module = f"{prefix}.{module}" if module else prefix
            out.append((module, [alias.name for alias in node.names]))
    return out


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    found: set[tuple[str, ...]] = set()

    def walk(node: str, trail: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in trail:
                loop = trail[trail.index(nxt):]
                turn = loop.index(min(loop))
                found.add(tuple(loop[turn:] + loop[:turn]))
            elif nxt not in done:
                walk(nxt, trail + [nxt])
        done.add(node)

    done: set[str] = set()
    for start in sorted(graph):
        if start not in done:
            walk(start, [start])
    return sorted(" -> ".join([*loop, loop[0]]) for loop in found)


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


def test_no_circle_of_imports_inside_rag():
    assert import_cycles(PROJECT_ROOT) == []


def test_the_checker_catches_a_planted_circle_inside_one_part(tmp_path):
    for name, text in {"rag/ingest/pipeline.py": "def rebuild():\n    from rag.ingest.rebuild import run\n",
                       "rag/ingest/rebuild.py": "from rag.ingest.pipeline import _ingest\n",
                       "rag/ingest/a.py": "from . import b\n",
                       "rag/ingest/b.py": "from .c import x\n",
                       "rag/ingest/c.py": "import rag.ingest.a\n",
                       "rag/ingest/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                              "    from rag.ingest.hinted import X\n",
                       "rag/ingest/hinted.py": "from rag.ingest.typed import Y\n",
                       }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert import_cycles(tmp_path) == [
        "rag.ingest.a -> rag.ingest.b -> rag.ingest.c -> rag.ingest.a",
        "rag.ingest.pipeline -> rag.ingest.rebuild -> rag.ingest.pipeline",
    ]


def test_no_module_of_rag_is_over_300_lines():
    long = {str(p.relative_to(PROJECT_ROOT)): n for p in (PROJECT_ROOT / "rag").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
