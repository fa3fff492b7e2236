#!/usr/bin/env bash
# Idle CPU of `orbito-hw run --mock --interactive` waiting for input (goal: under 1%).
# Starts it with an open, silent stdin, lets it settle, then reads its CPU time over a window.
set -euo pipefail
window=${1:-10}
fifo=$(mktemp -u)
mkfifo "$fifo"
orbito-hw run --mock --interactive < "$fifo" > /dev/null 2>&1 &
pid=$!
exec 3> "$fifo"   # hold the pipe open: the controller waits for a line that never comes
trap 'exec 3>&-; kill $pid 2>/dev/null || true; rm -f "$fifo"' EXIT
sleep 2
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
before=$(ticks)
sleep "$window"
after=$(ticks)
hz=$(getconf CLK_TCK)
echo "idle CPU over ${window}s: $(echo "scale=3; 100 * ($after - $before) / $hz / $window" | bc)% ($((after - before)) ticks)"
