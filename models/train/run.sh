#!/usr/bin/env bash
# Launch (or resume) CPU pretraining with the settings this machine needs; see docs/training.md.
#
#   models/train/run.sh --run default --data PATH/index.json [--size small] [train.py options...]
#
# Environment: THREADS (default 2, or the core count if smaller), NICE (default 19),
# REPOSHAPLEY_CACHE (default ~/.cache/reposhapley), PYTHON (default /usr/bin/python3: Debian's
# python sees python3-torch; the pyenv python3 first on PATH does not).
# Output goes to the run's train.jsonl (JSON lines) and to stdout; run it in the background with
#   nohup models/train/run.sh ... > /tmp/train-default.out 2>&1 &
# Stop it with `kill -TERM <pid>` (it checkpoints, then exits); the same command resumes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cores="$(nproc 2>/dev/null || echo 2)"
threads="${THREADS:-$(( cores < 2 ? cores : 2 ))}"

# Page faults are very expensive on these VMs: keep freed memory in the heap instead of
# returning it to the OS (14.4 s/step -> 1.3 s/step measured; PLATFORM-FACTS).
export GLIBC_TUNABLES="${GLIBC_TUNABLES:-glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736}"
export OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
export PYTHONUNBUFFERED=1

exec nice -n "${NICE:-19}" "${PYTHON:-/usr/bin/python3}" "$here/train.py" --threads "$threads" "$@"
