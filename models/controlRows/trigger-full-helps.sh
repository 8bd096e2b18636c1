#!/usr/bin/env bash
# The trigger trained on the full-helps target (issue 20; docs/control-tokens.md, "What the
# trigger is asked"), from the committed labels to the dev bench's diagnosis, resumable: run it
# again to go on where it stopped (features, bench journals).
#
#   models/controlRows/trigger-full-helps.sh [OUT]      # default ~/.cache/reposhapley/trigger-full-helps
#
#   1. features: the trigger's and the completion's states read through the pack's adapter, every
#      record labeled NEED where Full-Retrieve decodes better than none (--no-selection).
#   2. the rows of <NEED> and <DONE> only, the l2 penalty by cross-validation over training
#      repositories; the report compares them with the committed rows on the validation records.
#   3. a variant pack with those rows (the committed pack and the model cache stay as they are).
#   4. the dev bench, line and API tasks: full and reposhapley at t_c 1 with the variant (P(NEED)
#      is read at the cost of none, whose completion its DONE branch is), and reposhapley at t_c 1
#      with the committed pack, the baseline.
#   5. the diagnosis of each: AUC of P(NEED) at ranking the tasks where full beats none.
#
# DEV_LIMIT (default 200) shrinks step 4; LABELS (label folders, comma-separated; default the
# committed labels and the labeler's cache folder) gives step 1 other records, for a smoke test. Two threads; the labeler is paused while this runs.
# On the AMD EPYC of 2026-12-04 step 1 reads ~4 records a minute (795 records: ~3 hours).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="${1:-$cache/trigger-full-helps}"
mkdir -p "$out"

source models/controlRows/model-work-setup.sh
adapter="$pack/adapter.gguf"

echo "1/5 features -> $out/features"
labels=()
[[ -n "${LABELS:-}" ]] && labels=(--labels "$LABELS")
node dist/models/controlRows/extractFeatures.js "${labels[@]}" --model "$model" --adapter "$adapter" --trigger-target full-helps \
  --no-selection --manifest "$manifest" --threads 2 --out "$out/features"

echo "2/5 the trigger's rows -> $out/rows"
"$python" models/train/control_rows.py --features "$out/features" --pack "$pack" --out "$out/rows" --train-rows trigger

echo "3/5 the variant pack -> $out/variant"
node dist/models/controlRows/packTool.js variant qwen2.5-coder-0.5b --out "$out/variant" --output-rows "$out/rows/output_rows.f32" \
  --adapter "$adapter" --need-threshold 1 --provenance "$out/rows/metrics.json"
variant_model="$out/variant/$(basename "$model")"  # a variant's derived file is named as the cache's

bench() { node dist/bench/src/cli.js --adapter "$adapter" --threads 2 --seed 1 --resume --no-progress \
  --tasks line,api --limit "${DEV_LIMIT:-200}" --budgets 384,64,384 --need-threshold 1 "$@"; }
echo "4/5 the dev bench -> $out/dev-variant, $out/dev-committed"
bench --model "$variant_model" --policies full,reposhapley --out "$out/dev-variant"
bench --model "$model" --policies reposhapley --out "$out/dev-committed"

echo "5/5 the diagnosis"
# Full-Retrieve's completions do not depend on the rows (generation masks the control tokens):
# the variant's run serves both.
for run in dev-variant dev-committed; do
  echo "== $run"
  node dist/models/labeling/tuneThreshold.js --diagnose --need-branch full "$out/$run/results.json" \
    --full-from "$out/dev-variant/results.json" | tail -2
done
