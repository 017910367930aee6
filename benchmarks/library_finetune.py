"""What fine-tuning on a library buys (``rag train-reader --cross-encoder``), on a library the
starting model never saw. The bundled corpus stands in for two things at once, so it is cut in
two by a hash of the paper id: half is "your library", and every group of the shipped recipe
(eval/training/pairs.jsonl) that touches one of its papers is dropped, so the baseline model has
never seen it, as the shipped model has never seen yours. Then, with the same steps and seed:

- baseline: the recipe without the library;
- fine-tuned: the same, plus the library's own groups (eval.train_library.library_groups: 80% of
  its papers; the other 20% are held out);

and both, with the shipped model for reference (it was trained on every bundled paper, so its
figure here is in sample), are scored on the held-out papers' groups (eval.train_library.figures).
The reader's candidate pools are left out of both (they hold dev questions about library papers).

    .venv/bin/python benchmarks/library_finetune.py [--steps 600] [--state /tmp/library-finetune]

Each model trains in its own state folder and a rerun resumes (``--minutes`` caps a run)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval.train_cross_encoder import train
from eval.train_library import LibraryGroups, figures, held_out, library_groups, training_file
from eval.training.corpus import bundled_papers
from rag.answer.cross_encoder import MANIFEST_FILE, MODEL_FILE, CrossEncoder
from rag.index.embedding import MiniLMOnnxEmbedder
from rag.settings import Settings

LIBRARY = 0.5  # share of the bundled papers that play "your library"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--minutes", type=float, default=12.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--state", type=Path, default=Path("/tmp/library-finetune"))
    args = parser.parse_args()
    papers = [p for p in bundled_papers() if held_out("library:" + p.id, LIBRARY)]
    vectors = MiniLMOnnxEmbedder(Settings().embedding).embed([p.text for p in papers])
    mine = library_groups(papers, vectors)
    unseen = frozenset(p.id for p in papers)  # the recipe keeps no group touching the library
    runs = {"baseline": LibraryGroups([], mine.held, unseen, mine.papers),
            "fine-tuned": LibraryGroups(mine.train, mine.held, unseen, mine.papers)}
    scored = {"shipped (in sample)": figures(CrossEncoder(threads=args.threads), mine.held)}
    for name, groups in runs.items():
        state = args.state / name
        pairs = training_file(groups, state / "pairs.jsonl")
        trained = train(pairs, state, state / "model", steps=args.steps, minutes=args.minutes,
                        threads=args.threads, command="benchmarks/library_finetune.py", log=lambda _: None)
        print(f"{name}: {trained['groups']} groups, {trained['steps']} steps, {trained['seconds']} s", flush=True)
        model = CrossEncoder(state / "model" / MODEL_FILE.name, state / "model" / MANIFEST_FILE.name,
                             threads=args.threads)
        scored[name] = figures(model, mine.held)
    print(f"library: {mine.papers} papers, {len(mine.held_papers)} held out; "
          f"{len(mine.train)} library groups trained on by the fine-tuned model")
    keys = list(scored["baseline"])
    print(f"{'':<34}" + "".join(f"{name:>21}" for name in scored) + f"{'groups':>8}")
    for key in keys:
        cells = "".join(f"{_cell(scored[name][key]['value']):>21}" for name in scored)
        print(f"{key.replace('_', ' '):<34}{cells}{scored['baseline'][key]['n']:>8}")
    (args.state / "figures.json").write_text(json.dumps(scored, indent=1) + "\n", encoding="utf-8")


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    main()
