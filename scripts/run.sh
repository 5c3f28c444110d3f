#!/usr/bin/env bash
# Hivecrawl's main job, what `make run` does: runs the volunteer client
# headless in per-user directories with its local API on 127.0.0.1. With
# no network profile stored ('hivecrawl join PROFILE') it runs in solo
# mode: its own manager, storage module and a one-peer overlay, and prints
# a signed-in dashboard link. SEEDS=FILE adds the file's URLs (one per
# line) as sites to crawl; 'hivecrawl channels add URL' and the dashboard's
# Solo mode page add more. HOME_DIR=DIR isolates an instance (--home);
# ARGS="..." passes more flags to 'hivecrawl run' (ARGS=--allow-loopback
# lets a local test site on 127.0.0.1 be crawled).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
bin=${1:-bin/hivecrawl}

args=(run --headless)
[ -n "${SEEDS:-}" ] && args+=(--seeds "$SEEDS")
[ -n "${HOME_DIR:-}" ] && args+=(--home "$HOME_DIR")
# shellcheck disable=SC2206 # ARGS is split into words on purpose
[ -n "${ARGS:-}" ] && args+=($ARGS)

echo "Starting the Hivecrawl client (Ctrl-C stops it gracefully)."
echo "In another terminal: $bin channels${HOME_DIR:+ --home $HOME_DIR} add https://example.org/"
echo "                     $bin channels${HOME_DIR:+ --home $HOME_DIR}   (the sites, their state and why one fails)"
echo "                     $bin status${HOME_DIR:+ --home $HOME_DIR}"
exec "$bin" "${args[@]}"
