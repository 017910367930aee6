"""The reader's weights are refused when they do not fit the code: a reordered, missing or extra
feature name would read every weight against the wrong feature."""

from __future__ import annotations

import json

import pytest

from rag.answer.features import FEATURES
from rag.answer.model import MODEL_FILE
from rag.answer.reader import EVIDENCE, load_model
from rag.errors import ConfigError


def test_the_shipped_weights_fit_the_code():
    model = load_model()
    assert model.sentence.features == FEATURES and model.answerable.features == EVIDENCE


@pytest.mark.parametrize("change", ["swap", "drop", "rename"])
def test_weights_fitted_on_other_features_are_refused(tmp_path, change):
    data = json.loads(MODEL_FILE.read_text())
    names = data["sentence"]["features"]
    if change == "swap":
        names[0], names[1] = names[1], names[0]
    elif change == "drop":
        for key in ("features", "mean", "scale", "coef"):
            data["sentence"][key] = data["sentence"][key][:-1]
    else:
        names[3] = "a_feature_the_code_does_not_compute"
    path = tmp_path / "reader.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="other sentence features than this code computes"):
        load_model(path)
