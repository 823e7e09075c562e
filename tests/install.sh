#!/bin/sh
# install.sh BUILD_ROOT BPF_INVCHECK EXAMPLES_DIR static|dynamic SOURCE_ROOT:
# `meson install` puts the invariant packs under DATADIR/bpf-invcheck/invariants
# and the installed binary reads those (checker/packdir.c), not the source
# tree's: a marker invariant added to the installed xdp.inv only is found by
# the installed binary and unknown to the build tree's. A static build
# (meson option static) installs bpf-invcheck-z3 beside it, and the
# installed binary hands its runs needing Z3 over to that one
# (checker/handover.h).
set -u
build=$1
bin=$2
ex=$3
kind=$4
src=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

if ! meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/log" 2>&1; then
	echo "FAIL: meson install"; cat "$tmp/log"; exit 1
fi
inst_bin=$(find "$tmp/root" -path '*/bin/bpf-invcheck' -type f)
inst_xdp=$(find "$tmp/root" -path '*/bpf-invcheck/invariants/xdp.inv' -type f)
if [ -z "$inst_bin" ] || [ -z "$inst_xdp" ]; then
	echo "FAIL: installed tree lacks bin/bpf-invcheck or bpf-invcheck/invariants/xdp.inv:"
	find "$tmp/root" -type f; exit 1
fi
for p in xdp tc lsm cgroup tracing sched_ext; do
	[ -f "$(dirname "$inst_xdp")/$p.inv" ] || { echo "FAIL: pack $p.inv not installed"; fails=$((fails + 1)); }
done
cat >>"$inst_xdp" <<'INV'

invariant install_marker {
  on exit { assert (u32)ret == 99 : "the installed pack was read"; }
}
INV
printf 'import "xdp";\nprogram "xdp_fw" { check xdp.install_marker; }\n' >"$tmp/m.inv"

"$inst_bin" "$ex/xdp_fw.bpf.o" "$tmp/m.inv" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "^.*: error: invariant xdp_fw.xdp.install_marker violated: the installed pack was read$" "$tmp/out" ||
   ! grep -qF "$inst_xdp:" "$tmp/out"; then
	echo "FAIL: the installed binary did not use the installed pack (exit $rc):"; cat "$tmp/out"
	fails=$((fails + 1))
fi
"$bin" "$ex/xdp_fw.bpf.o" "$tmp/m.inv" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 2 ] || [ "$(cat "$tmp/out")" != "$tmp/m.inv:2:26: error: pack 'xdp' has no invariant 'install_marker'" ]; then
	echo "FAIL: the build tree's binary should read the source tree's pack (exit $rc):"; cat "$tmp/out"
	fails=$((fails + 1))
fi
if [ "$kind" = static ]; then
	inst_z3=$(dirname "$inst_bin")/bpf-invcheck-z3
	if [ ! -x "$inst_z3" ]; then
		echo "FAIL: a static build installs bin/bpf-invcheck-z3 beside bin/bpf-invcheck"
		fails=$((fails + 1))
	fi
	# scx_pack's push_strict needs Z3: handed over to the installed sibling
	LD_DEBUG=files "$inst_bin" "$ex/scx_pack.bpf.o" "$src/examples/scx_pack.inv" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '^13 checks: 13 hold, 0 violated, 0 unknown$' "$tmp/out" ||
	   ! grep -q 'file=libz3\.so[.0-9]* \[0\];  dynamically loaded by' "$tmp/err"; then
		echo "FAIL: the installed static binary did not hand scx_pack over to $inst_z3 (exit $rc):"
		tail -3 "$tmp/out"; grep -E 'libz3|initialize program|error' "$tmp/err" | head -5
		fails=$((fails + 1))
	fi
	# ... the one installed beside it: without it, those checks fail
	rm -f "$inst_z3"
	"$inst_bin" "$ex/scx_pack.bpf.o" "$src/examples/scx_pack.inv" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -qF "but cannot run $inst_z3: No such file or directory" "$tmp/err"; then
		echo "FAIL: the installed static binary without $inst_z3 (exit $rc):"; head -3 "$tmp/err"
		fails=$((fails + 1))
	fi
fi
[ "$fails" -eq 0 ] && echo "install: ok"
[ "$fails" -eq 0 ]
