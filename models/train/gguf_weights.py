"""A Qwen2 GGUF (the pulled Qwen2.5-Coder, or the derived file with its control rows) as a
torch model of model.py, for the fine-tune (control_finetune.py).

The tensors are read and dequantized with the `gguf` package (llama.cpp's own Python reader;
pip install gguf), so every quantized weight becomes exactly the float32 value llama.cpp
multiplies with. llama.cpp's qwen2 graph is model.py's llama graph with biases on q, k, v and
RoPE in NEOX mode, and the converter writes Qwen2's q/k weights unpermuted for that mode, so the
tensors map one to one (model.gguf_tensors names them).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from model import LlamaModel, ModelConfig, gguf_tensors


def _field(reader, key: str):
    field = reader.fields.get(key)
    if field is None:
        raise ValueError(f"the GGUF has no {key}")
    return field.contents()


def qwen2_config(reader, context_length: int) -> ModelConfig:
    """model.py's config from the GGUF's qwen2.* keys; `context_length` bounds the training sequences."""
    architecture = _field(reader, "general.architecture")
    if architecture != "qwen2":
        raise ValueError(f"expected a qwen2 GGUF, got {architecture}")
    embedding = next(t for t in reader.tensors if t.name == "token_embd.weight")
    return ModelConfig(
        vocab_size=int(embedding.shape[1]),
        d_model=int(_field(reader, "qwen2.embedding_length")),
        n_layers=int(_field(reader, "qwen2.block_count")),
        n_heads=int(_field(reader, "qwen2.attention.head_count")),
        n_kv_heads=int(_field(reader, "qwen2.attention.head_count_kv")),
        ff_dim=int(_field(reader, "qwen2.feed_forward_length")),
        context_length=context_length,
        rope_theta=float(_field(reader, "qwen2.rope.freq_base")),
        norm_eps=float(_field(reader, "qwen2.attention.layer_norm_rms_epsilon")),
        tie_embeddings=not any(t.name == "output.weight" for t in reader.tensors),
        attention_bias=True,
        rope_neox=True,
    )


def load_qwen2(path: Path, context_length: int = 4096) -> LlamaModel:
    """The GGUF at `path` as a float32 LlamaModel with every weight dequantized."""
    from gguf import GGUFReader
    from gguf.quants import dequantize

    reader = GGUFReader(str(path))
    config = qwen2_config(reader, context_length)
    model = LlamaModel(config)
    tensors = {t.name: t for t in reader.tensors}
    with torch.no_grad():
        for name, param in gguf_tensors(model):
            tensor = tensors.get(name)
            if tensor is None:
                raise ValueError(f"{path} has no {name}")
            values = np.array(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
            param.copy_(torch.from_numpy(values.reshape(param.shape)))
    return model
