#!/bin/sh
# perf.sh BPF_INVCHECK EXAMPLES_DIR SOURCE_ROOT: the contract of --stats (one
# machine-readable line of stage times on stderr, stdout unchanged) and of
# --cache DIR (a hit gives byte-identical output and exit code; changing the
# program, the spec or an option misses). Timing values are not asserted.
set -u
bin=$1
ex=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

num='[0-9][0-9]*\.[0-9]\{6\}'
stats_re="^bpf-invcheck-stats: insns=135 checks=5 load=$num decode=$num cfg=$num ssa=$num instrument=$num encode=$num solve=$num total=$num max_check=$num peak_rss_kb=[0-9][0-9]*\$"

# --stats: exactly one line on stderr, the same stdout and exit code
n=$((n + 1))
"$bin" --timeout=0 "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv" >"$tmp/plain" 2>"$tmp/plain.err"
rc0=$?
"$bin" --stats --timeout=0 "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] && [ "$rc0" -eq 3 ] || fail "--stats --timeout=0: exit $rc (plain $rc0), expected 3"
cmp -s "$tmp/plain" "$tmp/out" || fail "--stats changes stdout"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$stats_re" "$tmp/err" || fail "--stats line: $(cat "$tmp/err")"
# no solving with --timeout=0: the solve stage is exactly zero
n=$((n + 1))
grep -q " solve=0.000000 " "$tmp/err" || fail "--timeout=0 solve time: $(cat "$tmp/err")"
# a real run spends time in encode and solve
n=$((n + 1))
"$bin" --stats --quiet "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "$stats_re" "$tmp/err" || fail "--stats run: exit $rc: $(cat "$tmp/err")"
grep -q " encode=0.000000 \| solve=0.000000 " "$tmp/err" && fail "--stats: no encode/solve time: $(cat "$tmp/err")"

echo "perf: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
