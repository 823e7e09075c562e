#!/bin/sh
# kernel_btf.sh BPF_INVCHECK KERNEL_BTF SCX_ENUMS_OBJECT SPEC: the __SCX_*
# .rodata values of a sched_ext object come from --kernel-btf FILE (here a
# BTF made by clang from tests/data/kbtf/scx_7.c: SCX_ENQ_HEAD = 0x10000 and
# SCX_SLICE_DFL = 30 ms) instead of the built-in profile: the verdicts and
# the note change; a file that is not BTF is one error and exit 2.
set -u
bin=$1 btf=$2 obj=$3 spec=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# verdicts ARGS... EXPECTED: the verdict lines and the note of a run
verdicts() {
	want=$1
	shift
	"$bin" --format=json "$@" "$obj" "$spec" >"$tmp/out" 2>"$tmp/err"
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(r["check"] + "=" + r["verdict"] for r in d["results"]))
notes = sorted({n for r in d["results"] for n in r.get("notes", [])})
print("|".join(n for n in notes if "__SCX_" in n))' "$tmp/out")
	if [ "$got" != "$want" ]; then
		echo "FAIL: bpf-invcheck $* $obj $spec"
		echo "  expected: $want"
		echo "  got:      $got"
		fails=$((fails + 1))
	fi
}

verdicts "e_select_cpu.sched_ext.push_strict=holds e_enqueue.head_flag_is_bit_4=holds e_enqueue.sched_ext.enqueue_hands_off=holds e_init.creates_dsq_0=holds
4 __SCX_* .rodata values from the built-in kernel profile (Linux 6.12 - 6.18)"
verdicts "e_select_cpu.sched_ext.push_strict=holds e_enqueue.head_flag_is_bit_4=violated e_enqueue.sched_ext.enqueue_hands_off=holds e_init.creates_dsq_0=holds
4 __SCX_* .rodata values from kernel BTF $btf" --kernel-btf "$btf"
verdicts "e_select_cpu.sched_ext.push_strict=holds e_enqueue.head_flag_is_bit_4=violated e_enqueue.sched_ext.enqueue_hands_off=holds e_init.creates_dsq_0=holds
4 __SCX_* .rodata values from kernel BTF $btf" --kernel-btf="$btf"

# a BTF without sched_ext's enums (the fixture's own): nothing is pinned
verdicts "e_select_cpu.sched_ext.push_strict=violated e_enqueue.head_flag_is_bit_4=violated e_enqueue.sched_ext.enqueue_hands_off=holds e_init.creates_dsq_0=holds
no __SCX_* .rodata value in kernel BTF $obj: they are free (any value)" --kernel-btf "$obj"

printf 'not btf\n' >"$tmp/bad.btf"
"$bin" --kernel-btf "$tmp/bad.btf" "$obj" "$spec" >"$tmp/out" 2>"$tmp/err"
rc=$?
msg="$tmp/bad.btf: error: cannot read kernel BTF: BPF object format invalid"
if [ "$rc" -ne 2 ] || [ "$(cat "$tmp/err")" != "$msg" ] || [ -s "$tmp/out" ]; then
	echo "FAIL: --kernel-btf of a non-BTF file: exit $rc, stderr: $(cat "$tmp/err")"
	echo "  expected exit 2 and: $msg"
	fails=$((fails + 1))
fi
"$bin" --kernel-btf "$tmp/missing" "$obj" "$spec" >"$tmp/out" 2>"$tmp/err"
rc=$?
msg="$tmp/missing: error: cannot read kernel BTF: No such file or directory"
if [ "$rc" -ne 2 ] || [ "$(cat "$tmp/err")" != "$msg" ]; then
	echo "FAIL: --kernel-btf of a missing file: exit $rc, stderr: $(cat "$tmp/err")"
	echo "  expected exit 2 and: $msg"
	fails=$((fails + 1))
fi
# a FIFO nobody writes (btf__parse's open blocked on it) and a directory:
# refused before they are read (timeout: a hang fails, not the suite)
mkfifo "$tmp/fifo.btf"
mkdir "$tmp/dir.btf"
for f in fifo.btf dir.btf; do
	timeout 60 "$bin" --kernel-btf "$tmp/$f" "$obj" "$spec" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	msg="$tmp/$f: error: cannot read kernel BTF: not a regular file"
	if [ "$rc" -ne 2 ] || [ "$(cat "$tmp/err")" != "$msg" ] || [ -s "$tmp/out" ]; then
		echo "FAIL: --kernel-btf of $f: exit $rc, stderr: $(cat "$tmp/err")"
		echo "  expected exit 2 and: $msg"
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ] && echo "kernel-btf: all passed"
exit "$fails"
