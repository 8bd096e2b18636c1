#!/usr/bin/env bash
# The 1.5B's generation adapter on two CPU cores (issue 48; docs/training.md, "An adapter for the
# 1.5B"): the 0.5B's F2 recipe (rank-8 LoRA on q, k, v, o, lr 2e-4, batches of 1,024 tokens, one
# epoch) with L_Y alone (`--generation-only`: the 1.5B ships no control rows, so no decision is
# trained or read), Y read after the full policy's prompt, and bf16 autocast, on the 1.5B's base
# file as pulled. Every step resumes: run it again to go on.
#
#   models/train/finetune-1.5b-cpu.sh [OUT]      # default ~/.cache/reposhapley/finetune-1.5b
#
#   1. the token sequences of the committed labels (extractFeatures --sequences --evidence full: Y
#      after the full policy's prompt for every record that rebuilds, labeled or not; no model calls;
#      the 0.5B's derived file tokenizes: the two models share one vocabulary). The first run
#      (2026-12-06, not adopted) read Y after the verified evidence of 366 instances instead.
#   2. the epoch, checkpointed every 10 minutes in OUT/lora; with no checkpoint there it resumes from
#      one committed in models/adapters/qwen2.5-coder-1.5b/training/lora-checkpoint.pt (none now)
#      if that run's sequences are these; STOP_AFTER=SECONDS stops it (checkpointed) in time.
#   3. a candidate adapter pack in OUT/candidate (the committed pack, if any, stays).
#   4. full (POLICIES, e.g. "none,full") on the validation packages' line and API tasks (VAL_LIMIT,
#      default 100), the 1.5B without and with the candidate, paired.
#
# Run it with REPOSHAPLEY_PYTHON= a Python with torch 2.13 (docs/training.md). Cost on the Intel Xeon
# with AMX (2 threads, torch 2.13 CPU wheel, bf16), 2026-12-06: the first run's 235 batches of 1,024
# tokens at 6-10 s each (fp32: ~16 s), 15-17 GB of memory (the 1.5B's weights in float32); the
# second run's at 9-13 s each as the machine's speed varied, 20 GB; step 4 ~8 s a task.
# The first run was not adopted (docs/history/2026-12-06-1.5b-adapter-first-run.md); the second, on
# these sequences (834 training instances, 825 batches, 2026-12-06 20:53 to 2026-12-07 01:51 UTC),
# is the adapter pack in models/adapters/qwen2.5-coder-1.5b/ (docs/training.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="${1:-$cache/finetune-1.5b}"
gguf_dir="$cache/python/gguf-0.19.0"   # llama.cpp's GGUF reader, unpacked by .ci/run
name=qwen2.5-coder-1.5b
mkdir -p "$out"
source models/controlRows/model-work-setup.sh   # pack, model (the 0.5B's), manifest, python, validation
node dist/server/src/main.js model pull "$name" >/dev/null
base="$(node dist/server/src/main.js model path "$name")"
source models/train/finetune-cpu-steps.sh     # sequences_step, finetune_step

sequences_step --evidence full
finetune_step "$base" "models/adapters/$name/training/lora-checkpoint.pt" --bf16 --generation-only --no-initial-eval

echo "3/4 candidate adapter pack -> $out/candidate"
[[ -f "$out/candidate/adapter.gguf" ]] || node dist/models/controlRows/packTool.js adapter "$name" \
  --adapter "$out/lora/lora.gguf" --provenance "$out/lora/metrics.json" --out "$out/candidate"

policies="${POLICIES:-full}"
echo "4/4 $policies on the validation packages, the 1.5B without and with the candidate"
bench() { node dist/bench/src/cli.js --model "$base" --threads 2 --seed 1 --resume --no-progress --policies "$policies" \
  --packages "$validation" --tasks line,api --limit "${VAL_LIMIT:-100}" "$@"; }
bench --out "$out/val-base"
bench --adapter "$out/candidate/adapter.gguf" --out "$out/val-adapter"
for policy in ${policies//,/ }; do
  node dist/bench/src/compare/cli.js "$out/val-adapter/results.json:$policy" "$out/val-base/results.json:$policy" | tee "$out/compare-$policy.md"
done
