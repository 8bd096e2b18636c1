"""Where a control fine-tune stands (control_finetune.py), so that a run of hours on two CPU cores
survives a stop: OUT/checkpoint.pt holds the trainable weights, the epoch and the batches done in
it, and the history (small: commit it to carry a run across machines); OUT/optimizer.pt holds
AdamW's moments. A checkpoint names the run it belongs to (`run_fingerprint`), and another run's is
refused."""
from __future__ import annotations

import hashlib
import json
import signal
import time
from pathlib import Path

import torch
from torch import nn

from checkpoint import atomic_save

CHECKPOINT_FORMAT = "reposhapley-control-finetune-checkpoint/1"


class Checkpointer:
    """Where a run stands: the trainable weights, the epoch and batches done in it, the history.
    Saved atomically (a stop mid-write keeps the previous one) every `every_s` seconds, once
    `stop_after_s` have passed, and on SIGTERM or SIGINT; the last two also stop the run."""

    def __init__(self, out: Path, fingerprint: dict, tuner: nn.Module, optimizer, every_s: float, stop_after_s: float):
        self.out, self.fingerprint, self.tuner, self.optimizer = out, fingerprint, tuner, optimizer
        self.every_s, self.stop_after_s = every_s, stop_after_s
        self.started = self.saved_at = self.epoch_started = time.perf_counter()
        self.signalled = False
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self._on_signal)

    def _on_signal(self, number, frame) -> None:  # noqa: ARG002
        self.signalled = True

    def resume(self, source: Path | None) -> dict | None:
        """Loads `source` (default OUT/checkpoint.pt, if there) into the tuner, and AdamW's moments
        when OUT/optimizer.pt belongs to it; returns its position and history, or None."""
        path = source or self.out / "checkpoint.pt"
        if not path.exists():
            if source:
                raise SystemExit(f"--resume-from {source}: no such file")
            return None
        state = torch.load(path, map_location="cpu")
        if state.get("format") != CHECKPOINT_FORMAT:
            raise SystemExit(f"{path} is not a control fine-tune checkpoint ({CHECKPOINT_FORMAT})")
        if state["fingerprint"] != self.fingerprint:
            changed = sorted(k for k in self.fingerprint if state["fingerprint"].get(k) != self.fingerprint[k])
            raise SystemExit(f"{path} belongs to another run (it differs in {', '.join(changed)}); "
                             "use another --out, or delete the checkpoint to start again")
        trainable = dict(self.tuner.named_parameters())
        with torch.no_grad():
            for name, value in state["trainable"].items():
                trainable[name].copy_(value)
        moments = self.out / "optimizer.pt"
        if moments.exists():
            saved = torch.load(moments, map_location="cpu")
            if saved.get("step") == state["step"]:
                self.optimizer.load_state_dict(saved["optimizer"])
        return state

    def initialize(self, source: Path) -> int:
        """Copies another run's trained weights (a checkpoint.pt of any run of the same mode, rank
        and model) into the tuner: this run starts from them, with a fresh optimizer and position.
        Returns how many tensors were copied; a checkpoint whose names or shapes do not fit is refused."""
        state = torch.load(source, map_location="cpu")
        if state.get("format") != CHECKPOINT_FORMAT:
            raise SystemExit(f"--init-from {source} is not a control fine-tune checkpoint ({CHECKPOINT_FORMAT})")
        trainable = {name: p for name, p in self.tuner.named_parameters() if p.requires_grad}
        saved = state["trainable"]
        unfit = sorted(n for n in trainable if n not in saved or saved[n].shape != trainable[n].shape)
        if unfit:
            raise SystemExit(f"--init-from {source} does not fit this run ({len(unfit)} tensors missing or of another shape, "
                             f"e.g. {unfit[0]}): it must be a run of the same mode, rank and model")
        with torch.no_grad():
            for name, value in trainable.items():
                value.copy_(saved[name])
        return len(trainable)

    def start_epoch(self, trained_s: float = 0.0) -> None:
        """An epoch's training starts (or resumes, `trained_s` of it done before the stop)."""
        self.epoch_started = time.perf_counter() - trained_s

    def epoch_train_s(self) -> float:
        """Seconds spent training this epoch, across the runs that resumed it."""
        return time.perf_counter() - self.epoch_started

    def after_batch(self, epoch: int, done: int, count: int, history: list, step: int) -> bool:
        """Saves when it is time; True when the run must stop here (saved)."""
        now = time.perf_counter()
        stop = self.signalled or (self.stop_after_s > 0 and now - self.started >= self.stop_after_s)
        if stop or now - self.saved_at >= self.every_s:
            self.save(epoch, done, count, history, step)
        return stop

    def save(self, epoch: int, done: int, count: int, history: list, step: int) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        trainable = {name: p.detach().cpu().clone() for name, p in self.tuner.named_parameters() if p.requires_grad}
        state = {"format": CHECKPOINT_FORMAT, "fingerprint": self.fingerprint, "epoch": epoch, "batches_done": done,
                 "batches": count, "step": step, "epoch_train_s": round(self.epoch_train_s(), 1), "history": history,
                 "trainable": trainable}
        atomic_save(state, self.out / "checkpoint.pt")
        atomic_save({"step": step, "optimizer": self.optimizer.state_dict()}, self.out / "optimizer.pt")
        self.saved_at = time.perf_counter()
        print(json.dumps({"checkpoint": {"epoch": epoch, "batches_done": done, "batches": count, "step": step,
                                         "elapsed_s": round(self.saved_at - self.started, 1)}}), flush=True)


def run_fingerprint(args, lr: float) -> dict:
    """What a checkpoint must share with the run resuming it (the epoch count may grow)."""
    return {"model": args.model.name, "model_bytes": args.model.stat().st_size,
            "sequences_sha256": hashlib.sha256(args.sequences.read_bytes()).hexdigest(), "mode": args.mode,
            "rank": args.rank, "alpha": args.alpha, "lr": lr, "max_tokens": args.max_tokens,
            "completion_after": args.completion_after, "limit": args.limit,
            # Only when set, so the checkpoints of runs before these options still resume.
            **({"generation_only": True} if getattr(args, "generation_only", False) else {}),
            **({"init_from_sha256": hashlib.sha256(args.init_from.read_bytes()).hexdigest()} if getattr(args, "init_from", None) else {})}
