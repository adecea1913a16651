#!/usr/bin/env bash
# scaling.sh - the contention curves in one prepared run: cdr-bench's thread
# sweep (--threads: long-lived threads, a fresh thread per message, pools
# off) and iiop-bench run's client-thread rows (ping and graph, ours and
# omniORB), up to MAX threads, written as JSON.  Meant for a build copied to
# another machine: nothing is built or installed, and what is missing there
# (omniORB's helpers, gnuplot, valgrind) is skipped and named in the JSON's
# "skipped" list.  About 1-2 minutes; under 5.
#
# Usage:
#   bench/scaling.sh [--max N] [--out FILE.json]   run (default: MAX 16,
#                                                  scaling.json)
#   bench/scaling.sh chart FILE.json [FILE.png]    draw the curves from the
#                                                  JSON afterwards (python3
#                                                  and gnuplot, here)
# Environment: BUILD, the build tree (default: this script's parent folder);
# its libraries are found under BUILD/libcdr/.libs and BUILD/libiiop/.libs,
# added to LD_LIBRARY_PATH, or where LD_LIBRARY_PATH already says.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = chart ]; then
  json=${2:?usage: scaling.sh chart FILE.json [FILE.png]}
  png=${3:-${json%.json}.png}
  command -v python3 >/dev/null || { echo "scaling.sh: chart: python3 is needed" >&2; exit 1; }
  command -v gnuplot >/dev/null || { echo "scaling.sh: chart: gnuplot is needed" >&2; exit 1; }
  dat=$(mktemp) || exit 1
  trap 'rm -f "$dat"' EXIT
  python3 - "$json" >"$dat" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
c = d.get("cdr_bench") or {}
rows = c.get("threads", {}).get("results", [])
print("# threads long task off  (median ns per message per thread)")
for r in rows:
    print(r["threads"], *(r[p]["ns_per_msg_median"] for p in ("long", "task", "off")))
print("\n\n# threads long task off  (messages/s in all)")
for r in rows:
    print(r["threads"], *(r[p]["msgs_per_s"] for p in ("long", "task", "off")))
print("\n")
i = d.get("iiop_bench") or {}
for sc in ("ping", "graph"):
    print("\n# %s: threads ours omniorb (calls/s)" % sc)
    t = (i.get("scenarios", {}).get(sc) or {}).get("threads", {})
    for n in sorted(t, key=int):
        v = [(t[n].get(s) or {}).get("calls_per_s") for s in ("ours", "omniorb")]
        print(n, *("NaN" if x is None else x for x in v))
    print("\n")
PY
  cpus=$(python3 -c "import json,sys; m=(json.load(open(sys.argv[1])).get('cdr_bench') or {}).get('machine',{}); print('%s, %s CPUs' % (m.get('cpu','?'), m.get('cores_online','?')))" "$json")
  gnuplot <<GP || exit 1
set terminal pngcairo size 1200,800 noenhanced font ',10'
set output '$png'
set multiplot layout 2,2 title 'scaling: $cpus'
set logscale x 2
set grid
set key top left
set style data linespoints
set xlabel 'threads'
set title 'cdr-bench: ns per message per thread (median), 50-node list'
plot '$dat' index 0 using 1:2 title 'long-lived' lw 2, '' index 0 using 1:3 title 'thread per task' lw 2, '' index 0 using 1:4 title 'pools off' lw 2
set title 'cdr-bench: messages/s in all'
plot '$dat' index 1 using 1:2 title 'long-lived' lw 2, '' index 1 using 1:3 title 'thread per task' lw 2, '' index 1 using 1:4 title 'pools off' lw 2
set title 'iiop-bench: ping calls/s by client threads'
plot '$dat' index 2 using 1:2 title 'ours' lw 2, '' index 2 using 1:3 title 'omniorb' lw 2
set title 'iiop-bench: graph calls/s by client threads'
plot '$dat' index 3 using 1:2 title 'ours' lw 2, '' index 3 using 1:3 title 'omniorb' lw 2
unset multiplot
GP
  echo "scaling.sh: chart written to $png"
  exit 0
fi

max=16
out=scaling.json
while [ $# -gt 0 ]; do
  case $1 in
  --max) max=${2:?--max N}; shift 2 ;;
  --out) out=${2:?--out FILE}; shift 2 ;;
  -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
  *) echo "scaling.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case $max in ''|*[!0-9]*) echo "scaling.sh: --max: a number" >&2; exit 2 ;; esac

build=${BUILD:-$(cd "$here/.." && pwd)}
for d in "$build/libcdr/.libs" "$build/libiiop/.libs"; do
  [ -d "$d" ] && LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
done
export LD_LIBRARY_PATH
# libtool's wrapper scripts want the build's own paths; the real programs
# sit in bench/.libs.
bin() {
  if [ -x "$build/bench/.libs/$1" ]; then echo "$build/bench/.libs/$1"
  elif [ -x "$build/bench/$1" ]; then echo "$build/bench/$1"
  fi
}
list=1
n=2
while [ "$n" -le "$max" ]; do list=$list,$n; n=$((n * 2)); done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
skipped=()
t0=$(date +%s)

cdr=$(bin cdr-bench)
if [ -n "$cdr" ]; then
  echo "== cdr-bench --threads $list" >&2
  "$cdr" --threads "$list" --json "$tmp/cdr.json" >&2 || { skipped+=("cdr-bench failed"); rm -f "$tmp/cdr.json"; }
else
  skipped+=("cdr-bench: not built under $build/bench")
fi

iiop=$(bin iiop-bench)
if [ -n "$iiop" ]; then
  [ -x "$build/tests/interop/omni-server" ] && [ -x "$build/tests/interop/omni-client" ] ||
    skipped+=("omniORB: tests/interop/omni-server and omni-client not built (iiop-bench runs without omniORB's rows)")
  command -v valgrind >/dev/null || skipped+=("valgrind: not installed (no instruction counts; not needed here)")
  command -v gnuplot >/dev/null || skipped+=("gnuplot: not installed (draw the chart elsewhere: scaling.sh chart)")
  echo "== iiop-bench run --quick --rounds 1 --threads $list" >&2
  IIOP_BENCH_BUILDDIR=$build "$iiop" run --quick --rounds 1 --threads "$list" --no-chart \
    --json "$tmp/iiop.json" >&2 || skipped+=("iiop-bench run: some measurement failed (see above)")
  [ -s "$tmp/iiop.json" ] || skipped+=("iiop-bench run: no JSON")
else
  skipped+=("iiop-bench: not built under $build/bench")
fi

{
  printf '{\n"thread_counts": [%s],\n"seconds": %d,\n"skipped": [' "$list" $(($(date +%s) - t0))
  sep=
  for s in "${skipped[@]}"; do
    printf '%s"%s"' "$sep" "$(printf %s "$s" | sed 's/\\/\\\\/g; s/"/\\"/g')"
    sep=", "
  done
  printf '],\n"cdr_bench": '
  if [ -s "$tmp/cdr.json" ]; then cat "$tmp/cdr.json"; else echo null; fi
  printf ',\n"iiop_bench": '
  if [ -s "$tmp/iiop.json" ]; then cat "$tmp/iiop.json"; else echo null; fi
  printf '}\n'
} >"$out"
for s in "${skipped[@]}"; do echo "scaling.sh: skipped: $s" >&2; done
echo "scaling.sh: figures written to $out in $(($(date +%s) - t0)) s" >&2
