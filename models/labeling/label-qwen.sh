#!/usr/bin/env bash
# ChunkShapley labels with the pulled Qwen2.5-Coder 0.5B as the generator (issue 20), on any
# machine, resumable across sessions: builds what is missing (the server, the corpus, the model),
# then labels in the background. Ids already labeled, in the cache folder or in the labels committed
# with the control pack (models/control/qwen2.5-coder-0.5b/labels/*.jsonl.gz), are skipped.
#
#   models/labeling/label-qwen.sh [--shard i/N] [--threads 2] [--targets-per-package 6] [--kinds api]
#   tail -f ~/.cache/reposhapley/labels-qwen2.5-coder-0.5b/labeler.log
#   models/labeling/label-qwen.sh --commit     # stop, and compress the new labels into the pack folder
#
# Validation packages get 24 targets each and come first: t_c is tuned on them alone, and six
# targets in each of the six gave 5 kept instances in 186 records (2026-12-02).
# Budgets (prefix 384, suffix 64, chunks 384) and why: docs/control-tokens.md. Keep them as they
# are while one label set grows: the features are taken at the budgets each record names.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
out="$cache/labels-qwen2.5-coder-0.5b"
committed=models/control/qwen2.5-coder-0.5b/labels
pidfile="$out/labeler.pid"
mkdir -p "$out"

stop_labeler() {
  if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    kill "$(cat "$pidfile")"
    echo "stopped the labeler (pid $(cat "$pidfile"))"
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
nohup nice -n 10 node dist/models/labeling/labelCorpus.js "${QWEN_LABEL_ARGS[@]}" --out "$out" --manifest "$manifest" \
  --targets-per-package 6 --threads 2 "$@" > "$out/labeler.log" 2>&1 &
echo $! > "$pidfile"
echo "labeling in the background (pid $!), log $out/labeler.log"
