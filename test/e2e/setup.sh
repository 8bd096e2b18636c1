#!/usr/bin/env bash
# Installs what the end-to-end tests drive, idempotently (a second run takes about a second):
# Debian's Neovim (0.7 on Debian 12), Emacs 28 with eglot 1.9, lsp-mode 8.0 and go-mode, and code-server + Chromium
# via ../shared/tools/install-code-server.sh
# (into ~/.cache/code-server-e2e). Needs root for apt-get, as on CI and the dev machines.
set -euo pipefail
cd "$(dirname "$0")/../.."
missing=()
command -v nvim >/dev/null || missing+=(neovim)
command -v emacs >/dev/null || missing+=(emacs-nox)
for package in elpa-eglot elpa-lsp-mode elpa-go-mode; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
bash ../shared/tools/install-code-server.sh
