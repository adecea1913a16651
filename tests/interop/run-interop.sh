#!/bin/bash
# omni-client against omni-server: every scenario, through the IOR, through the
# server's corbaloc (GIOP 1.2) and through a plain corbaloc (GIOP 1.0); the
# any scenario (AnyEcho, every Any case) through AnyEcho's IOR.
#   tests/interop/run-interop.sh [-q]      (after make -C tests/interop)
# Prints one line per case: PASS/FAIL, the target form, the client arguments,
# the client's last line.  Exit 0 when every case gave the expected result.
set -u
cd "$(dirname "$0")"
QUIET=${1:-}
MAXMSG="-ORBgiopMaxMsgSize 16777216"   # 1 Mi-character wstrings exceed the 2 MiB default
fails=0
cases=0
servers=()

cleanup() { for p in "${servers[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap cleanup EXIT

# start_server OUTFILE [args]: sets SRV_PID, SRV_LOC, SRV_IOR, SRV_PLAIN, SRV_ANY
# (AnyEcho's IOR, from the third line "AnyEcho IOR:...")
start_server() {
  local out=$1; shift
  ./omni-server --listen 127.0.0.1:0 $MAXMSG "$@" >"$out" 2>"$out.err" &
  SRV_PID=$!
  servers+=("$SRV_PID")
  for _ in $(seq 100); do [ "$(wc -l <"$out")" -ge 3 ] && break; sleep 0.05; done
  SRV_LOC=$(sed -n 1p "$out")
  SRV_IOR=$(sed -n 2p "$out")
  SRV_ANY=$(sed -n 's/^AnyEcho //p' "$out")
  case "$SRV_IOR" in IOR:*) ;; *) echo "server did not start: $(cat "$out.err")"; exit 1;; esac
  # corbaloc::HOST:PORT/Echo, no version: omniORB uses GIOP 1.0
  SRV_PLAIN=$(echo "$SRV_LOC" | sed 's|^corbaloc:iiop:1.2@|corbaloc::|')
}

# run EXPECT LABEL TARGET client-args...   EXPECT: exit status, or
# STATUS:TEXT where TEXT must appear in the client's output
run() {
  local want=${1%%:*} pat= label=$2 target=$3
  case $1 in *:*) pat=${1#*:} ;; esac
  shift 3
  cases=$((cases + 1))
  local out rc
  out=$(timeout 300 ./omni-client --target "$target" $MAXMSG --check "$@" 2>&1)
  rc=$?
  local last
  last=$(echo "$out" | tail -1)
  if [ "$rc" = "$want" ] && { [ "$want" != 0 ] || [[ "$last" == scenario=*failed=0* ]]; } &&
     { [ -z "$pat" ] || [[ "$out" == *"$pat"* ]]; }; then
    [ "$QUIET" = -q ] || echo "PASS $label $* (rc=$rc): $last"
  else
    fails=$((fails + 1))
    echo "FAIL $label $* (rc=$rc, want $want): $(echo "$out" | head -3 | tr '\n' ' ')"
  fi
  # every case leaves the server running
  if ! kill -0 "$SRV_PID" 2>/dev/null; then echo "FAIL server died"; exit 1; fi
}

start_server /tmp/omni-interop-srv.$$
for form in ior loc12 plain10; do
  case $form in
    ior) T=$SRV_IOR ;;
    loc12) T=$SRV_LOC ;;
    plain10) T=$SRV_PLAIN ;;
  esac
  run 0 $form "$T" --scenario ping --calls 100
  for s in graph subgraph truncgraph pair; do
    # GIOP 1.0 (plain corbaloc): omniORB cannot send a message holding chunked
    # values (TruncNode) larger than one 8 KiB buffer: MARSHAL on the client
    big=0
    [ $form = plain10 ] && [ $s = truncgraph ] && big=3:MARSHAL_CannotReserveOutputSpace
    for n in 0 1 50; do run 0 $form "$T" --scenario $s --nodes $n --calls 3; done
    run $big $form "$T" --scenario $s --nodes 10000 --calls 3
    for n in 1 50; do run 0 $form "$T" --scenario $s --nodes $n --cyclic --calls 3; done
    run $big $form "$T" --scenario $s --nodes 10000 --cyclic --calls 3
  done
  [ $form = plain10 ] && run 0 $form "$T" --scenario truncgraph --nodes 250
  for n in 0 1 65536 1048576; do run 0 $form "$T" --scenario string --size $n --calls 2; done
  if [ $form = ior ]; then
    for n in 0 1 65536 1048576; do run 0 $form "$T" --scenario wstring --size $n --calls 2; done
  else
    # no code-set component in a corbaloc reference: omniORB refuses wchar data
    run 3:INV_OBJREF_WCharNotSupported $form "$T" --scenario wstring --size 1
  fi
  run 0 $form "$T" --scenario graph --nodes 50 --calls 2000 --threads 4
  run 0 $form "$T" --scenario pair --nodes 50 --calls 2000 --threads 8
done
run 0 ior "$SRV_IOR" --scenario ping --loop-seconds 1 --threads 2
# AnyEcho: every Any case once, then 100 rounds on 4 threads; a few cases
# through a plain corbaloc (GIOP 1.0: no wchar data, so not those cases)
run 0 any-ior "$SRV_ANY" --scenario any
run 0 any-ior "$SRV_ANY" --scenario any --calls 3400 --threads 4
ANY_PLAIN=$(echo "$SRV_PLAIN" | sed 's|/Echo$|/AnyEcho|')
for c in long longdouble fixed typecode objref tree choice-default node-cycle node-shared truncnode any-in-any seq-any; do
  run 0 any-plain10 "$ANY_PLAIN" --scenario any --case $c
done
run 3:INV_OBJREF_WCharNotSupported any-plain10 "$ANY_PLAIN" --scenario any --case wstring
kill "$SRV_PID"; wait "$SRV_PID"; src=$?
[ "$src" = 0 ] || { echo "FAIL server exit status $src after SIGTERM"; fails=$((fails + 1)); }

# TruncNode lists to a server without the TruncNode factory: it must truncate
# each TruncNode to a Node (extra dropped) and send back plain Nodes.
start_server /tmp/omni-interop-nt.$$ --no-trunc-factory
for form in ior plain10; do
  case $form in ior) T=$SRV_IOR ;; plain10) T=$SRV_PLAIN ;; esac
  big=0; [ $form = plain10 ] && big=3:MARSHAL_CannotReserveOutputSpace
  for n in 1 50; do run 0 notrunc-$form "$T" --scenario truncgraph --expect-trunc --nodes $n --calls 3; done
  run $big notrunc-$form "$T" --scenario truncgraph --expect-trunc --nodes 10000 --calls 3
  for n in 1 50; do run 0 notrunc-$form "$T" --scenario truncgraph --expect-trunc --nodes $n --cyclic --calls 3; done
  # and without --expect-trunc the check must notice the lost type
  run "1:type Node, expected TruncNode" notrunc-$form "$T" --scenario truncgraph --nodes 3
done

echo "interop: $cases cases, $fails failed"
[ "$fails" = 0 ]
