#!/usr/bin/env bash
# The paper's F2 generation term on two CPU cores (issue 20; docs/training.md, "The F2
# fine-tune on two CPU cores"): the shipped LoRA recipe, with Y read after each NEED instance's
# verified evidence (`--completion-after evidence`), then the candidate benched beside the shipped
# adapter on the validation packages. Hours of CPU, so every step resumes: run it again to go on.
#
#   models/train/finetune-f2-cpu.sh [OUT]      # default ~/.cache/reposhapley/finetune-f2
#
#   1. the token sequences of the committed labels (extractFeatures --sequences; no model calls).
#   2. one epoch of the LoRA and the control rows, checkpointed every 10 minutes in OUT/lora. With no
#      checkpoint there, it resumes from the committed one (models/control/qwen2.5-coder-0.5b/training/),
#      if that run's sequences are these; STOP_AFTER=SECONDS stops it (checkpointed) in time.
#   3. a variant pack with the trained rows and adapter (the committed pack stays as it is).
#   4. none, full and reposhapley (t_c 0) on the validation packages' line and API tasks (VAL_LIMIT,
#      default 200), with the shipped adapter and with the candidate, paired: does reading Y after the
#      evidence widen full − none, does it cost none anything, and does the selection still rank the
#      callee's definition (the API evidence table's P(KEEP) AUC)? The candidate's rows carry the
#      selection too: F2 was adopted on none and full alone, and its selection turned out to rank the
#      definition at 0.35 on the dev bench, against 0.76 for the rows it replaced (docs/history/2026-12-05-bench-f2-adapter.md).
#      The AUC is in each arm's summary.md ("Cross-file evidence on API tasks"). A folder benched
#      before step 4 named reposhapley holds another run's journal, which --resume refuses: use a new OUT.
#
# On the AMD EPYC of 2026-12-04/05 (AVX2, two threads): 305 batches, 9,361 s of training over two
# runs (~23 s a batch idle), 1,129 s for its validation. Step 4 runs ~13-17 s a task for none and
# full and 22-27 s (p50, API and line) for reposhapley (2026-12-05): 80 API tasks took
# 2,764 s (shipped) and 2,302 s (candidate) for none and full, so the default 200 line and API tasks
# with reposhapley are about three hours a side. The labeler is paused meanwhile.
#
# Adopted 2026-12-05 (docs/history/2026-12-05-control-f2-adapter.md): the committed pack now holds this run's rows and
# adapter, so step 4's "shipped" arm is the candidate itself. To pair a new candidate with what ships,
# keep it that way; to reproduce the adoption's comparison, bench the pack of edda308 instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="${1:-$cache/finetune-f2}"
gguf_dir="$cache/python/gguf-0.19.0"   # llama.cpp's GGUF reader, unpacked by .ci/run
mkdir -p "$out"
source models/controlRows/model-work-setup.sh   # pack, model, manifest, python, validation
source models/train/finetune-cpu-steps.sh     # sequences_step, finetune_step

sequences_step
finetune_step "$model" "$pack/training/f2-lora-checkpoint.pt" --no-initial-eval

echo "3/4 variant pack -> $out/variant"
[[ -f "$out/variant/adapter.gguf" ]] || node dist/models/controlRows/packTool.js variant qwen2.5-coder-0.5b --out "$out/variant" \
  --rows "$out/lora/rows.f32" --adapter "$out/lora/lora.gguf" --need-threshold 0

echo "4/4 none, full and reposhapley on the validation packages, shipped adapter and candidate"
bench() { node dist/bench/src/cli.js --threads 2 --seed 1 --resume --no-progress --policies none,full,reposhapley --need-threshold 0 \
  --packages "$validation" --tasks line,api --limit "${VAL_LIMIT:-200}" "$@"; }
bench --model "$model" --adapter "$pack/adapter.gguf" --out "$out/val-shipped"
bench --model "$out/variant/$(basename "$model")" --adapter "$out/variant/adapter.gguf" --out "$out/val-f2"
for policy in none full reposhapley; do
  node dist/bench/src/compare/cli.js "$out/val-f2/results.json:$policy" "$out/val-shipped/results.json:$policy" | tee "$out/compare-$policy.md"
done
