"""Measures training throughput (tokens/s, AdamW step included) of candidate model sizes, as
docs/training.md reports. Launch with the same environment as training:

    GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736 \
      nice -n 10 /usr/bin/python3 models/train/bench.py --vocab 8192 --sizes small,base,large

The sizes are measured round-robin, one step each per round, so a machine shared with other
work slows them alike; per size it reports the median step and the fastest step (the least
contended: the nearest to what an idle machine gives). Random tokens stand in for data.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))

from model import LlamaModel, config_for  # noqa: E402
from precision import PRECISIONS, resolve_precision  # noqa: E402
from train import weighted_loss  # noqa: E402


class Candidate:
    def __init__(self, size: str, args: argparse.Namespace) -> None:
        torch.manual_seed(0)
        self.size = size
        self.model = LlamaModel(config_for(size, args.vocab, context_length=max(args.seq_len, 512)))
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.tokens = torch.randint(0, args.vocab, (args.batch_size, args.seq_len + 1))
        self.classes = torch.ones_like(self.tokens, dtype=torch.uint8)
        self.weights = torch.tensor([0.0] + [1.0] * 255)
        # Two packed documents per window when measuring the document mask's cost.
        half = (args.seq_len + 1) // 2
        self.docs = (torch.arange(args.seq_len + 1) >= half).int().expand_as(self.tokens) if args.doc_mask else None
        self.autocast = args.precision == "bf16"
        self.times: list[float] = []

    def step(self) -> None:
        started = time.perf_counter()
        loss, _, _ = weighted_loss(self.model, self.tokens, self.classes, self.weights, self.autocast, self.docs)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.times.append(time.perf_counter() - started)

    def report(self, args: argparse.Namespace, warmup: int) -> dict:
        times = self.times[warmup:]
        per_step = self.tokens[:, :-1].numel()
        counts = self.model.parameter_counts()
        return {
            "size": self.size, "config": self.model.config.to_dict(), "params": counts,
            "seq_len": args.seq_len, "batch_size": args.batch_size, "precision": args.precision, "doc_mask": args.doc_mask,
            "threads": torch.get_num_threads(), "steps": len(times),
            "train_tok_per_s_median": round(per_step / statistics.median(times), 1),
            "train_tok_per_s_best": round(per_step / min(times), 1),
            # q8_0: 34 bytes per 32 weights; the tied embedding is stored once.
            "est_gguf_q8_0_mb": round(counts["total"] * 34 / 32 / 2**20, 1),
        }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--sizes", default="small,base,large")
    p.add_argument("--seq-len", type=int, default=512)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--precision", choices=PRECISIONS, default="auto")
    p.add_argument("--doc-mask", action="store_true", help="attention masked to two packed documents per window")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.precision, _ = resolve_precision(args.precision, "cpu")
    candidates = [Candidate(size, args) for size in args.sizes.split(",")]
    load_before = os.getloadavg()
    for _ in range(args.warmup + args.steps):
        for candidate in candidates:
            candidate.step()
    for candidate in candidates:
        print(json.dumps({**candidate.report(args, args.warmup), "loadavg": [load_before, os.getloadavg()]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
