#!/bin/sh
# install.sh BUILD_ROOT BPF_INVCHECK EXAMPLES_DIR: `meson install` puts the
# invariant packs under DATADIR/bpf-invcheck/invariants and the installed
# binary reads those (checker/packdir.c), not the source tree's: a marker
# invariant added to the installed xdp.inv only is found by the installed
# binary and unknown to the build tree's.
set -u
build=$1
bin=$2
ex=$3
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
[ "$fails" -eq 0 ] && echo "install: ok"
[ "$fails" -eq 0 ]
