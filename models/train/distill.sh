#!/usr/bin/env bash
# RepoShapley distillation end to end (issue 5; docs/labeling.md): ChunkShapley labels ->
# distillation shards -> fine-tune of the labeled generator's weights -> GGUF with the control
# tokens marked trained -> t_c tuned on the validation packages -> the final GGUF.
#
#   models/train/distill.sh --labels DIR --base WEIGHTS.pt --out OUT.gguf \
#     [--run NAME] [--source shapley|delta|unverified] [--min-es TAU] [--epochs 2 | --steps N] [--replay 1[,R2]] \
#     [--base-data INDEX[,INDEX2]] [--replay-formats lm,fim,rag] [--lr 1.2e-4] [--copy-drills 0.25] [--tc-limit 600]
#
# WEIGHTS.pt must be the weights of the GGUF that labeled DIR (labels belong to their
# generator). --base-data is the set replayed against forgetting: the base model's own
# fine-tuning set (its prompts have the same cursor echo); a comma-separated list replays from
# several sets, with --replay one ratio for all or one each (--replay 0.5,0.5). THREADS (default 2) is used by the
# trainer and the t_c bench. Copy drills (train.py --copy-drills) stay in the mix as in the base
# model's last fine-tune: without them the induction probe went from 2.2 to 9.7 nats (worse than
# chance) in 25 steps of the first distillation, i.e. the model stopped copying from its context.
# --min-es relabels the Shapley labels at another τ_es (buildDistillData.ts). --steps fixes the
# fine-tune's length instead of --epochs: the ablations (--source delta or unverified keep every
# labeled instance, about 4x the Shapley set) are compared at the Shapley run's compute, not at
# its epochs. Re-running with the same --run resumes the fine-tune where it stopped; everything
# else is rebuilt. Work files go to $REPOSHAPLEY_CACHE/distill-runs/NAME.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
python="${PYTHON:-/usr/bin/python3}"
threads="${THREADS:-2}"
# t_c is tuned on the corpus's validation split (models/corpus/splits.ts), never on benchmarks.
validation_packages=$(node --input-type=module -e \
  'import { VALIDATION_PACKAGES } from "./dist/models/corpus/splits.js"; console.log(VALIDATION_PACKAGES.join(","))')

labels='' base='' out='' run=distill source=shapley min_es=() epochs=2 fixed_steps='' replay=1 lr=1.2e-4 drills=0.25 tc_limit=600
base_data="$cache/data-echo-ol2/index.json" replay_formats=lm,fim,rag
while [[ $# -gt 0 ]]; do
  case "$1" in
    --labels) labels="$2" ;;
    --base) base="$2" ;;
    --out) out="$2" ;;
    --run) run="$2" ;;
    --source) source="$2" ;;
    --min-es) min_es=(--min-es "$2") ;;
    --epochs) epochs="$2" ;;
    --steps) fixed_steps="$2" ;;
    --replay) replay="$2" ;;
    --base-data) base_data="$2" ;;
    --replay-formats) replay_formats="$2" ;;
    --lr) lr="$2" ;;
    --copy-drills) drills="$2" ;;
    --tc-limit) tc_limit="$2" ;;
    *) echo "distill: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -n "$labels" && -n "$base" && -n "$out" ]] || { echo "distill: --labels, --base and --out are required" >&2; exit 2; }
work="$cache/distill-runs/$run"
mkdir -p "$work"
say() { printf '== distill %s: %s\n' "$(date +%H:%M:%S)" "$*"; }

say "shards from $labels (source $source)"
nice -n 10 node dist/models/data/buildDistillData.js --labels "$labels" --source "$source" "${min_es[@]}" --base-data "$base_data" \
  --replay-formats "$replay_formats" --replay "$replay" --out "$work/data" | tail -3

# Steps for the asked epochs over the train split plus its replay, at the trainer's default
# 4 x 4 windows of the index's context a step, of which the drills take their share.
read -r steps step_tokens < <("$python" -c '
import json, math, sys
index = json.load(open(sys.argv[1]))
tokens = index["splits"]["train"]["tokens"] + index["replay"]["tokens"]
step_tokens = 4 * 4 * index["contextSize"]
data_per_step = step_tokens * (1 - float(sys.argv[3]))
print(max(1, math.ceil(float(sys.argv[2]) * tokens / data_per_step)), step_tokens)' "$work/data/index.json" "$epochs" "$drills")
if [[ -n "$fixed_steps" ]]; then
  steps="$fixed_steps"
  say "fine-tune $run: $steps steps (--steps)"
else
  say "fine-tune $run: $steps steps ($epochs epochs)"
fi
THREADS="$threads" models/train/run.sh --run "$run" --data "$work/data/index.json" --init-weights "$base" \
  --lr "$lr" --min-lr 3e-5 --warmup-steps 10 --total-tokens $((steps * step_tokens)) --max-steps "$steps" \
  --copy-drills "$drills" --loss-per sequence --eval-every 25 --checkpoint-minutes 5 > "$work/train.log"
grep '"event": "stop"' "$work/train.log"

say "export (control tokens trained)"
"$python" models/train/dump.py --from "$cache/checkpoints/$run/best.pt" --out "$work/model.tensors" \
  --weights-out "$work/weights.pt" > /dev/null
export_gguf() {
  node dist/models/export/exportGguf.js --dump "$work/model.tensors" --tokenizer models/default/tokenizer.json \
    --type q8_0 --echo-lines 2 --control-trained "$@"
}
export_gguf --out "$work/untuned.gguf"

# All three task types, as the bench has them, 200 of each: the first distillation's sweep on
# 200 line and API tasks picked its t_c from a trigger without measurable skill (AUC 0.58 over
# 132 decisive tasks, docs/history/2026-12-01-labeling-small-model-distillation.md), so the sweep needs more tasks than that.
say "t_c on the validation packages ($tc_limit line, API and block tasks)"
node dist/bench/src/cli.js --model "$work/untuned.gguf" --policies none,reposhapley --need-threshold 0 \
  --tasks line,api,block --limit "$tc_limit" --packages "$validation_packages" --threads "$threads" \
  --out "$work/tc" --no-progress > "$work/tc.log" 2>&1
node dist/models/labeling/tuneThreshold.js "$work/tc/results.json" | tee "$work/tc.md"
threshold=$(node dist/models/labeling/tuneThreshold.js "$work/tc/results.json" --json |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).best.threshold))')

export_gguf --need-threshold "$threshold" --out "$out"
say "wrote $out (t_c $threshold; weights $work/weights.pt)"
