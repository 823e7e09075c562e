#!/bin/sh
# relation.sh BPF_INVCHECK SCX_FLOW_OBJECT SPEC: the `relate sched_ext_dsqs`
# checks of tests/data/e2e/scx_flow.bpf.c, each with its exact verdict and,
# for unknowns, the exact reason (tests/e2e/sched_ext.tsv has the verdicts
# only); exit code 3 (unknowns, no violation).
set -u
bin=$1 obj=$2 spec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" --format=json "$obj" "$spec" >"$tmp/out" 2>"$tmp/err"
rc=$?
python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(r["check"] + ": " + r["verdict"] + ("" if r["verdict"] == "holds" else ": " + r.get("reason", "")))
' "$tmp/out" >"$tmp/got"
cat >"$tmp/want" <<'END'
two_dispatch.sched_ext_dsqs: holds
two_init.sched_ext_dsqs: holds
cpu_dispatch.sched_ext_dsqs: unknown: relation sched_ext_dsqs: the insert in cpu_enqueue at scx_flow.bpf.c:37 can use more than 16 user DSQ ids
cpu_init.sched_ext_dsqs: unknown: relation sched_ext_dsqs: the insert in cpu_enqueue at scx_flow.bpf.c:37 can use more than 16 user DSQ ids
nodisp_enqueue.sched_ext_dsqs: unknown: relation sched_ext_dsqs: struct_ops map nodisp_ops has no dispatch callback, but nodisp_enqueue at scx_flow.bpf.c:52 inserts into user DSQ 3
nodisp_init.sched_ext_dsqs: unknown: relation sched_ext_dsqs: struct_ops map nodisp_ops has no dispatch callback, but nodisp_enqueue at scx_flow.bpf.c:52 inserts into user DSQ 3
hidden_enqueue.sched_ext_dsqs: unknown: relation sched_ext_dsqs: the insert in hidden_enqueue at scx_flow.bpf.c:69 keeps its DSQ id behind a pointer (__scx_bpf_dsq_insert_vtime)
hidden_dispatch.sched_ext_dsqs: unknown: relation sched_ext_dsqs: the insert in hidden_enqueue at scx_flow.bpf.c:69 keeps its DSQ id behind a pointer (__scx_bpf_dsq_insert_vtime)
loop_dispatch.sched_ext_dsqs: unknown: relation sched_ext_dsqs: program loop_enqueue of the map needs more than the loop bound (64) or the solver gave up
loop_init.sched_ext_dsqs: unknown: relation sched_ext_dsqs: program loop_enqueue of the map needs more than the loop bound (64) or the solver gave up
END
if ! cmp -s "$tmp/want" "$tmp/got" || [ "$rc" -ne 3 ]; then
	echo "FAIL: exit $rc (expected 3); diff expected got:"
	diff "$tmp/want" "$tmp/got"
	exit 1
fi
# a larger loop bound lets the loop callback be collected: both hold
"$bin" --loop-bound=128 --program='loop_*' "$obj" "$spec" >"$tmp/out" 2>&1
rc=$?
printf 'loop_dispatch.sched_ext_dsqs: holds\nloop_init.sched_ext_dsqs: holds\n' >"$tmp/want"
grep -v '^[0-9]* checks' "$tmp/out" >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got" || [ "$rc" -ne 0 ]; then
	echo "FAIL: --loop-bound=128: exit $rc; output:"
	cat "$tmp/out"
	exit 1
fi
# --timeout=0: no query is run, not even to collect the ids
"$bin" --timeout=0 --program='two_*' "$obj" "$spec" >"$tmp/out" 2>&1
rc=$?
r="relation sched_ext_dsqs: timeout: --timeout=0 leaves the solver no time"
printf '%s\n' "$spec:7:47: warning: invariant two_dispatch.sched_ext_dsqs unknown: $r" \
	"$spec:7:47: warning: invariant two_init.sched_ext_dsqs unknown: $r" \
	"2 checks: 0 hold, 0 violated, 2 unknown" >"$tmp/want"
if ! cmp -s "$tmp/want" "$tmp/out" || [ "$rc" -ne 3 ]; then
	echo "FAIL: --timeout=0: exit $rc; output:"
	cat "$tmp/out"
	exit 1
fi
echo "relation: all passed"
