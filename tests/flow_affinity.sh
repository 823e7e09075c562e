#!/bin/sh
# flow_affinity.sh BPF_INVCHECK AFFINITY_O EXAMPLES_DIR: `bpf-invcheck diff
# --flow-affinity` (checker/selfcomp.h, docs/diff.md): the verdict line of
# each program, the replayed exits of the two runs, and the exit code.
set -u
bin=$1
aff=$2
ex=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# run CODE ARGS... then lines (fixed strings) that the output must contain
run() {
	code=$1
	shift
	n=$((n + 1))
	"$bin" diff --flow-affinity --timeout=60 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ]; then
		echo "FAIL: bpf-invcheck diff --flow-affinity $*: exit $rc, expected $code"
		cat "$tmp/out" "$tmp/err"
		fails=$((fails + 1))
	fi
}
has() {
	if ! grep -qxF -- "$1" "$tmp/out"; then
		echo "FAIL: no line '$1' in:"
		cat "$tmp/out"
		fails=$((fails + 1))
	fi
}

# the fixture: sampling by prandom is independent (the per-path rule
# xdp.flow_affinity calls it a violation), a CPU-chosen port and a random
# drop depend, a per-CPU map is unknown
run 1 "$aff"
has "a_sampled: independent of random numbers and the CPU"
has "a_spray: depends on random numbers or the CPU: return value and redirect calls (both runs replayed in the interpreter)"
has "a_drop_random: depends on random numbers or the CPU: return value and redirect calls (both runs replayed in the interpreter)"
has "  run 1 returns 1, run 2 returns 4"
has "a_percpu: unknown (the program uses a per-CPU map: its contents depend on the CPU, and the two runs share every map's contents)"
has "4 programs checked: 1 independent, 2 depend, 1 unknown"
[ "$(grep -c "exited with r0 = " "$tmp/out")" -eq 4 ] ||
	{ echo "FAIL: not two replayed runs per dependent program"; fails=$((fails + 1)); }

# the examples: the affinity bug's random CPU changes the verdict; the
# correct programs are independent
run 1 --program=xdp_redirect "$ex/xdp_redirect_affinity_bug.bpf.o"
has "xdp_redirect: depends on random numbers or the CPU: return value and redirect calls (both runs replayed in the interpreter)"
run 0 --program=xdp_xsk "$ex/xdp_redirect.bpf.o"
has "xdp_xsk: independent of random numbers and the CPU"
run 0 "$ex/xdp_fw.bpf.o"
has "1 programs checked: 1 independent, 0 depend, 0 unknown"
run 0 "$ex/tc_classifier.bpf.o"
has "tc_classifier: independent of random numbers and the CPU"

# usage
n=$((n + 1))
"$bin" diff --flow-affinity "$ex/xdp_fw.bpf.o" "$ex/xdp_fw.bpf.o" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/err")" = "bpf-invcheck: error: diff --flow-affinity needs one object; try 'bpf-invcheck diff --help'" ] ||
	{ echo "FAIL: two objects with --flow-affinity: exit $rc, $(cat "$tmp/err")"; fails=$((fails + 1)); }

echo "flow_affinity: $n cases, $fails failed"
[ "$fails" -eq 0 ]
