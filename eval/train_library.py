"""``rag train-reader --cross-encoder``: fine-tune the cross-encoder on a collection's own abstracts.

1. **Questions from the collection.** Every abstract gets the template groups the shipped model
   was trained on (eval.training.build: "What does X do?", a figure for a measure, near misses
   that the abstract does not answer, yes/no pairs from contrasts and claims, topic lists); with
   ``llm_minutes``, the local model (Qwen2.5-Coder, in process through llama.cpp) also writes
   paraphrase questions for its sentences (eval.training.llm_questions: resumable, filtered).
2. **A held-out share of papers** (by a hash of their id, so the same papers every run): their
   groups are never trained on (nor are the shipped recipe's groups about them) and give the
   figures, for the shipped model and the new one on the same groups.
3. **Fine-tuning** from the shipped MiniLM weights on the shipped recipe's data
   (eval/training/pairs.jsonl and pools.jsonl) plus the collection's groups, by
   eval.train_cross_encoder.train: a checkpoint every 50 steps in ``<data dir>/cross-encoder-tuning``
   that a rerun resumes, and a time cap; the ONNX int8 export and its manifest go beside it.
   When the new model puts the held-out papers' answering sentence first at least as often as
   the shipped one (or when asked to keep it), it is installed in ``<data dir>/cross-encoder``
   and answering in that collection reads with it from then on
   (rag.stages.read.cross_encoder_folder) unless RAG_ANSWER__CROSS_ENCODER_DIR names another.
   On the bundled corpus the shipped model was trained on every paper, held-out ones included,
   so there its figure is in sample and a new model is rarely installed.
4. **Reordering** (how many of the reader's best sentences, at what weight) is carried over from
   the shipped model's manifest and marked so: it was fitted on dev, and a collection of one's own
   has no labelled questions to fit it on.

Needs the ``train`` extra (torch==2.13.0); answering with the result does not."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from eval.training.build import OUT as PAIRS
from eval.training.build import Builder, from_llm, from_templates, topics
from eval.training.pools import OUT as POOLS
from rag.answer.cross_encoder import COLLECTION_FOLDER, HEADS, MANIFEST_FILE, MODEL_FILE
from rag.answer.rerank import PairScorer
from rag.errors import InputError
from rag.types import Paper

STATE_FOLDER = "cross-encoder-tuning"  # not eval.train_cross_encoder's default state, which is the demo's
HELD_OUT = 0.2  # share of papers whose groups are only measured on
MAX_HELD_GROUPS = 600  # held-out groups scored (a fixed sample beyond it)
RANKING = ("answers", "absent", "yes")  # heads whose groups are about one paper (papers[0])


def held_out(paper_id: str, share: float = HELD_OUT) -> bool:
    return int(hashlib.sha256(paper_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < share


@dataclass(frozen=True)
class LibraryGroups:
    """A collection's groups: the ones to train on and the held-out ones to measure on."""

    train: list[dict]
    held: list[dict]
    held_papers: frozenset[str]
    papers: int

    def counts(self) -> dict[str, Any]:
        return {"papers": self.papers, "held_out_papers": len(self.held_papers),
                "train_groups": dict(sorted(Counter(f"{g['head']}/{g['kind']}" for g in self.train).items())),
                "held_out_groups": dict(sorted(Counter(f"{g['head']}/{g['kind']}" for g in self.held).items()))}


def library_groups(papers: Sequence[Paper], vectors: np.ndarray, llm_file: Path | None = None,
                   share: float = HELD_OUT) -> LibraryGroups:
    """Template (and local-model) groups for a collection, split by paper: a held-out paper's
    groups are measured on, never trained on; the training groups' negatives come from the
    training papers alone."""
    if len(papers) < 2:
        raise InputError(f"the collection has {len(papers)} paper(s) with an abstract; fine-tuning needs at "
                         "least 2 (some to train on, some to measure on). Ingest more with `rag ingest`.")
    held = {p.id for p in papers if held_out(p.id, share)} or {min(p.id for p in papers)}
    if len(held) == len(papers):
        held.discard(min(held))
    keep = [i for i, p in enumerate(papers) if p.id not in held]
    trainer = Builder([papers[i] for i in keep], vectors[keep])
    train = [g for g in [*from_templates(trainer), *from_llm(trainer, llm_file), *topics(trainer)] if _usable(g)]
    measurer = Builder(papers, vectors)
    mine = [p for p in papers if p.id in held]
    measured = [g for g in [*from_templates(measurer, mine), *from_llm(measurer, llm_file)]
                if _usable(g) and g["papers"][0] in held and g["head"] in RANKING]
    if len(measured) > MAX_HELD_GROUPS:
        measured = random.Random(3).sample(measured, MAX_HELD_GROUPS)
    return LibraryGroups(train, measured, frozenset(held), len(papers))


def _usable(g: dict | None) -> TypeGuard[dict]:
    return bool(g and g["texts"] and len(g["texts"]) == len(g["labels"]))


def training_file(groups: LibraryGroups, path: Path, recipe: Path = PAIRS) -> Path:
    """The shipped recipe's groups (none about a held-out paper) and the collection's, in one file:
    the same content gives the same file, so a rerun resumes from the checkpoint."""
    shipped = [json.loads(line) for line in recipe.read_text(encoding="utf-8").splitlines()] if recipe.is_file() else []
    kept = [g for g in shipped if not set(g["papers"]) & groups.held_papers]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in [*kept, *groups.train]),
                    encoding="utf-8")
    return path


def local_questions(papers: Sequence[Paper], state: Path, minutes: float, threads: int,
                    log: Callable[[str], None] = print, model: str = "qwen") -> Path | None:
    """The local model's paraphrase questions for the collection's sentences, appended to
    ``state/llm_questions.jsonl`` for at most ``minutes`` (a rerun goes on where it stopped);
    None when the local model cannot run here (the ``local-llm`` extra is not installed)."""
    from eval.training.llm_questions import generate

    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        log("the local model does not run here (install the local-llm extra: scripts/setup local-llm); "
            "training on template questions alone")
        return None
    path = state / "llm_questions.jsonl"
    state.mkdir(parents=True, exist_ok=True)
    counts = generate(path, minutes, None, threads, papers=papers, model=model)
    log(f"the local model wrote {counts['written']} questions ({counts['kept']} kept) into {path}")
    return path


def figures(encoder: PairScorer, groups: Sequence[dict]) -> dict[str, Any]:
    """On held-out groups: the answering sentence first (``answers`` head, what answering reads),
    near misses judged unanswerable and answered ones answerable (``answerable`` head), the
    yes/no verdict (``yes`` head)."""
    first, answered, declined, verdicts = [], [], [], []
    for g in groups:
        logits = encoder.logits(g["question"], g["texts"])
        answerable = 1 / (1 + np.exp(-logits[:, HEADS.index("answerable")]))
        if g["head"] == "answers":
            first.append(bool(g["labels"][int(np.argmax(logits[:, HEADS.index("answers")]))]))
            answered.append(bool(answerable.max() >= 0.5))
        elif g["head"] == "absent":
            declined.append(bool(answerable.max() < 0.5))
        else:
            verdicts.append(bool((logits[0, HEADS.index("yes")] > 0) == bool(g["labels"][0])))
    return {"answering_sentence_first": _share(first), "answerable_judged_answerable": _share(answered),
            "near_misses_judged_unanswerable": _share(declined), "yes_no_verdict": _share(verdicts)}


def _share(hits: Sequence[bool]) -> dict[str, Any]:
    return {"value": round(float(np.mean(hits)), 3) if hits else None, "n": len(hits)}


def finetune(papers: Sequence[Paper], vectors: np.ndarray, data_dir: Path, *, collection: str,
             steps: int = 1300, minutes: float = 25.0, threads: int = 2, llm_file: Path | None = None,
             pools: Path | None = POOLS, keep: bool = False, log: Callable[[str], None] = print,
             on_step: Callable[[int], None] | None = None, should_stop: Callable[[], bool] | None = None,
             command: str = "rag train-reader --cross-encoder") -> dict[str, Any]:
    """Build the collection's groups, fine-tune (resuming a stopped run), export to
    ``<state>/model`` and measure the held-out groups with the shipped model and the new one. The
    new one is installed in ``<data_dir>/cross-encoder`` (where answering looks) when it puts the
    answering sentence first at least as often as the shipped one, or with ``keep``. Returns what
    the manifest's ``library`` entry holds."""
    from eval.train_cross_encoder import train
    from rag.answer.cross_encoder import CrossEncoder

    started = time.monotonic()
    groups = library_groups(papers, vectors, llm_file)
    if not groups.train:
        raise InputError(f"no training question could be made from the {groups.papers} abstracts of collection "
                         f"{collection!r}: the templates read English abstracts (\"we propose X\", a figure beside "
                         "a measure word, \"A rather than B\"). Answering keeps the shipped model; the local model "
                         "(--llm-minutes 30, with the local-llm extra) may write questions where the templates cannot.")
    log(f"{len(groups.train)} training groups from {groups.papers - len(groups.held_papers)} papers; "
        f"{len(groups.held)} held-out groups from {len(groups.held_papers)} papers")
    state = data_dir / STATE_FOLDER
    out = state / "model"
    pairs = training_file(groups, state / "pairs.jsonl")
    trained = train(pairs, state, out, steps=steps, minutes=minutes, threads=threads, command=command,
                    pools=pools if pools is not None and pools.is_file() else None, log=log, on_step=on_step,
                    cap_each_run=True, should_stop=should_stop)
    tuned = CrossEncoder(out / MODEL_FILE.name, out / MANIFEST_FILE.name, threads=threads)
    shipped = CrossEncoder(threads=threads)
    measured = {"shipped": figures(shipped, groups.held), "tuned": figures(tuned, groups.held)}
    compared, better = decide(measured)
    library = {"collection": collection, **groups.counts(), "held_out_figures": measured,
               "llm_questions": str(llm_file) if llm_file is not None and llm_file.is_file() else None,
               "compared": compared, "installed": better or keep, "model": str(out),
               "seconds": round(time.monotonic() - started)}
    manifest = json.loads((out / MANIFEST_FILE.name).read_text(encoding="utf-8"))
    if shipped.manifest.rerank:
        fitted = shipped.manifest.rerank
        manifest["rerank"] = {"k": fitted["k"], "weight": fitted["weight"],
                              "carried_over_from": "the shipped model (rag/assets/cross_encoder.json): fitted "
                                                   "on dev, which a collection of one's own lacks"}
    manifest["trained"] = trained
    manifest["library"] = library
    (out / MANIFEST_FILE.name).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    if library["installed"]:
        install(out, data_dir / COLLECTION_FOLDER)
    return library


def decide(measured: dict[str, dict[str, Any]]) -> tuple[bool, bool]:
    """(were the two models compared at all, does the new one put the answering sentence first
    at least as often as the shipped one): a model is installed on evidence, never on none."""
    compared = measured["tuned"]["answering_sentence_first"]["n"] > 0
    return compared, compared and _first(measured["tuned"]) >= _first(measured["shipped"])


def _first(found: dict[str, Any]) -> float:
    value = found["answering_sentence_first"]["value"]
    return -1.0 if value is None else float(value)


def install(model: Path, target: Path) -> None:
    """Copy the model folder to ``target`` whole: beside it first, then renamed over it, so a
    reader never finds half a model."""
    fresh = target.with_name(target.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    for name in (MODEL_FILE.name, MANIFEST_FILE.name):
        shutil.copy2(model / name, fresh / name)
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)
