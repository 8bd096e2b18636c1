#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` from the source node-llama-cpp ships
# (node_modules/node-llama-cpp/llama/gitRelease.bundle), for the shared-inference-server tests and
# bench (issue 21), and caches it by the bundle's hash: a second run prints the path at once.
#
#   test/llamaServer/buildLlamaServer.sh          # -> prints the llama-server path (builds once)
#   test/llamaServer/buildLlamaServer.sh --cached # -> prints it if built, else exits 3 (never builds)
#   REPOSHAPLEY_CACHE=DIR ... (default ~/.cache/reposhapley)
#
# Measured 2026-12-02: 398 s on the 2-core machine (niced, beside a one-thread labeling job), a
# 15 MB binary (llama.cpp's libraries static; libgomp, libssl, libstdc++ from Debian). By hand on the
# tiny test model: /health ok, /tokenize gave the same ids as the server's own tokenizer, /completion
# answered. 1,522 s on 2026-12-02 on a fresh machine (niced, beside a labeler and feature extraction).
# .ci/run builds it (cached after the first run) and requires the llama-server tests to run.
#
# CPU build, static, no curl (the tests run it on 127.0.0.1 with a local file). Needs cmake, ninja
# or make, g++ (Debian: apt-get install cmake ninja-build g++).
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=node_modules/node-llama-cpp/llama/gitRelease.bundle
[[ -f "$bundle" ]] || { echo "no $bundle: run npm ci first" >&2; exit 1; }
# The CPU kernels node-llama-cpp runs here, so remote and local answers agree where they can: its
# prebuilt binaries carry one ggml-cpu library per CPU family and load the best one this CPU runs;
# on a CPU with AMX that is the Sapphire Rapids set (AVX-512 with VNNI and BF16). Its AMX kernels
# are not used here: AMX instructions fault on this machine (a `tilezero` SIGILL in ggml's AMX
# matrix multiply), so the build leaves them out; -march=native (the first build) segfaulted there.
# Elsewhere the native build is used.
if grep -qw amx_int8 /proc/cpuinfo 2>/dev/null; then
  cpu_flags="-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_F16C=ON -DGGML_FMA=ON -DGGML_AVX2=ON -DGGML_BMI2=ON \
    -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF"
else
  cpu_flags="-DGGML_NATIVE=ON"
fi
key=$( (sha256sum "$bundle" | cut -d' ' -f1; echo "$cpu_flags") | sha256sum | cut -c1-16)
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}/llama-server/$key"
if [[ -x "$cache/llama-server" ]]; then
  echo "$cache/llama-server"
  exit 0
fi
[[ "${1:-}" == "--cached" ]] && { echo "llama-server not built yet: run $0" >&2; exit 3; }
for tool in cmake g++ git; do
  command -v "$tool" >/dev/null || { echo "$tool is needed: apt-get install cmake ninja-build g++ git" >&2; exit 1; }
done
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
git clone -q "$bundle" "$work/src" 2>/dev/null
cmake -S "$work/src" -B "$work/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON $cpu_flags >"$work/configure.log" 2>&1 \
  || { tail -20 "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 \
  || { tail -30 "$work/build.log" >&2; exit 1; }
mkdir -p "$(dirname "$cache")"
staging="$cache.partial.$$"
mkdir -p "$staging"
cp "$work/build/bin/llama-server" "$staging/"
rm -rf "$cache" && mv "$staging" "$cache"
echo "built llama-server in $(( $(date +%s) - started )) s" >&2
echo "$cache/llama-server"
