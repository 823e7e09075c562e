#!/bin/sh
# cimake.sh BPF_INVCHECK SOURCE_ROOT: the Makefile gate of docs/ci.md
# (examples/ci/Makefile) as written: `make check` passes on the examples and
# is incremental; on a buggy program it fails, prints the violation, keeps
# no stamp and leaves the counterexample in OUT/cex. Skips (77) without make.
set -u
bin=$1 src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
command -v make >/dev/null 2>&1 || { echo "cimake: skipped: make is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

make -s -C "$src/examples/ci" check BPF_INVCHECK="$bin" OUT="$tmp/out" PROGS="xdp_fw tc_classifier" >"$tmp/log" 2>&1 ||
	fail "make check on xdp_fw tc_classifier: $(cat "$tmp/log")"
[ -f "$tmp/out/xdp_fw.checked" ] && [ -f "$tmp/out/tc_classifier.checked" ] || fail "no stamps"
[ -s "$tmp/log" ] && fail "make check printed: $(cat "$tmp/log")"
make -C "$src/examples/ci" check BPF_INVCHECK="$bin" OUT="$tmp/out" PROGS="xdp_fw tc_classifier" >"$tmp/log" 2>&1
grep -q "Nothing to be done for 'check'" "$tmp/log" || fail "make check is not incremental: $(cat "$tmp/log")"

# a buggy firewall under the same spec
mkdir "$tmp/src"
# (xdp_fw_bug: xdp_fw.bpf.c with XDP_FW_BUG defined, examples/meson.build)
cp "$src/examples/xdp_fw.bpf.c" "$tmp/src/xdp_fw.bpf.c"
printf '#define XDP_FW_BUG\n#include "xdp_fw.bpf.c"\n' >"$tmp/src/fw.bpf.c"
cp "$src/examples/xdp_fw.inv" "$tmp/src/fw.inv"
ln -s "$src/examples/include" "$tmp/src/include"
make -s -C "$src/examples/ci" check BPF_INVCHECK="$bin" SRC="$tmp/src" OUT="$tmp/bug" PROGS=fw >"$tmp/log" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "make check passes on the buggy program"
grep -q "error: invariant xdp_fw.ipv4_tcp_ssh_passes violated: SSH to this host must always get through" "$tmp/log" ||
	fail "no violation in: $(cat "$tmp/log")"
grep -q "Error 1" "$tmp/log" || fail "make does not report the checker's exit status 1: $(cat "$tmp/log")"
[ ! -f "$tmp/bug/fw.checked" ] || fail "a stamp for the buggy program"
[ -f "$tmp/bug/cex/xdp_fw.ipv4_tcp_ssh_passes.replay.json" ] && [ -f "$tmp/bug/cex/xdp_fw.ipv4_tcp_ssh_passes.pcap" ] ||
	fail "no counterexample files in OUT/cex: $(ls "$tmp/bug/cex" 2>&1)"
echo "cimake: $([ $fails -eq 0 ] && echo ok || echo "$fails failed")"
[ "$fails" -eq 0 ]
