"""Checkpoints (outside git) and compact weight files (committable).

A run directory `${REPOSHAPLEY_CACHE:-~/.cache/reposhapley}/checkpoints/RUN/` holds
  step-00001234.pt  full state: weights, optimizer, step, tokens, data position, RNG (last 2 kept)
  best.pt           weights + config + metrics of the best validation loss so far
  train.jsonl       the log
Files are written to a temporary name and renamed, so a kill mid-write never leaves a torn file.

A weights file (`save_weights`) is an fp16 state dict with its config: small enough to commit
(models/default/weights/), and `train.py --init-weights` starts from it with a fresh optimizer.
"""
from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import Any, Optional

import numpy as np
import torch

from model import LlamaModel, ModelConfig

WEIGHTS_FORMAT = "reposhapley-weights"
CHECKPOINT_FORMAT = "reposhapley-checkpoint"
_STEP_FILE = re.compile(r"^step-(\d+)\.pt$")


def cache_root() -> Path:
    return Path(os.environ.get("REPOSHAPLEY_CACHE", Path.home() / ".cache" / "reposhapley")).expanduser()


def run_directory(run: str, root: Optional[str] = None) -> Path:
    return Path(root).expanduser() if root else cache_root() / "checkpoints" / run


def atomic_save(obj: Any, path: Path) -> None:
    """torch.save to a temporary name, then a rename: a kill mid-write keeps the previous file."""
    partial = path.with_name(path.name + ".partial")
    torch.save(obj, partial)
    os.replace(partial, path)


def rng_state() -> dict:
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}


def restore_rng(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])


def model_weights(model: LlamaModel, dtype: torch.dtype = torch.float32) -> dict:
    """State dict without the tied output head (it is the embedding), cast to dtype."""
    state = model.state_dict()
    if model.config.tie_embeddings:
        state.pop("lm_head.weight", None)
    return {k: v.detach().to(dtype).clone() for k, v in state.items()}


def load_into(model: LlamaModel, weights: dict) -> None:
    state = {k: v.float() for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    allowed_missing = {"lm_head.weight"} if model.config.tie_embeddings else set()
    if set(missing) - allowed_missing or unexpected:
        raise ValueError(f"weights do not fit the model: missing {missing}, unexpected {unexpected}")


class CheckpointManager:
    def __init__(self, directory: Path, keep: int = 2) -> None:
        self.directory = directory
        self.keep = keep
        directory.mkdir(parents=True, exist_ok=True)

    def step_files(self) -> list[Path]:
        found = [(int(m.group(1)), p) for p in self.directory.iterdir() if (m := _STEP_FILE.match(p.name))]
        return [p for _, p in sorted(found)]

    def latest(self) -> Optional[Path]:
        files = self.step_files()
        return files[-1] if files else None

    def save(self, state: dict) -> Path:
        path = self.directory / f"step-{state['step']:08d}.pt"
        atomic_save({"format": CHECKPOINT_FORMAT, "version": 1, **state}, path)
        for old in self.step_files()[:-self.keep]:
            old.unlink(missing_ok=True)
        return path

    def save_best(self, model: LlamaModel, meta: dict) -> Path:
        path = self.directory / "best.pt"
        save_weights(model, path, meta, dtype=torch.float32)
        return path


def save_weights(model: LlamaModel, path: Path, meta: dict, dtype: torch.dtype = torch.float16) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_save({
        "format": WEIGHTS_FORMAT,
        "version": 1,
        "config": model.config.to_dict(),
        "state_dict": model_weights(model, dtype),
        "meta": meta,
    }, path)


def load_model(path: str | os.PathLike) -> tuple[LlamaModel, dict]:
    """A model from a weights file or a full checkpoint; returns (model, meta)."""
    blob = torch.load(path, map_location="cpu")
    kind = blob.get("format") if isinstance(blob, dict) else None
    if kind not in (WEIGHTS_FORMAT, CHECKPOINT_FORMAT):
        raise ValueError(f"{path} is neither a {WEIGHTS_FORMAT} file nor a {CHECKPOINT_FORMAT}")
    config = ModelConfig.from_dict(blob["config"])
    model = LlamaModel(config)
    load_into(model, blob["state_dict"] if kind == WEIGHTS_FORMAT else blob["model"])
    meta = blob.get("meta", {}) if kind == WEIGHTS_FORMAT else {
        "step": blob["step"], "tokens_seen": blob["tokens_seen"], "run": blob.get("run"),
        "val_loss": blob.get("last_val_loss"), "wall_seconds": blob.get("wall_seconds"),
    }
    return model, meta
