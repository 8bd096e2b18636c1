#!/usr/bin/env bash
# The bench runs issue 20's must-reaches ask for, on the 0.5B derived with the committed control
# pack, resumable across sessions (every run journals its results; run the script again to go on):
#
#   models/controlRows/evaluate-qwen.sh [OUT]      # default ~/.cache/reposhapley/eval-qwen2.5-coder-0.5b
#
#   1. t_c on the validation packages only: none and reposhapley at t_c 0 (NEED everywhere), then
#      the sweep (models/labeling/tuneThreshold.ts).
#   2. the dev bench, 300 tasks, seed 1: none, full and reposhapley at that t_c (EM/ES, prompt
#      tokens, the API evidence table's KEEP AUC), paired with bootstrap CIs.
#   3. the trigger on the dev tasks: reposhapley at t_c 0 beside step 2's none (--diagnose AUC).
#
# TC_LIMIT and DEV_LIMIT (default 200 and 300) shrink the runs for a smoke test; use another OUT.
# REUSE_DEV=DIR takes step 2's none and full from a run of the same model, tasks and settings
# (bench --reuse; issue 18's protocol run is one), which saves two thirds of that step.
# A folder resumed after the pack changed (rows, adapter) mixes two models: delete it first.
# Two threads, two cores: the labeler is paused while this runs and resumed when it stops (a bench
# beside it measures neither well). On the Intel Xeon of 2026-12-04 expect about two hours in all.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="${1:-$cache/eval-qwen2.5-coder-0.5b}"
mkdir -p "$out"

source models/controlRows/model-work-setup.sh
# --model names the file, so the pack's adapter is named too: the configuration the server runs.
adapter=models/control/qwen2.5-coder-0.5b/adapter.gguf
adapter_flag=()
[[ -f "$adapter" ]] && adapter_flag=(--adapter "$adapter")
bench() { node dist/bench/src/cli.js --model "$model" "${adapter_flag[@]}" --threads 2 --seed 1 --resume --no-progress "$@"; }

echo "1/3 t_c on the validation packages -> $out/tc"
bench --policies none,reposhapley --need-threshold 0 --packages "$validation" --tasks line,api --limit "${TC_LIMIT:-200}" --out "$out/tc"
node dist/models/labeling/tuneThreshold.js "$out/tc/results.json" | tee "$out/tc/sweep.md"
t_c=$(sed -n 's/^export with: --need-threshold //p' "$out/tc/sweep.md")

# The dev runs name the server's default budgets, so that they pair with (and can --reuse the
# none and full of) issue 18's run of the same model: REUSE_DEV=ITS_REPORT_FOLDER.
dev_budgets=384,64,384
reuse=()
[[ -n "${REUSE_DEV:-}" ]] && reuse=(--reuse "$REUSE_DEV")
echo "2/3 the dev bench at t_c $t_c -> $out/dev"
bench --policies none,full,reposhapley --need-threshold "$t_c" --tasks line,api,block --limit "${DEV_LIMIT:-300}" \
  --budgets "$dev_budgets" "${reuse[@]}" --out "$out/dev"

echo "3/3 the trigger on the dev tasks -> $out/dev-no-trigger"
# When step 1 chose t_c 0 this run is step 2's reposhapley arm: --reuse takes it rather than measure it twice.
bench --policies reposhapley --need-threshold 0 --tasks line,api,block --limit "${DEV_LIMIT:-300}" --budgets "$dev_budgets" \
  --reuse "$out/dev" --out "$out/dev-no-trigger"
node dist/models/labeling/tuneThreshold.js --diagnose "$out/dev-no-trigger/results.json" --done-from "$out/dev/results.json" \
  | tee "$out/dev-no-trigger/trigger.md"
echo "reports: $out/dev/summary.md, $out/tc/sweep.md, $out/dev-no-trigger/trigger.md"
