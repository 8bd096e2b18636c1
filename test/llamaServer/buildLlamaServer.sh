#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` from the source node-llama-cpp ships
# (node_modules/node-llama-cpp/llama/gitRelease.bundle), for the shared-inference-server tests and
# bench (issue 21), and caches it by the bundle's hash: a second run prints the path at once.
#
#   test/llamaServer/buildLlamaServer.sh        # -> prints the llama-server path
#   REPOSHAPLEY_CACHE=DIR ... (default ~/.cache/reposhapley)
#
# Measured 2026-12-02: 398 s on the 2-core machine (niced, beside a one-thread labeling job), a
# 15 MB binary (llama.cpp's libraries static; libgomp, libssl, libstdc++ from Debian). By hand on the
# tiny test model: /health ok, /tokenize gave the same ids as the server's own tokenizer, /completion
# answered. Nothing in CI calls it yet (issue 21).
#
# CPU build, static, no curl (the tests run it on 127.0.0.1 with a local file). Needs cmake, ninja
# or make, g++ (Debian: apt-get install cmake ninja-build g++).
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=node_modules/node-llama-cpp/llama/gitRelease.bundle
[[ -f "$bundle" ]] || { echo "no $bundle: run npm ci first" >&2; exit 1; }
key=$(sha256sum "$bundle" | cut -c1-16)
cache="${REPOSHAPLEY_CACHE:-$HOME/.cache/reposhapley}/llama-server/$key"
if [[ -x "$cache/llama-server" ]]; then
  echo "$cache/llama-server"
  exit 0
fi
for tool in cmake g++ git; do
  command -v "$tool" >/dev/null || { echo "$tool is needed: apt-get install cmake ninja-build g++ git" >&2; exit 1; }
done
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
git clone -q "$bundle" "$work/src" 2>/dev/null
cmake -S "$work/src" -B "$work/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=ON >"$work/configure.log" 2>&1 \
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
