#!/usr/bin/env bash
# ChunkShapley labels with the pulled Qwen2.5-Coder 0.5B as the generator (issue 20), on any
# machine, resumable across sessions: builds what is missing (the server, the corpus, the model),
# then labels in the background. Ids already labeled, in the cache folder or in the labels committed
# with the control pack (models/control/qwen2.5-coder-0.5b/labels/*.jsonl.gz), are skipped.
#
#   models/labeling/label-qwen.sh [--processes P] [--shard i/N] [--threads 2] [--targets-per-package 6] [--kinds api]
#   tail -f ~/.cache/reposhapley/labels-qwen2.5-coder-0.5b/labeler.log   # labeler.shard-i.log with --processes
#
# --processes P runs P one-thread labelers side by side, shards 0/P … P-1/P of the same universe
# (one per core: llama.cpp's second thread buys little on the 0.5B, generation least of all, and
# the verification decodes are most of a record's time; docs/labeling.md).
# Don't combine it with --shard or --threads.
#   models/labeling/label-qwen.sh --commit     # stop, and compress the new labels into the pack folder
#
# Validation packages get 24 targets each and come first: t_c is tuned on them alone, and six
# targets in each of the six gave 5 kept instances in 186 records (2026-12-02).
# Budgets (prefix 384, suffix 64, chunks 384) and why: docs/labeling.md. Keep them as they
# are while one label set grows: the features are taken at the budgets each record names.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="$cache/labels-qwen2.5-coder-0.5b"
committed=models/control/qwen2.5-coder-0.5b/labels
pidfile="$out/labeler.pid"
mkdir -p "$out"

# The pid file holds one pid per labeler process.
stop_labeler() {
  if [[ -f "$pidfile" ]]; then
    local pid
    while read -r pid; do
      if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        echo "stopped a labeler (pid $pid)"
      fi
    done < "$pidfile"
  fi
  rm -f "$pidfile"
}

if [[ "${1:-}" == "--commit" ]]; then
  stop_labeler
  mkdir -p "$committed"
  # Only records not committed yet, in a new file named by time, so no commit rewrites another's.
  new="$committed/labels-$(date -u +%Y%m%dT%H%M%SZ).jsonl.gz"
  /usr/bin/python3 - "$committed" "$out" "$new" <<'PY'
import gzip, json, pathlib, sys
committed, out, new = map(pathlib.Path, sys.argv[1:])
seen = set()
for file in committed.glob("*.jsonl.gz"):
    for line in gzip.open(file, "rt"):
        if line.strip():
            seen.add(json.loads(line)["id"])
fresh = []
for file in sorted(out.glob("*.jsonl")):
    for line in file.open():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # the torn last line of a stopped run
        if record["id"] not in seen:
            seen.add(record["id"])
            fresh.append(line if line.endswith("\n") else line + "\n")
if fresh:
    with gzip.open(new, "wt", compresslevel=9) as handle:
        handle.writelines(fresh)
print(f"{len(fresh)} new records -> {new if fresh else 'nothing to commit'}; {len(seen)} in all")
PY
  ls -l "$committed"
  echo "now: git add $committed && git commit (the cache copies stay; the labeler skips what is committed)"
  exit 0
fi

processes=1
args=()
while (( $# > 0 )); do
  if [[ "$1" == "--processes" ]]; then
    processes="${2:-}"
    shift $(( $# > 1 ? 2 : 1 ))
  else
    args+=("$1")
    shift
  fi
done
if ! [[ "$processes" =~ ^[1-9][0-9]*$ ]]; then
  echo "--processes needs a whole number of processes, at least 1 (one per core)" >&2
  exit 2
fi
[[ -f dist/models/labeling/labelCorpus.js ]] || npm run build
# The corpus's manifest and summary go to the cache: models/default/ holds the record of the corpus
# the shipped small model was trained on, and a rebuild here (other Debian versions) must not change it.
[[ -d "$cache/corpus" ]] || nice -n 10 node dist/models/corpus/buildCorpus.js \
  --manifest "$cache/corpus-manifest.tsv.gz" --summary "$cache/corpus-summary.json"
# The manifest that matches the files in the cache: this script's rebuild, else the committed one
# (a corpus built by the training pipeline). Feature extraction must read the same one (--manifest).
manifest="$cache/corpus-manifest.tsv.gz"
[[ -f "$manifest" ]] || manifest=models/default/corpus-manifest.tsv.gz
node dist/server/src/main.js model pull qwen2.5-coder-0.5b >/dev/null
stop_labeler
source models/labeling/qwen-label-args.sh
start_labeler() { # LOG, then labelCorpus's own arguments
  local log="$1"
  shift
  nohup nice -n 10 node dist/models/labeling/labelCorpus.js "${QWEN_LABEL_ARGS[@]}" --out "$out" --manifest "$manifest" \
    --targets-per-package 6 "$@" > "$log" 2>&1 &
  echo $! >> "$pidfile"
  echo "labeling in the background (pid $!), log $log"
}
if (( processes == 1 )); then
  start_labeler "$out/labeler.log" --threads 2 "${args[@]}"
else
  for ((shard = 0; shard < processes; shard++)); do
    start_labeler "$out/labeler.shard-$shard.log" "${args[@]}" --threads 1 --shard "$shard/$processes"
  done
fi
