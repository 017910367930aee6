"""Fine-tune the learned reader's cross-encoder and write rag/assets/cross_encoder.onnx (int8) with
its manifest (rag/assets/cross_encoder.json). Needs the ``train`` extra (torch==2.13.0,
transformers, the shipped MiniLM weights); answering never does.

    .venv/bin/python -m eval.train_cross_encoder [--minutes 8] [--steps 600] [--state DIR] [--out DIR]

Data: eval/training/pairs.jsonl (``python -m eval.training.build``), never the test split: its
groups were refused by content when built, and are checked again here. ``--hold-out-fold K
--folds N`` leaves out dev's K-th fold of questions (and any generated group overlapping them),
which is how the dev figures are measured (benchmarks/cross_encoder.py). Progress is printed;
a checkpoint is saved every ``--save-every`` steps in ``--state``, and a rerun with the same
settings resumes from it."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from eval.dataset import SPLITS, load
from eval.training.build import OUT as PAIRS
from eval.training.corpus import Guard
from eval.training.pools import OUT as POOLS
from rag.answer.cross_encoder import HEADS, INPUTS, MANIFEST_FILE, MAX_LENGTH, MODEL_FILE, pair_tokenizer, sha256_of
from rag.errors import RagError
from rag.settings import PROJECT_ROOT

CAPS = {"answers": 8, "absent": 4, "yes": 1, "qualifies": 4}  # texts kept per group, by head
SHARE = {"answers": 1.0, "absent": 0.5, "yes": 0.5, "qualifies": 1.0}  # of each head's groups an epoch
# "What does X do?" and name questions all point at the sentence introducing X: at full share they
# taught the answers head to pick that sentence whatever was asked (measured on dev; see the docs)
KIND_SHARE = {"describe": 0.15, "name": 0.3}
RERANK = 8  # the fitted reader's best candidates a pool group holds: what the cross-encoder reorders


def dev_folds(folds: int, seed: int = 7) -> list[set[str]]:
    ids = sorted(q.id for q in load(SPLITS["dev"]))
    random.Random(seed).shuffle(ids)
    return [set(ids[k::folds]) for k in range(folds)]


def pool_groups(path: Path, held_out: set[str], top: int = RERANK) -> list[dict]:
    """Ranking groups from the reader's own candidate pools (eval.training.pools): per part of a
    question, the fitted reader's ``top`` best candidates, labelled by whether each states a key
    fact; only parts whose top holds a fact and a sentence that does not."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["qid"] in held_out or r["type"] == "unanswerable":
            continue
        for part in r["parts"]:
            kept = part["candidates"][:top]
            labels = [c["label"] for c in kept]
            if 0 < sum(labels) < len(labels):
                out.append({"head": "answers", "kind": f"pool-{r['source']}", "qid": r["qid"],
                            "question": asked(r["question"], part["text"], len(r["parts"])),
                            "texts": [c["text"] for c in kept], "papers": [c["paper"] for c in kept],
                            "labels": labels})
    return out


def asked(question: str, part: str, parts: int) -> str:
    """What the cross-encoder reads as the question: the whole question, or the part of one in
    several parts (answering asks the same way: rag.answer.rerank)."""
    return question if parts == 1 else part


def load_groups(path: Path, held_out: set[str], seed: int, pools: Path | None = None) -> list[dict]:
    """The groups to train on: dev groups of held-out questions left out, and generated groups
    overlapping a held-out or test question refused (by the same guard as the builder). With
    ``pools``, dev's ranking groups come from the reader's candidate pools (its hard negatives)
    instead of pairs.jsonl's."""
    rng = random.Random(seed)
    guard = Guard([*Guard.test_split().questions, *(q for q in load(SPLITS["dev"]) if q.id in held_out)])
    out = pool_groups(pools, held_out) if pools is not None else []
    for line in path.read_text(encoding="utf-8").splitlines():
        g = json.loads(line)
        if g.get("qid") in held_out or (pools is not None and g["kind"] == "dev"):
            continue
        positives = [(p, t) for p, t, y in zip(g["papers"], g["texts"], g["labels"], strict=True) if y]
        if "qid" not in g and guard.refuses(g["question"], positives if g["head"] != "qualifies" else []):
            continue
        out.append(_trim(g, CAPS[g["head"]], rng))
    return out


def _trim(g: dict, cap: int, rng: random.Random) -> dict:
    idx = list(range(len(g["texts"])))
    pos = [i for i in idx if g["labels"][i]]
    neg = [i for i in idx if not g["labels"][i]]
    rng.shuffle(neg)
    keep = (pos[: max(1, cap // 3)] + neg)[:cap] if g["head"] in ("answers", "qualifies") else idx[:cap]
    return g | {"texts": [g["texts"][i] for i in keep], "labels": [g["labels"][i] for i in keep]}


def batches(groups: Sequence[dict], rng: random.Random, max_pairs: int,
            kind_share: dict[str, float] | None = None) -> Iterator[list[dict]]:
    """An endless stream of batches: each epoch a fresh sample of every head's groups."""
    by_head: dict[str, list[dict]] = {}
    for g in groups:
        by_head.setdefault(g["head"], []).append(g)
    while True:
        epoch = [g for head, gs in by_head.items() for g in rng.sample(gs, max(1, int(len(gs) * SHARE[head])))
                 if rng.random() < (kind_share or KIND_SHARE).get(g["kind"], 1.0)]
        rng.shuffle(epoch)
        batch: list[dict] = []
        for g in epoch:
            if batch and sum(len(b["texts"]) for b in batch) + len(g["texts"]) > max_pairs:
                yield batch
                batch = []
            batch.append(g)
        if batch:
            yield batch


def train(pairs: Path, state: Path, out: Path, *, steps: int, minutes: float,
          held_out: frozenset[str] | set[str] = frozenset(),
          seed: int = 13, lr: float = 4e-5, max_pairs: int = 24, save_every: int = 50, threads: int = 2,
          train_layers: int = 3, init_from: Path | None = None, command: str = "python -m eval.train_cross_encoder",
          pools: Path | None = None, kind_share: dict[str, float] | None = None,
          log=print, on_step: Callable[[int], None] | None = None, cap_each_run: bool = False,
          should_stop: Callable[[], bool] | None = None) -> dict[str, Any]:  # type: ignore[no-untyped-def,assignment]
    import torch

    from eval.training.model import BASE, export_onnx

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    settings = {"pairs_sha256": sha256_of(pairs), "pools_sha256": sha256_of(pools) if pools else None,
                "held_out": sorted(held_out), "seed": seed, "lr": lr,
                "max_pairs": max_pairs, "max_length": MAX_LENGTH, "train_layers": train_layers,
                "kind_share": kind_share or KIND_SHARE, "init_from": _init_note(init_from)}
    groups = load_groups(pairs, set(held_out), seed, pools)
    rng = random.Random(seed)
    net, optimiser = _model(train_layers, init_from, lr)
    done, spent = _resume(state, settings, net, optimiser, log)
    stream = batches(groups, rng, max_pairs, kind_share)
    for _ in range(done):  # the stream of batches resumes where it stopped
        next(stream)
    tokenizer = pair_tokenizer()
    net.train()
    started, running = time.monotonic() - spent, 0.0
    # the cap counts every run of this state together, or (``cap_each_run``) this run alone
    deadline = (time.monotonic() if cap_each_run else started) + minutes * 60
    step = done
    while step < steps and time.monotonic() < deadline:
        if should_stop is not None and should_stop():
            _save(state, settings, net, optimiser, step, time.monotonic() - started)
            raise Stopped(f"stopped at step {step} of {steps}; the checkpoint in {state} is kept: run the same "
                          "command again to go on from there.")
        loss = _step(net, optimiser, tokenizer, next(stream), lr * min(1.0, (step + 1) / 30) * (1 - step / steps))
        step += 1
        if on_step is not None:
            on_step(step)
        running = 0.9 * running + 0.1 * loss if step > 1 else loss
        if step % 10 == 0 or step == steps:
            log(f"step {step}/{steps}  loss {running:.3f}  {time.monotonic() - started:.0f} s")
        if step % save_every == 0:
            _save(state, settings, net, optimiser, step, time.monotonic() - started)
    _save(state, settings, net, optimiser, step, time.monotonic() - started)
    out.mkdir(parents=True, exist_ok=True)
    model = out / MODEL_FILE.name
    export_onnx(net, tokenizer, state / "cross_encoder.fp32.onnx", model)
    trained = {"base": BASE, "data": _shown(pairs), "data_sha256": settings["pairs_sha256"],
               "pools": _shown(pools) if pools else None, "pools_sha256": settings["pools_sha256"],
               "groups": len(groups),
               "groups_by_head": {h: sum(g["head"] == h for g in groups) for h in CAPS},
               "steps": step, "seconds": round(time.monotonic() - started), "lr": lr, "seed": seed,
               "held_out_dev_questions": len(held_out), "init_from": settings["init_from"],
               "commit": _commit(), "date": time.strftime("%Y-%m-%d"),
               "command": command}
    write_manifest(out / MANIFEST_FILE.name, model, trained)
    return trained


class Stopped(RagError):
    """Training was asked to stop (Ctrl-C); its checkpoint is saved."""


def _model(train_layers: int, init_from: Path | None, lr: float):  # type: ignore[no-untyped-def]
    """The network from the shipped weights (or another run's, ``init_from``) and its optimiser;
    the head learns 25 times faster than the encoder."""
    import torch

    from eval.training.model import CrossEncoderNet

    net = CrossEncoderNet.pretrained(train_layers)
    if init_from is not None:  # continue from another run's weights (a new run: its own optimiser and steps)
        net.load_state_dict(torch.load(init_from, weights_only=False)["model"])
    trainable = [p for p in net.encoder.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW([{"params": trainable, "lr": lr},
                                   {"params": net.heads.parameters(), "lr": lr * 25}], weight_decay=0.01)
    return net, optimiser


def _step(net, optimiser, tokenizer, batch: list[dict], lr: float) -> float:  # type: ignore[no-untyped-def]
    import torch

    from eval.training.model import batch_loss

    for i, group in enumerate(optimiser.param_groups):
        group["lr"] = lr if i == 0 else lr * 25
    loss = batch_loss(net, tokenizer, batch)
    optimiser.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    optimiser.step()
    return loss.item()


def write_manifest(path: Path, model: Path, trained: dict[str, Any]) -> None:
    data = {"file": model.name, "sha256": sha256_of(model), "inputs": list(INPUTS),
            "input_shapes": {k: ["batch", "length"] for k in INPUTS}, "output": "scores", "output_shape":
            ["batch", len(HEADS)], "heads": list(HEADS), "max_length": MAX_LENGTH, "trained": trained}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _save(state: Path, settings: dict, net, optimiser, step: int, spent: float) -> None:  # type: ignore[no-untyped-def]
    import torch

    state.mkdir(parents=True, exist_ok=True)
    partial = state / "checkpoint.pt.partial"
    torch.save({"settings": settings, "model": net.state_dict(), "optimiser": optimiser.state_dict(),
                "step": step, "spent": spent}, partial)
    partial.replace(state / "checkpoint.pt")


def _resume(state: Path, settings: dict, net, optimiser, log) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    import torch

    path = state / "checkpoint.pt"
    if not path.is_file():
        return 0, 0.0
    saved = torch.load(path, weights_only=False)
    if saved["settings"] != settings:
        log(f"{path} was made with other settings or data; starting afresh")
        return 0, 0.0
    net.load_state_dict(saved["model"])
    optimiser.load_state_dict(saved["optimiser"])
    log(f"resuming at step {saved['step']} from {path}")
    return int(saved["step"]), float(saved["spent"])


def _init_note(path: Path | None) -> dict | None:
    """What a run started from: another run's checkpoint (its settings and step), or None."""
    if path is None:
        return None
    import torch

    saved = torch.load(path, weights_only=False)
    return {"settings": saved["settings"], "step": saved["step"]}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _shown(path: Path) -> str:
    resolved = path.resolve()
    return str(resolved.relative_to(PROJECT_ROOT)) if resolved.is_relative_to(PROJECT_ROOT) else str(resolved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--pools", type=Path, default=POOLS if POOLS.is_file() else None,
                        help="the reader's candidate pools (python -m eval.training.pools) for dev's ranking groups")
    parser.add_argument("--state", type=Path, default=PROJECT_ROOT / ".rag-data" / "cross-encoder-train")
    parser.add_argument("--out", type=Path, default=MODEL_FILE.parent)
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--train-layers", type=int, default=3, help="top encoder layers to fine-tune (of 6)")
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--init-from", type=Path, help="start from this checkpoint's weights (a new run)")
    parser.add_argument("--kind-share", action="append", default=[], metavar="KIND=SHARE",
                        help=f"share of a kind's groups an epoch (default {KIND_SHARE}; repeat to set several)")
    parser.add_argument("--hold-out-fold", type=int, help="leave out this dev fold (0-based) and its overlaps")
    args = parser.parse_args()
    held = dev_folds(args.folds)[args.hold_out_fold] if args.hold_out_fold is not None else set()
    trained = train(args.pairs, args.state, args.out, steps=args.steps, minutes=args.minutes, held_out=held,
                    threads=args.threads, train_layers=args.train_layers, init_from=args.init_from, pools=args.pools,
                    kind_share=KIND_SHARE | {k: float(v) for k, v in (a.split("=") for a in args.kind_share)},
                    command=" ".join(["python -m eval.train_cross_encoder", *sys.argv[1:]]))
    print(json.dumps(trained, indent=1))


if __name__ == "__main__":
    main()
