#!/usr/bin/env bash
# Runs the README's first command exactly as written (the first ```sh block), then checks that
# its completion at the fixture is a real member of what `square(2.0)` returns (a Polygon) or of
# a Point: the fixture's classes. A missing install step, a failed pull or a model that answers
# nonsense fails CI here.
set -euo pipefail
cd "$(dirname "$0")/.."
command=$(awk '/^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' README.md)
echo "== README first command: $command"
output=$(bash -c "$command" 2>&1) || { echo "$output"; echo "README first command failed"; exit 1; }
echo "$output" | tail -25
if ! echo "$output" | grep -Eq '^model: qwen2\.5-coder-0\.5b(\+control(\+lora)?)?, '; then
  echo "the completion did not come from the pulled default model (qwen2.5-coder-0.5b)"
  exit 1
fi
completion=$(echo "$output" | awk '/^--- completion ---$/ { getline; print; exit }')
members='perimeter|points|translate|x|y'
if [[ ! "$completion" =~ ^($members)([^A-Za-z0-9_]|$) ]]; then
  echo "completion '$completion' is not a member of Polygon or Point ($members)"
  exit 1
fi
echo "== completion '$completion' is a member of Polygon or Point"
