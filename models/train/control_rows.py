"""Trains the output rows of a pretrained model's control tokens (RepoShapley issue 20) against
the frozen model's hidden states, with the paper's losses (Section 3.4):

    L = lambda_R * L_R + lambda_S * L_S + L_Y,  lambda_R = lambda_S = 2

  L_R  cross-entropy of r* (<NEED>/<DONE>) at the trigger position,
  L_S  cross-entropy of each q_i* (<KEEP>/<DROP>) at its selection position (NEED instances),
  L_Y  cross-entropy of Y in the no-retrieval generation prompt.

Every cross-entropy is over the whole vocabulary: base logits W_base h (frozen; their log-sum-exp
is computed once) plus the control rows O h being trained. L_Y is what keeps the new rows from
taking probability from completions. The features come from extractFeatures.ts.

Only the output rows train here; the input rows of the pack stay as they are (training them
needs gradients through the network: the GPU script's job). Training starts from the pack's
rows, so a run resumes from committed weights alone.

With a few hundred instances, 896-wide rows memorize the training packages (a run on 57 of them
reached trigger AUC 0.999 on them and 0.36 on the validation packages). So the objective gets a
penalty l2 * ||O - O_0||^2 that holds the rows near where they start, and l2 is chosen by
cross-validation over the training packages (folds by repository, so a fold's held-out packages
are unseen, as the validation ones are): the value with the lowest held-out loss. The problem is
convex in O, so every fit runs a fixed number of full-batch steps and no epoch is picked by
looking at the validation packages; those serve t_c and the report only. (Penalizing only the
pairs' contrasts, half the difference of <NEED> and <DONE>, left their common part free to fit the
training packages, and did worse on the validation ones: docs/history/2026-12-02-control-frozen-rows.md.)

With --train-rows trigger only <NEED> and <DONE> change (features extracted --no-selection carry
no selection positions, and the KEEP/DROP rows must then stay as the pack has them).

P(NEED) is reported both ways the server can read it (model/reposhapleyKeys.ts): over the pair
{<NEED>, <DONE>} (the paper's Algorithm 1) and over the whole vocabulary; t_c is tuned for the
way the pack declares (`trigger` in pack.json, `pair` when absent).

    /usr/bin/python3 models/train/control_rows.py --features ~/.cache/reposhapley/control-features-shapley \
        --pack models/control/qwen2.5-coder-0.5b --out /tmp/control-rows

Writes OUT/output_rows.f32 (pack token order) and OUT/metrics.json (losses, AUCs, t_c).
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import torch

LAMBDA_R = 2.0
LAMBDA_S = 2.0


FEATURE_FORMAT = 2  # extractFeatures.ts: the trigger read where the completion starts


def load_features(folder: Path):
    meta = json.loads((folder / "meta.json").read_text())
    if meta.get("featureFormat", 1) != FEATURE_FORMAT:
        raise SystemExit(f"{folder} holds features of format {meta.get('featureFormat', 1)}, this trainer reads format "
                         f"{FEATURE_FORMAT}: extract them again into a new folder (extractFeatures --out)")
    hidden, vocabulary = meta["hidden"], meta["vocabulary"]
    records = [json.loads(line) for line in (folder / "index.jsonl").read_text().splitlines() if line.strip()]
    states = np.fromfile(folder / "states.f32", dtype="<f4").reshape(-1, hidden)
    matrix = np.fromfile(folder / "output.f16", dtype="<f2").reshape(vocabulary, hidden)
    return meta, records, torch.from_numpy(states.copy()), matrix


def base_log_partition(states: torch.Tensor, matrix: np.ndarray, control_ids: list[int], batch: int = 256) -> torch.Tensor:
    """log sum_v exp(W_v h) over the base vocabulary (every id but the control tokens')."""
    weights = torch.from_numpy(matrix.astype(np.float32))
    keep = torch.ones(weights.shape[0], dtype=torch.bool)
    keep[control_ids] = False
    weights = weights[keep]
    out = torch.empty(states.shape[0])
    with torch.no_grad():
        for start in range(0, states.shape[0], batch):
            out[start:start + batch] = torch.logsumexp(states[start:start + batch] @ weights.T, dim=1)
    return out


def target_logits(states: torch.Tensor, matrix: np.ndarray, rows: list[int], targets: list[int]) -> torch.Tensor:
    """W_y h for each (row, y) pair of the generation positions."""
    if not rows:
        return torch.empty(0)
    weights = torch.from_numpy(matrix[targets].astype(np.float32))
    return (states[rows] * weights).sum(dim=1)


def auc(scores: list[float], labels: list[bool]) -> float | None:
    """Probability that a positive outranks a negative (ties count half); None without both."""
    positives = [s for s, y in zip(scores, labels) if y]
    negatives = [s for s, y in zip(scores, labels) if not y]
    if not positives or not negatives:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


class Data:
    """Index tensors of one split: which state rows, which targets."""

    def __init__(self, records, log_z, gen_logits_all, gen_index, ids):
        self.records = records
        trig = [r["triggerRow"] for r in records]
        self.trigger_rows = torch.tensor(trig, dtype=torch.long)
        self.trigger_target = torch.tensor([ids["need"] if r["retrieval"] == "need" else ids["done"] for r in records])
        sel_rows, sel_target = [], []
        for r in records:
            for row, keep in zip(r["selectionRows"], r["keep"]):
                sel_rows.append(row)
                sel_target.append(ids["keep"] if keep else ids["drop"])
        self.selection_rows = torch.tensor(sel_rows, dtype=torch.long)
        self.selection_target = torch.tensor(sel_target, dtype=torch.long)
        gen_rows = [row for r in records for row in r["generationRows"]]
        self.generation_rows = torch.tensor(gen_rows, dtype=torch.long)
        self.generation_target_logit = gen_logits_all[[gen_index[row] for row in gen_rows]] if gen_rows else torch.empty(0)
        self.log_z = log_z
        self.count = max(1, len(records))


def control_logits_and_partition(states, log_z, rows, weights):
    """The control rows' logits at `rows` (n x C) and the log-partition over base + control logits."""
    control = states[rows] @ weights.T
    return control, torch.logaddexp(log_z[rows], torch.logsumexp(control, dim=1))


def control_cross_entropy(states, log_z, rows, target_slots, weights):
    """CE of control token slot `target_slots` at `rows`, softmax over base + control logits."""
    if rows.numel() == 0:
        return torch.tensor(0.0)
    control, partition = control_logits_and_partition(states, log_z, rows, weights)
    return (partition - control.gather(1, target_slots[:, None]).squeeze(1)).sum()


def generation_cross_entropy(states, log_z, rows, target_logit, weights):
    """CE of the base token y_t at `rows` (its logit given), with the control rows in the softmax."""
    if rows.numel() == 0:
        return torch.tensor(0.0)
    _, partition = control_logits_and_partition(states, log_z, rows, weights)
    return (partition - target_logit).sum()


def losses(states, data: Data, weights):
    l_r = control_cross_entropy(states, data.log_z, data.trigger_rows, data.trigger_target, weights)
    l_s = control_cross_entropy(states, data.log_z, data.selection_rows, data.selection_target, weights)
    l_y = generation_cross_entropy(states, data.log_z, data.generation_rows, data.generation_target_logit, weights)
    total = (LAMBDA_R * l_r + LAMBDA_S * l_s + l_y) / data.count
    return total, {"L_R": float(l_r) / data.count, "L_S": float(l_s) / data.count, "L_Y": float(l_y) / data.count}


def two_token(states, rows, weights, first, second):
    """P(first) under the two-token softmax Algorithm 1 uses."""
    if rows.numel() == 0:
        return []
    logits = states[rows] @ weights[[first, second]].T
    return torch.sigmoid(logits[:, 0] - logits[:, 1]).tolist()


def in_vocabulary(states, log_z, rows, weights, slot):
    """P(slot) over the whole vocabulary (base logits and every control row) at `rows`."""
    if rows.numel() == 0:
        return []
    control, partition = control_logits_and_partition(states, log_z, rows, weights)
    return torch.exp(control[:, slot] - partition).tolist()


def full_helps_auc(need: list[float], records) -> float | None:
    """How P(NEED) ranks the instances where Full-Retrieve decodes better than none above those
    where it decodes worse (ties left out): the question the bench's trigger diagnosis asks."""
    pairs = [(p, r["esFull"] > r["esEmpty"]) for p, r in zip(need, records)
             if r.get("esFull") is not None and r["esFull"] != r["esEmpty"]]
    return auc([p for p, _ in pairs], [helps for _, helps in pairs])


def evaluate(states, data: Data, weights, slots, trigger: str = "pair"):
    with torch.no_grad():
        total, parts = losses(states, data, weights)
        pair = two_token(states, data.trigger_rows, weights, slots["need"], slots["done"])
        vocabulary = in_vocabulary(states, data.log_z, data.trigger_rows, weights, slots["need"])
        need = vocabulary if trigger == "vocabulary" else pair
        keep = two_token(states, data.selection_rows, weights, slots["keep"], slots["drop"])
        truth = [r["retrieval"] == "need" for r in data.records]
        return {
            "loss": float(total), **parts,
            "trigger_auc": auc(need, truth), "trigger_auc_pair": auc(pair, truth), "trigger_auc_vocabulary": auc(vocabulary, truth),
            "trigger_auc_full_helps": full_helps_auc(need, data.records),
            "keep_auc": auc(keep, [bool(t == slots["keep"]) for t in data.selection_target.tolist()]),
            "instances": len(data.records), "selection_positions": int(data.selection_rows.numel()),
            "need_probability": need,
        }


def need_branch_es(record) -> float:
    """What the NEED branch is taken to score: Full-Retrieve's decode where the labels have it.
    Not S*: S* is chosen knowing Y and is never worse than the no-retrieval ES, so with it every
    threshold below all P(NEED) would win and t_c would always be 0 (always NEED)."""
    for key in ("esFull", "esBest"):
        if record.get(key) is not None:
            return record[key]
    return record["esEmpty"]


def tune_threshold(need_probability: list[float], records) -> dict:
    """t_c maximizing the mean ES of the branch taken (NEED: Full-Retrieve's ES, DONE: no
    retrieval's), a label-based proxy for the bench sweep (tuneThreshold.ts) on the same
    validation packages, which remains the final word."""
    if not records:
        return {"t_c": 0.5, "es": None, "need_rate": None}
    candidates = sorted({0.0, 1.0, *need_probability})
    best = None
    for t in candidates:
        es = [need_branch_es(r) if p >= t else r["esEmpty"] for p, r in zip(need_probability, records)]
        point = {"t_c": t, "es": sum(es) / len(es), "need_rate": sum(p >= t for p in need_probability) / len(records)}
        if best is None or point["es"] > best["es"] + 1e-9:
            best = point
    return best


def fit(states, data: Data, start: torch.Tensor, l2: float, epochs: int, lr: float, trainable: torch.Tensor | None = None) -> torch.Tensor:
    """The rows minimizing the paper's loss on `data` plus l2 * ||O - start||^2, full batch; only
    the rows `trainable` marks change when it is given (Adam leaves a row whose gradient is always
    zero where it starts)."""
    weights = torch.nn.Parameter(start.clone())
    optimizer = torch.optim.Adam([weights], lr=lr)
    for _ in range(epochs):
        optimizer.zero_grad()
        total, _ = losses(states, data, weights)
        (total + l2 * ((weights - start) ** 2).sum()).backward()
        if trainable is not None:
            weights.grad *= trainable[:, None]
        optimizer.step()
    return weights.detach()


def repository_folds(records, folds: int) -> list[int]:
    """A fold per record: repositories dealt round-robin in name order (records when too few)."""
    repositories = sorted({r["repository"] for r in records})
    if len(repositories) >= folds:
        fold_of = {name: i % folds for i, name in enumerate(repositories)}
        return [fold_of[r["repository"]] for r in records]
    return [i % folds for i in range(len(records))]


def choose_l2(states, records, make_data, start, grid, folds: int, epochs: int, lr: float, trainable=None):
    """The penalty with the lowest mean held-out loss over the folds, and every value's loss."""
    assignment = repository_folds(records, folds)
    table = []
    for l2 in grid:
        held_out = []
        for fold in range(folds):
            inside = [r for r, f in zip(records, assignment) if f != fold]
            outside = [r for r, f in zip(records, assignment) if f == fold]
            if not inside or not outside:
                continue
            weights = fit(states, make_data(inside), start, l2, epochs, lr, trainable)
            with torch.no_grad():
                held_out.append(float(losses(states, make_data(outside), weights)[0]))
        table.append({"l2": l2, "held_out_loss": sum(held_out) / max(1, len(held_out))})
    return min(table, key=lambda row: row["held_out_loss"])["l2"], table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", type=Path, required=True)
    parser.add_argument("--pack", type=Path, required=True, help="the pack folder (rows.f32, pack.json) to start from")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=300, help="full-batch steps per fit")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--l2", type=str, default="0,1,10,30,100,300,1000,10000",
                        help="penalties on ||O - O_0||^2 to choose from by cross-validation (one value: no choice)")
    parser.add_argument("--folds", type=int, default=4, help="cross-validation folds over the training repositories")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--train-rows", choices=("all", "trigger"), default="all",
                        help="trigger: only <NEED> and <DONE> change (features taken --no-selection)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    meta, records, states, matrix = load_features(args.features)
    pack = json.loads((args.pack / "pack.json").read_text())
    texts = [t["text"] for t in pack["tokens"]]
    control_ids = [t["id"] for t in pack["tokens"]]
    if [meta["controlTokens"][text] for text in texts] != control_ids:
        raise SystemExit("the features were extracted with other control ids than the pack's; extract them again")
    hidden = pack["hidden"]
    packed_rows = np.fromfile(args.pack / pack["rows"]["file"], dtype="<f4").reshape(len(texts), 2, hidden)
    start_rows = torch.from_numpy(packed_rows[:, 1, :].copy())
    slots = {name: texts.index(f"<{name.upper()}>") for name in ("need", "done", "keep", "drop")}
    trigger = pack.get("trigger", "pair")
    trainable = None
    if args.train_rows == "trigger":
        trainable = torch.zeros(len(texts))
        trainable[[slots["need"], slots["done"]]] = 1.0

    log_z = base_log_partition(states, matrix, control_ids)
    gen_rows = sorted({row for r in records for row in r["generationRows"]})
    row_target = {row: y for r in records for row, y in zip(r["generationRows"], r["generationTargets"])}
    gen_logits = target_logits(states, matrix, gen_rows, [row_target[row] for row in gen_rows])
    gen_index = {row: i for i, row in enumerate(gen_rows)}
    def make_data(subset):
        return Data(subset, log_z, gen_logits, gen_index, slots)

    train = make_data([r for r in records if r["split"] == "train"])
    val = make_data([r for r in records if r["split"] == "val"])
    start = evaluate(states, val if val.records else train, start_rows, slots, trigger)
    print(f"start ({'val' if val.records else 'train'}): trigger AUC {start['trigger_auc']}, full-helps {start['trigger_auc_full_helps']}, "
          f"KEEP AUC {start['keep_auc']}")
    grid = [float(value) for value in args.l2.split(",")]
    if len(grid) > 1:
        l2, cv_table = choose_l2(states, train.records, make_data, start_rows, grid, args.folds, args.epochs, args.lr, trainable)
    else:
        l2, cv_table = grid[0], []
    best_weights = fit(states, train, start_rows, l2, args.epochs, args.lr, trainable)

    final = {"train": evaluate(states, train, best_weights, slots, trigger), "val": evaluate(states, val, best_weights, slots, trigger)}
    threshold = tune_threshold(final["val"]["need_probability"], val.records) if val.records else {"t_c": 0.5, "es": None, "need_rate": None}
    for split in final.values():
        split.pop("need_probability")
    args.out.mkdir(parents=True, exist_ok=True)
    best_weights.numpy().astype("<f4").tofile(args.out / "output_rows.f32")
    metrics = {
        "features": str(args.features), "source": meta["source"], "trigger_target": meta.get("triggerTarget", "verified"),
        "adapter": meta.get("adapter"), "train_rows": args.train_rows, "epochs": args.epochs, "lr": args.lr,
        "lambda_R": LAMBDA_R, "lambda_S": LAMBDA_S, "trigger": trigger, "l2": l2, "cross_validation": cv_table, "folds": args.folds,
        "start": {k: v for k, v in start.items() if k != "need_probability"}, **final, "threshold": threshold,
    }
    (args.out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(json.dumps({k: metrics[k] for k in ("l2", "cross_validation", "threshold")}))
    for name in ("train", "val"):
        m = final[name]
        print(f"{name}: {m['instances']} instances, loss {m['loss']:.4f} (L_R {m['L_R']:.3f} L_S {m['L_S']:.3f} L_Y {m['L_Y']:.3f}), "
              f"trigger AUC {m['trigger_auc']} (pair {m['trigger_auc_pair']}, vocabulary {m['trigger_auc_vocabulary']}, "
              f"full-helps {m['trigger_auc_full_helps']}), KEEP AUC {m['keep_auc']}")


if __name__ == "__main__":
    main()
