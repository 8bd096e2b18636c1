#!/usr/bin/env bash
# The 0.5B's adapter trained further on four languages (issue 51; docs/training.md, "The adapter
# in four languages"): the shipped F2 adapter (its committed checkpoint) as the start, then one
# generation-only epoch (L_Y alone, Y after the `full` policy's prompt; rank 8 on q, k, v, o,
# lr 2e-4, batches of 1,024 tokens, bf16) over bench-style line and API tasks of training
# repositories in Rust, Go, JavaScript and Python (models/controlRows/task-packages/, disjoint from
# every bench list). The control rows stay the pack's. Every step resumes: run it again to go on.
#
#   models/train/finetune-languages-cpu.sh [OUT]      # default ~/.cache/reposhapley/finetune-languages
#
#   1. the sequences (taskSequences.js, no model calls: about a minute a language once the
#      packages are downloaded);
#   2. the epoch, checkpointed every 10 minutes in OUT/lora; STOP_AFTER=SECONDS stops it in time;
#      with no checkpoint there it resumes from the committed one of the run that ships
#      (models/control/qwen2.5-coder-0.5b/training/languages-lora-checkpoint.pt, at the epoch's end)
#      when the sequences are that run's, so it only validates and writes the adapter;
#   3. a candidate adapter, OUT/lora/lora.gguf, for bench --adapter (the derived model is the
#      pack's: the rows are not changed). The run of 2026-12-07 was adopted with
#      `packTool update qwen2.5-coder-0.5b --rows <the pack's rows.f32> --adapter OUT/lora/lora.gguf
#      --no-trained --need-threshold 0 --provenance P.json` (docs/training.md);
#   4. the shipped adapter and the candidate, paired (OUT/compare-*.md): first on the validation
#      packages (Rust's API tasks with none and full; full on line and API tasks of the others,
#      VAL_LIMIT of them, default 40), then on the dev bench (Rust's 100 API tasks with none and
#      full, then full on DEV_LIMIT line and API tasks of each other language, default 100).
#
# Run it with REPOSHAPLEY_PYTHON= a Python with torch 2.13 (docs/training.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="${1:-$cache/finetune-languages}"
source models/train/task-finetune-steps.sh   # lists, pack, model, python, finetune_step, compare_adapters

echo "1/4 sequences of bench-style tasks of the training packages -> $out/sequences"
# API tasks weigh most where cross-file evidence matters; Rust's API tasks are where the F2
# adapter fell short (docs/benchmarks.md), so Rust has the most.
task_sequences_step "200 100" "80 40" "60 40" 20

finetune_step "$model" "$pack/training/languages-lora-checkpoint.pt" --bf16 --generation-only --init-from "$(pwd)/$pack/training/f2-lora-checkpoint.pt"
echo "3/4 candidate adapter: $out/lora/lora.gguf"

echo "4/4 the bench, the shipped adapter against the candidate: validation packages, then the dev bench"
# The "shipped" arm: the pack's adapter, or BASELINE_ADAPTER. Since the adoption the pack's adapter
# is this run's; the adoption's baseline was F2's, `git show 600b080:models/control/qwen2.5-coder-0.5b/adapter.gguf`.
compare_adapters "$out/lora/lora.gguf" "${BASELINE_ADAPTER:-$pack/adapter.gguf}"
