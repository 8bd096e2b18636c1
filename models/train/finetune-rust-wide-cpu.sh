#!/usr/bin/env bash
# The 0.5B's languages adapter trained one epoch further with Rust weighted heavier (issue 51:
# Rust's API `full − none` with the 0.5B; docs/training.md, "A Rust-weighted epoch over 39 crates"):
# the shipped languages adapter (its committed checkpoint) as the start, then one generation-only
# epoch (L_Y after the `full` policy's prompt; rank 8 on q, k, v, o, lr 2e-4, batches of 1,024
# tokens, bf16) over bench-style line and API tasks of training repositories: Rust's from
# task-packages/rust-train-wide.txt (the 18 crates of the languages epoch and 21 more), the other
# languages' from their usual lists so that they are not forgotten. The draw is seed 3, not the
# languages epoch's seed 1, so most tasks are new to the adapter. Every step resumes.
#
#   models/train/finetune-rust-wide-cpu.sh [OUT]      # default ~/.cache/reposhapley/finetune-rust-wide
#
#   1. the sequences (taskSequences.js, no model calls; the new crates are downloaded first);
#   2. the epoch, checkpointed every 10 minutes in OUT/lora; STOP_AFTER=SECONDS stops it in time;
#   3. a candidate adapter, OUT/lora/lora.gguf, for bench --adapter;
#   4. the shipped adapter (or BASELINE_ADAPTER) against the candidate, paired (task-finetune-steps.sh).
#
# Run it with REPOSHAPLEY_PYTHON= a Python with torch 2.13 (docs/training.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="${1:-$cache/finetune-rust-wide}"
source models/train/task-finetune-steps.sh   # lists, pack, model, python, finetune_step, compare_adapters

echo "1/4 sequences of bench-style tasks, Rust's from 39 crates -> $out/sequences"
RUST_TRAIN_LIST="$lists/rust-train-wide.txt" task_sequences_step "500 150" "80 40" "60 40" 20 --seed 3

finetune_step "$model" "$pack/training/rust-wide-lora-checkpoint.pt" --bf16 --generation-only \
  --init-from "$(pwd)/$pack/training/languages-lora-checkpoint.pt"
echo "3/4 candidate adapter: $out/lora/lora.gguf"

echo "4/4 the bench, the shipped adapter against the candidate: validation packages, then the dev bench"
compare_adapters "$out/lora/lora.gguf" "${BASELINE_ADAPTER:-$pack/adapter.gguf}"
