"""The paper's fine-tune for RepoShapley's control decisions (issue 20, Section 3.4), on a GPU:
gradients through the whole network, which control_rows.py (output rows over frozen states)
cannot take on two CPU cores.

    L = lambda_R * L_R + lambda_S * L_S + L_Y,  lambda_R = lambda_S = 2

over the token sequences of every labeled instance (extractFeatures.ts --sequences): r* at the
trigger position, q_i* after each candidate, Y after the no-retrieval prompt, each a
cross-entropy over the whole vocabulary, as control_rows.py computes them.

Where Y is read: `--completion-after no-retrieval` (the default, how the shipped adapter was
trained) reads it after the no-retrieval prompt for every instance. `--completion-after evidence`
is the paper's F2 term, -log P(Y | X_in, X_S*, r*): a NEED instance reads Y after the generation
prompt that holds its verified coalition S* (the server's NEED branch prompt when the selection
keeps S*), so the model learns to use the evidence it keeps; a DONE instance (S* empty) reads it
after the no-retrieval prompt, as before.

Two modes:
  full   every weight trains (the paper's method). Its result is a whole new model, so here it
         measures what the method reaches with these labels; nothing of it ships.
  lora   rank-r adapters on q, k, v and o of every layer, and the control tokens' input and
         output rows, train; the rest stays the pulled model. Small enough to come back from the
         device and to ship in a control pack.

Nothing is chosen on the validation packages: the epochs and learning rate are arguments, and
the validation metrics are reported after each epoch, never used to pick one.

    python3 models/train/control_finetune.py --model DERIVED.gguf --sequences SEQUENCES.jsonl \
        --pack models/control/qwen2.5-coder-0.5b --out OUT [--mode lora|full] [--device cuda]

Writes OUT/metrics.json (per epoch: losses, trigger AUC over the vocabulary and the pair, KEEP
AUC, t_c by the label proxy), OUT/rows.f32 (the pack's layout: per token its input and output
row) and, in lora mode, OUT/lora.pt (the adapters, by GGUF tensor name) and OUT/lora.gguf (the
same as a llama.cpp LoRA adapter: the server's adapterPath setting, the bench's --adapter).

Long runs (an epoch is hours on two CPU cores) checkpoint (finetune_checkpoint.py) every
--checkpoint-every seconds, when --stop-after seconds have passed, and on SIGTERM or Ctrl-C:
OUT/checkpoint.pt holds the trainable weights, where the run stands and its history (small: commit
it to carry a run across machines), OUT/optimizer.pt AdamW's moments. The same command resumes
where it stopped, batch for batch as an uninterrupted run; `--resume-from FILE` resumes from a
checkpoint.pt alone (a committed one), the optimizer's moments then starting afresh.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from control_rows import LAMBDA_R, LAMBDA_S, auc, tune_threshold
from finetune_checkpoint import Checkpointer, run_fingerprint
from finetune_data import COMPLETION_AFTER, Sequence, epoch_batches, instance_sequences
from gguf_weights import load_qwen2
from lora_gguf import write_lora_gguf
from model import LlamaModel


class LoraLinear(nn.Module):
    """y = W x + b + (alpha / r) B A x, W and b frozen; B starts at zero, so training starts at the model."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.down = nn.Parameter(torch.randn(rank, base.in_features) / math.sqrt(base.in_features))
        self.up = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.down.T @ self.up.T) * self.scale


class ControlRows(nn.Module):
    """Trainable input and output rows of the control tokens over a frozen embedding and head."""

    def __init__(self, model: LlamaModel, control_ids: list[int]):
        super().__init__()
        self.register_buffer("ids", torch.tensor(control_ids, dtype=torch.long))
        self.input = nn.Parameter(model.tok_emb.weight[control_ids].detach().clone())
        self.output = nn.Parameter(model.lm_head.weight[control_ids].detach().clone())

    def embed(self, model: LlamaModel, tokens: torch.Tensor) -> torch.Tensor:
        x = model.tok_emb(tokens)
        match = tokens[..., None] == self.ids  # [B, T, C]
        if match.any():
            slot = match.float().argmax(-1)
            x = torch.where(match.any(-1, keepdim=True), self.input[slot].to(x.dtype), x)
        return x

    def logits(self, model: LlamaModel, hidden: torch.Tensor) -> torch.Tensor:
        logits = model.lm_head(hidden).float()
        return logits.index_copy(-1, self.ids, (hidden @ self.output.T.to(hidden.dtype)).float())


class Tuner(nn.Module):
    """The model with what trains in the chosen mode."""

    def __init__(self, model: LlamaModel, control_ids: list[int], mode: str, rank: int, alpha: float):
        super().__init__()
        self.model, self.mode = model, mode
        if mode == "lora":
            model.requires_grad_(False)
            for block in model.layers:
                for name in ("wq", "wk", "wv", "wo"):
                    setattr(block.attn, name, LoraLinear(getattr(block.attn, name), rank, alpha))
            self.rows = ControlRows(model, control_ids)
        else:
            self.rows = None

    def forward(self, tokens: torch.Tensor, positions: torch.Tensor, batch_index: torch.Tensor) -> torch.Tensor:
        """Logits over the whole vocabulary at (batch_index, positions)."""
        m = self.model
        x = self.rows.embed(m, tokens) if self.rows is not None else m.tok_emb(tokens)
        t = tokens.shape[1]
        for layer in m.layers:
            x = layer(x, m.rope_cos, m.rope_sin, m.causal_mask[:t, :t])
        hidden = m.norm(x)[batch_index, positions]
        return self.rows.logits(m, hidden) if self.rows is not None else m.lm_head(hidden).float()

    def lora_tensors(self) -> dict[str, torch.Tensor]:
        """The adapters by GGUF tensor name (blk.N.attn_q.weight.lora_a / .lora_b, llama.cpp's naming)."""
        names = {"wq": "attn_q", "wk": "attn_k", "wv": "attn_v", "wo": "attn_output"}
        out = {}
        for i, block in enumerate(self.model.layers):
            for attr, gguf in names.items():
                layer = getattr(block.attn, attr)
                out[f"blk.{i}.{gguf}.weight.lora_a"] = layer.down.detach().float().cpu()
                out[f"blk.{i}.{gguf}.weight.lora_b"] = (layer.up.detach() * layer.scale).float().cpu()
        return out

    def control_rows(self, control_ids: list[int]) -> torch.Tensor:
        """[tokens, 2, hidden]: each control token's input and output row (the pack's rows.f32 layout)."""
        if self.rows is not None:
            return torch.stack((self.rows.input.detach(), self.rows.output.detach()), dim=1).float().cpu()
        m = self.model
        return torch.stack((m.tok_emb.weight[control_ids].detach(), m.lm_head.weight[control_ids].detach()), dim=1).float().cpu()


def run_batch(tuner: Tuner, batch: list[Sequence], device: str, autocast: bool):
    """Per-term summed cross-entropies of a batch; the logits, kind and target at each position."""
    width = max(len(p.tokens) for p in batch)
    tokens = torch.zeros(len(batch), width, dtype=torch.long)  # right padding: causal, so it is never read
    rows, cols, targets, kinds = [], [], [], []
    for b, p in enumerate(batch):
        tokens[b, :len(p.tokens)] = torch.tensor(p.tokens)
        for kind, pairs in (("trigger", p.trigger), ("selection", p.selection), ("completion", p.completion)):
            for position, target in pairs:
                rows.append(b); cols.append(position); targets.append(target); kinds.append(kind)
    with torch.autocast(device_type=device.split(":")[0], dtype=torch.bfloat16, enabled=autocast):
        logits = tuner(tokens.to(device), torch.tensor(cols, device=device), torch.tensor(rows, device=device))
    targets_t = torch.tensor(targets, device=device)
    losses = F.cross_entropy(logits.float(), targets_t, reduction="none")
    terms = {}
    for kind in ("trigger", "selection", "completion"):
        mask = torch.tensor([k == kind for k in kinds], device=device)
        terms[kind] = losses[mask].sum()
    return terms, logits, kinds, targets


def evaluate(tuner: Tuner, records: list[dict], ids: dict[str, int], device: str, autocast: bool,
             completion_after: str = "no-retrieval", generation_only: bool = False) -> dict:
    """Losses per instance and the decisions' AUCs, as control_rows.py reports them."""
    tuner.eval()
    totals = {"trigger": 0.0, "selection": 0.0, "completion": 0.0}
    need_vocab, need_pair, truth, keep_scores, keep_truth = [], [], [], [], []
    with torch.no_grad():
        for record in records:
            for p in instance_sequences(record, ids, completion_after, generation_only):
                terms, logits, kinds, targets = run_batch(tuner, [p], device, autocast)
                for k, v in terms.items():
                    totals[k] += float(v)
                probs = logits.float().softmax(-1)
                for row, (kind, target) in enumerate(zip(kinds, targets)):
                    if kind == "trigger":
                        need_vocab.append(float(probs[row, ids["need"]]))
                        need_pair.append(float(torch.sigmoid(logits[row, ids["need"]] - logits[row, ids["done"]])))
                        truth.append(target == ids["need"])
                    elif kind == "selection":
                        keep_scores.append(float(torch.sigmoid(logits[row, ids["keep"]] - logits[row, ids["drop"]])))
                        keep_truth.append(target == ids["keep"])
    count = max(1, len(records))
    return {
        "instances": len(records), "selection_positions": len(keep_scores),
        "L_R": totals["trigger"] / count, "L_S": totals["selection"] / count, "L_Y": totals["completion"] / count,
        "loss": (LAMBDA_R * totals["trigger"] + LAMBDA_S * totals["selection"] + totals["completion"]) / count,
        "trigger_auc_vocabulary": auc(need_vocab, truth), "trigger_auc_pair": auc(need_pair, truth),
        "keep_auc": auc(keep_scores, keep_truth), "need_probability": need_vocab, "need_probability_pair": need_pair,
    }


def train_epoch(tuner: Tuner, optimizer, records: list[dict], ids, device, autocast, max_tokens, rng,
                completion_after: str = "no-retrieval", generation_only: bool = False) -> float:
    """Trains one whole epoch; the summed loss."""
    epoch = epoch_batches(records, ids, max_tokens, rng, completion_after, generation_only)
    total, _ = train_batches(tuner, optimizer, epoch, len(records), device, autocast)
    return total


def train_batches(tuner: Tuner, optimizer, epoch: list[list[Sequence]], instances: int, device, autocast,
                  skip: int = 0, after_batch=None) -> tuple[float, bool]:
    """Trains an epoch's batches from batch `skip` on (losses per instance of the `instances`);
    `after_batch(done, count)` runs after each and stops the epoch by returning True. The summed
    loss, and whether it stopped early."""
    tuner.train()
    total = 0.0
    for index, batch in enumerate(epoch):
        if index < skip:
            continue
        terms, _, _, _ = run_batch(tuner, batch, device, autocast)
        loss = (LAMBDA_R * terms["trigger"] + LAMBDA_S * terms["selection"] + terms["completion"]) / max(1, instances)
        # None, as torch 2 does by default (1.13 zeroes): a row unused in a batch then stays still,
        # and a resumed run, whose unused rows have no gradient yet, agrees batch for batch.
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in tuner.parameters() if p.requires_grad], 1.0)
        optimizer.step()
        total += loss.item()
        if after_batch is not None and after_batch(index + 1, len(epoch)):
            return total, True
    return total, False


@dataclass
class Run:
    """What every epoch of one fine-tune shares."""

    tuner: Tuner
    optimizer: torch.optim.Optimizer
    train: list[dict]
    val: list[dict]
    ids: dict[str, int]
    device: str
    autocast: bool
    max_tokens: int
    completion_after: str
    trigger: str
    generation_only: bool = False

    def batches(self, rng: random.Random) -> list[list[Sequence]]:
        return epoch_batches(self.train, self.ids, self.max_tokens, rng, self.completion_after, self.generation_only)

    def validate(self) -> dict:
        return evaluate(self.tuner, self.val, self.ids, self.device, self.autocast, self.completion_after, self.generation_only)


def run_epochs(run: Run, checkpointer: Checkpointer, resume_from: Path | None, epochs_wanted: int,
               initial_eval: bool, init_from: Path | None = None) -> tuple[list[dict], dict | None] | None:
    """The epochs from where the checkpoint (if any) left off: the history and the last validation's
    metrics, or None when the run stopped with a checkpoint. A run that starts afresh starts from
    `init_from`'s trained weights where given (a resumed run has them in its own checkpoint)."""
    resumed = checkpointer.resume(resume_from)
    if not resumed and init_from:
        print(json.dumps({"initialized": {"from": str(init_from), "tensors": checkpointer.initialize(init_from)}}), flush=True)
    # Each epoch draws its batch order from rng once: a resumed run replays the draws of the epochs done.
    rng = random.Random(0)
    if resumed:
        history, first_epoch, skip, step = resumed["history"], resumed["epoch"], resumed["batches_done"], resumed["step"]
        for _ in range(1, first_epoch):
            run.batches(rng)
        print(json.dumps({"resumed": {"epoch": first_epoch, "batches_done": skip, "step": step}}), flush=True)
    else:
        history, first_epoch, skip, step = [], 1, 0, 0
    if not history and initial_eval:
        history.append({"epoch": 0, "val": report(run.validate(), run.trigger)})
        print(json.dumps(history[-1]), flush=True)
    val_metrics = None
    for epoch in range(first_epoch, epochs_wanted + 1):
        if any(e["epoch"] == epoch for e in history):  # resumed after this epoch's validation
            run.batches(rng)
            continue
        resuming = resumed is not None and epoch == first_epoch  # part of this epoch was trained before
        checkpointer.start_epoch(resumed.get("epoch_train_s", 0.0) if resuming else 0.0)

        def after_batch(done: int, count: int, epoch=epoch) -> bool:
            nonlocal step
            step += 1
            return checkpointer.after_batch(epoch, done, count, history, step)

        order = run.batches(rng)
        _, stopped = train_batches(run.tuner, run.optimizer, order, len(run.train), run.device, run.autocast,
                                   skip=skip if resuming else 0, after_batch=after_batch)
        if not stopped:
            # The epoch's training done: saved before a validation that takes a while on a CPU,
            # and a stop asked for meanwhile is honoured here rather than after it.
            checkpointer.save(epoch, len(order), len(order), history, step)
            stopped = checkpointer.signalled
        if stopped:
            return None
        seconds = checkpointer.epoch_train_s()
        val_metrics = run.validate()
        history.append({"epoch": epoch, "train_s": round(seconds, 1), "val": report(val_metrics, run.trigger)})
        print(json.dumps(history[-1]), flush=True)
        checkpointer.save(epoch, 0, 0, history, step)
    return history, val_metrics


def report(metrics: dict, trigger: str) -> dict:
    """The split's metrics without the per-instance probabilities, and the one the pack reads as AUC."""
    out = {k: v for k, v in metrics.items() if not k.startswith("need_probability")}
    out["trigger_auc"] = metrics["trigger_auc_vocabulary" if trigger == "vocabulary" else "trigger_auc_pair"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="the derived GGUF (base + the pack's control rows)")
    parser.add_argument("--sequences", type=Path, required=True, help="sequences.jsonl (extractFeatures --sequences)")
    parser.add_argument("--pack", type=Path, required=True, help="the pack folder (pack.json: token ids, trigger)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--mode", choices=("lora", "full"), default="lora")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--alpha", type=float, default=16.0)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=None, help="default 2e-4 (lora) or 1e-5 (full)")
    parser.add_argument("--max-tokens", type=int, default=8192, help="padded tokens per batch")
    parser.add_argument("--limit", type=int, default=0, help="use only this many training and validation instances each (a smoke test)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=None, help="autocast to bfloat16 (default: on a GPU)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--completion-after", choices=COMPLETION_AFTER, default="no-retrieval",
                        help="where L_Y reads Y: after the no-retrieval prompt, or (the paper's F2) after the verified evidence")
    parser.add_argument("--generation-only", action="store_true",
                        help="L_Y alone, over the passes that read Y: an adapter for a model whose control rows stay untrained "
                             "(the 1.5B's pack); no trigger or selection pass is read")
    parser.add_argument("--checkpoint-every", type=float, default=900, help="seconds between checkpoints (OUT/checkpoint.pt)")
    parser.add_argument("--stop-after", type=float, default=0, help="checkpoint and stop after this many seconds (0: run to the end)")
    parser.add_argument("--resume-from", type=Path, default=None,
                        help="a checkpoint.pt to resume from (default: OUT/checkpoint.pt when there)")
    parser.add_argument("--init-from", type=Path, default=None,
                        help="start from another run's trained weights (its checkpoint.pt: the adapter and rows it ended with), "
                             "with a fresh optimizer: a further fine-tune of a shipped adapter on new data")
    parser.add_argument("--initial-eval", action=argparse.BooleanOptionalAction, default=True,
                        help="validate before training (epoch 0 of the history; on two CPU cores ~20 minutes)")
    parser.add_argument("--train-report", action=argparse.BooleanOptionalAction, default=True,
                        help="evaluate the training instances after the last epoch (on two CPU cores a third of an epoch's time)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    autocast = args.bf16 if args.bf16 is not None else args.device.startswith("cuda")
    lr = args.lr or (2e-4 if args.mode == "lora" else 1e-5)

    pack = json.loads((args.pack / "pack.json").read_text())
    control_ids = [t["id"] for t in pack["tokens"]]
    by_text = {t["text"]: t["id"] for t in pack["tokens"]}
    ids = {name: by_text[f"<{name.upper()}>"] for name in ("need", "done", "keep", "drop")}
    trigger = pack.get("trigger", "pair")
    meta = args.sequences.parent / "meta.json"
    if not args.generation_only and meta.exists() and json.loads(meta.read_text()).get("evidence") == "full":
        parser.error(f"{args.sequences} reads Y after every candidate for unlabeled records too (extractFeatures --evidence full): "
                     "train them with --generation-only")
    records = [json.loads(line) for line in args.sequences.read_text().splitlines() if line.strip()]
    train = [r for r in records if r["split"] == "train"]
    val = [r for r in records if r["split"] == "val"]
    if args.limit:
        train, val = train[:args.limit], val[:args.limit]
    longest = max(len(p.tokens) for r in records for p in instance_sequences(r, ids, args.completion_after, args.generation_only))

    started = time.perf_counter()
    model = load_qwen2(args.model, context_length=max(512, longest + 1))
    tuner = Tuner(model, control_ids, args.mode, args.rank, args.alpha).to(args.device)
    trainable = [p for p in tuner.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=lr, weight_decay=0.0)
    print(json.dumps({"mode": args.mode, "trainable": sum(p.numel() for p in trainable), "train": len(train), "val": len(val),
                      "device": args.device, "bf16": autocast, "load_s": round(time.perf_counter() - started, 1)}), flush=True)

    checkpointer = Checkpointer(args.out, run_fingerprint(args, lr), tuner, optimizer, args.checkpoint_every, args.stop_after)
    run = Run(tuner, optimizer, train, val, ids, args.device, autocast, args.max_tokens, args.completion_after, trigger,
              args.generation_only)
    outcome = run_epochs(run, checkpointer, args.resume_from, args.epochs, args.initial_eval, args.init_from)
    if outcome is None:
        print(json.dumps({"stopped": "checkpointed; the same command resumes"}), flush=True)
        return
    epochs, val_metrics = outcome
    if val_metrics is None and args.epochs:  # resumed after the last epoch's validation
        val_metrics = run.validate()
    final_train = (report(evaluate(tuner, train, ids, args.device, autocast, args.completion_after, args.generation_only), trigger)
                   if args.train_report else None)
    need = val_metrics["need_probability" if trigger == "vocabulary" else "need_probability_pair"] if args.epochs else []
    threshold = tune_threshold(need, val) if val and need else None

    args.out.mkdir(parents=True, exist_ok=True)
    tuner.control_rows(control_ids).numpy().astype("<f4").tofile(args.out / "rows.f32")
    if args.mode == "lora":
        adapters = tuner.lora_tensors()
        torch.save(adapters, args.out / "lora.pt")
        write_lora_gguf(adapters, args.out / "lora.gguf", "qwen2")
    metrics = {
        "mode": args.mode, "rank": args.rank if args.mode == "lora" else None, "alpha": args.alpha, "lr": lr, "epochs": args.epochs,
        "completion_after": args.completion_after, "generation_only": args.generation_only,
        "init_from": str(args.init_from) if args.init_from else None,
        "lambda_R": LAMBDA_R, "lambda_S": LAMBDA_S, "trigger": trigger, "model": str(args.model), "sequences": str(args.sequences),
        "device": args.device, "bf16": autocast, "history": epochs, "train": final_train, "threshold": threshold,
        "seconds": round(time.perf_counter() - started, 1),
    }
    (args.out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(json.dumps({"train": final_train, "threshold": threshold, "seconds": metrics["seconds"]}))


if __name__ == "__main__":
    main()
