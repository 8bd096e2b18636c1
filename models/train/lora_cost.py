"""What a low-rank adapter would cost to train on this machine (issue 20: "measure whether a
low-rank adapter on top is affordable here").

A LoRA on the attention projections of every layer needs a backward pass through the whole
network for every training sequence, unlike the output rows, which train on stored hidden
states. This times one forward + backward pass of a network shaped like Qwen2.5-Coder 0.5B
(24 layers, width 896, 14 query / 2 KV heads, feed-forward 4864; the 151,936-row output layer
left out, since the decision losses need only its control rows) with rank-r adapters on q, k, v
and o, in float32 on CPU, with the base weights frozen. Random weights: the cost does not depend
on the values.

    /usr/bin/python3 models/train/lora_cost.py [--tokens 600] [--rank 8] [--threads 2] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import time

import torch
from torch import nn

WIDTH, LAYERS, HEADS, KV_HEADS, FEED_FORWARD = 896, 24, 14, 2, 4864
HEAD = WIDTH // HEADS


class LoraLinear(nn.Module):
    def __init__(self, inputs: int, outputs: int, rank: int):
        super().__init__()
        self.base = nn.Linear(inputs, outputs, bias=False).requires_grad_(False)
        self.down = nn.Linear(inputs, rank, bias=False)
        self.up = nn.Linear(rank, outputs, bias=False)
        nn.init.zeros_(self.up.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + self.up(self.down(x))


class Block(nn.Module):
    def __init__(self, rank: int):
        super().__init__()
        self.norm1 = nn.RMSNorm(WIDTH) if hasattr(nn, "RMSNorm") else nn.LayerNorm(WIDTH)
        self.norm2 = nn.RMSNorm(WIDTH) if hasattr(nn, "RMSNorm") else nn.LayerNorm(WIDTH)
        self.q = LoraLinear(WIDTH, WIDTH, rank)
        self.k = LoraLinear(WIDTH, KV_HEADS * HEAD, rank)
        self.v = LoraLinear(WIDTH, KV_HEADS * HEAD, rank)
        self.o = LoraLinear(WIDTH, WIDTH, rank)
        self.gate = nn.Linear(WIDTH, FEED_FORWARD, bias=False).requires_grad_(False)
        self.upp = nn.Linear(WIDTH, FEED_FORWARD, bias=False).requires_grad_(False)
        self.down = nn.Linear(FEED_FORWARD, WIDTH, bias=False).requires_grad_(False)
        for norm in (self.norm1, self.norm2):
            norm.requires_grad_(False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[0]
        h = self.norm1(x)
        q = self.q(h).view(t, HEADS, HEAD).transpose(0, 1)
        k = self.k(h).view(t, KV_HEADS, HEAD).transpose(0, 1).repeat_interleave(HEADS // KV_HEADS, 0)
        v = self.v(h).view(t, KV_HEADS, HEAD).transpose(0, 1).repeat_interleave(HEADS // KV_HEADS, 0)
        # Written out (Debian's torch 1.13 has no scaled_dot_product_attention).
        scores = (q @ k.transpose(1, 2)) / HEAD ** 0.5
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        attention = scores.softmax(-1) @ v
        x = x + self.o(attention.transpose(0, 1).reshape(t, WIDTH))
        h = self.norm2(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.upp(h))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=600)
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bf16", action="store_true", help="autocast to bfloat16 (oneDNN uses AMX where the CPU has it)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    blocks = nn.Sequential(*[Block(args.rank) for _ in range(LAYERS)])
    trainable = sum(p.numel() for p in blocks.parameters() if p.requires_grad)
    x = torch.randn(args.tokens, WIDTH)
    times = []
    for _ in range(args.repeats + 1):
        started = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            loss = blocks(x)[-16:].float().square().mean()
        loss.backward()
        times.append(time.perf_counter() - started)
    step = min(times[1:])
    print(json.dumps({
        "tokens": args.tokens, "rank": args.rank, "threads": args.threads, "trainable_parameters": trainable,
        "forward_backward_s": round(step, 2), "bf16": args.bf16, "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
