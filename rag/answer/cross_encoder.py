"""The learned reader's model: a MiniLM cross-encoder (question and text read together) with one
small head per judgement, run on onnxruntime (int8), never torch. ``eval.train_cross_encoder``
fine-tunes it from the shipped all-MiniLM-L6-v2 weights and writes the ONNX file and its manifest
into rag/assets; loading checks the manifest against this code (input names, heads, maximum
length, the file's sha256) and refuses a mismatch.

Heads (each a probability per pair):
- ``answers``: this sentence answers the question (trained listwise: compare within a question);
- ``answerable``: this sentence holds what is asked (trained pointwise with near misses, so its
  maximum over the retrieved sentences says whether the abstracts answer at all);
- ``yes``: this sentence says yes to the (yes/no) question;
- ``qualifies``: this abstract meets the (list) question's criterion."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ConfigError
from rag.index.embedding import sha256_of

ASSETS = Path(__file__).resolve().parent.parent / "assets"
MODEL_FILE = ASSETS / "cross_encoder.onnx"
MANIFEST_FILE = ASSETS / "cross_encoder.json"
TOKENIZER_FILE = ASSETS / "minilm_tokenizer.json"
HEADS = ("answers", "answerable", "yes", "qualifies")
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
MAX_LENGTH = 160  # tokens of question + text; longer texts are cut at the end
BATCH = 16
COLLECTION_FOLDER = "cross-encoder"  # a collection's own model in its data dir (rag train-reader --cross-encoder)


def pair_tokenizer(max_length: int = MAX_LENGTH):  # type: ignore[no-untyped-def]
    """The stock MiniLM tokenizer, cutting the text (never the question) to fit ``max_length``."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
    tokenizer.enable_truncation(max_length=max_length, strategy="only_second")
    tokenizer.no_padding()
    return tokenizer


def encode(tokenizer, question: str, texts: Sequence[str]) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """The model's inputs for (question, text) pairs, padded to the longest pair."""
    return encode_pairs(tokenizer, [(question, t) for t in texts])


def encode_pairs(tokenizer, pairs: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    encodings = tokenizer.encode_batch(list(pairs))
    width = max((len(e.ids) for e in encodings), default=0)
    feeds = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in INPUTS}
    for i, e in enumerate(encodings):
        n = len(e.ids)
        feeds["input_ids"][i, :n] = e.ids
        feeds["attention_mask"][i, :n] = 1
        feeds["token_type_ids"][i, :n] = e.type_ids
    return feeds


@dataclass(frozen=True)
class Manifest:
    """What the training command wrote beside the model file, and what loading checks."""

    sha256: str
    inputs: tuple[str, ...]
    heads: tuple[str, ...]
    max_length: int
    trained: dict[str, Any]  # data sha256, commit, command, dev figures
    rerank: dict[str, Any] | None = None  # how answering reorders with it, fitted on dev (eval.fit_rerank)

    @classmethod
    def read(cls, path: Path) -> Manifest:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(data["sha256"]), tuple(data["inputs"]), tuple(data["heads"]), int(data["max_length"]),
                       dict(data.get("trained", {})), data.get("rerank"))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"the cross-encoder's manifest ({path}) cannot be read ({exc}). Reinstall the "
                              "package, or run `python -m eval.train_cross_encoder` to write it again.") from None

    def problems(self, model: Path, session_inputs: Sequence[str], outputs: int) -> list[str]:
        """Every way the manifest, the model file and this code disagree."""
        found = []
        if tuple(self.heads) != HEADS:
            found.append(f"heads {list(self.heads)} (the code reads {list(HEADS)})")
        if tuple(self.inputs) != INPUTS or tuple(session_inputs) != INPUTS:
            found.append(f"inputs {list(session_inputs)} / manifest {list(self.inputs)} "
                         f"(the code feeds {list(INPUTS)})")
        if self.max_length != MAX_LENGTH:
            found.append(f"max_length {self.max_length} (the code cuts pairs at {MAX_LENGTH})")
        if outputs != len(self.heads):
            found.append(f"the model gives {outputs} scores a pair, the manifest names {len(self.heads)} heads")
        digest = sha256_of(model)
        if digest != self.sha256:
            found.append(f"{model.name} has sha256 {digest[:12]}..., the manifest says {self.sha256[:12]}...")
        return found


class CrossEncoder:
    """Loaded once (an onnxruntime session), then asked for scores of pairs in batches."""

    def __init__(self, model: Path = MODEL_FILE, manifest: Path = MANIFEST_FILE, threads: int | None = None,
                 batch: int = BATCH) -> None:
        import onnxruntime as ort

        self.manifest = Manifest.read(manifest)
        if not model.is_file():
            raise ConfigError(f"the cross-encoder ({model}) is missing. Reinstall the package, or run "
                              "`python -m eval.train_cross_encoder` to train it.")
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        outputs = self.session.get_outputs()[0].shape[-1]
        problems = self.manifest.problems(model, [i.name for i in self.session.get_inputs()],
                                          outputs if isinstance(outputs, int) else -1)
        if problems:
            raise ConfigError(f"the cross-encoder ({model}) does not match this code: {'; '.join(problems)}. "
                              "Retrain it with `python -m eval.train_cross_encoder`, or reinstall the package.")
        self.tokenizer = pair_tokenizer(self.manifest.max_length)
        self.batch = batch

    def logits(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """One row per text, one column per head of HEADS: the raw scores (the ``answers`` head is
        trained listwise, so only its differences within a question mean anything)."""
        if not texts:
            return np.zeros((0, len(HEADS)))
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # like lengths pad least
        out = np.zeros((len(texts), len(HEADS)))
        for start in range(0, len(order), self.batch):
            chunk = order[start : start + self.batch]
            (logits,) = self.session.run(None, encode(self.tokenizer, question, [texts[i] for i in chunk]))
            out[chunk] = logits
        return out

    def probabilities(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """One row per text, one column per head of HEADS."""
        return 1.0 / (1.0 + np.exp(-np.clip(self.logits(question, texts), -30, 30)))

    def score(self, question: str, texts: Sequence[str], head: str = "answers") -> np.ndarray:
        if head not in HEADS:
            raise ValueError(f"unknown head {head!r}; the model has {', '.join(HEADS)}")
        return self.probabilities(question, texts)[:, HEADS.index(head)]

    def answers(self, question: str, sentences: Sequence[str]) -> np.ndarray:
        return self.score(question, sentences, "answers")

    def answerable(self, question: str, sentences: Sequence[str]) -> float:
        """How likely the best of these sentences holds what is asked (0 for none)."""
        return float(self.score(question, sentences, "answerable").max(initial=0.0))

    def says_yes(self, question: str, sentences: Sequence[str]) -> np.ndarray:
        return self.score(question, sentences, "yes")

    def qualifies(self, question: str, abstracts: Sequence[str]) -> np.ndarray:
        return self.score(question, abstracts, "qualifies")
