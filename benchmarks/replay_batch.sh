#!/usr/bin/env bash
# Times `orbito-hw replay --batch` on 10,000 random complete games (goal: under 10 s).
set -euo pipefail
cd "$(dirname "$0")/.."
games=$(mktemp)
trap 'rm -f "$games"' EXIT
python benchmarks/random_games.py "${1:-10000}" > "$games"
start=$(date +%s.%N)
orbito-hw replay --batch < "$games" > /dev/null
end=$(date +%s.%N)
echo "replay --batch of $(wc -l < "$games") games: $(echo "$end - $start" | bc) s"
