#!/usr/bin/env bash
# Runs the deck fuzz target for SECONDS from the seeds and the shipped decks; what it finds goes to
# a scratch corpus, and a crashing input is kept under the build folder to reproduce with
#   meridian_deck_fuzz CRASH_FILE
set -euo pipefail
fuzzer=$1 seconds=$2
shift 2
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
seeds=()
for dir in "$@"; do
  while IFS= read -r -d '' f; do seeds+=("$f"); done < <(find "$dir" -name '*.toml' -print0)
done
cp "${seeds[@]}" "$corpus/"
artifacts=$(dirname "$fuzzer")/fuzz_findings/
mkdir -p "$artifacts"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus"
