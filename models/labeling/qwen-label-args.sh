# The labeler's settings for the Qwen2.5-Coder 0.5B label set, sourced by label-qwen.sh (here) and
# label-gpu.sh (a lent device): records made under other budgets or another validation draw would
# not belong to one set. Targets per training package may differ between runs (the universe of ids
# is the same, so a larger count only adds to it). Budgets and why: docs/labeling.md.
# shellcheck shell=bash
QWEN_LABEL_ARGS=(--model qwen2.5-coder-0.5b --budgets 384,64,384 --validation-targets-per-package 24 --validation-first)
