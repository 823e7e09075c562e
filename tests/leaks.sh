#!/bin/sh
# leaks.sh BPF_INVCHECK EXAMPLES_DIR SOURCE_ROOT: the CLI under valgrind
# (definite and indirect leaks, invalid accesses: exit 99) on the paths the
# sanitizer suite covers only through other tests: a violation with its
# counterexample and replay, JSON with parallel checks, bad objects and
# specs, the instrumented dump, a run cut by --deadline. Z3's own
# "possibly lost" global tables are not errors. Skips (77) without
# valgrind. (Under ASan the whole suite runs with LeakSanitizer, and
# tests/e2e.py runs every example and spec through the CLI there: a leak
# changes the exit code to 23, which e2e reports.)
set -u
bin=$1
ex=$2
src=$3
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# run EXPECTED_EXIT ARGS...: the CLI's own exit code, and no valgrind error
run() {
	code=$1
	shift
	n=$((n + 1))
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --error-exitcode=99 \
		"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ]; then
		echo "FAIL: valgrind bpf-invcheck $*: exit $rc, expected $code"
		grep '^==' "$tmp/err" | head -40
		fails=$((fails + 1))
	fi
}

printf 'hello' >"$tmp/notelf.o"
head -c 3000 "$ex/xdp_fw.bpf.o" >"$tmp/trunc.o"
run 1 "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
run 1 --format=json --jobs=2 "$ex/tc_classifier_bug.bpf.o" "$src/examples/tc_classifier.inv"
run 2 --dump=ssa "$tmp/notelf.o"
run 2 --dump=insns "$tmp/trunc.o"
run 2 "$ex/xdp_fw.bpf.o" "$src/tests/data/bad/spec/sem_unknown_name.inv"
run 2 "$ex/xdp_fw.bpf.o" "$src/tests/data/bad/spec/nest_parens.inv"
run 0 --dump=ssa "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
run 3 --jobs=2 --deadline=2 "$ex/xdp_fw.bpf.o" "$src/tests/data/limits/slow.inv"
echo "leaks: $n runs under valgrind, $fails failures"
[ "$fails" -eq 0 ]
