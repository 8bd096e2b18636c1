#!/usr/bin/env bash
# The control fine-tune (control_finetune.py) on a GPU: the paper's full fine-tune and the
# shippable LoRA, side by side on one card, from the derived model and the labeled sequences.
#
# On a machine with a GPU and the model pulled:
#   node dist/models/controlRows/extractFeatures.js --manifest ~/.cache/reposhapley/corpus-manifest.tsv.gz --sequences
#   MODEL=~/.cache/reposhapley/models/<derived>.gguf SEQUENCES=~/.cache/reposhapley/control-sequences-shapley/sequences.jsonl \
#     models/train/finetune-gpu.sh
#
# On the lent device (a call carries at most 64 MiB and the machine reaches no network), the
# derived file travels in parts over several calls while the machine stays warm; each call moves
# its part out of the tree, and the last one assembles them (docs/training.md, "The fine-tune on a lent GPU", has the recipe):
#   here:   split -b 55M -d -a 2 DERIVED.gguf, one part per folder .gpu-ft00 .. .gpu-ftNN
#           (the last also holds the gguf wheel and sequences.jsonl)
#   device: PARTS=.gpu-ftKK ASSEMBLE=0 models/train/finetune-gpu.sh   for each folder but the last,
#           then PARTS=.gpu-ftNN models/train/finetune-gpu.sh          (assembles and trains)
# The assembled file must hash to the pack's pinned derived sha256, or nothing runs.
#
# Environment: MODEL or PARTS; SEQUENCES (default $PARTS/sequences.jsonl); OUT (default /tmp/ft-out);
# MODES (default "lora full"); EPOCHS_LORA (6), EPOCHS_FULL (4); EXTRA (more control_finetune.py
# arguments); PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-python3}"
out="${OUT:-/tmp/ft-out}"
pack=models/control/qwen2.5-coder-0.5b
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

if [[ -n "${PARTS:-}" ]]; then
  work=/tmp/ft-parts
  mkdir -p "$work"
  # Parts that came in earlier calls were moved here already; take this call's.
  find "$PARTS" -maxdepth 1 -name 'model.part*' -exec mv {} "$work/" \;
  find "$PARTS" -maxdepth 1 \( -name '*.whl' -o -name 'sequences.jsonl' \) -exec cp {} "$work/" \;
  if [[ "${ASSEMBLE:-1}" != 1 ]]; then ls -l "$work"; exit 0; fi
  cat "$work"/model.part* > "$work/model.gguf"
  MODEL="$work/model.gguf"
  SEQUENCES="${SEQUENCES:-$work/sequences.jsonl}"
  if ls "$work"/*.whl >/dev/null 2>&1; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$work"/*.whl
    export PYTHONPATH=/tmp/site
  fi
fi
: "${MODEL:?set MODEL (the derived GGUF) or PARTS}"
: "${SEQUENCES:?set SEQUENCES (extractFeatures --sequences)}"

pinned=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["derived"]["sha256"])' "$pack/pack.json")
actual=$(sha256sum "$MODEL" | cut -d' ' -f1)
if [[ "$actual" != "$pinned" ]]; then
  echo "the model hashes to $actual, the pack pins $pinned: not the derived file of this pack" >&2
  exit 1
fi
"$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'

# The modes run at once: one card holds both many times over.
pids=()
for mode in ${MODES:-lora full}; do
  epochs_var="EPOCHS_${mode^^}"
  mkdir -p "$out/$mode"
  (cd models/train && "$python" control_finetune.py --model "$MODEL" --sequences "$SEQUENCES" --pack "../../$pack" \
      --out "$out/$mode" --mode "$mode" --epochs "${!epochs_var:-$([[ $mode == lora ]] && echo 6 || echo 4)}" ${EXTRA:-}) \
    > "$out/$mode.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for mode in ${MODES:-lora full}; do echo "== $mode"; grep -v Warning "$out/$mode.log" | tail -4; done
exit "$status"
