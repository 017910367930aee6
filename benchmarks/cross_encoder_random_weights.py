"""Do the cross-encoder's tests (tests/rag/answer/test_cross_encoder.py) need a trained model to
pass? Export networks with random weights through the same path (randomly initialised heads on the shipped
encoder, and a randomly initialised encoder too), run each check of the test file against them,
and print which checks fail. Every check should fail for every random model. Needs the ``train``
extra (torch).

    .venv/bin/python benchmarks/cross_encoder_random_weights.py [--seeds 3]"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch

from eval.train_cross_encoder import write_manifest
from eval.training.model import CrossEncoderNet, export_onnx
from rag.answer.cross_encoder import CrossEncoder, pair_tokenizer
from rag.settings import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT))
from tests.rag.answer.test_cross_encoder import (  # noqa: E402
    contrasts_say_no_to_the_rejected_side,
    near_misses_score_below_answered_questions,
    paraphrases_get_their_sentence,
)

CHECKS = (paraphrases_get_their_sentence, near_misses_score_below_answered_questions,
          contrasts_say_no_to_the_rejected_side)


def random_model(seed: int, whole: bool, folder: Path) -> CrossEncoder:
    torch.manual_seed(seed)
    net = CrossEncoderNet.pretrained()
    if whole:
        net.encoder.apply(net.encoder._init_weights)
    torch.nn.init.normal_(net.heads.weight, std=0.5)
    export_onnx(net, pair_tokenizer(), folder / "fp32.onnx", folder / "cross_encoder.onnx")
    write_manifest(folder / "cross_encoder.json", folder / "cross_encoder.onnx", {"random": seed})
    return CrossEncoder(folder / "cross_encoder.onnx", folder / "cross_encoder.json")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    for whole in (False, True):
        for seed in range(args.seeds):
            with tempfile.TemporaryDirectory() as tmp:
                model = random_model(seed, whole, Path(tmp))
                results = []
                for check in CHECKS:
                    try:
                        check(model)
                        results.append(f"{check.__name__}: PASSED (the check is too weak)")
                    except AssertionError:
                        results.append(f"{check.__name__}: fails")
            what = "random encoder and heads" if whole else "shipped encoder, random heads"
            print(f"{what}, seed {seed}: " + "; ".join(results), flush=True)


if __name__ == "__main__":
    main()
