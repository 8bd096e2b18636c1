# Sourced by the adapter fine-tunes on bench-style tasks (finetune-languages-cpu.sh,
# finetune-evidence-cpu.sh), with $cache and $out set: what they share. It names the GGUF reader
# and the task lists, sources the model work setup (the pack, the derived model, the Python) and the
# fine-tune step (finetune_step), and defines step 1 (task_sequences_step, below) and step 4, a
# candidate adapter against a baseline on the bench, paired, each set resumable (OUT/compare-*.md):
#
#   compare_adapters CANDIDATE_GGUF BASELINE_GGUF
#
# Both arms of each set before the next, so a stopped run leaves whole pairs. A candidate is judged
# on the validation packages first (the task-packages/*-val.txt lists; Python's are corpus/splits.ts's):
# Rust's API tasks with none and full, VAL_LIMIT (default 40) line and API tasks of the others with
# full. Then the dev bench, what issue 51's bar is stated on: Rust's 100 API tasks with none and
# full, then full on DEV_LIMIT (default 100) line and API tasks of each other language.
gguf_dir="$cache/python/gguf-0.19.0"   # llama.cpp's GGUF reader, unpacked by .ci/run
lists=models/controlRows/task-packages
mkdir -p "$out"
source models/controlRows/model-work-setup.sh   # pack, model, python
source models/train/finetune-cpu-steps.sh     # finetune_step

# Step 1: the sequences of bench-style tasks of the training packages -> $out/sequences (taskSequences.js,
# no model calls). The mix is given as task counts, API then line, per language: Rust, Go and
# JavaScript each, Python; then how many line and API tasks of each language's validation packages.
# More taskSequences arguments may follow (--evidence-only, --seed). A language's training list is
# task-packages/LANGUAGE-train.txt, or the file in RUST_TRAIN_LIST, GO_TRAIN_LIST, ... when set.
#
#   task_sequences_step "RUST_API RUST_LINE" "OTHERS_API OTHERS_LINE" "PYTHON_API PYTHON_LINE" VALIDATION_TASKS [ARGS...]
task_sequences_step() {
  local -a rust=($1) others=($2) python=($3)
  local validation_limit="$4"   # not $validation: that is the Python validation packages val_packages reads
  shift 4
  local -a extra=("$@")
  [[ -f "$out/sequences/complete" ]] && return 0   # each call resumes by itself; this only spares re-indexing
  sequences() { node dist/models/controlRows/taskSequences.js --out "$out/sequences" "${extra[@]}" --language "$@"; }
  train_tasks() { # LANGUAGE API LINE
    local override="${1^^}_TRAIN_LIST"   # rust -> RUST_TRAIN_LIST
    local list="${!override:-$lists/$1-train.txt}"
    sequences "$1" --package-list "$list" --tasks api --limit "$2"
    sequences "$1" --package-list "$list" --tasks line --limit "$3"
  }
  train_tasks rust "${rust[@]}"
  for language in go javascript; do train_tasks "$language" "${others[@]}"; done
  train_tasks python "${python[@]}"
  for language in rust go javascript python; do
    sequences "$language" --package-list "$lists/$language-val.txt" --split val --tasks line,api --limit "$validation_limit"
  done
  touch "$out/sequences/complete"
}

compare_adapters() {
  local candidate="$1" baseline="$2"
  adapter_of() { if [[ $1 == candidate ]]; then echo "$candidate"; else echo "$baseline"; fi; }
  for arm in shipped candidate; do
    bench --adapter "$(adapter_of $arm)" --language rust --packages "$(val_packages rust)" --policies none,full --tasks api \
      --limit 100 --out "$out/val-rust-api-$arm"
  done
  for language in go javascript python; do
    for arm in shipped candidate; do
      bench --adapter "$(adapter_of $arm)" --language "$language" --packages "$(val_packages $language)" --policies full \
        --tasks line,api --limit "${VAL_LIMIT:-40}" --out "$out/val-$language-$arm"
    done
  done
  for policy in none full; do compare "$out/val-rust-api-candidate" "$out/val-rust-api-shipped" $policy; done
  for language in go javascript python; do compare "$out/val-$language-candidate" "$out/val-$language-shipped" full; done

  for arm in shipped candidate; do
    bench --adapter "$(adapter_of $arm)" --language rust --policies none,full --tasks api --limit 100 --out "$out/dev-rust-api-$arm"
  done
  for policy in none full; do compare "$out/dev-rust-api-candidate" "$out/dev-rust-api-shipped" $policy; done
  node dist/bench/src/compare/cli.js "$out/dev-rust-api-candidate/results.json:full" "$out/dev-rust-api-candidate/results.json:none" \
    | tee "$out/compare-dev-rust-api-candidate-full-none.md"
  for language in go javascript python; do
    for arm in shipped candidate; do
      bench --adapter "$(adapter_of $arm)" --language "$language" --policies full --tasks line,api --limit "${DEV_LIMIT:-100}" \
        --out "$out/dev-$language-$arm"
    done
    compare "$out/dev-$language-candidate" "$out/dev-$language-shipped" full
  done
}

bench() { node dist/bench/src/cli.js --threads 2 --seed 1 --resume --no-progress --model "$model" "$@"; }
compare() { node dist/bench/src/compare/cli.js "$1/results.json:$3" "$2/results.json:$3" | tee "$out/compare-$(basename "$1")-$3.md"; }
val_packages() { if [[ $1 == python ]]; then echo "$validation"; else grep -v '^#' "$lists/$1-val.txt" | paste -sd, -; fi; }
