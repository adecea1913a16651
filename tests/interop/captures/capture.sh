#!/bin/bash
# Regenerates the captures in this folder (after make -C tests/interop):
# omni-server on a free port, giop-proxy.py in front of it, omni-client
# calling through the proxy's IOR (GIOP 1.2) or a plain corbaloc (GIOP 1.0).
#   captures/capture.sh          every capture
#   captures/capture.sh any      only the echoAny ones (any/echoAny-CASE.hex)
set -eu
WHAT=${1:-all}
cd "$(dirname "$0")/.."
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

./omni-server --listen 127.0.0.1:0 >/tmp/cap-srv.$$ &
pids+=($!)
for _ in $(seq 100); do [ "$(wc -l </tmp/cap-srv.$$)" -ge 3 ] && break; sleep 0.05; done
IOR=$(sed -n 2p /tmp/cap-srv.$$)
ANY_IOR=$(sed -n 's/^AnyEcho //p' /tmp/cap-srv.$$)
PORT=$(sed -n 1p /tmp/cap-srv.$$ | sed 's/.*:\([0-9]*\)\/Echo$/\1/')

# capture NAME VIA client-args...   (VIA: ior = GIOP 1.2, plain = corbaloc GIOP 1.0,
# anyior = AnyEcho's IOR, GIOP 1.2)
capture() {
  local name=$1 via=$2; shift 2
  local ior=$IOR
  [ $via = anyior ] && ior=$ANY_IOR
  python3 captures/giop-proxy.py --target 127.0.0.1:$PORT --ior "$ior" \
      --out captures/$name.hex >/tmp/cap-px.$$ &
  local px=$!
  for _ in $(seq 100); do [ "$(wc -l </tmp/cap-px.$$)" -ge 2 ] && break; sleep 0.05; done
  local t
  if [ $via != plain ]; then t=$(sed -n 2p /tmp/cap-px.$$); else t=corbaloc::127.0.0.1:$(sed -n 1p /tmp/cap-px.$$)/Echo; fi
  ./omni-client --target "$t" --check "$@"
  sleep 0.3
  kill $px; wait $px 2>/dev/null || true
}

# echoAny: one file per Any case, in omni-client's order
for c in short long ushort ulong longlong ulonglong float double longdouble boolean char \
         octet wchar string wstring fixed empty typecode objref point pointseq tree \
         choice-l choice-s choice-default color node-cycle node-shared node-null subnode \
         truncnode any-in-any seq-any anyseq; do
  capture any/echoAny-$c anyior --scenario any --case $c
done
[ "$WHAT" = any ] && { rm -f /tmp/cap-srv.$$ /tmp/cap-px.$$; exit 0; }

capture echoGraph3 ior --scenario graph --nodes 3
capture echoGraph3-cyclic ior --scenario graph --nodes 3 --cyclic
capture echoSubGraph3 ior --scenario subgraph --nodes 3
capture echoTruncGraph3 ior --scenario truncgraph --nodes 3
capture echoPair2 ior --scenario pair --nodes 2
capture echoWString4 ior --scenario wstring --size 4
capture echoGraph3-giop10 plain --scenario graph --nodes 3
rm -f /tmp/cap-srv.$$ /tmp/cap-px.$$
