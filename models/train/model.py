"""A llama-architecture decoder that llama.cpp runs as `general.architecture = llama`.

Every numerical choice here mirrors llama.cpp's LLAMA graph (src/models/llama.cpp), so the
exported GGUF computes the same logits (checked by models/export/parity.test.ts):

- RMSNorm: x * rsqrt(mean(x^2) + eps) * w, computed in float32.
- RoPE in llama.cpp's "normal" mode (LLAMA_ROPE_TYPE_NORM): ADJACENT pairs (x[2i], x[2i+1])
  are rotated by pos * theta^(-2i/head_dim). Hugging Face llama rotates halves instead, which is
  why convert_hf_to_gguf permutes q/k; we train in llama.cpp's convention and export as is.
- Grouped-query attention: query head h reads kv head h // (n_heads / n_kv_heads), as ggml's
  broadcasting matmul does.
- Attention scale 1/sqrt(head_dim), causal; SwiGLU MLP down(silu(gate(x)) * up(x)).
- Final RMSNorm, then the output head (tied to the token embedding when `tie_embeddings`).

torch 1.13 has no scaled_dot_product_attention, so attention is written out.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Iterator

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelConfig:
    """Hyperparameters; each maps to one `llama.*` GGUF key (see models/export/exportGguf.ts)."""

    vocab_size: int
    d_model: int = 256
    n_layers: int = 6
    n_heads: int = 4
    n_kv_heads: int = 0  # 0 means n_heads (no grouped-query attention)
    ff_dim: int = 704
    context_length: int = 1024
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    tie_embeddings: bool = True
    # Qwen2 (llama.cpp's qwen2 graph): biases on q, k, v, and RoPE in NEOX mode (halves rotated).
    attention_bias: bool = False
    rope_neox: bool = False

    def __post_init__(self) -> None:
        if self.n_kv_heads == 0:
            self.n_kv_heads = self.n_heads
        if self.d_model % self.n_heads != 0:
            raise ValueError(f"d_model {self.d_model} is not divisible by n_heads {self.n_heads}")
        if self.n_heads % self.n_kv_heads != 0:
            raise ValueError(f"n_heads {self.n_heads} is not divisible by n_kv_heads {self.n_kv_heads}")
        if self.head_dim % 2 != 0:
            raise ValueError("head_dim must be even for RoPE")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @staticmethod
    def from_dict(values: dict) -> "ModelConfig":
        known = {f.name for f in dataclasses.fields(ModelConfig)}
        return ModelConfig(**{k: v for k, v in values.items() if k in known})


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # float32 like ggml_rms_norm; under bf16 autocast the input may be bf16.
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return (normed * self.weight.float()).to(x.dtype)


def rope_tables(head_dim: int, length: int, theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin of shape [length, head_dim // 2] for llama.cpp's normal-mode RoPE."""
    inv_freq = theta ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * inv_freq[None, :]
    return torch.cos(angles).float(), torch.sin(angles).float()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, neox: bool = False) -> torch.Tensor:
    """Rotate adjacent pairs of x [B, T, H, D] (llama.cpp LLAMA_ROPE_TYPE_NORM), or with `neox`
    the pairs (x[i], x[i + D/2]) (LLAMA_ROPE_TYPE_NEOX, Qwen2's)."""
    b, t, h, d = x.shape
    if neox:
        x0, x1 = x.float().split(d // 2, dim=-1)
        c = cos[:t][None, :, None, :]
        s = sin[:t][None, :, None, :]
        return torch.cat((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).to(x.dtype)
    pairs = x.float().reshape(b, t, h, d // 2, 2)
    x0, x1 = pairs[..., 0], pairs[..., 1]
    c = cos[:t][None, :, None, :]
    s = sin[:t][None, :, None, :]
    rotated = torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1)
    return rotated.reshape(b, t, h, d).to(x.dtype)


class Attention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.n_heads = config.n_heads
        self.n_kv_heads = config.n_kv_heads
        self.head_dim = config.head_dim
        self.neox = config.rope_neox
        kv_dim = config.n_kv_heads * config.head_dim
        self.wq = nn.Linear(config.d_model, config.d_model, bias=config.attention_bias)
        self.wk = nn.Linear(config.d_model, kv_dim, bias=config.attention_bias)
        self.wv = nn.Linear(config.d_model, kv_dim, bias=config.attention_bias)
        self.wo = nn.Linear(config.d_model, config.d_model, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q = apply_rope(self.wq(x).view(b, t, self.n_heads, self.head_dim), cos, sin, self.neox)
        k = apply_rope(self.wk(x).view(b, t, self.n_kv_heads, self.head_dim), cos, sin, self.neox)
        v = self.wv(x).view(b, t, self.n_kv_heads, self.head_dim)
        group = self.n_heads // self.n_kv_heads
        if group > 1:
            k = k.repeat_interleave(group, dim=2)
            v = v.repeat_interleave(group, dim=2)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))  # [B, H, T, D]
        if mask.dim() == 2 and hasattr(F, "scaled_dot_product_attention"):
            # Plain causal attention: torch 2's fused kernel, same math, no T x T scores kept for backward.
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, -1)
            return self.wo(out)
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.head_dim))
        weights = torch.softmax(scores.float() + mask, dim=-1).to(v.dtype)
        out = torch.matmul(weights, v).transpose(1, 2).reshape(b, t, -1)
        return self.wo(out)


class FeedForward(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.w_gate = nn.Linear(config.d_model, config.ff_dim, bias=False)
        self.w_up = nn.Linear(config.d_model, config.ff_dim, bias=False)
        self.w_down = nn.Linear(config.ff_dim, config.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))


class Block(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(config.d_model, config.norm_eps)
        self.attn = Attention(config)
        self.ffn_norm = RMSNorm(config.d_model, config.norm_eps)
        self.ffn = FeedForward(config)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), cos, sin, mask)
        return x + self.ffn(self.ffn_norm(x))


class LlamaModel(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.d_model)
        self.layers = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.norm = RMSNorm(config.d_model, config.norm_eps)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        if config.tie_embeddings:
            self.lm_head.weight = self.tok_emb.weight
        cos, sin = rope_tables(config.head_dim, config.context_length, config.rope_theta)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        causal = torch.full((config.context_length, config.context_length), float("-inf")).triu(1)
        self.register_buffer("causal_mask", causal, persistent=False)
        self.reset_parameters()

    def reset_parameters(self, std: float = 0.02) -> None:
        """GPT-2 style init: N(0, std), residual output projections scaled by 1/sqrt(2 * layers)."""
        residual_std = std / math.sqrt(2 * self.config.n_layers)
        for name, param in self.named_parameters():
            if name.endswith("norm.weight"):
                nn.init.ones_(param)
            elif name.endswith(".bias"):
                nn.init.zeros_(param)
            elif name.endswith("wo.weight") or name.endswith("w_down.weight"):
                nn.init.normal_(param, 0.0, residual_std)
            else:
                nn.init.normal_(param, 0.0, std)

    def forward(self, tokens: torch.Tensor, docs: torch.Tensor | None = None) -> torch.Tensor:
        """tokens [B, T] -> logits [B, T, vocab] (in the autocast dtype when autocasting).
        docs [B, T] (optional): document ids of packed sequences; attention stays within one."""
        return self.lm_head(self.hidden(tokens, docs))

    def hidden(self, tokens: torch.Tensor, docs: torch.Tensor | None = None) -> torch.Tensor:
        """The final hidden states [B, T, d_model], after the output norm: what the output head
        reads. A large vocabulary's logits are then computed only where a loss needs them."""
        t = tokens.shape[1]
        if t > self.config.context_length:
            raise ValueError(f"sequence of {t} tokens exceeds the context length {self.config.context_length}")
        mask = self.causal_mask[:t, :t]
        if docs is not None:
            other = docs[:, :, None] != docs[:, None, :]
            mask = mask.masked_fill(other, float("-inf"))[:, None]  # [B, 1, T, T]
        x = self.tok_emb(tokens)
        for layer in self.layers:
            x = layer(x, self.rope_cos, self.rope_sin, mask)
        return self.norm(x)

    def parameter_counts(self) -> dict:
        total = sum(p.numel() for p in self.parameters())  # tied weights are counted once
        embedding = self.tok_emb.weight.numel()
        return {"total": total, "embedding": embedding, "non_embedding": total - embedding}


def gguf_tensors(model: LlamaModel) -> Iterator[tuple[str, torch.Tensor]]:
    """(llama.cpp tensor name, weight) in GGUF order. A torch Linear weight [out, in] is ggml
    ne = [in, out] with the same bytes, so no transposes are needed."""
    yield "token_embd.weight", model.tok_emb.weight
    for i, block in enumerate(model.layers):
        yield f"blk.{i}.attn_norm.weight", block.attn_norm.weight
        yield f"blk.{i}.attn_q.weight", block.attn.wq.weight
        yield f"blk.{i}.attn_k.weight", block.attn.wk.weight
        yield f"blk.{i}.attn_v.weight", block.attn.wv.weight
        yield f"blk.{i}.attn_output.weight", block.attn.wo.weight
        if model.config.attention_bias:
            yield f"blk.{i}.attn_q.bias", block.attn.wq.bias
            yield f"blk.{i}.attn_k.bias", block.attn.wk.bias
            yield f"blk.{i}.attn_v.bias", block.attn.wv.bias
        yield f"blk.{i}.ffn_norm.weight", block.ffn_norm.weight
        yield f"blk.{i}.ffn_gate.weight", block.ffn.w_gate.weight
        yield f"blk.{i}.ffn_up.weight", block.ffn.w_up.weight
        yield f"blk.{i}.ffn_down.weight", block.ffn.w_down.weight
    yield "output_norm.weight", model.norm.weight
    if not model.config.tie_embeddings:
        yield "output.weight", model.lm_head.weight


# Named sizes for `train.py --size`; measured in docs/training.md. ff_dim is a multiple of 32
# (Q8_0 blocks) near 8/3 * d_model as in llama.
PRESETS: dict[str, dict] = {
    "tiny": dict(d_model=64, n_layers=2, n_heads=4, ff_dim=192, context_length=256),
    "small": dict(d_model=256, n_layers=6, n_heads=4, ff_dim=704, context_length=1024),
    "base": dict(d_model=320, n_layers=8, n_heads=5, ff_dim=864, context_length=1024),
    "large": dict(d_model=384, n_layers=8, n_heads=6, ff_dim=1024, context_length=1024),
}


def config_for(size: str, vocab_size: int, **overrides) -> ModelConfig:
    if size not in PRESETS:
        raise ValueError(f"unknown size {size!r}; choose one of {', '.join(PRESETS)}")
    return ModelConfig(vocab_size=vocab_size, **{**PRESETS[size], **overrides})
