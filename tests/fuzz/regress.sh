#!/bin/sh
# regress.sh BPF_INVCHECK SOURCE_ROOT: inputs the fuzzers found that are
# not bad input (tests/data/fuzz), through the CLI with exact output. The
# bad-input findings are in tests/data/bad, the checker's in tests/e2e.
set -u
bin=$1
src=$2
d=$src/tests/data/fuzz
fails=0

# undef_r0.bin: xdp_fw damaged by fuzz_check so that a load goes through
# r0 on a path where r0 was never written (the replay diverged: internal
# error); now the program is not modelled, the verdict unknown
out=$("$bin" --loop-bound=2 "$d/undef_r0.bin" "$src/tests/data/e2e/bound_small.inv" 2>/dev/null)
rc=$?
want="$src/tests/data/e2e/bound_small.inv:6:3: warning: invariant xdp_fw.bound_insns unknown: not modelled: a memory access through a register that is not initialised on its path
1 check: 0 hold, 0 violated, 1 unknown"
if [ "$rc" -ne 3 ] || [ "$out" != "$want" ]; then
	echo "FAIL undef_r0.bin: exit $rc:"; echo "$out"
	fails=$((fails + 1))
fi
# map_value_oob.bin: cgroup_skb damaged by fuzz_check so that the atomic
# add goes to offset 154 of an 8-byte map value: the encoder wrote past the
# value, the interpreter faulted, the bound's worst case did not replay
# (internal error); now the program is not modelled, the verdict unknown
out=$("$bin" --loop-bound=2 "$d/map_value_oob.bin" "$src/tests/data/e2e/bound_small.inv" 2>/dev/null)
rc=$?
want="$src/tests/data/e2e/bound_small.inv:6:3: warning: invariant cgroup_skb.bound_insns unknown: not modelled: a memory access outside a map value (the verifier rejects it)
1 check: 0 hold, 0 violated, 1 unknown"
if [ "$rc" -ne 3 ] || [ "$out" != "$want" ]; then
	echo "FAIL map_value_oob.bin: exit $rc:"; echo "$out"
	fails=$((fails + 1))
fi
# ctx_outside.bin: tailcall damaged by fuzz_check so that tail_tcp loads
# its data pointer from ctx - 5: the encoder's context had no bounds, the
# replay's is 256 bytes, the load fell outside it and the bound's worst
# case diverged (internal error); now the program is not modelled
out=$("$bin" --loop-bound=2 --program=tail_tcp "$d/ctx_outside.bin" "$src/tests/data/e2e/bound_small.inv" 2>/dev/null)
rc=$?
want="$src/tests/data/e2e/bound_small.inv:6:3: warning: invariant tail_tcp.bound_insns unknown: not modelled: a context access outside the context (the verifier rejects it)
1 check: 0 hold, 0 violated, 1 unknown"
if [ "$rc" -ne 3 ] || [ "$out" != "$want" ]; then
	echo "FAIL ctx_outside.bin: exit $rc:"; echo "$out"
	fails=$((fails + 1))
fi
echo "fuzz regressions: $fails failures"
[ "$fails" -eq 0 ]
