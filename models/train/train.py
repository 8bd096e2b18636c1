"""Pretrains the default model on CPU (or GPU when one is there); resumable across sessions.

Launch through models/train/run.sh, which sets the allocator tunables, thread counts and low
priority that CPU training here needs (docs/training.md). Run with Debian's /usr/bin/python3.

    run.sh --run default --data models/data/out/index.json --size small

Re-running the same command resumes from the run's latest checkpoint. `--init-weights FILE`
starts a new run from a committed weights file with a fresh optimizer. SIGTERM/SIGINT save a
checkpoint and exit 0.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))

from checkpoint import CheckpointManager, load_into, load_model, model_weights, restore_rng, rng_state, run_directory  # noqa: E402
from data import CopyDrills, Packer, ShardSet, copy_probe_windows, stack_windows, validation_windows  # noqa: E402
from model import PRESETS, LlamaModel, ModelConfig, config_for  # noqa: E402
from precision import PRECISIONS, resolve_precision  # noqa: E402


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="run name; checkpoints go to $REPOSHAPLEY_CACHE/checkpoints/RUN")
    p.add_argument("--run-dir", help="explicit run directory (overrides the cache location)")
    p.add_argument("--data", required=True, help="shard index JSON (docs/model-pipeline.md)")
    p.add_argument("--val-data", help="separate index for validation (default: split 'val' of --data)")
    p.add_argument("--size", default="small", choices=sorted(PRESETS), help="model preset for a new run")
    p.add_argument("--model-config", help="JSON object of ModelConfig overrides for a new run")
    p.add_argument("--vocab-size", type=int, help="default: the index's vocabSize, else the --tokenizer's size")
    p.add_argument("--tokenizer", default="models/default/tokenizer.json", help="tokenizer artifact (for the vocabulary size)")
    p.add_argument("--init-weights", help="start a new run from a weights file (fresh optimizer)")
    p.add_argument("--seq-len", type=int, help="window length; default the index's contextSize (what the data was "
                   "budgeted for and the GGUF declares), else 512")
    p.add_argument("--batch-size", type=int, default=4, help="windows per micro-batch")
    p.add_argument("--grad-accum", type=int, default=4, help="micro-batches per optimizer step")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--min-lr", type=float, default=1e-4)
    p.add_argument("--warmup-steps", type=int, default=200)
    p.add_argument("--total-tokens", type=float, default=1.5e8, help="cosine horizon; after it lr stays at --min-lr")
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--grad-clip", type=float, default=1.0)
    p.add_argument("--class-weights", default="0,1,2.0", help="loss weight of mask classes 0,1,2,... (λ=2.0 for control)")
    p.add_argument("--loss-per", choices=["token", "sequence"], default="token",
                   help="average the loss over supervised tokens, or per packed sequence first (a fine-tune whose "
                        "completion targets supervise ~15 tokens each, next to replayed LM windows of ~1,000)")
    p.add_argument("--copy-drills", type=float, default=0.0,
                   help="share of training windows that are induction drills: a random token string repeated, "
                        "loss on the repetitions (data.CopyDrills); 0 = none")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--precision", choices=PRECISIONS, default="auto",
                   help="bf16 autocast or fp32; auto measures which is faster here (precision.py: bf16 is ~3x faster "
                        "on CPUs with AVX512-BF16/AMX and ~15x slower on AVX2-only ones)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--max-steps", type=int, help="stop after this optimizer step (total, across sessions)")
    p.add_argument("--max-tokens", type=float, help="stop after this many tokens seen in total, counting those the "
                   "--init-weights had already seen (for a fine-tune's own length use --max-steps)")
    p.add_argument("--time-limit", type=float, help="stop after this many minutes of this run")
    p.add_argument("--checkpoint-minutes", type=float, default=5.0)
    p.add_argument("--eval-every", type=int, default=250, help="validate every N optimizer steps")
    p.add_argument("--val-tokens", type=int, default=65536)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--fresh", action="store_true", help="ignore existing checkpoints of the run (they are kept)")
    return p.parse_args(argv)


def refuse_reached_token_limit(max_tokens: float | None, tokens_seen: int, weights: str) -> None:
    """A fine-tune whose --max-tokens its starting weights have already seen would stop at step 0
    and look like a finished run: say so instead."""
    if max_tokens is not None and tokens_seen >= max_tokens:
        raise SystemExit(f"--max-tokens {max_tokens:.0f} is already reached: {weights} has seen {tokens_seen:,} tokens, "
                         "and --max-tokens counts them too. Use --max-steps for the fine-tune's own length, or a "
                         f"--max-tokens above {tokens_seen}.")


def lr_at(step: int, args: argparse.Namespace, tokens_per_step: int) -> float:
    """Linear warm-up, then cosine decay to min_lr at the --total-tokens horizon."""
    if step < args.warmup_steps:
        return args.lr * (step + 1) / args.warmup_steps
    total_steps = max(args.warmup_steps + 1, int(args.total_tokens // tokens_per_step))
    progress = min(1.0, (step - args.warmup_steps) / (total_steps - args.warmup_steps))
    return args.min_lr + 0.5 * (args.lr - args.min_lr) * (1 + math.cos(math.pi * progress))


def make_optimizer(model: LlamaModel, args: argparse.Namespace) -> torch.optim.Optimizer:
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.95), eps=1e-8)


def weighted_loss(model: LlamaModel, windows: torch.Tensor, classes: torch.Tensor, class_weights: torch.Tensor,
                  autocast: bool, docs: torch.Tensor | None = None,
                  per_sequence: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(weighted loss for backward, summed unweighted NLL over supervised targets, their count).

    per_sequence: each packed sequence (window, document id) weighs the same, however many of its
    tokens are supervised; otherwise each supervised token does."""
    inputs, targets = windows[:, :-1], windows[:, 1:]
    weights = class_weights[classes[:, 1:].long()]
    with torch.autocast(device_type=inputs.device.type, dtype=torch.bfloat16, enabled=autocast):
        logits = model(inputs, None if docs is None else docs[:, :-1])
    nll = torch.nn.functional.cross_entropy(logits.float().flatten(0, 1), targets.flatten(), reduction="none")
    supervised = (weights > 0).float().flatten()
    count = supervised.sum()
    weighted = nll * weights.flatten()
    if per_sequence and docs is not None:
        loss = sequence_mean(weighted, supervised, docs[:, 1:])
    else:
        loss = weighted.sum() / count.clamp(min=1)
    return loss, (nll * supervised).sum().detach(), count.detach()


def sequence_mean(weighted: torch.Tensor, supervised: torch.Tensor, target_docs: torch.Tensor) -> torch.Tensor:
    """Mean over packed sequences of each sequence's mean weighted loss; sequences without
    supervised tokens (and padding, doc -1) do not count."""
    rows, width = target_docs.shape
    keys = (torch.arange(rows, device=target_docs.device)[:, None] * (width + 1) + target_docs + 1).flatten()
    sums = torch.zeros(rows * (width + 1), device=weighted.device).index_add_(0, keys, weighted)
    counts = torch.zeros_like(sums).index_add_(0, keys, supervised)
    counts[torch.arange(rows, device=counts.device) * (width + 1)] = 0  # padding
    present = counts > 0
    return (sums[present] / counts[present]).mean() if bool(present.any()) else weighted.sum() * 0


@torch.no_grad()
def evaluate(model: LlamaModel, windows: list, device: str, autocast: bool, batch_size: int) -> float:
    model.eval()
    ones = torch.tensor([0.0] + [1.0] * 255, device=device)  # unweighted NLL per supervised token
    total, count = 0.0, 0.0
    for i in range(0, len(windows), batch_size):
        chunk = windows[i:i + batch_size]
        tokens, classes, docs = (torch.from_numpy(x).to(device) for x in stack_windows(chunk))
        _, nll, n = weighted_loss(model, tokens, classes, ones, autocast, docs)
        total, count = total + nll.item(), count + n.item()
    model.train()
    return total / max(count, 1.0)


def tokenizer_size(path: str) -> int | None:
    try:
        return len(json.loads(Path(path).read_text(encoding="utf-8"))["tokens"])
    except FileNotFoundError:
        return None


def parse_class_weights(text: str, device: str) -> torch.Tensor:
    values = [float(v) for v in text.split(",")]
    return torch.tensor(values + [values[-1]] * (256 - len(values)), device=device)


class Trainer:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.stop_reason: str | None = None
        self.run_dir = run_directory(args.run, args.run_dir)
        self.checkpoints = CheckpointManager(self.run_dir)
        self.log_file = open(self.run_dir / "train.jsonl", "a", encoding="utf-8")
        self.train_data = ShardSet(args.data, None if args.val_data else "train")
        self.val_data = ShardSet(args.val_data, None) if args.val_data else ShardSet(args.data, "val")
        if args.seq_len is None:
            args.seq_len = int(self.train_data.index.get("contextSize", 512))
        self.tokens_per_step = args.batch_size * args.seq_len * args.grad_accum
        self.class_weights = parse_class_weights(args.class_weights, args.device)
        args.precision, self.precision_choice = resolve_precision(args.precision, args.device)
        self.autocast = args.precision == "bf16"
        self._setup_state()

    def log(self, event: str, **fields) -> None:
        record = {"event": event, "time": round(time.time(), 3), **fields}
        self.log_file.write(json.dumps(record) + "\n")
        self.log_file.flush()
        print(json.dumps(record), flush=True)

    def _setup_state(self) -> None:
        args = self.args
        latest = None if args.fresh else self.checkpoints.latest()
        self.step, self.tokens_seen, self.wall_seconds = 0, 0, 0.0
        self.best_val = math.inf
        self.packer = Packer(self.train_data, args.seq_len, args.seed)
        if args.copy_drills > 0:
            self.packer = CopyDrills(self.packer, args.copy_drills, self.train_data.ordinary_tokens(), args.seed)
        if latest is not None:
            blob = torch.load(latest, map_location="cpu")
            self.model = LlamaModel(ModelConfig.from_dict(blob["config"]))
            load_into(self.model, blob["model"])
            self.model.to(args.device)
            self.optimizer = make_optimizer(self.model, args)
            self.optimizer.load_state_dict(blob["optimizer"])
            self.step, self.tokens_seen = blob["step"], blob["tokens_seen"]
            self.wall_seconds, self.best_val = blob.get("wall_seconds", 0.0), blob.get("best_val", math.inf)
            self.packer.restore(blob["data"])
            restore_rng(blob["rng"])
            self.log("resume", checkpoint=str(latest), step=self.step, tokens=self.tokens_seen, precision=self.precision_choice)
            return
        torch.manual_seed(args.seed)
        np.random.seed(args.seed)
        random.seed(args.seed)
        if args.init_weights:
            self.model, meta = load_model(args.init_weights)
            self.tokens_seen = int(meta.get("tokens_seen", 0))
            refuse_reached_token_limit(args.max_tokens, self.tokens_seen, args.init_weights)
        else:
            vocab = args.vocab_size or self.train_data.vocab_size or tokenizer_size(args.tokenizer)
            if not vocab:
                raise SystemExit("no vocabulary size: the index has no vocabSize and --tokenizer is missing; pass --vocab-size")
            overrides = json.loads(args.model_config) if args.model_config else {}
            overrides.setdefault("context_length", args.seq_len)
            self.model = LlamaModel(config_for(args.size, vocab, **overrides))
        self.model.to(args.device)
        self.optimizer = make_optimizer(self.model, args)
        for data in (self.train_data, self.val_data):
            if data.max_token() >= self.model.config.vocab_size:
                raise SystemExit(f"{data.index_path} has token id {data.max_token()} >= vocabulary {self.model.config.vocab_size}")
        self.log("start", run=args.run, config=self.model.config.to_dict(), params=self.model.parameter_counts(),
                 precision=self.precision_choice,
                 init_weights=args.init_weights, args=vars(args))

    def state(self) -> dict:
        return {
            "run": self.args.run, "config": self.model.config.to_dict(), "model": model_weights(self.model),
            "optimizer": self.optimizer.state_dict(), "step": self.step, "tokens_seen": self.tokens_seen,
            "wall_seconds": self.wall_seconds, "best_val": self.best_val, "data": self.packer.state(),
            "rng": rng_state(), "args": vars(self.args),
        }

    def should_stop(self, session_start: float) -> str | None:
        a = self.args
        if self.stop_reason:
            return self.stop_reason
        if a.max_steps is not None and self.step >= a.max_steps:
            return "max-steps"
        if a.max_tokens is not None and self.tokens_seen >= a.max_tokens:
            return "max-tokens"
        if a.time_limit is not None and time.time() - session_start >= a.time_limit * 60:
            return "time-limit"
        return None

    def train_step(self) -> dict:
        a = self.args
        lr = lr_at(self.step, a, self.tokens_per_step)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        nll_sum, count, real = 0.0, 0.0, 0
        for _ in range(a.grad_accum):
            tokens, classes, docs = (torch.from_numpy(x).to(a.device) for x in self.packer.batch(a.batch_size))
            loss, nll, n = weighted_loss(self.model, tokens, classes, self.class_weights, self.autocast, docs,
                                         per_sequence=a.loss_per == "sequence")
            (loss / a.grad_accum).backward()
            nll_sum, count = nll_sum + nll.item(), count + n.item()
            real += int((docs[:, :-1] >= 0).sum())
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), a.grad_clip).item()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        self.tokens_seen += real
        return {"loss": nll_sum / max(count, 1.0), "lr": lr, "grad_norm": grad_norm, "tokens": real,
                "supervised": count}

    def validate(self) -> float:
        val = evaluate(self.model, self.val_windows, self.args.device, self.autocast, self.args.batch_size)
        copy = evaluate(self.model, self.copy_probes, self.args.device, self.autocast, len(self.copy_probes))
        self.log("val", step=self.step, tokens=self.tokens_seen, val_loss=round(val, 5), copy_loss=round(copy, 4))
        if val < self.best_val:
            self.best_val = val
            self.checkpoints.save_best(self.model, {"step": self.step, "tokens_seen": self.tokens_seen,
                                                    "val_loss": val, "run": self.args.run})
        return val

    def checkpoint(self) -> None:
        path = self.checkpoints.save(self.state())
        self.log("checkpoint", step=self.step, tokens=self.tokens_seen, path=str(path))

    def run(self) -> int:
        a = self.args
        if a.seq_len > self.model.config.context_length:
            raise SystemExit(f"--seq-len {a.seq_len} exceeds the model's context length {self.model.config.context_length}")
        self.val_windows = validation_windows(self.val_data, a.seq_len, a.val_tokens)
        self.copy_probes = copy_probe_windows(self.train_data.ordinary_tokens(), period=min(64, a.seq_len // 2))
        session_start = last_checkpoint = window_start = time.time()
        window_tokens, window_real, validated_at = 0, 0, -1
        self.model.train()
        while (reason := self.should_stop(session_start)) is None:
            started = time.time()
            stats = self.train_step()
            self.wall_seconds += time.time() - started
            window_tokens, window_real = window_tokens + self.tokens_per_step, window_real + stats["tokens"]
            if self.step % a.log_every == 0 or self.step == 1:
                now = time.time()
                self.log("train", step=self.step, tokens=self.tokens_seen, loss=round(stats["loss"], 5),
                         lr=stats["lr"], grad_norm=round(stats["grad_norm"], 4),
                         tok_per_s=round(window_real / max(now - window_start, 1e-9), 1),
                         pad_frac=round(1 - window_real / window_tokens, 4), wall_s=round(self.wall_seconds, 1))
                window_start, window_tokens, window_real = now, 0, 0
            if self.step % a.eval_every == 0:
                self.validate()
                validated_at = self.step
            if time.time() - last_checkpoint >= a.checkpoint_minutes * 60:
                self.checkpoint()
                last_checkpoint = time.time()
        if validated_at != self.step:
            self.validate()
        self.checkpoint()
        self.log("stop", reason=reason, step=self.step, tokens=self.tokens_seen, wall_s=round(self.wall_seconds, 1),
                 best_val=self.best_val)
        return 0


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    if "mmap_max=0" not in os.environ.get("GLIBC_TUNABLES", ""):
        print("warning: GLIBC_TUNABLES is not set; CPU training is 10x slower here. Launch via models/train/run.sh",
              file=sys.stderr)
    trainer = Trainer(args)

    def request_stop(signum, _frame) -> None:
        trainer.stop_reason = signal.Signals(signum).name  # finish the step, checkpoint, exit

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    return trainer.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
