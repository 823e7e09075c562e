#!/bin/sh
# diff_cli.sh BPF_INVCHECK EXAMPLES_DIR: `bpf-invcheck diff OLD NEW`.
# Each case asserts the exit code and the exact verdict lines (the lines
# that start with a program name, and the summary); counterexample details
# (packet bytes, paths) are the solver's choice and are not compared, but
# every "differ" has been replayed in the interpreter for both versions
# before it is printed (an unreplayable one is an internal error, exit 2).
set -u
bin=$1
ex=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# expect CODE EXPECTED-VERDICT-LINES ARGS...
expect() {
	code=$1 want=$2
	shift 2
	n=$((n + 1))
	"$bin" diff "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(grep -v '^ ' "$tmp/out")
	if [ "$rc" -ne "$code" ] || [ "$got" != "$want" ]; then
		echo "FAIL: bpf-invcheck diff $*"
		echo "  expected exit $code and:"; echo "$want" | sed 's/^/    /'
		echo "  got exit $rc and:"; echo "$got" | sed 's/^/    /'
		sed 's/^/    stderr: /' "$tmp/err"
		fails=$((fails + 1))
	fi
}

# expect_line CODE TEXT ARGS...: exit CODE and TEXT in a line of stdout
expect_line() {
	code=$1 line=$2
	shift 2
	n=$((n + 1))
	"$bin" diff "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -qF -- "$line" "$tmp/out"; then
		echo "FAIL: bpf-invcheck diff $*"
		echo "  expected exit $code and the line: $line"
		echo "  got exit $rc:"; sed 's/^/    /' "$tmp/out" "$tmp/err"
		fails=$((fails + 1))
	fi
}

# -O2 vs -O1 of the same source: proved equivalent
expect 0 "xdp_fw: equivalent
1 programs compared: 1 equivalent, 0 differ, 0 unknown" "$ex/xdp_fw.bpf.o" "$ex/xdp_fw_O1.bpf.o"
expect 0 "tc_classifier: equivalent
1 programs compared: 1 equivalent, 0 differ, 0 unknown" "$ex/tc_classifier.bpf.o" "$ex/tc_classifier_O1.bpf.o"
expect 0 "tail_tcp: equivalent
tail_udp: equivalent
tail_entry: equivalent
3 programs compared: 3 equivalent, 0 differ, 0 unknown" "$ex/tailcall.bpf.o" "$ex/tailcall_O1.bpf.o"
expect 0 "mini_select_cpu: equivalent
mini_enqueue: equivalent
mini_dispatch: equivalent
mini_init: equivalent
mini_exit: equivalent
5 programs compared: 5 equivalent, 0 differ, 0 unknown" "$ex/scx_mini.bpf.o" "$ex/scx_mini_O1.bpf.o"
# an object against itself
expect 0 "trace_exec: equivalent
trace_exit: equivalent
2 programs compared: 2 equivalent, 0 differ, 0 unknown" "$ex/trace_exec.bpf.o" "$ex/trace_exec.bpf.o"

# correct vs buggy: the behavioural difference, replayed
expect 1 "xdp_fw: differ: return value and calls (replayed in the interpreter)
1 programs compared: 0 equivalent, 1 differ, 0 unknown" "$ex/xdp_fw.bpf.o" "$ex/xdp_fw_bug.bpf.o"
expect 1 "xdp_lb: differ: return value (replayed in the interpreter)
1 programs compared: 0 equivalent, 1 differ, 0 unknown" "$ex/xdp_lb.bpf.o" "$ex/xdp_lb_bug.bpf.o"
expect 1 "tc_classifier: differ: return value and calls (replayed in the interpreter)
1 programs compared: 0 equivalent, 1 differ, 0 unknown" "$ex/tc_classifier.bpf.o" "$ex/tc_classifier_bug.bpf.o"
# the low-load scheduler regression: only dispatch changed
expect 1 "mini_select_cpu: equivalent
mini_enqueue: equivalent
mini_dispatch: differ: calls (replayed in the interpreter)
mini_init: equivalent
mini_exit: equivalent
5 programs compared: 4 equivalent, 1 differ, 0 unknown" "$ex/scx_mini.bpf.o" "$ex/scx_mini_bug.bpf.o"
expect_line 1 "  worst-case instructions: old 3, new 6" --program=mini_dispatch "$ex/scx_mini.bpf.o" "$ex/scx_mini_bug.bpf.o"
expect_line 1 "/examples/scx_mini.bpf.c:77 returns 0 (0)" --program=mini_dispatch "$ex/scx_mini.bpf.o" "$ex/scx_mini_bug.bpf.o"

# unknown, never equivalent, when the checker cannot tell
expect 3 "loop_sum: unknown ($ex/loop_sum.bpf.o: bpf_loop is not supported by diff (its calls are not aligned))
1 programs compared: 0 equivalent, 0 differ, 1 unknown" "$ex/loop_sum.bpf.o" "$ex/loop_sum_bug.bpf.o"
expect 3 "xdp_fw: unknown (timeout: --timeout=0 leaves the solver no time)
1 programs compared: 0 equivalent, 0 differ, 1 unknown" --timeout=0 "$ex/xdp_fw.bpf.o" "$ex/xdp_fw_bug.bpf.o"

# programs in one object only
expect 1 "xdp_fw: only in $ex/xdp_fw.bpf.o
tc_classifier: only in $ex/tc_classifier.bpf.o
0 programs compared: 0 equivalent, 0 differ, 0 unknown; 2 in one object only" "$ex/xdp_fw.bpf.o" "$ex/tc_classifier.bpf.o"

# usage and input errors: exit 2, one message
expect_err() {
	code=$1 msg=$2
	shift 2
	n=$((n + 1))
	"$bin" diff "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || [ "$(cat "$tmp/err")" != "$msg" ]; then
		echo "FAIL: bpf-invcheck diff $*"
		echo "  expected exit $code and: $msg"
		echo "  got exit $rc and: $(cat "$tmp/err")"
		fails=$((fails + 1))
	fi
}
expect_err 2 "bpf-invcheck: error: diff needs two objects, OLD and NEW; try 'bpf-invcheck diff --help'" "$ex/xdp_fw.bpf.o"
expect_err 2 "bpf-invcheck: error: unknown diff option '--bogus' or missing value; try 'bpf-invcheck diff --help'" --bogus "$ex/xdp_fw.bpf.o" "$ex/xdp_fw.bpf.o"
expect_err 2 "bpf-invcheck: error: --loop-bound needs a number from 1 to 1048576, not 'x'" --loop-bound=x "$ex/xdp_fw.bpf.o" "$ex/xdp_fw.bpf.o"
printf 'hello\n' >"$tmp/notelf.o"
expect_err 2 "$tmp/notelf.o: error: not an ELF file" "$ex/xdp_fw.bpf.o" "$tmp/notelf.o"
expect_err 2 "bpf-invcheck: error: no program matches 'nope' in either object" --program=nope "$ex/xdp_fw.bpf.o" "$ex/xdp_fw.bpf.o"

echo "diff_cli: $n cases, $fails failed"
[ "$fails" -eq 0 ]
