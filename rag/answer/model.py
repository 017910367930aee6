"""The fitted reader's weights: logistic regressions (which sentence answers; whether the
evidence answers at all; which papers a list names) and the thresholds chosen with them, read
from one JSON file that ``rag train-reader`` writes. Loaded once at start; nothing here is edited by hand."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ConfigError

MODEL_FILE = Path(__file__).resolve().parent.parent / "assets" / "reader.json"


@dataclass(frozen=True)
class Logistic:
    """A standardised logistic regression: p = sigmoid(((x - mean) / scale) . coef + intercept)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def probability(self, rows: np.ndarray) -> np.ndarray:
        if rows.size == 0:
            return np.zeros(0)
        z = ((rows - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Logistic:
        return cls(tuple(data["features"]), np.array(data["mean"]), np.array(data["scale"]),
                   np.array(data["coef"]), float(data["intercept"]))

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.features), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(), "coef": self.coef.round(6).tolist(),
                "intercept": round(self.intercept, 6)}


@dataclass(frozen=True)
class ReaderModel:
    sentence: Logistic  # P(the sentence states a key fact of the part)
    answerable: Logistic  # P(the retrieved abstracts answer the question)
    thresholds: dict[str, float] = field(default_factory=dict)  # chosen on dev, see ``trained``
    trained: dict[str, Any] = field(default_factory=dict)  # data, date, cross-validated figures
    qualifies: Logistic | None = None  # P(a retrieved paper belongs in a list answer); None: not fitted

    def with_trained(self, trained: dict[str, Any]) -> ReaderModel:
        return replace(self, trained=trained)

    def threshold(self, name: str, default: float) -> float:
        return float(self.thresholds.get(name, default))

    @classmethod
    def blank(cls, sentence_features: tuple[str, ...], evidence_features: tuple[str, ...]) -> ReaderModel:
        """Weights of zero (every probability 0.5): what training starts from."""
        return cls(_zero(sentence_features), _zero(evidence_features))

    @classmethod
    def load(cls, path: Path = MODEL_FILE, expect: tuple[tuple[str, ...], ...] | None = None) -> ReaderModel:
        """The weights in ``path``. With ``expect`` (the code's sentence, evidence and, when
        given, paper feature names), a file whose names differ, or come in another order, is
        refused: its weights would be read against the wrong features."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            qualifies = Logistic.from_dict(data["qualifies"]) if "qualifies" in data else None
            model = cls(Logistic.from_dict(data["sentence"]), Logistic.from_dict(data["answerable"]),
                        {k: float(v) for k, v in data.get("thresholds", {}).items()}, data.get("trained", {}),
                        qualifies)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"the reader's weights ({path}) cannot be read ({exc}). Reinstall the "
                              "package, or run `rag train-reader` to write them again.") from None
        if expect is not None:
            stored_models = (("sentence", model.sentence), ("answerable", model.answerable),
                             ("qualifies", model.qualifies))  # None: no list questions to fit it on
            for (name, stored), code in zip(stored_models, expect, strict=False):
                if stored is None:
                    continue
                if stored.features != tuple(code) or not stored.coef.shape == stored.mean.shape == (len(code),):
                    raise ConfigError(
                        f"the reader's weights ({path}) were fitted on other {name} features than this "
                        f"code computes ({_difference(stored.features, tuple(code))}). Run `rag "
                        "train-reader` to fit them again, or reinstall the package.")
        return model

    def save(self, path: Path = MODEL_FILE) -> None:
        data = {"sentence": self.sentence.to_dict(), "answerable": self.answerable.to_dict(),
                **({"qualifies": self.qualifies.to_dict()} if self.qualifies is not None else {}),
                "thresholds": {k: round(v, 6) for k, v in self.thresholds.items()}, "trained": self.trained}
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _zero(names: tuple[str, ...]) -> Logistic:
    n = len(names)
    return Logistic(names, np.zeros(n), np.ones(n), np.zeros(n), 0.0)


def _difference(stored: tuple[str, ...], code: tuple[str, ...]) -> str:
    missing, extra = [f for f in code if f not in stored], [f for f in stored if f not in code]
    if missing or extra:
        return f"missing {missing[:3]}, unknown {extra[:3]}"
    first = next(i for i, (a, b) in enumerate(zip(stored, code, strict=True)) if a != b)
    return f"same names in another order, first at {first}: {stored[first]!r} where the code has {code[first]!r}"
