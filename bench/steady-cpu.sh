#!/bin/bash
# The broker's CPU per message in the steady middle of a run (docs/PERFORMANCE.md, "Seventh
# pass"): user and system time from /proc/PID/stat read 2 s and 8 s into a 10 s
# `coney-perf sizes` run of one size, divided by the messages consumed meanwhile.
# usage: bench/steady-cpu.sh <amqp-uri> <broker-pid> <body-bytes>   (MODE=persistent, CLIENT=raw)
# The figures in PERFORMANCE.md ran it, and the broker, under `nice -n -15` (root).
set -euo pipefail
URI=$1 PID=$2 SIZE=$3
HERE=$(cd "$(dirname "$0")/.." && pwd)
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14, $15}' "/proc/$PID/stat"; }
window=$(mktemp)
(sleep 2; a=$(cpu); sleep 6; b=$(cpu); echo "$a $b" > "$window") &
row=$(node "$HERE/bin/coney-perf.js" sizes --uri "$URI" --broker-pid "$PID" --sizes "$SIZE" --modes "${MODE:-transient}" --client "${CLIENT:-amqp-client}" -z 10 2>/dev/null | tail -n 1)
wait
read -r u0 s0 u1 s1 < "$window"
rm -f "$window"
rate=$(echo "$row" | awk -F'|' '{gsub(/[,\/s ]/, "", $5); print $5}')
echo "$row"
awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v r="$rate" -v t="$ticks" 'BEGIN { n = r * 6; printf "  user %.1f µs/msg, system %.1f µs/msg (%d msg/s)\n", u * 1e6 / t / n, s * 1e6 / t / n, r }'
