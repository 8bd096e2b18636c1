#!/usr/bin/env bash
# Train a larger variant on a lent GPU in one device call (issue 4: "one prepared script ... in
# under 10 minutes of device time"); the CPU path (run.sh) stays the reproducible default.
#
# Here, once:   echo /.gpu-data/ >> .git/info/exclude
#               /usr/bin/python3 models/train/device_data.py pack --data ~/.cache/reposhapley/data/index.json --out .gpu-data
# Device call:  run(command="models/train/gpu.sh", carry=[".gpu-data"], timeout_s=600)
# Back here:    /usr/bin/python3 models/train/device_data.py join --src FILES_AT --out /tmp/gpu-weights.pt
#               then dump.py --from /tmp/gpu-weights.pt ... and exportGguf as in docs/training.md; the bench decides.
#
# Environment: SIZE (default large), MINUTES of training (default 7), DEVICE (default cuda; cpu
# for a dry run here), INIT (weights to start from, default none), OUT (the device's output
# folder; default /tmp/gpu-out), PYTHON (default python3: the device image's torch).
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-python3}"
out="${OUT:-/tmp/gpu-out}"
work="${GPU_WORK:-/tmp/gpu-train}"
mkdir -p "$out" "$work"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

"$python" models/train/device_data.py unpack --src "${GPU_DATA:-.gpu-data}" --out "$work/data"
"$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'

init=()
[[ -n "${INIT:-}" ]] && init=(--init-weights "$INIT")
# Big batches keep a small model's GPU busy: 64 x 1,024 tokens per step.
PYTHON="$python" NICE=0 THREADS="${THREADS:-8}" models/train/run.sh --run gpu --run-dir "$work/run" \
  --data "$work/data/index.json" --device "${DEVICE:-cuda}" --size "${SIZE:-large}" "${init[@]}" \
  --batch-size "${BATCH:-64}" --grad-accum 1 --lr "${LR:-2e-3}" --warmup-steps 100 --total-tokens "${TOKENS:-4e8}" \
  --time-limit "${MINUTES:-7}" --checkpoint-minutes 3 --eval-every "${EVAL_EVERY:-300}" --log-every 20 \
  2>&1 | tee "$out/train.jsonl" | grep -E '"event": "(start|val|stop|checkpoint)"' || true

best="$work/run/best.pt"
[[ -f "$best" ]] || best=$(ls "$work"/run/step-*.pt | tail -1)
"$python" models/train/dump.py --from "$best" --out "$work/model.tensors" --weights-out "$work/weights.pt" | tail -1
"$python" models/train/device_data.py split --file "$work/weights.pt" --out "$out"
ls -la "$out"
