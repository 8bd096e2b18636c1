#!/usr/bin/env bash
# CI smoke run of the model pipeline, tiny (issue 4 item 7):
#   tokenizer -> token shards -> a few training steps -> checkpoint -> resume -> tensor dump ->
#   GGUF export (f32 and q8_0) -> load in node-llama-cpp -> parity with torch's logits.
#
#   models/smoke.sh            (about a minute on 2 cores; prints the wall time)
#
# Inputs, all optional:
#   SMOKE_TOKENIZER  tokenizer artifact (default models/default/tokenizer.json when present,
#                    else a small test tokenizer is written)
#   SMOKE_DATA       shard index from the data builder (default: synthetic shards of that vocabulary)
#   PYTHON           python with torch (default /usr/bin/python3, Debian's python3-torch)
# Needs: node_modules installed, python3-torch (CI: apt-get install -y --no-install-recommends
# python3-torch libopenblas0-pthread).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s%N)
python="${PYTHON:-/usr/bin/python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/reposhapley-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
step() { local ms=$(( ($(date +%s%N) - started) / 1000000 )); printf '== smoke %4d.%ds: %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*"; }
export PYTHONDONTWRITEBYTECODE=1

"$python" -c 'import torch' 2>/dev/null || {
  echo "smoke: $python cannot import torch; apt-get install -y --no-install-recommends python3-torch libopenblas0-pthread" >&2
  exit 1
}

step "build models/export (tsc)"
npx tsc -p models/export/tsconfig.json

tokenizer="${SMOKE_TOKENIZER:-models/default/tokenizer.json}"
if [[ ! -f "$tokenizer" ]]; then
  tokenizer="$work/tokenizer.json"
  node dist/models/export/testTokenizer.js "$tokenizer" >/dev/null
  step "no tokenizer artifact: using the test tokenizer"
fi
vocab=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).tokens.length)' "$tokenizer")
step "tokenizer $tokenizer ($vocab tokens)"

data="${SMOKE_DATA:-}"
if [[ -z "$data" ]]; then
  data=$("$python" -c 'import sys; sys.path.insert(0, "models/train"); from data import write_synthetic_shards as w; print(w(sys.argv[1], int(sys.argv[2]), sequences=48, length=200))' "$work/shards" "$vocab")
  step "synthetic shards $data"
fi

train=(--run smoke --run-dir "$work/run" --data "$data" --vocab-size "$vocab" --size tiny --seq-len 128
  --batch-size 2 --grad-accum 1 --warmup-steps 5 --lr 3e-3 --total-tokens 10000 --eval-every 10 --log-every 10
  --val-tokens 2048)
NICE="${NICE:-10}" models/train/run.sh "${train[@]}" --max-steps 15 > "$work/train1.log"
NICE="${NICE:-10}" models/train/run.sh "${train[@]}" --max-steps 30 > "$work/train2.log"
grep -q '"event": "resume"' "$work/train2.log" || { echo "smoke: second run did not resume" >&2; exit 1; }
step "trained 30 steps (15 + 15 after resume): $(grep '"event": "stop"' "$work/train2.log")"

checkpoint=$(ls "$work"/run/step-*.pt | tail -1)
"$python" -c 'import json, sys; v = int(sys.argv[1]); print(json.dumps([(i * 7919 + 13) % v for i in range(48)] + list(range(v - 29, v))))' "$vocab" > "$work/tokens.json"
"$python" models/train/dump.py --from "$checkpoint" --out "$work/model.tensors" --tokens "$work/tokens.json" \
  --logits-out "$work/logits.f32" --weights-out "$work/weights.pt" >/dev/null
step "dumped $checkpoint"

status=0
for type in f32 q8_0; do
  node dist/models/export/exportGguf.js --dump "$work/model.tensors" --tokenizer "$tokenizer" \
    --out "$work/model-$type.gguf" --type "$type" --name reposhapley-smoke
  if [[ "$type" == f32 ]]; then flags=(--exact --tolerance 0.001); else flags=(--tolerance 0.5); fi
  node dist/models/export/parity.js --gguf "$work/model-$type.gguf" --tokens "$work/tokens.json" \
    --logits "$work/logits.f32" --threads 2 "${flags[@]}" || status=1
  step "exported and checked $type"
done

# The committed-weights path: a new run starts from the fp16 weights file.
NICE="${NICE:-10}" models/train/run.sh "${train[@]}" --run-dir "$work/run2" --init-weights "$work/weights.pt" \
  --max-steps 2 > "$work/train3.log"
step "--init-weights run: $(grep '"event": "stop"' "$work/train3.log")"

step "done (status $status)"
exit $status
