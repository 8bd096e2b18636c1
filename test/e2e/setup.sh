#!/usr/bin/env bash
# Installs what the end-to-end tests drive, idempotently (a second run takes about a second):
# Debian's Neovim (0.7 on Debian 12) and code-server + Chromium via ../shared/tools/install-code-server.sh
# (into ~/.cache/code-server-e2e). Needs root for apt-get, as on CI and the dev machines.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v nvim >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends neovim >/dev/null
fi
bash ../shared/tools/install-code-server.sh
