#!/bin/sh
# lazy_z3.sh BPF_INVCHECK EXAMPLES_DIR SOURCE_ROOT [lazy|linked]: libz3 is opened on first
# use (checker/z3lazy.h). A run that needs no Z3 context (every check
# decided by the pre-pass or the search, --version, a dump, a cache hit)
# never loads it (the dynamic linker's LD_DEBUG=files log); a run that
# needs one loads it with dlopen; a library that cannot be opened, or lacks
# a function, makes each check that needed Z3 an error naming why (exit 2)
# while the others are still decided. A sanitizer build links libz3 too
# (checker/meson.build: LeakSanitizer and a dlopen'd libz3 do not mix):
# with `linked` every run must show it linked, and the broken-library
# cases are skipped (such a binary cannot start without its libz3).
set -u
bin=$1
ex=$2
src=$3
mode=${4:-lazy}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# loads WANT ARGS...: libz3 loaded (WANT yes) or not (no); exit code in $rc
loads() {
	want=$1
	shift
	[ "$mode" = linked ] && want=linked
	n=$((n + 1))
	LD_DEBUG=files "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=no
	grep -q 'file=libz3\.so[.0-9]* \[0\];  dynamically loaded by' "$tmp/err" && got=yes
	grep -q 'file=libz3\.so[.0-9]* \[0\];  needed by' "$tmp/err" && got=linked
	[ "$got" = "$want" ] || fail "libz3 loaded: $got, expected $want: bpf-invcheck $*"
}

loads no --version
[ "$rc" -eq 0 ] || fail "--version: exit $rc"
loads no "$ex/trace_exec.bpf.o" "$src/examples/trace_exec.inv"
[ "$rc" -eq 0 ] && grep -q '^9 checks: 9 hold, 0 violated, 0 unknown$' "$tmp/out" ||
	fail "trace_exec: exit $rc: $(tail -1 "$tmp/out")"
loads no --dump=ssa "$ex/xdp_fw.bpf.o"
[ "$rc" -eq 0 ] || fail "--dump=ssa: exit $rc"
# xdp_fw and tailcall need none since session 13; scx_percpu's
# push_strict and three enqueue checks still need Z3
loads no "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
[ "$rc" -eq 0 ] && grep -q '^6 checks: 6 hold, 0 violated, 0 unknown$' "$tmp/out" ||
	fail "xdp_fw: exit $rc: $(tail -1 "$tmp/out")"
# loop_sum and xdp_lb since session 18: loop_sum's sum and drop claims
# by the pre-pass (an atomic add read back, an ordering fact), its bound
# by the pre-pass's largest count and the search's run of it; xdp_lb's
# service_reaches_backend by the pre-pass's relations (a remainder below
# its divisor, sums with a common term, the backends lookup that cannot
# fail: docs/architecture.md, "Relations between values"), its bound by
# the guided search
loads no "$ex/loop_sum.bpf.o" "$src/examples/loop_sum.inv"
[ "$rc" -eq 0 ] && grep -q '^5 checks: 5 hold, 0 violated, 0 unknown$' "$tmp/out" ||
	fail "loop_sum: exit $rc: $(tail -1 "$tmp/out")"
loads no "$ex/xdp_lb.bpf.o" "$src/examples/xdp_lb.inv"
[ "$rc" -eq 0 ] && grep -q '^7 checks: 7 hold, 0 violated, 0 unknown$' "$tmp/out" ||
	fail "xdp_lb: exit $rc: $(tail -1 "$tmp/out")"
# a program the encoder does not model (a map with 6.5 MB values, no
# kernel creates one) is unknown without a context (check.c not_modelled)
loads no --loop-bound=2 "$src/tests/data/fuzz/map_huge.bin" "$src/tests/data/e2e/bound_small.inv"
[ "$rc" -eq 3 ] && grep -q '^1 check: 0 hold, 0 violated, 1 unknown$' "$tmp/out" ||
	fail "map_huge: exit $rc: $(tail -1 "$tmp/out")"
loads yes "$ex/scx_percpu.bpf.o" "$src/examples/scx_percpu.inv"
[ "$rc" -eq 0 ] && grep -q '^7 checks: 7 hold, 0 violated, 0 unknown$' "$tmp/out" ||
	fail "scx_percpu: exit $rc: $(tail -1 "$tmp/out")"
soname=$(sed -n 's/.*file=\(libz3\.so[.0-9]*\) \[0\];  dynamically loaded by.*/\1/p' "$tmp/err" | head -1)
# a cache hit answers without the solver (the key names the library file)
"$bin" --cache "$tmp/cache" "$ex/scx_percpu.bpf.o" "$src/examples/scx_percpu.inv" >"$tmp/first" 2>&1
loads no --cache "$tmp/cache" "$ex/scx_percpu.bpf.o" "$src/examples/scx_percpu.inv"
[ "$rc" -eq 0 ] && cmp -s "$tmp/first" "$tmp/out" || fail "cache hit: exit $rc, output differs"

if [ "$mode" = linked ]; then
	echo "$n lazy-z3 cases (libz3 linked: the broken-library cases skipped), $fails failed"
	[ "$fails" -eq 0 ]
	exit
fi
# a broken libz3.so.4 first on the library path: each check that needed a
# context says why; those the pre-pass proved still hold
[ -n "$soname" ] || { fail "no libz3 soname in the loader's log"; soname=libz3.so.unknown; }
mkdir -p "$tmp/short" "$tmp/other"
echo junk >"$tmp/short/$soname"
# another library (libelf: the binary links it statically by default,
# so the loader's cache names it)
other=$(ldd "$bin" | sed -n 's/.*libelf\.so\.1 => \([^ ]*\).*/\1/p')
[ -n "$other" ] || other=$(/sbin/ldconfig -p | sed -n 's/.*libelf\.so\.1 (libc6,x86-64) => \(.*\)$/\1/p' | head -1)
cp "$other" "$tmp/other/$soname"
for case in "short:cannot open the solver library $soname: $tmp/short/$soname: file too short" \
	    "other:the solver library $soname has no Z3_del_config"; do
	dir=${case%%:*} why=${case#*:}
	n=$((n + 1))
	LD_LIBRARY_PATH="$tmp/$dir" "$bin" "$ex/scx_percpu.bpf.o" "$src/examples/scx_percpu.inv" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] &&
		[ "$(grep -c "^.*: error: invariant percpu_[a-z0-9_.]*: $why\$" "$tmp/out")" -eq 4 ] &&
		grep -q '^percpu_dispatch.sched_ext.dispatch_pulls: holds$' "$tmp/out" &&
		grep -q '^7 checks: 3 hold, 0 violated, 0 unknown, some internal errors$' "$tmp/out" ||
		fail "libz3 '$dir': exit $rc: $(cat "$tmp/out")"
done

echo "$n lazy-z3 cases, $fails failed"
[ "$fails" -eq 0 ]
