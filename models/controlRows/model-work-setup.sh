# Sourced by the scripts that run the 0.5B for a long time (evaluate-qwen.sh, trigger-full-helps.sh),
# with $cache set: pauses the background labeler until the sourcing script ends (two model jobs on
# two cores crawl, and a bench beside the labeler measures nothing well), then builds the server
# and makes sure the derived model is pulled.
labeler="$cache/labels-qwen2.5-coder-0.5b/labeler.pid"
if [[ -f "$labeler" ]] && kill -0 "$(cat "$labeler")" 2>/dev/null; then
  kill -STOP "$(cat "$labeler")"
  trap 'kill -CONT "$(cat "$labeler")" 2>/dev/null || true' EXIT
  echo "labeler paused (pid $(cat "$labeler")) until this script ends"
fi

npm run build >/dev/null
node dist/server/src/main.js model pull qwen2.5-coder-0.5b >/dev/null
