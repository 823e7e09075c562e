#!/bin/sh
# cli.sh BPF_INVCHECK EXAMPLES_DIR SOURCE_ROOT: the command line's contract on bad
# input and bad usage: exit code 2 and exactly one message naming the file
# and what is wrong; valid dumps exit 0; verdicts, exit codes and
# --replay-kernel (its kernel runs are skipped when bpf() is not available).
set -u
bin=$1
ex=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# expect CODE MESSAGE ARGS...: exit status CODE and stderr exactly MESSAGE
expect() {
	code=$1 msg=$2
	shift 2
	n=$((n + 1))
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || [ "$(cat "$tmp/err")" != "$msg" ]; then
		echo "FAIL: bpf-invcheck $*"
		echo "  expected exit $code and: $msg"
		echo "  got exit $rc and: $(cat "$tmp/err")"
		fails=$((fails + 1))
	fi
}

printf 'hello\n' >"$tmp/notelf.o"
head -c 40 "$ex/xdp_fw.bpf.o" >"$tmp/trunc.o"
: >"$tmp/empty.o"

expect 2 "$tmp/empty.o: error: empty file" --dump=object "$tmp/empty.o"
expect 2 "/dev/null: error: not a regular file" --dump=object /dev/null
expect 2 "$tmp/missing.o: error: cannot open: No such file or directory" --dump=insns "$tmp/missing.o"
expect 2 "$tmp/notelf.o: error: not an ELF file" --dump=insns "$tmp/notelf.o"
expect 2 "$tmp/trunc.o: error: truncated ELF header (40 of 64 bytes)" --dump=ssa "$tmp/trunc.o"
expect 2 "$ex/xdp_fw.bpf.o: error: no program matches 'nope'" --dump=ssa --program=nope "$ex/xdp_fw.bpf.o"
expect 2 "bpf-invcheck: error: unknown --dump stage 'bogus' (expected object, insns, cfg or ssa)" --dump=bogus "$ex/xdp_fw.bpf.o"
expect 2 "bpf-invcheck: error: missing OBJECT; try 'bpf-invcheck --help'"
expect 2 "bpf-invcheck: error: missing SPEC (or --dump=STAGE to print a stage); try 'bpf-invcheck --help'" "$ex/xdp_fw.bpf.o"
expect 2 "bpf-invcheck: error: --dump takes only an OBJECT, not a SPEC (except --dump=ssa: the instrumented IR); try 'bpf-invcheck --help'" --dump=insns a b
expect 2 "bpf-invcheck: error: too many arguments; try 'bpf-invcheck --help'" a b c
expect 2 "bpf-invcheck: error: unknown option '--frob' or missing value; try 'bpf-invcheck --help'" --frob x
expect 2 "bpf-invcheck: error: --loop-bound needs a number from 1 to 1048576, not '0'" --loop-bound=0 --dump=ssa x
expect 2 "bpf-invcheck: error: --loop-bound needs a number from 1 to 1048576, not '-3'" --loop-bound=-3 --dump=ssa x
expect 2 "spec.inv: error: cannot read: No such file or directory" "$ex/xdp_fw.bpf.o" spec.inv
expect 2 "bpf-invcheck: error: --timeout needs a number of seconds from 0 to 86400, not 'x'" --timeout=x a b
expect 2 "bpf-invcheck: error: --jobs needs a number from 1 to 256, not '0'" --jobs=0 a b
expect 2 "bpf-invcheck: error: unknown --format 'xml' (expected text, json or sarif)" --format=xml a b
expect 2 "bpf-invcheck: error: --replay runs a counterexample: not with --dump or --cex-dir; try 'bpf-invcheck --help'" --replay=f --cex-dir=d a
expect 2 "bpf-invcheck: error: --cex-dot needs --cex-dir=DIR; try 'bpf-invcheck --help'" --cex-dot a b
expect 2 "bpf-invcheck: error: missing OBJECT; try 'bpf-invcheck --help'" --replay=f
expect 2 "$tmp/none.json: error: cannot read: No such file or directory" --replay="$tmp/none.json" "$ex/xdp_fw.bpf.o"
printf 'program "xdp_fw" {\n  invariant x { on exit { assert ret == nope; } }\n}\n' >"$tmp/bad.inv"
expect 2 "$tmp/bad.inv:2:41: error: unknown name 'nope'" "$ex/xdp_fw.bpf.o" "$tmp/bad.inv"
printf 'program "nothing_*" { }\n' >"$tmp/nomatch.inv"
expect 2 "$tmp/nomatch.inv:1:9: error: program selector \"nothing_*\" matches no program in $ex/xdp_fw.bpf.o" "$ex/xdp_fw.bpf.o" "$tmp/nomatch.inv"

# verdicts and exit codes: holds 0, violated 1, unknown 3 (never holds)
# expect_out CODE PATTERN ARGS...: exit status CODE and a stdout line matching PATTERN
expect_out() {
	code=$1 pat=$2
	shift 2
	n=$((n + 1))
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -q -- "$pat" "$tmp/out"; then
		echo "FAIL: bpf-invcheck $*"
		echo "  expected exit $code and a line matching: $pat"
		echo "  got exit $rc and: $(cat "$tmp/out" "$tmp/err")"
		fails=$((fails + 1))
	fi
}
expect_out 0 "^6 checks: 6 hold, 0 violated, 0 unknown$" "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
expect_out 1 "xdp_fw.bpf.c:[0-9]*:[0-9]*: error: invariant xdp_fw.ipv4_tcp_ssh_passes violated: SSH to this host must always get through" \
	"$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
expect_out 3 "warning: invariant loop_sum.sum_bounded unknown: loop bound 3 reached" \
	--loop-bound=3 "$ex/loop_sum.bpf.o" "$src/examples/loop_sum.inv"
expect_out 3 "^5 checks: 0 hold, 0 violated, 5 unknown$" --loop-bound=3 "$ex/loop_sum.bpf.o" "$src/examples/loop_sum.inv"
expect_out 3 "warning: invariant xdp_fw.xdp.never_abort unknown: timeout: --timeout=0 leaves the solver no time" \
	--timeout=0 "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
expect_out 0 '"verdict": "holds"' --format=json --jobs=4 "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
expect_out 1 "" --quiet "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
[ -z "$(grep -E ': holds($| \()' "$tmp/out")" ] || { echo "FAIL: --quiet prints holds"; fails=$((fails + 1)); }

# --replay-kernel: the counterexample also runs with BPF_PROG_TEST_RUN. A
# program type test_run cannot run is said without bpf(); the rest needs
# bpf() (root or CAP_BPF): probed with the first case, skipped without it.
expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): not supported for tracepoint programs (only xdp and tc)$" \
	--replay-kernel "$ex/trace_exec_bug.bpf.o" "$src/examples/trace_exec.inv"
"$bin" --replay-kernel --quiet "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv" >"$tmp/probe" 2>&1
if grep -q "kernel (BPF_PROG_TEST_RUN): not available" "$tmp/probe"; then
	echo "cli: skipping the --replay-kernel runs: $(sed -n 's/.*kernel (BPF_PROG_TEST_RUN): //p' "$tmp/probe")"
else
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): reproduced: retval 1 (the interpreter's r0 = 1)$" \
		--replay-kernel "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): reproduced: retval 2 (the interpreter's r0 = 2)" \
		--replay-kernel "$ex/tc_classifier_bug.bpf.o" "$src/examples/tc_classifier.inv"
	# its violation is the `on call` assert (the backend index), which
	# test_run cannot observe; should the model pick the exit assert, it
	# must reproduce. Without the bound (its worst-case search takes most
	# of a minute): only the violation matters here.
	sed '/^ *bound insns/d' "$src/examples/xdp_lb.inv" >"$tmp/xdp_lb.inv"
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): \(reproduced: \|the failing assert is at a call, which BPF_PROG_TEST_RUN cannot observe$\)" \
		--replay-kernel --jobs=2 "$ex/xdp_lb_bug.bpf.o" "$tmp/xdp_lb.inv"
	# XDP pack (issue 5): a drop, and a changed frame the kernel passes too
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): reproduced: retval 1 (the interpreter's r0 = 1)$" \
		--replay-kernel --quiet "$ex/xdp_redirect_route_bug.bpf.o" "$src/examples/xdp_redirect.inv"
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): reproduced: retval 2 (the interpreter's r0 = 2); results the kernel chose itself: bpf_xdp_adjust_head" \
		--replay-kernel --quiet "$ex/xdp_redirect_vlan_bug.bpf.o" "$src/examples/xdp_redirect.inv"
	# the bpf_skb_load_bytes model (-EFAULT exactly outside ctx.len) and
	# bpf_redirect_map's entries (issue 5): the kernel agrees
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): reproduced: retval 4294967282 (the interpreter's r0 = 4294967282) (packet: ctx.len bytes from bpf_skb_load_bytes)$" \
		--replay-kernel --quiet "$ex/tc_classifier_ret_bug.bpf.o" "$src/examples/tc_classifier.inv"
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): reproduced: retval 2 (the interpreter's r0 = 2) (packet: ctx.len bytes from bpf_skb_load_bytes)$" \
		--replay-kernel --quiet --program=tc_classifier "$ex/tc_classifier_shot_bug.bpf.o" "$src/examples/tc_classifier.inv"
	if grep -q "not reproduced" "$tmp/out"; then
		echo "FAIL: tc_classifier_shot_bug: a violation the kernel does not reproduce: $(grep "not reproduced" "$tmp/out")"
		fails=$((fails + 1))
	fi
	# the model picks nr_cpus (a .rodata input) and the CPU: a CPU this
	# machine does not have cannot get a CPUMAP entry (ENODEV), which the
	# replay must say; random_cpu.inv below pins nr_cpus = 2
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): \(reproduced: retval 4 (the interpreter's r0 = 4); results the kernel chose itself: bpf_get_prandom_u32\|cannot make the entry [0-9]* of map cpus that bpf_redirect_map found: No such device\)$" \
		--replay-kernel --quiet "$ex/xdp_redirect_affinity_bug.bpf.o" "$src/examples/xdp_redirect.inv"
	# the kernel draws its own random key: every run must reproduce
	# (tests/data/kernel/random_cpu.inv; CPUMAP entries for every CPU;
	# key 1 needs a second possible CPU)
	ncpu=$(getconf _NPROCESSORS_CONF)
	[ "$ncpu" -ge 2 ] || echo "cli: skipping the random-CPU --replay-kernel runs: $ncpu possible CPU"
	[ "$ncpu" -ge 2 ] && for i in $(seq 16); do
		expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): reproduced: retval 4 (the interpreter's r0 = 4); results the kernel chose itself: bpf_get_prandom_u32$" \
			--replay-kernel --quiet "$ex/xdp_redirect_affinity_bug.bpf.o" "$src/tests/data/kernel/random_cpu.inv"
	done
	expect_out 1 "^    kernel (BPF_PROG_TEST_RUN): an entry of XSKMAP xsks needs an AF_XDP socket bound to a device queue, which the test run does not have$" \
		--replay-kernel --quiet "$ex/xdp_redirect.bpf.o" "$src/tests/data/e2e/xsk_abort.inv"
	expect_out 1 '"kernel_replay": {"reproduced": true, "message": "reproduced: retval 1' \
		--replay-kernel --format=json --jobs=2 "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
fi
[ -z "$(grep -i kernel "$tmp/err")" ] || { echo "FAIL: --replay-kernel prints to stderr: $(cat "$tmp/err")"; fails=$((fails + 1)); }
expect_out 1 "" "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
[ -z "$(grep "BPF_PROG_TEST_RUN" "$tmp/out")" ] || { echo "FAIL: the kernel replay runs without --replay-kernel"; fails=$((fails + 1)); }

expect 0 "" --dump=ssa --loop-bound=3 "$ex/loop_sum.bpf.o"
expect 0 "" --version
expect 0 "" --help
"$bin" --dump=ssa --loop-bound=3 "$ex/loop_sum.bpf.o" | grep -q "^; program loop_sum: .* loop bound 3, 2 unwinding markers$" ||
	{ echo "FAIL: loop_sum with --loop-bound=3 does not show its 2 unwinding markers"; fails=$((fails + 1)); }
n=$((n + 1))
"$bin" --version | grep -qx "bpf-invcheck [0-9.]*" || { echo "FAIL: --version"; fails=$((fails + 1)); }
n=$((n + 1))
echo "cli: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
