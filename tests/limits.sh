#!/bin/sh
# limits.sh BPF_INVCHECK EXAMPLES_DIR SOURCE_ROOT: --deadline, --max-memory and --rlimit
# turn into unknown verdicts with their reason (never holds, never a crash
# or a lost result), bad values are usage errors, and a limit that is not
# reached changes nothing.
set -u
bin=$1
ex=$2
src=$3
slow=$src/tests/data/limits/slow.inv
obj=$ex/xdp_fw.bpf.o
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# expect CODE STDOUT STDERR ARGS...: exit status, stdout and stderr exactly
expect() {
	code=$1 out=$2 err=$3
	shift 3
	n=$((n + 1))
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || [ "$(cat "$tmp/out")" != "$out" ] || [ "$(cat "$tmp/err")" != "$err" ]; then
		echo "FAIL: bpf-invcheck $*"
		echo "  expected exit $code, stdout:"; echo "$out" | sed 's/^/    /'
		echo "  stderr: $err"
		echo "  got exit $rc, stdout:"; sed 's/^/    /' "$tmp/out"
		echo "  stderr: $(cat "$tmp/err")"
		fails=$((fails + 1))
	fi
}

# the deadline: the slow check runs out of it while solving, the next one
# never starts; both are reported
expect 3 "$slow:5:3: warning: invariant xdp_fw.factor unknown: deadline: the run's --deadline=2 s ran out while solving
$slow:11:3: warning: invariant xdp_fw.ret_small unknown: deadline: the run's --deadline=2 s ran out before this check started
2 checks: 0 hold, 0 violated, 2 unknown" "" --jobs=1 --deadline=2 "$obj" "$slow"
# in JSON too, with the reason
"$bin" --format=json --jobs=1 --deadline=1 "$obj" "$slow" >"$tmp/json" 2>&1
n=$((n + 1))
if [ "$(grep -c '"reason": "deadline: ' "$tmp/json")" != 2 ]; then
	echo "FAIL: --format=json --deadline=1: not two deadline reasons:"; cat "$tmp/json"
	fails=$((fails + 1))
fi
# a deadline far away changes nothing
expect 0 "" "" --quiet --deadline=3600 "$obj" "$src/examples/xdp_fw.inv"

# the memory cap: 1 MB stops the search at once (the timeout would take
# 30 s), 40 MB part-way through it (long before the 120 s timeout);
# --no-absint: the pre-pass would prove ret_small without the solver
expect 3 "$slow:5:3: warning: invariant xdp_fw.factor unknown: memory: the solver needed more than --max-memory=1 MB
$slow:11:3: warning: invariant xdp_fw.ret_small unknown: memory: the solver needed more than --max-memory=1 MB
2 checks: 0 hold, 0 violated, 2 unknown" "" --no-absint --jobs=1 --max-memory=1 --timeout=30 "$obj" "$slow"
start=$(date +%s)
expect 3 "$slow:5:3: warning: invariant xdp_fw.factor unknown: memory: the solver needed more than --max-memory=40 MB
xdp_fw.ret_small: holds
2 checks: 1 hold, 0 violated, 1 unknown" "" --jobs=1 --max-memory=40 --timeout=120 "$obj" "$slow"
n=$((n + 1))
if [ $(($(date +%s) - start)) -ge 120 ]; then
	echo "FAIL: --max-memory=40 did not fire before the timeout"
	fails=$((fails + 1))
fi

# the solver-work limit: the factoring query runs out of 100,000 units
# (in a fraction of a second; the timeout would take 30 s), the quick one
# does not; and the same verdicts with two jobs
for jobs in 1 2; do
	expect 3 "$slow:5:3: warning: invariant xdp_fw.factor unknown: solver work: a query needed more than --rlimit=100000 units
xdp_fw.ret_small: holds
2 checks: 1 hold, 0 violated, 1 unknown" "" --no-absint --jobs=$jobs --rlimit=100000 --timeout=30 "$obj" "$slow"
done
# a limit far away changes nothing
expect 0 "" "" --quiet --rlimit=4000000000 "$obj" "$src/examples/xdp_fw.inv"

# bad values
expect 2 "" "bpf-invcheck: error: --rlimit needs a number of solver work units from 1 to 4294967295, not '0'" --rlimit=0 a b
expect 2 "" "bpf-invcheck: error: --rlimit needs a number of solver work units from 1 to 4294967295, not '5e6'" --rlimit=5e6 a b
expect 2 "" "bpf-invcheck: error: --max-memory needs a number of megabytes from 1 to 1048576, not '0'" --max-memory=0 a b
expect 2 "" "bpf-invcheck: error: --max-memory needs a number of megabytes from 1 to 1048576, not 'lots'" --max-memory=lots a b
expect 2 "" "bpf-invcheck: error: --deadline needs a number of seconds from 1 to 86400, not '-1'" --deadline=-1 a b
expect 2 "" "bpf-invcheck: error: --deadline needs a number of seconds from 1 to 86400, not '86401'" --deadline=86401 a b

echo "limits: $n cases, $fails failures"
[ "$fails" -eq 0 ]
