#!/usr/bin/env bash
# ChunkShapley labels on a lent GPU (issue 20): the same labeler as label-qwen.sh, with the same
# generator, budgets and target draw, run as N shards side by side on node-llama-cpp's CUDA build.
#
# The device reaches no network and a call carries at most 64 MiB, but a warm machine keeps its
# /tmp between calls. So everything the labeler needs (node itself, the runtime modules with the
# CUDA binaries, dist/, the corpus and the base model) travels as parts, one per call:
#
#   here:    models/labeling/label-gpu.sh pack             # -> .gpu-lbl00, .gpu-lbl01, ... (one part each)
#   device:  PARTS=.gpu-lblNN models/labeling/label-gpu.sh receive    # once per part folder, carry [".gpu-lblNN"]
#            models/labeling/label-gpu.sh probe            # once the runtime parts are in: is CUDA used?
#            SECONDS_TO_RUN=420 SHARDS=8 [BACKEND=cpu] models/labeling/label-gpu.sh run   # labels, then $OUT/*.jsonl.gz
#   here:    models/labeling/label-gpu.sh collect DIR      # the returned files into the labeler's cache folder
#            models/labeling/label-qwen.sh --commit        # and on into the pack's labels, as always
#
# A CUDA build for the H200 (sm_90), made once on the device and carried from then on:
#   here:    CUDA_BUILD=1 models/labeling/label-gpu.sh pack   # adds llama.cpp's source, npm, node's headers
#   device:  (receive every part) models/labeling/label-gpu.sh build-cuda   # $OUT/cuda-build.tar.zst.part*
#   here:    models/labeling/label-gpu.sh collect-build DIR   # kept in the cache; every later pack carries it
# Prepared from what the 17th session learned; not run yet.
#
# What the H200 showed (2026-12-04, 17th session): node-llama-cpp 3.21.1's CUDA 13 prebuilt passes
# its binding test there but its first kernel fails ("the provided PTX was compiled with an
# unsupported toolchain": SASS for sm_86/89/120 only, PTX newer than driver 580 takes), and the
# Vulkan prebuilt is refused as incompatible. Until a CUDA build for sm_90 travels too,
# BACKEND=cpu labels on the device's 16 cores (36 records in 315 s, 8 shards of 2 threads).
#
# Ids already committed with the pack are skipped (the tree travels with every call), and each
# shard takes the ids whose hash is i mod SHARDS, so no id is labeled twice. A shard stopped at
# the time limit loses only the instance it was on.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
# A call carries the tracked tree too (~16 MB with models/default's weights and label shards moved
# aside for the calls), so a part stays well under the 64 MiB a call carries.
part_size=${PART_SIZE:-46M}
work=/tmp/lbl
cuda_build=$cache/cuda-build-sm90
# What a device call sends back: $OUT there (the device tool's folder), else a folder of /tmp.
returned=${OUT:-/tmp/lbl-out}
source models/labeling/qwen-label-args.sh

# Runtime modules the labeler does not load (build tools, tests, the other platforms' binaries).
NODE_MODULES_LEFT_OUT=(typescript tokenizers @rolldown vite vitest @vitest 'lightningcss*'
  @node-llama-cpp/linux-arm64 @node-llama-cpp/linux-armv7l @node-llama-cpp/linux-x64-vulkan
  @node-llama-cpp/linux-x64-cuda-ext)

pack_parts() {
  local staging
  staging=$(mktemp -d)
  rm -rf .gpu-lbl[0-9]*
  [[ -f dist/models/labeling/labelCorpus.js ]] || npm run build
  mkdir -p "$staging/bin"
  cp "$(command -v node)" "$staging/bin/node"
  local excludes=()
  for name in "${NODE_MODULES_LEFT_OUT[@]}"; do excludes+=(--exclude="node_modules/$name"); done
  # A CUDA build that build-cuda made on the device earlier travels inside the runtime.
  local kept_build=()
  [[ -d "$cuda_build/localBuilds" ]] && kept_build=(-C "$cuda_build" localBuilds)
  # The runtime first: a probe can run as soon as its parts are in.
  tar -c "${excludes[@]}" -C "$repo" node_modules dist -C "$staging" bin "${kept_build[@]}" | zstd -q -3 -T2 > "$staging/runtime.tar.zst"
  local archives=(runtime)
  if [[ "${CUDA_BUILD:-0}" == 1 ]]; then
    pack_build_tools "$staging"
    archives+=(build)
  fi
  archives+=(data)
  # The labels' generator G is the base file (docs/control-tokens.md says why), the same as label-qwen.sh's.
  local model
  model=$(node dist/server/src/main.js model path qwen2.5-coder-0.5b) || exit 1
  mkdir -p "$staging/models"
  ln -s "$model" "$model.sha256.json" "$staging/models/"
  [[ -d "$cache/corpus" ]] || { echo "no corpus in $cache: run models/labeling/label-qwen.sh once first" >&2; exit 1; }
  tar -c -C "$cache" corpus corpus-manifest.tsv.gz -C "$staging" --dereference models | zstd -q -1 -T2 > "$staging/data.tar.zst"
  local archive parts=()
  for archive in "${archives[@]}"; do
    (cd "$staging" && sha256sum "$archive.tar.zst" >> sums.txt)
    split -b "$part_size" -d -a 2 "$staging/$archive.tar.zst" "$staging/$archive.part"
    parts+=("$staging/$archive".part*)
  done
  local n=0 part
  for part in "${parts[@]}"; do
    local dir
    dir=$(printf '.gpu-lbl%02d' "$n")
    mkdir -p "$dir"
    mv "$part" "$dir/"
    n=$((n + 1))
  done
  cp "$staging/sums.txt" .gpu-lbl00/
  # The device image has no zstd: this machine's travels with the first part, with the libraries
  # it links beyond libc.
  cp "$(command -v zstd)" .gpu-lbl00/
  ldd "$(command -v zstd)" | awk '/=> \// && !/libc\.so|ld-linux/ {print $3}' | xargs -r -I{} cp -L {} .gpu-lbl00/
  rm -rf "$staging"
  grep -qx '/.gpu-lbl\*/' .git/info/exclude || echo '/.gpu-lbl*/' >> .git/info/exclude
  ls -d .gpu-lbl* | tr '\n' ' '
  echo
  echo "$n parts; each call carries one folder (the rest of the tree must stay under ~17 MB: move models/default/weights and labels aside)"
}

# What node-llama-cpp's source build needs that the device lacks: llama.cpp's source (the release
# node-llama-cpp ships as a git bundle, cloned here since the device may have no git), npm (the
# build runs `npm run cmake-js-llama`) and node's headers (cmake-js would download them).
pack_build_tools() {
  local staging=$1 tools=$1/build-tools
  mkdir -p "$tools/nodedir/include"
  git -c advice.detachedHead=false clone -q node_modules/node-llama-cpp/llama/gitRelease.bundle "$tools/llama.cpp"
  cp -r "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$tools/npm"
  cp -r /usr/include/node "$tools/nodedir/include/node"
  tar -c -C "$staging" build-tools | zstd -q -3 -T2 > "$staging/build.tar.zst"
}

# node-llama-cpp names a local build's folder after its custom CMake options, so the labeler must
# see the same option the build had to find it.
export_cuda_arch() {
  export NODE_LLAMA_CPP_CMAKE_OPTION_CMAKE_CUDA_ARCHITECTURES=90
}

build_cuda() {
  runtime_env
  unpack build
  local llama_dir=$work/runtime/node_modules/node-llama-cpp/llama tools=$work/build/build-tools
  [[ -d "$llama_dir/llama.cpp" ]] || cp -r "$tools/llama.cpp" "$llama_dir/llama.cpp"
  printf '#!/usr/bin/env bash\nexec node "%s/npm/bin/npm-cli.js" "$@"\n' "$tools" > "$work/runtime/bin/npm"
  chmod +x "$work/runtime/bin/npm"
  export npm_config_nodedir=$tools/nodedir
  export PATH="/usr/local/cuda/bin:/opt/torch/.venv/bin:$PATH"
  export_cuda_arch
  nvcc --version | tail -1
  timeout "${BUILD_SECONDS:-540}" node node_modules/node-llama-cpp/dist/cli/cli.js source build --gpu cuda --noUsageExample
  mkdir -p "$returned"
  # At most 8 files of 16 MiB come back from a call.
  tar -c -C "$llama_dir" localBuilds | zstd -q -3 -T16 | split -b 15M -d -a 1 - "$returned/cuda-build.tar.zst.part"
  ls -l "$returned"
}

# The device's build, back here, kept where pack finds it.
collect_build() {
  local from=${1:?collect-build DIR (where the device files came back)}
  rm -rf "$cuda_build"
  mkdir -p "$cuda_build"
  cat "$from"/cuda-build.tar.zst.part* | zstd -q -d | tar -x -C "$cuda_build"
  du -sh "$cuda_build/localBuilds"
}

receive_part() {
  : "${PARTS:?set PARTS to the carried part folder}"
  mkdir -p "$work/parts"
  find "$PARTS" -maxdepth 1 -type f -exec mv {} "$work/parts/" \;
  ls "$work/parts" | tr '\n' ' '
  echo
}

# The device image has no zstd; pack puts this machine's (and its libraries) in the first part.
unzstd() {
  if command -v zstd >/dev/null; then zstd -d "$@"; else LD_LIBRARY_PATH="$work/parts" "$work/parts/zstd" -d "$@"; fi
}

# Unpacks what has arrived: the runtime once its parts are all in, the data likewise.
unpack() {
  local kind=$1
  [[ -f "$work/$kind.done" ]] && return 0
  (cd "$work/parts" && cat "$kind".part* > "../$kind.tar.zst")
  (cd "$work" && grep " $kind.tar.zst\$" parts/sums.txt | sha256sum -c --quiet) || {
    echo "$kind: the parts do not hash to what pack wrote (a part is missing?)" >&2
    exit 1
  }
  mkdir -p "$work/$kind"
  unzstd -q -c "$work/$kind.tar.zst" | tar -x -C "$work/$kind"
  rm "$work/$kind.tar.zst"
  touch "$work/$kind.done"
}

# node-llama-cpp looks for the CUDA runtime and cuBLAS in a fixed list of folders and in
# LD_LIBRARY_PATH; the device image keeps them under the CUDA toolkit and the Python packages.
# One folder of links to the libraries found, first match each, is what the loader and the
# detection both see.
cuda_libraries() {
  local dir=$work/cuda-libs name found
  mkdir -p "$dir"
  for name in libcuda.so.1 libnvidia-ml.so.1 libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
    [[ -e "$dir/$name" ]] && continue
    found=$(find /usr/local/nvidia /usr/local/cuda/ /usr/lib/x86_64-linux-gnu /usr/lib64 /opt -name "$name" 2>/dev/null | head -1 || true)
    if [[ -n "$found" ]]; then ln -sf "$found" "$dir/$name"; else echo "not found on this machine: $name" >&2; fi
  done
  export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

runtime_env() {
  # It replaces node_modules and dist with the carried ones: never on a developer's checkout.
  if [[ -z "${OUT:-}" && "${ON_DEVICE:-0}" != 1 ]]; then
    echo "this step runs on the device (it replaces node_modules and dist); set ON_DEVICE=1 to run it elsewhere" >&2
    exit 2
  fi
  unpack runtime
  cuda_libraries
  export PATH="$work/runtime/bin:$PATH"
  if [[ "${BACKEND:-auto}" == cpu && -d "$work/runtime/node_modules/@node-llama-cpp/linux-x64-cuda" ]]; then
    mv "$work/runtime/node_modules/@node-llama-cpp/linux-x64-cuda" "$work/cuda-prebuilt-aside"
  fi
  if [[ -d "$work/runtime/localBuilds" ]]; then
    mv "$work/runtime/localBuilds" "$work/runtime/node_modules/node-llama-cpp/llama/localBuilds"
  fi
  [[ -d "$work/runtime/node_modules/node-llama-cpp/llama/localBuilds" ]] && export_cuda_arch
  rm -rf "$repo/node_modules" "$repo/dist"
  ln -s "$work/runtime/node_modules" "$repo/node_modules"
  # A copy, not a link: dist's modules find the repository root by walking up from their real path.
  cp -r "$work/runtime/dist" "$repo/dist"
}

probe() {
  runtime_env
  node --version
  nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader || true
  # A file, not `node -e`: node-llama-cpp tests its binary in a forked node, which inherits -e.
  cat > "$repo/.gpu-probe.mjs" <<'JS'
import { getLlama } from 'node-llama-cpp';
const llama = await getLlama({ gpu: 'auto', build: 'never' });
console.log('node-llama-cpp GPU:', llama.gpu, JSON.stringify(await llama.getVramState()));
JS
  node "$repo/.gpu-probe.mjs"
  rm -f "$repo/.gpu-probe.mjs"
}

run_shards() {
  runtime_env
  unpack data
  export XDG_CACHE_HOME="$work/data-cache"
  mkdir -p "$XDG_CACHE_HOME"
  ln -sfn "$work/data" "$XDG_CACHE_HOME/reposhapley"
  local shards=${SHARDS:-8} seconds=${SECONDS_TO_RUN:-420} out_dir=$work/labels
  mkdir -p "$out_dir" "$returned"
  local i pids=()
  for ((i = 0; i < shards; i++)); do
    timeout -s INT "$seconds" node dist/models/labeling/labelCorpus.js "${QWEN_LABEL_ARGS[@]}" --out "$out_dir" \
      --manifest "$work/data/corpus-manifest.tsv.gz" --corpus "$work/data/corpus" \
      --targets-per-package "${TARGETS_PER_PACKAGE:-40}" --threads "${THREADS:-2}" --shard "$i/$shards" \
      > "$out_dir/shard-$i.log" 2>&1 &
    pids+=($!)
  done
  for _ in $(seq 60); do sleep 1; [[ -n "$(jobs -r)" ]] || break; done
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader || true
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  tail -n 3 "$out_dir"/shard-0.log
  local stamp
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  for file in "$out_dir"/*.jsonl; do
    gzip -9 -c "$file" > "$returned/gpu-$stamp-$(basename "$file").gz"
  done
  wc -l "$out_dir"/*.jsonl
}

# The device's files, back here, become shard files of the labeler's cache folder (named for the
# device, so they never overwrite this machine's shards); label-qwen.sh --commit takes them on.
collect() {
  local from=${1:?collect DIR (where the device files came back)} into=$cache/labels-qwen2.5-coder-0.5b file
  mkdir -p "$into"
  for file in "$from"/*.jsonl.gz; do
    gunzip -c "$file" > "$into/device-$(date -u +%Y%m%dT%H%M%SZ)-$(basename "${file%.gz}")"
  done
  wc -l "$into"/device-*.jsonl
}

case "${1:-}" in
  pack) pack_parts ;;
  receive) receive_part ;;
  probe) probe ;;
  run) run_shards ;;
  collect) collect "${2:-}" ;;
  build-cuda) build_cuda ;;
  collect-build) collect_build "${2:-}" ;;
  *) sed -n 2,27p "$0"; exit 2 ;;
esac
