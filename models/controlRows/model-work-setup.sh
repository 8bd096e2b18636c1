# Sourced by the scripts that run the 0.5B for a long time (evaluate-qwen.sh, trigger-full-helps.sh,
# finetune-f2-cpu.sh), with $cache set: names what they share (the pack, the derived model, the
# corpus manifest, the Python with torch, the validation packages), pauses the background labeler
# until the sourcing script ends (two model jobs on two cores crawl, and a bench beside the labeler
# measures nothing well), then builds the server and makes sure the derived model is pulled.
pack=models/control/qwen2.5-coder-0.5b
model="$cache/models/qwen2.5-coder-0.5b-instruct-q4_k_m.reposhapley-control.gguf"
# The manifest of the corpus in the cache (label-qwen.sh's rebuild), else the committed one.
manifest="$cache/corpus-manifest.tsv.gz"
[[ -f "$manifest" ]] || manifest=models/default/corpus-manifest.tsv.gz
# Debian's python3-torch (what .ci/run installs) lives beside /usr/bin/python3, not a pyenv python3;
# REPOSHAPLEY_PYTHON=a venv with the PyPI CPU wheel (pip install torch==2.13.0 pyyaml) trains faster.
python="${REPOSHAPLEY_PYTHON:-/usr/bin/python3}"
# t_c and candidate adapters are judged on these packages only, never on the bench's.
validation=python3-dulwich,python3-pyramid,python3-dnspython,python3-urwid,python3-paramiko,python3-networkx
labeler="$cache/labels-qwen2.5-coder-0.5b/labeler.pid"
if [[ -f "$labeler" ]] && kill -0 "$(cat "$labeler")" 2>/dev/null; then
  kill -STOP "$(cat "$labeler")"
  trap 'kill -CONT "$(cat "$labeler")" 2>/dev/null || true' EXIT
  echo "labeler paused (pid $(cat "$labeler")) until this script ends"
fi

npm run build >/dev/null
node dist/server/src/main.js model pull qwen2.5-coder-0.5b >/dev/null
