#!/usr/bin/env bash
# Hivecrawl's main job, what `make run` does: runs the volunteer client
# headless in per-user directories with its local API on 127.0.0.1.
#
# Solo mode (an embedded manager that schedules recrawls) is not built yet:
# until it is, tasks come from a seeds file. SEEDS=FILE names one (one URL
# per line); without it the client starts idle and `hivecrawl status`,
# `set`, `pause` and `resume` work against it. HOME_DIR=DIR isolates an
# instance (--home).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
bin=${1:-bin/hivecrawl}

args=(run --headless)
[ -n "${SEEDS:-}" ] && args+=(--seeds "$SEEDS")
[ -n "${HOME_DIR:-}" ] && args+=(--home "$HOME_DIR")

echo "Starting the Hivecrawl client (Ctrl-C stops it gracefully)."
echo "In another terminal: $bin status${HOME_DIR:+ --home $HOME_DIR}"
exec "$bin" "${args[@]}"
