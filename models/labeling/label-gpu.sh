#!/usr/bin/env bash
# ChunkShapley labels on a lent GPU (issue 20): the same labeler as label-qwen.sh, with the same
# generator, budgets and target draw, run as N shards side by side on node-llama-cpp's CUDA build.
#
# The device reaches no network and a call carries at most 64 MiB, but a warm machine keeps its
# /tmp between calls (and is given back after 30 s idle: the calls go back to back). So everything
# the labeler needs (node itself, the runtime modules, dist/, the corpus and the base model) travels
# as parts, one per call:
#
#   here:    [CUDA_BUILD=1] models/labeling/label-gpu.sh pack   # -> .gpu-lbl00, .gpu-lbl01, ... (one part each)
#            models/labeling/label-gpu.sh aside        # the checkout's large files out while the parts travel
#   device:  PARTS=.gpu-lblNN models/labeling/label-gpu.sh receive    # carry [".gpu-lblNN"]; two small parts
#                                                                # may share a call: PARTS=".gpu-lbl01 .gpu-lbl11"
#            models/labeling/label-gpu.sh probe        # optional: which backend node-llama-cpp picks
#            CALL_SECONDS=480 SHARDS=8 [BACKEND=cpu] models/labeling/label-gpu.sh run   # labels -> $OUT/gpu-*.jsonl.gz
#   here:    models/labeling/label-gpu.sh restore      # the large files back
#            models/labeling/label-gpu.sh collect DIR  # the returned records into the labeler's cache folder
#            models/labeling/label-qwen.sh --commit    # and on into the pack's labels, as always
#
# Hopper (H100, H200: sm_90) needs a CUDA build of its own (below). The cheap way makes it here,
# on the CPU, with no device time: `build-cuda-local` (nvcc 13.0 as the device's; the toolkit it
# needs is assembled in the cache) keeps it in ~/.cache/reposhapley/cuda-build-sm90, and every later
# pack carries it and leaves the CUDA prebuilt out. The other way builds on the device: with
# CUDA_BUILD=1, pack adds llama.cpp's source, npm and node's headers; `receive` starts the build in
# the background as soon as the runtime and build parts are in, so it compiles while the data parts
# arrive; `run` waits for it (labeling on the CPU if it failed) and returns the build with the
# labels, for `collect-build DIR` to keep.
#
# What the H200 showed (2026-12-04, 17th session): node-llama-cpp 3.21.1's CUDA 13 prebuilt passes
# its binding test there but its first kernel fails ("the provided PTX was compiled with an
# unsupported toolchain": SASS for sm_86/89/120 only, PTX newer than driver 580 takes), and the
# Vulkan prebuilt is refused as incompatible. BACKEND=cpu labels on the device's 16 cores (36
# records in 315 s, 8 shards of 2 threads).
#
# Ids already committed with the pack are skipped (the tree travels with every call), and each
# shard takes the ids whose hash is i mod SHARDS, so no id is labeled twice. A shard stopped at
# the time limit loses only the instance it was on.
set -euo pipefail
cd "${LABEL_GPU_REPO:-$(dirname "$0")/../..}"
repo=$PWD
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}"
# A call carries the tracked tree too: `aside` moves its large files out (~4 MB stays), so a part
# of 56 MiB keeps a call under the 64 MiB it may carry.
part_size=${PART_SIZE:-56M}
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
  # With an sm_90 build coming or kept, the CUDA prebuilt (which Hopper cannot run) stays here:
  # 181 MB, three calls' worth of parts.
  if [[ "${CUDA_BUILD:-0}" == 1 || ${#kept_build[@]} -gt 0 ]]; then
    excludes+=(--exclude=node_modules/@node-llama-cpp/linux-x64-cuda)
  fi
  # The runtime first: a probe can run as soon as its parts are in.
  tar -c "${excludes[@]}" -C "$repo" node_modules dist -C "$staging" bin "${kept_build[@]}" | zstd -q -3 -T2 > "$staging/runtime.tar.zst"
  local archives=(runtime)
  if [[ "${CUDA_BUILD:-0}" == 1 ]]; then
    pack_build_tools "$staging"
    archives+=(build)
  fi
  archives+=(data)
  # The labels' generator G is the base file (docs/labeling.md says why), the same as label-qwen.sh's.
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
  local exclude_file
  exclude_file=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude_file")"
  grep -qx '/.gpu-lbl\*/' "$exclude_file" 2>/dev/null || echo '/.gpu-lbl*/' >> "$exclude_file"
  ls -d .gpu-lbl* | tr '\n' ' '
  echo
  echo "$n parts; each call carries one folder beside the tree: run '$0 aside' before the calls, '$0 restore' after"
}

# llama.cpp's source as node-llama-cpp ships it (a git bundle in its llama/ folder), cloned to
# DEST and patched as node-llama-cpp's own clone step patches it (its prebuilt binaries carry the
# patches too); a patch that no longer applies means llama.cpp took it already.
clone_llama_source() {
  local llama_dir=$1 dest=$2 patch
  git -c advice.detachedHead=false clone -q "$llama_dir/gitRelease.bundle" "$dest"
  for patch in "$llama_dir"/patches/*.diff; do
    git -C "$dest" apply "$patch" 2>/dev/null || echo "not applied (merged upstream?): $patch"
  done
}

# What node-llama-cpp's source build needs that the device lacks: llama.cpp's source (the release
# node-llama-cpp ships as a git bundle, cloned here since the device may have no git), npm (the
# build runs `npm run cmake-js-llama`) and node's headers (cmake-js would download them).
pack_build_tools() {
  local staging=$1 tools=$1/build-tools
  mkdir -p "$tools/nodedir/include"
  clone_llama_source "$repo/node_modules/node-llama-cpp/llama" "$tools/llama.cpp"
  # The test vocabularies and the documentation: 113 MB the build never reads.
  rm -rf "$tools/llama.cpp/models" "$tools/llama.cpp/docs"
  cp -r "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$tools/npm"
  cp -r /usr/include/node "$tools/nodedir/include/node"
  tar -c -C "$staging" build-tools | zstd -q -3 -T2 > "$staging/build.tar.zst"
}

# node-llama-cpp names a local build's folder after its custom CMake options, so the labeler must
# see the options the build had to find it. Portable CPU code (no -march=native): a build made here
# or on one device must run on the next device's processor.
export_cuda_options() {
  export NODE_LLAMA_CPP_CMAKE_OPTION_CMAKE_CUDA_ARCHITECTURES=90
  export NODE_LLAMA_CPP_CMAKE_OPTION_GGML_NATIVE=OFF
}

# The sm_90 build made on this machine instead of the device (no device time; 22 minutes on two
# idle cores). It needs a CUDA 13.0 toolkit with cuBLAS: the python machine's /usr/local/cuda-13.0
# (its nvcc 13.0.88, as the device's) lacks cuBLAS and libcuda's link stub, so `cuda-toolkit`
# assembles one in the cache from it, PyPI's nvidia-cublas 13.0.0.19 (headers and libraries; the
# device's own cuBLAS 13 is used at run time) and an empty libcuda.so.1 to link against (the
# device's driver provides the real one). Debian's patchelf must be installed.
cuda_toolkit=$cache/cuda-13.0-cublas
assemble_cuda_toolkit() {
  [[ -x /usr/local/cuda-13.0/bin/nvcc ]] || { echo "no /usr/local/cuda-13.0/bin/nvcc on this machine" >&2; exit 1; }
  [[ -f "$cuda_toolkit/include/cublas_v2.h" ]] && { echo "$cuda_toolkit is assembled"; return 0; }
  local wheels
  wheels=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_27_x86_64 \
    --python-version 3.11 -d "$wheels" nvidia-cublas==13.0.0.19
  rm -rf "$cuda_toolkit"
  mkdir -p "$cuda_toolkit"
  cp -as /usr/local/cuda-13.0/. "$cuda_toolkit/"
  # nvcc finds its headers from where it really lies: a copy, not a link, so it sees cuBLAS's.
  rm -rf "$cuda_toolkit/bin"
  cp -a /usr/local/cuda-13.0/bin "$cuda_toolkit/bin"
  (cd "$wheels" && unzip -q ./*.whl 'nvidia/cu13/*')
  cp "$wheels"/nvidia/cu13/include/* "$cuda_toolkit/include/"
  cp "$wheels"/nvidia/cu13/lib/* "$cuda_toolkit/lib/"
  ln -sf libcublas.so.13 "$cuda_toolkit/lib/libcublas.so"
  ln -sf libcublasLt.so.13 "$cuda_toolkit/lib/libcublasLt.so"
  mkdir -p "$cuda_toolkit/lib/stubs"
  echo '' | gcc -shared -Wl,-soname,libcuda.so.1 -o "$cuda_toolkit/lib/stubs/libcuda.so" -x c -
  rm -rf "$wheels"
  echo "$cuda_toolkit assembled"
}

build_cuda_local() {
  assemble_cuda_toolkit
  local sandbox
  sandbox=$(mktemp -d)
  # node-llama-cpp builds inside its own package folder: that folder is copied, the other modules
  # are linked, so the checkout's node_modules stays as it is.
  mkdir -p "$sandbox/node_modules"
  local module
  for module in node_modules/* node_modules/.bin; do
    [[ "$module" == node_modules/node-llama-cpp ]] || ln -s "$repo/$module" "$sandbox/$module"
  done
  cp -r node_modules/node-llama-cpp "$sandbox/node_modules/node-llama-cpp"
  local llama_dir=$sandbox/node_modules/node-llama-cpp/llama
  rm -rf "$llama_dir/localBuilds"
  clone_llama_source "$llama_dir" "$llama_dir/llama.cpp"
  export_cuda_options
  (
    export PATH="$cuda_toolkit/bin:$PATH" CUDAToolkit_ROOT=$cuda_toolkit CUDACXX=$cuda_toolkit/bin/nvcc
    export npm_config_nodedir=/usr
    cd "$sandbox" && node node_modules/node-llama-cpp/dist/cli/cli.js source build --gpu cuda --noUsageExample
  )
  rm -rf "$cuda_build"
  mkdir -p "$cuda_build/localBuilds"
  # Only what node-llama-cpp loads travels: Release/ (the binaries, their metadata) and the
  # status file that says the build finished; the object files stay behind.
  local build
  for build in "$llama_dir"/localBuilds/*/; do
    mkdir -p "$cuda_build/localBuilds/$(basename "$build")"
    cp -r "$build/Release" "$build/buildDone.status" "$cuda_build/localBuilds/$(basename "$build")/"
  done
  # The linker drops the empty libcuda stub as unneeded, leaving the driver calls (cuMemCreate and
  # the rest of the VMM pool) unbound: name the driver as needed, as NVIDIA's own stub would have.
  local cuda_lib
  for cuda_lib in "$cuda_build"/localBuilds/*/Release/libggml-cuda.so; do
    readelf -d "$cuda_lib" | grep -q 'libcuda\.so\.1' || patchelf --add-needed libcuda.so.1 "$cuda_lib"
  done
  rm -rf "$sandbox"
  du -sh "$cuda_build/localBuilds"
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
  export_cuda_options
  nvcc --version | tail -1
  timeout "${BUILD_SECONDS:-900}" node node_modules/node-llama-cpp/dist/cli/cli.js source build --gpu cuda --noUsageExample
  # Kept on the device for `run`, which returns it with the labels (a background build has no $OUT).
  tar -c -C "$llama_dir" localBuilds | zstd -q -3 -T16 > "$work/cuda-build.tar.zst"
  ls -l "$work/cuda-build.tar.zst"
}

# The build takes minutes on 16 cores: started in its own session, it goes on while later calls
# bring the data parts (a call's other processes end with the call).
start_background_build() {
  [[ -e "$work/build.started" ]] && return 0
  touch "$work/build.started"
  # A copy: the next call may rewrite the checkout's script while bash is still reading it.
  cp "$0" "$work/label-gpu.sh"
  LABEL_GPU_REPO=$repo setsid bash -c "bash '$work/label-gpu.sh' build-cuda > '$work/build.log' 2>&1; echo \$? > '$work/build.exit'" \
    < /dev/null > /dev/null 2>&1 &
  echo "CUDA build started in the background (log: $work/build.log)"
}

build_status() {
  [[ -e "$work/build.started" ]] || return 0
  if [[ -f "$work/build.exit" ]]; then
    echo "CUDA build finished with exit $(cat "$work/build.exit")"
  else
    echo "CUDA build running: $(grep -c . "$work/build.log" 2>/dev/null || echo 0) log lines"
  fi
  tail -n 2 "$work/build.log" 2>/dev/null | cut -c1-200 || true
}

# Waits for a background build until the given epoch second; true when it succeeded.
wait_for_build() {
  local until=$1
  [[ -e "$work/build.started" ]] || return 1
  while [[ ! -f "$work/build.exit" && $(date +%s) -lt $until ]]; do sleep 5; done
  build_status
  [[ -f "$work/build.exit" && "$(cat "$work/build.exit")" == 0 ]]
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
  : "${PARTS:?set PARTS to the carried part folders (space-separated)}"
  mkdir -p "$work/parts"
  local folder
  for folder in $PARTS; do find "$folder" -maxdepth 1 -type f -exec mv {} "$work/parts/" \;; done
  ls "$work/parts" | tr '\n' ' '
  echo
  if [[ -n "$(ls "$work/parts"/build.part* 2>/dev/null)" ]] && complete runtime && complete build; then
    start_background_build
  fi
  build_status
}

# True when an archive's parts are all in (they hash to what pack wrote).
complete() {
  local kind=$1
  [[ -f "$work/$kind.done" ]] && return 0
  [[ -f "$work/parts/sums.txt" ]] || return 1
  [[ "$(cat "$work/parts/$kind".part* 2>/dev/null | sha256sum | cut -d' ' -f1)" == \
    "$(grep " $kind.tar.zst\$" "$work/parts/sums.txt" | cut -d' ' -f1)" ]]
}

# The device image has no zstd; pack puts this machine's (and its libraries) in the first part.
unzstd() {
  if command -v zstd >/dev/null; then zstd -d "$@"; else LD_LIBRARY_PATH="$work/parts" "$work/parts/zstd" -d "$@"; fi
}

# Unpacks what has arrived: the runtime once its parts are all in, the data likewise.
unpack() {
  local kind=$1
  [[ -f "$work/$kind.done" ]] && return 0
  complete "$kind" || {
    echo "$kind: the parts do not hash to what pack wrote (a part is missing?)" >&2
    exit 1
  }
  mkdir -p "$work/$kind"
  cat "$work/parts/$kind".part* | unzstd -q -c | tar -x -C "$work/$kind"
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
  [[ -d "$work/runtime/node_modules/node-llama-cpp/llama/localBuilds" ]] && export_cuda_options
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

# Labels until CALL_SECONDS after the call began (a background CUDA build is waited for first, and
# on its failure the shards label on the CPU), then returns the records as one file, and the
# CUDA build too when it fits beside them.
run_shards() {
  [[ -z "${PARTS:-}" ]] || receive_part # the last data part may come with this call
  local began
  began=$(date +%s)
  local call_end=$((began + ${CALL_SECONDS:-480}))
  if [[ -e "$work/build.started" ]] && ! wait_for_build "$((call_end - 60))"; then
    echo "no CUDA build: the shards label on the CPU"
    export BACKEND=cpu
  fi
  runtime_env
  unpack data
  export XDG_CACHE_HOME="$work/data-cache"
  mkdir -p "$XDG_CACHE_HOME"
  ln -sfn "$work/data" "$XDG_CACHE_HOME/reposhapley"
  # The labeler reads the base through its Q8_0-widened copy: written once here, not by every shard at once.
  local base
  base=$(ls "$work/data/models/"*.gguf | grep -v 'q8_0-matrices' | head -1)
  node --input-type=module -e "const { widenedModel } = await import('$repo/dist/server/src/modelStore/widenedModel.js');
    console.log('generator file:', (await widenedModel(process.argv[1])).path)" "$base"
  local shards=${SHARDS:-8} out_dir=$work/labels
  local seconds=$((call_end - $(date +%s)))
  mkdir -p "$out_dir" "$returned"
  echo "labeling for $seconds s with $shards shards"
  local i pids=()
  for ((i = 0; i < shards; i++)); do
    timeout -s INT "$seconds" node dist/models/labeling/labelCorpus.js "${QWEN_LABEL_ARGS[@]}" --out "$out_dir" \
      --manifest "$work/data/corpus-manifest.tsv.gz" --corpus "$work/data/corpus" \
      --targets-per-package "${TARGETS_PER_PACKAGE:-40}" --threads "${THREADS:-2}" --shard "$i/$shards" \
      > "$out_dir/shard-$i.log" 2>&1 &
    pids+=($!)
  done
  # A minute in, what the GPU carries says whether the shards use it.
  for _ in $(seq 60); do sleep 1; [[ -n "$(jobs -r)" ]] || break; done
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader || true
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  tail -n 3 "$out_dir"/shard-0.log
  return_files
}

# At most 8 files come back from a call: the records as one, then the CUDA build in parts while
# they fit (64 MiB in all).
return_files() {
  local stamp
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  # awk ends every file with a newline: a shard's torn last record must not swallow the next's first.
  awk 1 "$work/labels"/*.jsonl | gzip -9 > "$returned/gpu-$stamp.jsonl.gz"
  wc -l "$work/labels"/*.jsonl | tail -1
  if [[ -f "$work/cuda-build.tar.zst" ]]; then
    local room=$((60 * 1024 * 1024 - $(stat -c %s "$returned/gpu-$stamp.jsonl.gz")))
    if (($(stat -c %s "$work/cuda-build.tar.zst") < room)); then
      split -b 15M -d -a 1 "$work/cuda-build.tar.zst" "$returned/cuda-build.tar.zst.part"
    else
      echo "the CUDA build ($(du -h "$work/cuda-build.tar.zst" | cut -f1)) does not fit beside the labels: not returned"
    fi
  fi
  ls -l "$returned"
}

# The device's files, back here, become shard files of the labeler's cache folder (named for the
# device, so they never overwrite this machine's shards); label-qwen.sh --commit takes them on.
collect() {
  local from=${1:?collect DIR (where the device files came back)} into=$cache/labels-qwen2.5-coder-0.5b file
  mkdir -p "$into"
  for file in "$from"/*.jsonl.gz; do
    gunzip -c "$file" > "$into/device-$(basename "${file%.gz}")"
  done
  wc -l "$into"/device-*.jsonl
}

# A call carries the checkout too: its large tracked files (weights, checkpoints, the small model's
# labels; none of which the labeler reads) wait outside it while the parts travel.
aside_dir=/tmp/label-gpu-aside
move_aside() {
  [[ -e "$aside_dir" ]] && { echo "$aside_dir exists: '$0 restore' first" >&2; exit 1; }
  # The committed Qwen labels stay: the labeler skips the ids they hold.
  git ls-files -z | xargs -0 stat -c '%s %n' | awk '$1 > 300000 && $2 !~ "^models/control/[^/]*/labels/" {print $2}' > /tmp/label-gpu-aside.list
  mkdir -p "$aside_dir"
  while read -r path; do
    mkdir -p "$aside_dir/$(dirname "$path")"
    mv "$path" "$aside_dir/$path"
  done < /tmp/label-gpu-aside.list
  mv /tmp/label-gpu-aside.list "$aside_dir/list"
  echo "$(wc -l < "$aside_dir/list") files aside; what travels now: $(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1) bytes tracked"
}

restore_aside() {
  [[ -f "$aside_dir/list" ]] || { echo "nothing aside" >&2; exit 1; }
  while read -r path; do mv "$aside_dir/$path" "$path"; done < "$aside_dir/list"
  rm -rf "$aside_dir"
  git status --short
}

case "${1:-}" in
  pack) pack_parts ;;
  receive) receive_part ;;
  probe) probe ;;
  run) run_shards ;;
  collect) collect "${2:-}" ;;
  build-cuda) build_cuda ;;
  collect-build) collect_build "${2:-}" ;;
  build-cuda-local) build_cuda_local ;;
  cuda-toolkit) assemble_cuda_toolkit ;;
  aside) move_aside ;;
  restore) restore_aside ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2 ;;
esac
