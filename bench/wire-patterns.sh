#!/usr/bin/env bash
# wire-patterns.sh - what the kernel alone charges for the ways a message's
# octets can be cut up on the wire.  bench/tcp-floor moves the 64 KiB
# string scenario's octets (65,597 in, 65,565 out, as iiop-bench's floor
# row) in each --pattern (floor, frag-scatter, frag-whole, frag-flat: see
# `bench/tcp-floor --help`) with no user-space work at all, and this script
# prints the server's CPU per call and the client's wall time per call of
# each, with their ratios to the floor's, medians of the rounds.
#
# Usage: bench/wire-patterns.sh [--cpus S,C] [--calls K] [--rounds R]
#                               [--frag F] [--req N] [--rep M]
#   --cpus S,C   the server's CPU and the client's (default 0,0: one CPU,
#                where the stacks' own costs show, as `iiop-bench run
#                --cpus 0,0`)
#   --calls K    calls per pattern and round (default 100000)
#   --rounds R   rounds (default 3)
#   --frag F     octets per fragment, its 16-octet header included
#                (default 1024, as iiop-bench's ours_frag1024)
# Server CPU is the server process's utime + stime (/proc/PID/stat, 10 ms
# ticks: keep K * the time per call above a second or two).
# Environment: TCP_FLOOR, the tcp-floor program (default: the one beside
# this script; in a build outside the source tree, BUILD/bench/tcp-floor).
# Exit status: 0, or 1 when tcp-floor is missing, a CPU is not allowed or a
# run failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
floor=${TCP_FLOOR:-$here/tcp-floor}
cpus=0,0 calls=100000 rounds=3 frag=1024 req=65597 rep=65565
while [ $# -gt 0 ]; do
  case $1 in
    --cpus) cpus=${2:?}; shift 2 ;;
    --calls) calls=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --frag) frag=${2:?}; shift 2 ;;
    --req) req=${2:?}; shift 2 ;;
    --rep) rep=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "wire-patterns.sh: unknown option '$1' (--help)" >&2; exit 1 ;;
  esac
done
[ -x "$floor" ] || { echo "wire-patterns.sh: $floor missing: make bench/tcp-floor" >&2; exit 1; }
scpu=${cpus%,*} ccpu=${cpus#*,}
for c in "$scpu" "$ccpu"; do
  taskset -c "$c" true 2>/dev/null || { echo "wire-patterns.sh: cannot run on CPU '$c' (--cpus S,C)" >&2; exit 1; }
done
hz=$(getconf CLK_TCK)

addr_file=$(mktemp) || exit 1
taskset -c "$scpu" "$floor" server --listen 127.0.0.1:0 >"$addr_file" &
spid=$!
trap 'kill $spid 2>/dev/null; rm -f "$addr_file"' EXIT
for _ in $(seq 50); do [ -s "$addr_file" ] && break; sleep 0.1; done
addr=$(head -1 "$addr_file")
[ -n "$addr" ] || { echo "wire-patterns.sh: the server did not start" >&2; exit 1; }

ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$spid/stat"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "wire patterns: $req octets in, $rep out, fragments of $frag octets; server on CPU $scpu," \
     "client on CPU $ccpu; $calls calls x $rounds rounds; $(date -u +%Y-%m-%dT%H:%M:%SZ)," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %18s %12s %18s %12s\n' pattern "server CPU us/call" "/floor" "client wall us/call" "/floor"
base_cpu= base_wall=
for pat in floor frag-scatter frag-whole frag-flat; do
  cpu_list= wall_list=
  for _ in $(seq "$rounds"); do
    t0=$(ticks)
    out=$(taskset -c "$ccpu" "$floor" client --target "$addr" --req "$req" --rep "$rep" \
            --calls "$calls" --warmup 1000 --pattern "$pat" --frag "$frag" --scenario "$pat") \
      || { echo "wire-patterns.sh: $pat failed: $out" >&2; exit 1; }
    sleep 0.1  # the connection's thread ends and is counted
    t1=$(ticks)
    wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$out" | tail -1)
    cpu_list+="$(awk -v d=$((t1 - t0)) -v hz="$hz" -v k="$((calls + 1000))" 'BEGIN { printf "%.3f", d / hz * 1e6 / k }') "
    wall_list+="$(awk -v w="$wall" -v k="$calls" 'BEGIN { printf "%.3f", w * 1e6 / k }') "
  done
  cpu=$(tr ' ' '\n' <<<"$cpu_list" | grep . | median)
  wall=$(tr ' ' '\n' <<<"$wall_list" | grep . | median)
  [ -n "$base_cpu" ] || { base_cpu=$cpu base_wall=$wall; }
  awk -v p="$pat" -v c="$cpu" -v w="$wall" -v bc="$base_cpu" -v bw="$base_wall" -v cl="$cpu_list" -v wl="$wall_list" \
    'BEGIN { printf "%-14s %18.2f %12.2f %18.2f %12.2f   [cpu %s| wall %s]\n", p, c, (bc > 0 ? c / bc : 0), w, (bw > 0 ? w / bw : 0), cl, wl }'
done
