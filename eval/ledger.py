"""eval/ledger.jsonl: one line per look at test content (`rag eval --split test`, or any question
file that shares more than a handful of test questions, whatever its name), with its figures
and intervals, the answers' length, the git commit, the date, the generator, the hash of the
question file(s) and a note. The test table of docs/evaluation.md is generated from it, never
typed:

    python -m eval.ledger            # print the table from the ledger
    python -m eval.ledger --write    # put it into docs/evaluation.md between the ledger markers"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.report import HEADLINE, words_cell
from rag.settings import PROJECT_ROOT, Settings
from rag.stages.read import cross_encoder_folder

LEDGER = PROJECT_ROOT / "eval" / "ledger.jsonl"
DOC = PROJECT_ROOT / "docs" / "evaluation.md"
BEGIN, END = "<!-- test-ledger:begin -->", "<!-- test-ledger:end -->"


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def generator_of(settings: Settings) -> str:
    return f"llm:{settings.llm.model}" if settings.llm.configured else "offline"


def reading(settings: Settings) -> dict[str, Any] | None:
    """How the configured LLM reads (None offline): what a ledger line and a run's run.json record."""
    llm = settings.llm
    return {"mode": llm.mode, "abstracts": llm.abstracts, "sentences": llm.sentences} if llm.configured else None


def answer_overrides(settings: Settings) -> dict[str, Any]:
    """The answer settings a run changed from the shipped defaults (``RAG_ANSWER__...``): a line
    with any is an ablation, not what ships."""
    shipped = type(settings.answer)().model_dump(mode="json")
    used = settings.answer.model_dump(mode="json")
    own = cross_encoder_folder(settings.answer, settings.data_dir)  # a collection's own model counts too
    used["cross_encoder_dir"] = str(own) if own is not None else None
    return {key: value for key, value in used.items() if shipped.get(key) != value}


def dataset_hash(paths: Path | Sequence[Path]) -> str:
    """The content hash of the question file(s) scored (one file: the hash of its bytes)."""
    digest = hashlib.sha256()
    for path in [paths] if isinstance(paths, Path) else paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def entry(summary: Mapping[str, Any], settings: Settings, dataset: Path | Sequence[Path], run_dir: Path, *,
          test_questions: int | None = None, note: str = "") -> dict[str, Any]:
    figures = {key: {"value": summary["overall"].get(key), "ci": summary["ci"].get(key),
                     "n": summary["n"].get(key)} for _, key in HEADLINE}
    figures["yes_no_majority"] = {"value": summary.get("yes_no_majority"), "ci": None, "n": None}
    figures["latency_p50_ms"] = {"value": summary["latency_p50_ms"], "ci": summary.get("latency_p50_ci"),
                                 "n": summary["questions"]}
    dirty = [line for line in _git("status", "--porcelain").splitlines() if "eval/runs/" not in line]
    return {"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": _git("rev-parse", "HEAD"), "uncommitted_changes": len(dirty),
            "generator": generator_of(settings), "generators": summary["generators"],
            "llm": reading(settings), "answer_overrides": answer_overrides(settings),
            "split": "test", "questions": summary["questions"],
            "test_questions": summary["questions"] if test_questions is None else test_questions,
            "dataset_sha256": dataset_hash(dataset),
            "run": str(run_dir), "routes": summary.get("routes", {}), "figures": figures,
            "answer_words": summary.get("answer_words"), "note": note}


def append(line: Mapping[str, Any], path: Path | None = None) -> None:
    with (path or LEDGER).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def read(path: Path | None = None) -> list[dict[str, Any]]:
    path = path or LEDGER
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _fmt(figure: Mapping[str, Any] | None, unit: str = "") -> str:
    if not figure or figure.get("value") is None:
        return "-"
    ci = figure.get("ci")
    if unit:
        return f"{figure['value']:.0f}{unit}" + (f" [{ci[0]:.0f}, {ci[1]:.0f}]" if ci else "")
    return f"{figure['value']:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


def _name(line: Mapping[str, Any]) -> str:
    llm = line.get("llm")
    if not llm:
        return str(line["generator"])
    reads = f"{llm['abstracts']} abstracts" if llm["mode"] == "prose" else f"{llm['sentences']} sentences"
    return f"{line['generator']} ({llm['mode']}, {reads})"


def table(lines: list[dict[str, Any]]) -> str:
    """Markdown: a column per generator, from its newest ledger line (the last line's first) run
    with the shipped answer settings; an ablation's line stands only where there is no other."""
    newest: dict[str, dict[str, Any]] = {}
    for line in reversed(lines):
        if not line.get("answer_overrides"):
            newest.setdefault(line["generator"], line)
    for line in reversed(lines):
        newest.setdefault(line["generator"], line)
    if not newest:
        return "(no test run in eval/ledger.jsonl yet: run `rag eval --split test`)"
    cols = list(newest.values())
    out = ["| metric (95% interval) | " + " | ".join(_name(c) for c in cols) + " |",
           "|---|" + "---|" * len(cols)]
    for label, key in HEADLINE:
        if all(c["figures"].get(key, {}).get("value") is None for c in cols):
            continue
        out.append(f"| {label} | " + " | ".join(_fmt(c["figures"].get(key)) for c in cols) + " |")
        if key == "accuracy":
            out.append("| answer length, words p50 / p90 | " + " | ".join(
                words_cell(c.get("answer_words")) if c.get("answer_words") else "(not kept then)"
                for c in cols) + " |")
    baseline = " | ".join(_fmt(c["figures"].get("yes_no_majority")) for c in cols)
    out.append(f"| yes/no majority baseline | {baseline} |")
    out.append("| latency p50 | " + " | ".join(_fmt(c["figures"].get("latency_p50_ms"), " ms") for c in cols) + " |")
    out.append("| questions, date, commit | " + " | ".join(
        f"{c['questions']}, {c['date'][:10]}, `{c['commit'][:9]}`" + (" (uncommitted changes)" if c.get(
            "uncommitted_changes") else "") for c in cols) + " |")
    return "\n".join(out)


def doc_with_table(doc: str, lines: list[dict[str, Any]]) -> str:
    head, sep, rest = doc.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"{DOC} has no {BEGIN} ... {END} block")
    return f"{head}{BEGIN}\n{table(lines)}\n{END}{tail}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite docs/evaluation.md's test table")
    args = parser.parse_args()
    lines = read()
    if args.write:
        DOC.write_text(doc_with_table(DOC.read_text(encoding="utf-8"), lines), encoding="utf-8")
        print(f"{DOC.relative_to(PROJECT_ROOT)}: test table from {len(lines)} ledger line(s)")
    else:
        print(table(lines))


if __name__ == "__main__":
    main()
