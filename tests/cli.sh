#!/bin/sh
# cli.sh BPF_INVCHECK EXAMPLES_DIR: the command line's contract on bad
# input and bad usage: exit code 2 and exactly one message naming the file
# and what is wrong; valid dumps exit 0.
set -u
bin=$1
ex=$2
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
expect 2 "bpf-invcheck: error: --dump takes only an OBJECT, not a SPEC; try 'bpf-invcheck --help'" --dump=ssa a b
expect 2 "bpf-invcheck: error: too many arguments; try 'bpf-invcheck --help'" a b c
expect 2 "bpf-invcheck: error: unknown option '--frob' or missing value; try 'bpf-invcheck --help'" --frob x
expect 2 "bpf-invcheck: error: --loop-bound needs a number from 1 to 1048576, not '0'" --loop-bound=0 --dump=ssa x
expect 2 "bpf-invcheck: error: --loop-bound needs a number from 1 to 1048576, not '-3'" --loop-bound=-3 --dump=ssa x
expect 2 "bpf-invcheck: error: checking a spec is not available in this version yet; use --dump=STAGE" "$ex/xdp_fw.bpf.o" spec.inv
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
