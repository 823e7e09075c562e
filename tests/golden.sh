#!/bin/sh
# golden.sh EXPECTED CMD [ARGS...]: run CMD, compare its stdout with the file
# EXPECTED byte for byte; also require exit status $GOLDEN_RC (default 0). With REGEN=1 in the
# environment, rewrite EXPECTED instead (then review the diff by hand).
set -u
expected=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out.raw"
rc=$?
# paths of the build and source trees print as BUILD and SRC (the build's
# first: it may lie inside the source tree), so the files do not depend on
# where the tree is checked out or built
sed -e "s|${GOLDEN_BUILD:-/nonexistent}|BUILD|g" -e "s|${GOLDEN_SRC:-/nonexistent}|SRC|g" "$out.raw" >"$out"
rm -f "$out.raw"
if [ "$rc" -ne "${GOLDEN_RC:-0}" ]; then
	echo "golden: '$*' exited with $rc" >&2
	exit 1
fi
if [ "${REGEN:-}" = 1 ]; then
	cp "$out" "$expected" && chmod 644 "$expected"
	exit 0
fi
if ! diff -u "$expected" "$out"; then
	echo "golden: output of '$*' differs from $expected (REGEN=1 rewrites it)" >&2
	exit 1
fi
