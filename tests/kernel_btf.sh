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

# refused PATH WHAT REASON: --kernel-btf PATH fails with exit 2, the one
# message "PATH: error: cannot read kernel BTF: REASON" and no report
# (timeout: a hang fails, not the suite)
refused() {
	timeout 60 "$bin" --kernel-btf "$1" "$obj" "$spec" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	msg="$1: error: cannot read kernel BTF: $3"
	if [ "$rc" -ne 2 ] || [ "$(cat "$tmp/err")" != "$msg" ] || [ -s "$tmp/out" ]; then
		echo "FAIL: --kernel-btf of $2: exit $rc, stderr: $(cat "$tmp/err")"
		echo "  expected exit 2 and: $msg"
		fails=$((fails + 1))
	fi
}
printf 'not btf\n' >"$tmp/bad.btf"
refused "$tmp/bad.btf" "a non-BTF file" "BPF object format invalid"
refused "$tmp/missing" "a missing file" "No such file or directory"
# a FIFO nobody writes (btf__parse's open blocked on it) and a directory:
# refused before they are read
mkfifo "$tmp/fifo.btf"
mkdir "$tmp/dir.btf"
refused "$tmp/fifo.btf" "a FIFO" "not a regular file"
refused "$tmp/dir.btf" "a directory" "not a regular file"
[ "$fails" -eq 0 ] && echo "kernel-btf: all passed"
exit "$fails"
