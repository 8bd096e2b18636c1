# Sourced by the CPU fine-tune scripts (finetune-f2-cpu.sh, finetune-1.5b-cpu.sh, and through
# task-finetune-steps.sh the two on bench-style tasks), after model-work-setup.sh, with $out and
# $gguf_dir set: their first two steps, each resumable.

# Step 1: the token sequences of the committed labels (no model calls) -> $out/sequences; more
# extractFeatures arguments may follow (--evidence full).
sequences_step() {
  echo "1/4 sequences of the committed labels -> $out/sequences"
  [[ -s "$out/sequences/sequences.jsonl" ]] || node dist/models/controlRows/extractFeatures.js --sequences \
    --labels "$pack/labels" --manifest "$manifest" --out "$out/sequences" "$@"
}

# Step 2: one LoRA epoch of control_finetune.py on MODEL -> $out/lora, checkpointed every 10 minutes;
# with no checkpoint there it resumes from COMMITTED (a checkpoint.pt in the repository) when that
# exists. The trainer's own arguments follow. Exits the script (0) when STOP_AFTER stopped it.
finetune_step() {
  local model_file="$1" committed="$2"
  shift 2
  echo "2/4 the fine-tune -> $out/lora ($out/lora/train.log)"
  local resume=()
  if [[ ! -f "$out/lora/checkpoint.pt" && -f "$committed" ]]; then resume=(--resume-from "$(pwd)/$committed"); fi
  [[ -f "$out/lora/lora.gguf" ]] && return 0
  mkdir -p "$out/lora"
  # glibc's allocator otherwise returns and refaults the activations' pages every batch: the 1.5B's
  # epoch slowed from 6–10 to ~40 s a batch as its heap grew (2026-12-06) (../shared/PLATFORM-FACTS.md, "Allocator").
  (cd models/train && GLIBC_TUNABLES="${GLIBC_TUNABLES:-glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736}" \
    PYTHONPATH="$gguf_dir${PYTHONPATH:+:$PYTHONPATH}" nice -n 5 "$python" control_finetune.py --model "$model_file" \
    --sequences "$out/sequences/sequences.jsonl" --pack "../../$pack" --out "$out/lora" --mode lora --epochs 1 \
    --max-tokens 1024 --device cpu --threads 2 --completion-after evidence --no-train-report \
    --checkpoint-every 600 --stop-after "${STOP_AFTER:-0}" "${resume[@]}" "$@") 2>&1 | tee -a "$out/lora/train.log"
  [[ -f "$out/lora/lora.gguf" ]] || { echo "stopped with a checkpoint in $out/lora: run this script again to go on"; exit 0; }
}
