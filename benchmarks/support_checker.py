"""How well does the support checker tell a claim its cited abstract supports from one it does not?
Scores the hand-labelled pairs in eval/datasets/support_pairs.jsonl (seven kinds: verbatim and
paraphrase are supported; number_changed, entity_swapped, negated, overreach and unrelated are
not) with each checker, chooses each checker's threshold on the DEV split only, and prints dev and
test side by side at that threshold. `--only blind` scores only the 260 pairs written apart from
the checker's tuning (sp2-*), `--only tuned` the 208 it was tuned with.

    .venv/bin/python benchmarks/support_checker.py                      # builds a temporary index
    .venv/bin/python benchmarks/support_checker.py --data-dir .rag-data # reuses an index
    .venv/bin/python benchmarks/support_checker.py --splits dev --errors # while tuning: dev only
    .venv/bin/python benchmarks/support_checker.py --fit     # also refit the aligned checker's weights on dev

Columns, per split. For a kind of unsupported claim, R is the share of its pairs flagged unsupported
(caught) and P is the precision of "unsupported" on that kind mixed with the split's supported
pairs: caught / (caught + supported pairs wrongly flagged). For verbatim and paraphrase, R is the
share accepted and P the precision of "supported" on that kind mixed with the split's unsupported
pairs. The two "all" rows are plain precision and recall of each decision over the whole split.
AUC (threshold-free) is the chance that a supported pair outscores an unsupported one."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import indexed_settings  # noqa: E402
from rag.answer.support import (  # noqa: E402
    AlignedSupportScorer,
    PlainOverlapScorer,
    SupportScorer,
    combine,
)
from rag.index.embedding import CachedEmbedder  # noqa: E402
from rag.index.library import Library, open_library  # noqa: E402
from rag.settings import PROJECT_ROOT, SupportSettings  # noqa: E402

PAIRS = PROJECT_ROOT / "eval" / "datasets" / "support_pairs.jsonl"
BASELINE_THRESHOLD = 0.5  # what the old checker shipped with
SUPPORTED = ("verbatim", "paraphrase")
UNSUPPORTED = ("number_changed", "entity_swapped", "negated", "overreach", "unrelated")
CHECKERS: dict[str, Callable[[Library], SupportScorer]] = {
    "baseline": PlainOverlapScorer,
    "aligned": AlignedSupportScorer,
}


# What --fit tries for the aligned checker's weights (SupportSettings), on dev only.
GRID: dict[str, tuple[float, ...]] = {
    "similarity": (0.3, 0.5, 0.7),
    "number": (0.3, 0.5, 0.7),
    "name": (0.3, 0.5, 0.7),
    "negation": (0.3, 0.5, 0.7),
    "overreach": (0.3, 0.5, 0.7),
}


@dataclass(frozen=True)
class Pair:
    id: str
    paper_id: str
    sentence: str
    kind: str
    supported: bool
    split: str


@dataclass(frozen=True)
class Scored:
    pair: Pair
    score: float


def load_pairs(path: Path) -> list[Pair]:
    return [Pair(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def score_pairs(scorer: SupportScorer, lib: Library, pairs: Sequence[Pair]) -> list[Scored]:
    papers = lib.catalog.get_many({p.paper_id for p in pairs})
    missing = sorted({p.paper_id for p in pairs} - set(papers))
    if missing:
        raise SystemExit(f"papers not in the index: {missing}. Rebuild it or drop --data-dir.")
    return [Scored(p, scorer.score(p.sentence, [papers[p.paper_id]])) for p in pairs]


def fit_weights(lib: Library, pairs: Sequence[Pair]) -> SupportSettings:
    """The grid point with the best dev balanced accuracy (at its own dev threshold); ties go to
    the better dev AUC, then to the point nearest the current defaults."""
    dev = [p for p in pairs if p.split == "dev"]
    scorer = AlignedSupportScorer(lib)
    papers = lib.catalog.get_many({p.paper_id for p in dev})
    verdicts = [scorer.verdict(p.sentence, [papers[p.paper_id]]) for p in dev]
    default = SupportSettings().model_dump()

    def key(weights: SupportSettings) -> tuple[float, float, float]:
        scored = [Scored(p, combine(v, weights)) for p, v in zip(dev, verdicts, strict=True)]
        distance = sum(abs(getattr(weights, k) - default[k]) for k in GRID)
        return (round(balanced_accuracy(scored, choose_threshold(scored)), 4), round(auc(scored), 4),
                -distance)

    grid = (SupportSettings(**dict(zip(GRID, values, strict=True)))
            for values in itertools.product(*GRID.values()))
    return max(grid, key=key)


def balanced_accuracy(scored: Sequence[Scored], threshold: float) -> float:
    pos = [s.score >= threshold for s in scored if s.pair.supported]
    neg = [s.score < threshold for s in scored if not s.pair.supported]
    return (sum(pos) / max(1, len(pos)) + sum(neg) / max(1, len(neg))) / 2


def choose_threshold(dev: Sequence[Scored]) -> float:
    """The cut with the best balanced accuracy on dev; among equals, the lowest (keeps most)."""
    cuts = sorted({round(s.score, 4) for s in dev} | {0.0, 1.0})
    candidates = [(a + b) / 2 for a, b in zip(cuts, cuts[1:], strict=False)] or [0.5]
    return round(max(candidates, key=lambda t: (balanced_accuracy(dev, t), -t)), 4)


def auc(scored: Sequence[Scored]) -> float:
    pos = [s.score for s in scored if s.pair.supported]
    neg = [s.score for s in scored if not s.pair.supported]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / max(1, len(pos) * len(neg))


def _ratio(a: int, b: int) -> str:
    return f"{a / b:5.2f}" if b else "    -"


def kind_row(scored: Sequence[Scored], kind: str, threshold: float) -> tuple[str, str, int]:
    """(P, R, n) for one kind, as the module docstring defines them."""
    mine = [s for s in scored if s.pair.kind == kind]
    supported = kind in SUPPORTED
    right = sum((s.score >= threshold) == supported for s in mine)
    others = sum((s.score >= threshold) == supported for s in scored if s.pair.supported != supported)
    return _ratio(right, right + others), _ratio(right, len(mine)), len(mine)


def all_row(scored: Sequence[Scored], supported: bool, threshold: float) -> tuple[str, str, int]:
    said = [s for s in scored if (s.score >= threshold) == supported]
    truth = [s for s in scored if s.pair.supported == supported]
    right = sum(s.pair.supported == supported for s in said)
    return _ratio(right, len(said)), _ratio(right, len(truth)), len(truth)


def report(name: str, scored: Sequence[Scored], threshold: float, splits: Sequence[str],
           note: str) -> list[str]:
    by_split = {sp: [s for s in scored if s.pair.split == sp] for sp in splits}
    head = f"{'':24}" + "".join(f"| {sp:^17} " for sp in splits)
    sub = f"{'kind':24}" + "".join(f"| {'P':>5} {'R':>5} {'n':>4}  " for _ in splits)
    lines = [f"== {name}: threshold {threshold:.4f} ({note})", head, sub]
    rows: list[tuple[str, Callable[[Sequence[Scored]], tuple[str, str, int]]]] = [
        *((f"{k} (accepted)", lambda s, k=k: kind_row(s, k, threshold)) for k in SUPPORTED),
        *((f"{k} (caught)", lambda s, k=k: kind_row(s, k, threshold)) for k in UNSUPPORTED),
        ("all: supported", lambda s: all_row(s, True, threshold)),
        ("all: unsupported", lambda s: all_row(s, False, threshold)),
    ]
    for label, fn in rows:
        cells = (fn(by_split[sp]) for sp in splits)
        lines.append(f"{label:24}" + "".join(f"| {p} {r} {n:>4}  " for p, r, n in cells))
    lines.append(f"{'balanced accuracy':24}" + "".join(
        f"| {balanced_accuracy(by_split[sp], threshold):11.2f}       " for sp in splits))
    lines.append(f"{'AUC':24}" + "".join(f"| {auc(by_split[sp]):11.2f}       " for sp in splits))
    return lines


def errors(scored: Sequence[Scored], threshold: float, split: str) -> list[str]:
    wrong = [s for s in scored if s.pair.split == split and (s.score >= threshold) != s.pair.supported]
    return [f"  {s.score:.3f} {s.pair.kind:15} {s.pair.id} {s.pair.paper_id}: {s.pair.sentence}"
            for s in sorted(wrong, key=lambda s: (s.pair.kind, s.score))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, help="an existing index of the bundled corpus")
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--checkers", default=",".join(CHECKERS), help=f"from {', '.join(CHECKERS)}")
    parser.add_argument("--splits", default="dev,test", help="dev,test or dev (while tuning)")
    parser.add_argument("--errors", action="store_true", help="list the DEV pairs each checker gets wrong")
    parser.add_argument("--fit", action="store_true", help="refit the aligned checker's weights on dev")
    parser.add_argument("--only", choices=("blind", "tuned"), default=None,
                        help="blind: the pairs written apart from the tuning (sp2-*); tuned: the others")
    args = parser.parse_args()
    pairs = load_pairs(args.pairs)
    if args.only:
        pairs = [p for p in pairs if p.id.startswith("sp2-") == (args.only == "blind")]
    splits = [s for s in args.splits.split(",") if s]
    with indexed_settings(args.data_dir) as settings:
        lib = open_library(settings)
        lib.embedder = CachedEmbedder(lib.embedder)
        configured = settings.answer.support_threshold
        checkers = {name: CHECKERS[name] for name in args.checkers.split(",")}
        if args.fit:
            weights = fit_weights(lib, pairs)
            print(f"weights fitted on dev: {weights} (defaults: {SupportSettings()})")
            checkers["aligned, refitted"] = lambda lib: AlignedSupportScorer(lib, weights)
        try:
            for name, build in checkers.items():
                scored = score_pairs(build(lib), lib, pairs)
                dev = [s for s in scored if s.pair.split == "dev"]
                threshold = choose_threshold(dev)
                print("\n".join(report(name, scored, threshold, splits, "chosen on dev")))
                shipped = BASELINE_THRESHOLD if name == "baseline" else configured
                if abs(threshold - shipped) > 1e-3:
                    print("\n".join(report(name, scored, shipped, splits, "as shipped")))
                if args.errors:
                    print(f"-- {name}: dev pairs decided wrongly")
                    print("\n".join(errors(scored, threshold, "dev")))
                print()
        finally:
            lib.close()


if __name__ == "__main__":
    main()
