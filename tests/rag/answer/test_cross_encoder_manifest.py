"""Loading the cross-encoder checks its manifest against the code and the file, and refuses a
mismatch with a message that says what differs and what to do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rag.answer.cross_encoder import MANIFEST_FILE, MODEL_FILE, CrossEncoder
from rag.errors import ConfigError


def _copy(tmp_path: Path, **changes: object) -> tuple[Path, Path]:
    model, manifest = tmp_path / MODEL_FILE.name, tmp_path / MANIFEST_FILE.name
    shutil.copy(MODEL_FILE, model)
    data = json.loads(MANIFEST_FILE.read_text(encoding="utf-8")) | changes
    manifest.write_text(json.dumps(data), encoding="utf-8")
    return model, manifest


def test_the_shipped_manifest_matches_the_shipped_model(tmp_path):
    model, manifest = _copy(tmp_path)
    assert CrossEncoder(model, manifest).manifest.heads == ("answers", "answerable", "yes", "qualifies")


@pytest.mark.parametrize(("changes", "said"), [
    ({"heads": ["answers", "answerable", "qualifies", "yes"]}, "heads"),
    ({"max_length": 512}, "max_length 512"),
    ({"inputs": ["input_ids", "attention_mask"]}, "inputs"),
    ({"sha256": "0" * 64}, "sha256"),
])
def test_a_manifest_that_disagrees_with_the_code_or_the_file_is_refused(tmp_path, changes, said):
    model, manifest = _copy(tmp_path, **changes)
    with pytest.raises(ConfigError, match=said) as caught:
        CrossEncoder(model, manifest)
    assert "Retrain it" in str(caught.value)


def test_a_missing_or_unreadable_manifest_is_refused_with_what_to_do(tmp_path):
    model, manifest = _copy(tmp_path)
    manifest.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot be read"):
        CrossEncoder(model, manifest)
    with pytest.raises(ConfigError, match="is missing"):
        CrossEncoder(tmp_path / "absent.onnx", MANIFEST_FILE)
