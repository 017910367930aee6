"""Three questions answered through a real llama.cpp server running the local 1.5B model
(Qwen2.5-Coder-1.5B-Instruct, assembled from its PyPI part wheels): the answer comes from the
model (not a fallback), states the fact, and cites only papers it was given. The questions are
this file's own. About 30 s per answer on 2 idle cores; the model file is 1.1 GB."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow,
              pytest.mark.parametrize("llama_url", ["qwen"], indirect=True)]

QUESTIONS = [
    ("What does SupReMix use as hard negative pairs?", "000-0001", "anchor-inclusive"),
    ("By how much does the accuracy of ABSA models drop on the robustness test set?", "002-0039",
     "69.73%"),
    ("What does MuteSwap use to align identities across modalities?", "001-0141", "contrastive"),
]


@pytest.mark.parametrize("question, paper_id, fact", QUESTIONS, ids=["name", "number", "how"])
def test_the_local_model_answers_with_the_fact_and_valid_citations(real_index, llama_url, question,
                                                                   paper_id, fact):
    env = {**os.environ, "RAG_DATA_DIR": str(real_index.data_dir), "RAG_LLM__BASE_URL": llama_url,
           "RAG_LLM__MODEL": "qwen", "RAG_LLM__TIMEOUT": "900"}
    done = subprocess.run([sys.executable, "-m", "cli", "ask", "--json", question], env=env,
                          capture_output=True, text=True, timeout=1000)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["route"] == "llm" and result["generator"] == "llm:qwen", result["fallback_reason"]
    assert not result["abstained"], result
    assert fact.lower() in result["text"].lower(), result["text"]
    cited = {c["paper_id"] for c in result["citations"]}
    assert paper_id in cited and cited <= {r["paper_id"] for r in result["retrieved"]}
    assert result["removed_keys"] == 0 or "[" not in result["text"].split("]")[-1]
    assert all(s["supported"] for s in result["sentences"])
