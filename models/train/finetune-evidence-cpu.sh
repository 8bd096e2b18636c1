#!/usr/bin/env bash
# The 0.5B's adapter taught to copy from the evidence (issue 51; docs/training.md, "Training on
# the tasks that need the evidence"): the shipped languages adapter (its committed checkpoint) as
# the start, then one generation-only epoch (L_Y after the `full` policy's prompt; rank 8 on q, k, v,
# o, lr 2e-4, batches of 1,024 tokens, bf16) over the bench-style line and API tasks of training
# repositories whose target names an identifier that only a packed candidate holds
# (taskSequences --evidence-only): the completions `none` cannot write from the file alone. Rust's
# API tasks, where `full − none` was smallest, weigh most. The task draw is seed 2, not the seed 1
# of the languages epoch, so most tasks are new to the adapter. Every step resumes.
#
#   models/train/finetune-evidence-cpu.sh [OUT]      # default ~/.cache/reposhapley/finetune-evidence
#
#   1. the sequences (taskSequences.js, no model calls);
#   2. the epoch, checkpointed every 10 minutes in OUT/lora; STOP_AFTER=SECONDS stops it in time;
#   3. a candidate adapter, OUT/lora/lora.gguf, for bench --adapter;
#   4. the shipped adapter (or BASELINE_ADAPTER) against the candidate, paired (task-finetune-steps.sh).
#
# Run it with REPOSHAPLEY_PYTHON= a Python with torch 2.13 (docs/training.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="${1:-$cache/finetune-evidence}"
source models/train/task-finetune-steps.sh   # lists, pack, model, python, finetune_step, compare_adapters

echo "1/4 sequences of the evidence-only tasks of the training packages -> $out/sequences"
task_sequences_step "600 300" "150 80" "120 80" 40 --evidence-only --seed 2

finetune_step "$model" "$pack/training/evidence-lora-checkpoint.pt" --bf16 --generation-only \
  --init-from "$(pwd)/$pack/training/languages-lora-checkpoint.pt"
echo "3/4 candidate adapter: $out/lora/lora.gguf"

echo "4/4 the bench, the shipped adapter against the candidate: validation packages, then the dev bench"
compare_adapters "$out/lora/lora.gguf" "${BASELINE_ADAPTER:-$pack/adapter.gguf}"
