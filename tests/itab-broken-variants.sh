#!/usr/bin/env bash
# itab-broken-variants.sh - check that tests/check_itab.c catches every
# deliberately broken variant of libcdr/itab.c: the patches under
# tests/itab-broken/ (NN-name.patch, each one bug; the first lines of each
# say which).
#
# For the unbroken build and for each variant, links tests/check_itab.c with
# the library's sources (itab.c: a copy with the variant's patch applied by
# patch -p1) and runs it with CK_FORK=yes under a 120 s timeout.  A variant
# is "caught" when the test binary fails (non-zero exit, including a crash
# or the timeout).
#
# Exit status 0 only if the unbroken build passes and every variant is
# caught.  Not part of `make check` (it rebuilds itab.c 15 times).
#
# Usage: tests/itab-broken-variants.sh [N ...]   (default: every patch)
# Environment: CC (gcc), ITAB_SRC (libcdr/itab.c), CFLAGS (-O1 -g),
# ITAB_TIMEOUT (120: the whole binary), CK_TIMEOUT_MULTIPLIER (0.1: each
# test's limit, 12 s), KEEP=1 keeps the build directory, ITAB_SEED as for
# check_itab.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

CC=${CC:-gcc}
# The itab.c to test (another version than the tree's, e.g. a committed one:
# ITAB_SRC=<(git show HEAD:libcdr/itab.c)); it is compiled with -Ilibcdr.
# The patches are made against the tree's itab.c: one that does not apply
# to another version counts as not caught.
ITAB_SRC=${ITAB_SRC:-libcdr/itab.c}
PATCHES=tests/itab-broken
CFLAGS=${CFLAGS:--O1 -g}
TIMEOUT=${ITAB_TIMEOUT:-120}
# check_itab's test cases set 120 s per test; a variant that makes one test
# loop forever would use up the whole binary's time and hide the others'
# failures.  The multiplier brings each test's limit to 120 * MULT s (the
# unbroken tests take well under a second).
MULT=${CK_TIMEOUT_MULTIPLIER:-0.1}
# Variant N is the patch whose name starts with N (two digits).
patch_of() {
  local f
  for f in "$PATCHES"/$(printf %02d "$1")-*.patch; do
    [ -f "$f" ] && echo "$f" && return 0
  done
  return 1
}
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  for f in "$PATCHES"/[0-9][0-9]-*.patch; do
    [ -f "$f" ] || continue
    n=$(basename "$f"); n=${n%%-*}
    variants+=($((10#$n)))
  done
fi
if [ ${#variants[@]} -eq 0 ]; then
  echo "no patches under $PATCHES" >&2
  exit 2
fi

check_libs=$(pkg-config --libs check 2>/dev/null || echo "-lcheck -lsubunit -lm -lrt")
check_cflags=$(pkg-config --cflags check 2>/dev/null || true)
defs="-DCDR_BUILDING"
[ -f config.h ] && defs="$defs -DHAVE_CONFIG_H"
common="-std=gnu11 -pthread $CFLAGS $defs -I. -Ilibcdr -Ilibcdr/include -Ilibiiop/include"
libs="$check_libs -lxxhash -lcrypto -lm -lrt -pthread"

work=$(mktemp -d "${TMPDIR:-/tmp}/itab-variants.XXXXXX") || exit 2
if [ "${KEEP:-0}" != 1 ]; then
  trap 'rm -rf "$work"' EXIT
else
  echo "build directory: $work"
fi

mkdir -p "$work/v0/libcdr"
if ! cp "$ITAB_SRC" "$work/v0/libcdr/itab.c"; then
  echo "cannot read $ITAB_SRC" >&2
  exit 2
fi

# The library's sources other than itab.c, compiled once.
others=()
for src in libcdr/*.c; do
  [ "$src" = libcdr/itab.c ] && continue
  obj="$work/$(basename "$src" .c).o"
  if ! $CC $common -c "$src" -o "$obj"; then
    echo "cannot compile $src" >&2
    exit 2
  fi
  others+=("$obj")
done
if ! $CC $common $check_cflags -c tests/check_itab.c -o "$work/check_itab.o"; then
  echo "cannot compile tests/check_itab.c" >&2
  exit 2
fi
# The test programs' shared main().
if ! $CC $common $check_cflags -c tests/runner.c -o "$work/runner.o"; then
  echo "cannot compile tests/runner.c" >&2
  exit 2
fi

# build N: links $work/check_itab-N with itab.c as variant N (0: unbroken):
# a copy of it in $work/vN with variant N's patch applied.
build() {
  local n=$1 dir=$work/v$1 p
  if [ "$n" != 0 ]; then
    if ! p=$(patch_of "$n"); then
      echo "no patch for variant $n" >&2
      return 1
    fi
    mkdir -p "$dir/libcdr" && cp "$work/v0/libcdr/itab.c" "$dir/libcdr/itab.c" &&
      patch -s -p1 -d "$dir" <"$p" || return 1
  fi
  $CC $common -c "$dir/libcdr/itab.c" -o "$work/itab-$n.o" &&
    $CC -pthread -o "$work/check_itab-$n" "$work/check_itab.o" "$work/runner.o" "$work/itab-$n.o" \
      "${others[@]}" $libs
}

# run N: runs variant N's binary; prints a summary line; returns its status.
# Check prints "file:line:F/E:tcase:test:..." for each failing test.
run() {
  local n=$1 log rc
  log="$work/check_itab-$n.log"
  rm -f "$log.ck"
  # Check writes CK_LOG_FILE_NAME as each test ends, so that the failing
  # tests are known even when the whole binary runs out of time.
  CK_FORK=yes CK_VERBOSITY=normal CK_LOG_FILE_NAME="$log.ck" \
    CK_TIMEOUT_MULTIPLIER="$MULT" \
    timeout "$TIMEOUT" "$work/check_itab-$n" >"$log" 2>&1
  rc=$?
  failing=$(cat "$log" "$log.ck" 2>/dev/null | grep -E '^[^:]+:[0-9]+:[EF]:' |
    awk -F: '{print $5}' | sort -u | paste -sd, -)
  summary=$(grep -E '^[0-9]+%: Checks:' "$log" | tail -1)
  [ $rc -eq 124 ] && summary="timed out after ${TIMEOUT}s"
  return $rc
}

status=0
echo "== unbroken build"
if ! build 0; then
  echo "unbroken: BUILD FAILED"
  exit 2
fi
if run 0; then
  echo "unbroken: passes ($summary)"
else
  echo "unbroken: FAILS (rc $?; $summary; failing: ${failing:-?})"
  sed -n '1,40p' "$work/check_itab-0.log"
  status=1
fi

caught=0
missed=()
echo "== broken variants"
for n in "${variants[@]}"; do
  name=$(patch_of "$n") && name=$(basename "$name" .patch) && name=${name#*-} || name=?
  label="variant $n ($name)"
  if ! build "$n"; then
    echo "$label: BUILD FAILED"
    missed+=("$n")
    status=1
    continue
  fi
  if run "$n"; then
    echo "$label: NOT CAUGHT ($summary)"
    missed+=("$n")
    status=1
  else
    rc=$?
    echo "$label: caught (rc $rc; $summary; failing: ${failing:-none listed})"
    caught=$((caught + 1))
  fi
done

echo "== $caught of ${#variants[@]} variants caught${missed[*]:+; not caught: ${missed[*]}}"
exit $status
