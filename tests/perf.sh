#!/bin/sh
# perf.sh BPF_INVCHECK EXAMPLES_DIR SOURCE_ROOT TESTS_BUILD_DIR IMAGE: the contract of --stats (one
# machine-readable line of stage times on stderr, stdout unchanged) and of
# --cache DIR (a hit gives byte-identical output and exit code; changing the
# program, the spec or an option misses). Timing values are not asserted.
# IMAGE: where BPF_INVCHECK populates its own pages (--stats image=):
# entry for the static executable with its own entry point (x86-64,
# checker/entry_static.c), main otherwise.
set -u
bin=$1
ex=$2
src=$3
tobj=$4
image=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

num='[0-9][0-9]*\.[0-9]\{6\}'
stats_re="^bpf-invcheck-stats: insns=135 checks=6 load=$num decode=$num cfg=$num ssa=$num instrument=$num encode=$num solve=$num total=$num write=$num max_check=$num peak_rss_kb=[0-9][0-9]* minflt=[0-9][0-9]* image=[a-z]* absint=[0-9][0-9]* absint_time=$num absint_shared=[0-9][0-9]* search=[0-9][0-9]* search_time=$num search_inputs=[0-9][0-9]* coarse=[0-9][0-9]* coarse_proved=[0-9][0-9]*\$"

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
# a real run: xdp_fw needs no Z3 since session 13 (no encode time),
# scx_percpu still does (time in encode and solve)
n=$((n + 1))
"$bin" --stats --quiet "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "$stats_re" "$tmp/err" && grep -q " encode=0.000000 " "$tmp/err" ||
	fail "--stats run: exit $rc: $(cat "$tmp/err")"
# the program's own pages: populated where the build says, unless the
# kernel is older than the advice (5.14: MADV_POPULATE_READ); a run
# that needs no Z3 (one handed over reports the solver build's own)
n=$((n + 1))
got=$(sed -n 's/.* image=\([a-z]*\) .*/\1/p' "$tmp/err")
kver=$(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
if [ "$got" = none ] && [ "$(echo "$kver" | awk '{ print ($1 < 5 || ($1 == 5 && $2 < 14)) }')" = 1 ]; then
	echo "SKIP: image=none on kernel $(uname -r) (no MADV_POPULATE_READ before 5.14)"
elif [ "$got" != "$image" ]; then
	fail "--stats image=$got, expected $image"
fi
"$bin" --stats --quiet "$ex/scx_percpu.bpf.o" "$src/examples/scx_percpu.inv" >"$tmp/out" 2>"$tmp/err2"
rc=$?
[ "$rc" -eq 0 ] && ! grep -q " encode=0.000000 \| solve=0.000000 " "$tmp/err2" ||
	fail "--stats: exit $rc, no encode/solve time: $(cat "$tmp/err2")"
# coarse queries (smt.h smt_prove): xdp_fw has no large multiplier, so
# none; xdp_lb's flow hash left free proves every query Z3 is asked; on
# xdp_lb_bug the violated check's coarse query finds a model (then the
# exact query gives the counterexample)
n=$((n + 1))
grep -q " coarse=0 coarse_proved=0\$" "$tmp/err" || fail "--stats coarse on xdp_fw: $(cat "$tmp/err")"
# tests/data/e2e/coarse.inv, Z3 alone: a claim the coarse query proves (2
# queries: the claim and the loop bound's, both coarse), one it only
# refutes the coarse way (then the exact query proves it) and a violated
# one (its model from the exact query, the shorter-packet search exact)
n=$((n + 1))
"$bin" --stats --no-absint --no-search "$ex/xdp_fw.bpf.o" "$src/tests/data/e2e/coarse.inv" >"$tmp/out" 2>"$tmp/err"
rc=$?
verdicts=$(grep -o '^xdp_fw\.[a-z_]*: holds\|invariant xdp_fw\.[a-z_]* violated' "$tmp/out" | tr '\n' ' ')
[ "$rc" -eq 1 ] && grep -q " coarse=5 coarse_proved=3\$" "$tmp/err" &&
	[ "$verdicts" = "xdp_fw.coarse_proves: holds xdp_fw.exact_proves: holds invariant xdp_fw.exact_refutes violated " ] ||
	fail "coarse.inv: exit $rc, verdicts '$verdicts': $(cat "$tmp/err") (expected exit 1, coarse=5 coarse_proved=3)"
grep -q "^  counterexample (replayed in the interpreter: it fails the same assert):" "$tmp/out" ||
	fail "coarse.inv: no replayed counterexample: $(cat "$tmp/out")"
# (xdp_lb with --no-absint: since session 18 the pre-pass proves all of
# it and the search gives its bound, no query at all; without the pass
# its claims are asked by coarse queries first, all proved so)
for case in "xdp_lb 0 12 12 --no-absint" "xdp_lb_bug 1 1 0"; do
	set -- $case
	n=$((n + 1))
	"$bin" --stats --quiet ${5:-} "$ex/$1.bpf.o" "$src/examples/xdp_lb.inv" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$2" ] && grep -q " coarse=$3 coarse_proved=$4\$" "$tmp/err" ||
		fail "--stats coarse on $1: exit $rc (expected $2): $(cat "$tmp/err") (expected coarse=$3 coarse_proved=$4)"
done

# every check decided without a Z3 context (check.c: absint, then the
# search; a bound whose longest path is within it holds, and the search's
# run of that length is its worst case): no encode time, and the pre-pass
# and the search count every check; the inputs the search ran (its
# minimisation zeroes bytes a range at a time: cgroup_skb's took 1862
# inputs a byte at a time); lsm_policy's permissive_never_denies needs the
# program's load of global.enforce and the monitor's read to be one cell
# (absint_path.c addr_root); tc_classifier's shot_only_if needs its
# or-assume asked again at the assert (absint.c infeasible), its bound the probe's
# bpf_skb_load_bytes results (search_probe.c skb_load_opts), the ihl
# nibble substituted (search.c subst_bytes) and at most S_FLIPS runs
# flipping a branch; xdp_redirect's xdp_xsk.redirect_fallback needs the
# monitor's key (read again after the program's reload of the slot) and
# a decided select in one class of values (absint_path.c absint_canon),
# its passes_unchanged `(b13 << 8) | b12 == 8` known back to both bytes
# and from them to the spec's be16 read of both (absint.c disjoint,
# whole); scx_mini's select_cpu bound the search writing the kfunc's
# is_idle (object_kfunc_written); xdp_fw's and tailcall's checks of the
# TCP/UDP header behind a variable IPv4 header length need a case split
# on the spec's condition with loads re-keyed (absint.c rekey, refold),
# the ihl check carried to `(b << 2) & 60` (absint_shifted), branches
# asked again (branches_broken), the spec's exit reads over the program's
# byte loads (absint_path.c has_parts); xdp_fw's bound a longer
# worst-case search (SEARCH_WORST_BUDGET: 443 inputs). The input counts:
# the minimisation of an input found sets the kernel reads a run never
# asks for without running it (search_min.c search_minimise: 48 fewer a search;
# before, trace_exec 110, cgroup_skb 70, lsm_policy 81, tc_classifier
# 185, scx_mini 225, xdp_fw 443, tailcall 370); the flips by a register's
# packet bytes (below) add candidates to xdp_fw's and tailcall's worst-case
# searches (395 -> 433, 226 -> 271); a worst-case search guided by the
# longest path's branch decisions (check_worst.c worst_guide, search.c
# guide_flip) takes trace_exec 14 -> 9, cgroup_skb 22 -> 11, lsm_policy
# 33 -> 28, tc_classifier 137 -> 71, xdp_fw 433 -> 72, tailcall 271 -> 136;
# its minimisation zeroes the bytes the run did not touch without running
# them (search_min.c zero_bytes, interp_track): lsm_policy 28 -> 20,
# tc_classifier 71 -> 62, scx_mini 33 -> 24, xdp_fw 72 -> 53, tailcall
# 136 -> 99; globals as the search's input (search.c flip_bytes: the
# loader may set them): lsm_policy 20 -> 18 (its bound's witness sets
# .rodata's enforce); loop_sum (session 18): its sum and drop claims
# proved through the atomic add to total_bytes read back (absint_path.c
# C_MSUM, absint_sub_cancels) and the sum's ordering with the threshold
# (an ordering fact), its bound by the pre-pass's largest count on the
# paths it walks (check.c bound_top: the bpf_loop rounds the assume
# allows, the loop's exits decided by its constant counter) and that run
# found by the search (the packet length tried again on each longer run,
# cfg_rounds and cfg_drop_above set from the assume and the branch on
# them: search.c flip_len, flip_bytes); xdp_lb (session 18): its
# service_reaches_backend by the pass's relations (the remainder below its
# divisor, `first` cancelling, the backends lookup that cannot fail:
# absint_rel.c), its bound by the guided search (entries as small
# numbers: search.c guide_flip)
for case in "trace_exec 9 7 2 9" "cgroup_skb 5 4 1 11" "lsm_policy 6 5 1 18" \
	    "tc_classifier 7 6 1 62" "xdp_redirect 8 8 0 0" "scx_mini 12 8 4 24" \
	    "xdp_fw 6 5 1 53" "tailcall 11 8 3 99" "loop_sum 5 5 1 60" "xdp_lb 7 6 1 117"; do
	set -- $case
	n=$((n + 1))
	"$bin" --stats "$ex/$1.bpf.o" "$src/examples/$1.inv" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	bounds=$(grep -c "^ *bound " "$src/examples/$1.inv")
	[ "$rc" -eq 0 ] && grep -q " checks=$2 .* encode=0.000000 .* absint=$3 .* search=$4 .* search_inputs=$5 " "$tmp/err" &&
		[ "$(grep -c "bound_insns: holds (worst case [0-9]* instructions)" "$tmp/out")" -eq "$bounds" ] ||
		fail "$1 without Z3: exit $rc: $(cat "$tmp/err") (expected checks=$2 encode=0 absint=$3 search=$4 search_inputs=$5)"
done

# a violation the search finds by the packet bytes a compared register
# was loaded from (search_probe.c track, search.c flip_origin): tail_tcp's
# SYN+FIN test masks the flags word, whose masked value is in no input
# (before: 65 inputs, nothing found, a Z3 context and its model)
n=$((n + 1))
"$bin" --stats "$ex/tailcall.bpf.o" "$src/tests/data/e2e/syn_fin.inv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q " checks=1 .* encode=0.000000 .* absint=0 .* search=1 .* search_inputs=113 " "$tmp/err" &&
	grep -q '^    packet: 62 bytes: 00 00 00 00 00 00 00 00 00 00 00 00 08 00 f7 00 00 00 00 00 00 00 00 06 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 ff 00 00 00 00 00 00$' "$tmp/out" ||
	fail "syn_fin by the search: exit $rc: $(cat "$tmp/err") $(grep packet "$tmp/out")"

# checks the pre-pass proves where others still need Z3: scx_pack's and
# scx_percpu's one more each (the split of a result {2, 4} against `in
# {PASS, TX, REDIRECT}`)
for case in "scx_pack 13 6" "scx_percpu 7 3"; do
	set -- $case
	n=$((n + 1))
	"$bin" --stats "$ex/$1.bpf.o" "$src/examples/$1.inv" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q " checks=$2 .* absint=$3 " "$tmp/err" ||
		fail "$1: exit $rc: $(cat "$tmp/err") (expected checks=$2 absint=$3)"
done

# --cache DIR
# run NAME ARGS...: stdout to $tmp/NAME, exit code to $tmp/NAME.rc, the
# --stats line's check count to $tmp/NAME.checks (0: the cache answered)
run() {
	name=$1
	shift
	"$bin" --stats "$@" >"$tmp/$name" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	sed -n 's/^bpf-invcheck-stats: .* checks=\([0-9]*\) .*/\1/p' "$tmp/$name.err" >"$tmp/$name.checks"
}
# same A B: identical stdout and exit code
same() {
	cmp -s "$tmp/$1" "$tmp/$2" && cmp -s "$tmp/$1.rc" "$tmp/$2.rc"
}
checks() {
	cat "$tmp/$1.checks"
}
entries() {
	ls "$tmp/cache" | wc -l
}
c="$tmp/cache"
mkdir "$tmp/packs"
cp "$src/invariants/xdp.inv" "$tmp/packs/xdp.inv"
cp "$src/examples/xdp_fw.inv" "$tmp/fw.inv"
cp "$ex/xdp_fw_bug.bpf.o" "$tmp/prog.o"
# a miss runs every check and stores the run; a hit is byte-identical
n=$((n + 1))
run plain -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
run miss --cache "$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
run hit --cache="$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
[ "$(cat "$tmp/miss.rc")" -eq 1 ] || fail "cache miss: exit $(cat "$tmp/miss.rc"), expected 1"
same plain miss || fail "--cache changes the output of a miss"
same miss hit || fail "cache hit: output or exit code differ"
[ "$(checks miss)" = 6 ] && [ "$(checks hit)" = 0 ] || fail "cache: checks run: miss $(checks miss), hit $(checks hit) (expected 6, 0)"
[ "$(entries)" -eq 1 ] || fail "cache: $(entries) entries after one run, expected 1"
# the program changes: a miss (another object, same path)
n=$((n + 1))
cp "$ex/xdp_fw.bpf.o" "$tmp/prog.o"
run prog --cache "$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
[ "$(checks prog)" = 6 ] && [ "$(cat "$tmp/prog.rc")" -eq 0 ] || fail "cache: changed program: checks $(checks prog), exit $(cat "$tmp/prog.rc") (expected 6, 0)"
# the spec changes (a comment): a miss
n=$((n + 1))
echo "# changed" >>"$tmp/fw.inv"
run spec --cache "$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
[ "$(checks spec)" = 6 ] || fail "cache: changed spec: $(checks spec) checks run, expected 6"
# an imported pack changes: a miss; unchanged again: a hit
n=$((n + 1))
echo "# changed" >>"$tmp/packs/xdp.inv"
run pack --cache "$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
run pack2 --cache "$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
[ "$(checks pack)" = 6 ] && [ "$(checks pack2)" = 0 ] && same pack pack2 ||
	fail "cache: changed pack: checks $(checks pack) then $(checks pack2) (expected 6, 0)"
# an option changes: a miss
n=$((n + 1))
run opt --cache "$c" --loop-bound=32 -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
[ "$(checks opt)" = 6 ] || fail "cache: changed --loop-bound: $(checks opt) checks run, expected 6"
# unknown for lack of time is never stored: two misses
n=$((n + 1))
before=$(entries)
run t0 --cache "$c" --timeout=0 "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
run t0b --cache "$c" --timeout=0 "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
[ "$(checks t0b)" = 6 ] && [ "$(entries)" -eq "$before" ] && [ "$(cat "$tmp/t0b.rc")" -eq 3 ] ||
	fail "cache: a timeout's unknown was stored ($(entries) entries, $before before; checks $(checks t0b))"
# a damaged entry is a miss, and is replaced
n=$((n + 1))
for e in "$c"/*; do printf 'bpf-invcheck-cache 1\nexit 0\nbytes 99\nshort' >"$e"; done
run dmg --cache "$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
run dmg2 --cache "$c" -I "$tmp/packs" "$tmp/prog.o" "$tmp/fw.inv"
[ "$(checks dmg)" = 6 ] && [ "$(checks dmg2)" = 0 ] && same dmg dmg2 && same dmg pack2 ||
	fail "cache: damaged entry: checks $(checks dmg) then $(checks dmg2) (expected 6, 0)"
# --replay-kernel: the kernel answers, so the cache is not used
n=$((n + 1))
before=$(entries)
run rk --cache "$c" --replay-kernel "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
run rk2 --cache "$c" --replay-kernel "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
[ "$(checks rk2)" = 6 ] && [ "$(entries)" -eq "$before" ] ||
	fail "cache: --replay-kernel was cached ($(entries) entries, $before before; checks $(checks rk2))"
# --cex-dir writes files the cache does not hold: not used
n=$((n + 1))
before=$(entries)
run cx --cache "$c" --cex-dir "$tmp/cx1" "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
run cx2 --cache "$c" --cex-dir "$tmp/cx2" "$ex/xdp_fw_bug.bpf.o" "$src/examples/xdp_fw.inv"
[ "$(checks cx2)" = 6 ] && [ "$(entries)" -eq "$before" ] && [ -n "$(ls "$tmp/cx2")" ] ||
	fail "cache: --cex-dir was cached ($(entries) entries, $before before; checks $(checks cx2))"
# the bytes of a --kernel-btf FILE are part of the key (same path, new bytes: a miss)
n=$((n + 1))
cp "$ex/xdp_fw.bpf.o" "$tmp/k.btf"
run kb --cache "$c" --kernel-btf "$tmp/k.btf" "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
run kb2 --cache "$c" --kernel-btf "$tmp/k.btf" "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
cp "$ex/tc_classifier.bpf.o" "$tmp/k.btf"
run kb3 --cache "$c" --kernel-btf "$tmp/k.btf" "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv"
[ "$(checks kb)" = 6 ] && [ "$(checks kb2)" = 0 ] && [ "$(checks kb3)" = 6 ] ||
	fail "cache: --kernel-btf bytes: checks $(checks kb), $(checks kb2), $(checks kb3) (expected 6, 0, 6)"
# bad cache directories: one message, exit 2
n=$((n + 1))
: >"$tmp/file"
"$bin" --cache "$tmp/file" "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/err")" = "$tmp/file: error: the cache is not a directory" ] ||
	fail "--cache FILE: exit $rc: $(cat "$tmp/err")"
n=$((n + 1))
"$bin" --cache "$tmp/file/sub" "$ex/xdp_fw.bpf.o" "$src/examples/xdp_fw.inv" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/err")" = "$tmp/file/sub: error: cannot create the cache directory: Not a directory" ] ||
	fail "--cache FILE/sub: exit $rc: $(cat "$tmp/err")"

# one walk for several checks (check.c exit_share): how many checks the
# pre-pass proved from another check's walk (absint_shared), exactly:
# loop_sum's valid_action (never_abort's walk), xdp_redirect's
# valid_action, trace_exec's two returns_zero; tests/data/e2e/exit_share*
# share once under the same assume, never under other assumes or after a
# walk that an `assume` in a handler cut (the verdicts: tests/e2e/absint.tsv)
shared() {
	"$bin" --stats --quiet "$1" "$2" 2>&1 >/dev/null |
		sed -n 's/.* absint=\([0-9]*\) absint_time=[0-9.]* absint_shared=\([0-9]*\) .*/\1 \2/p'
}
# OBJECT SPEC ABSINT SHARED
while read -r obj spec want; do
	n=$((n + 1))
	got=$(shared "$obj" "$src/$spec")
	[ "$got" = "$want" ] || fail "absint, absint_shared on $spec: '$got' (expected $want)"
done <<EOF
$ex/loop_sum.bpf.o examples/loop_sum.inv 5 1
$ex/xdp_redirect.bpf.o examples/xdp_redirect.inv 8 1
$ex/trace_exec.bpf.o examples/trace_exec.inv 7 2
$ex/xdp_fw.bpf.o examples/xdp_fw.inv 5 0
$tobj/maps.bpf.o tests/data/e2e/exit_share.inv 2 1
$tobj/maps.bpf.o tests/data/e2e/exit_share_assumes.inv 1 0
$tobj/maps.bpf.o tests/data/e2e/exit_share_cut.inv 1 0
EOF
# bpf_loop callbacks cut at 16 iterations first (check.c CB_FIRST): when
# that program reaches its marker the check is lifted whole, and its
# unknown names the whole program's bound
n=$((n + 1))
"$bin" "$ex/loop_sum.bpf.o" "$src/tests/data/e2e/cb_cut_any.inv" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 3 ] && grep -qF "invariants/xdp.inv:16:1: warning: invariant loop_sum.xdp.never_abort unknown: loop bound 64 reached: a loop may run longer (try a larger --loop-bound)" "$tmp/out" ||
	fail "cb_cut_any.inv: exit $rc: $(cat "$tmp/out")"
# --no-absint: no walk to share
n=$((n + 1))
got=$("$bin" --stats --quiet --no-absint "$ex/loop_sum.bpf.o" "$src/examples/loop_sum.inv" 2>&1 >/dev/null |
	grep -o 'absint_shared=[0-9]*')
[ "$got" = "absint_shared=0" ] || fail "--no-absint on loop_sum: $got"

# the heap on a huge page (arena.c heap_on_huge_page) is not taken under a
# limit on the data segment: the same report there (its 64 MiB of growth
# made every later growth fail: exit 134); not for sanitizer builds (their
# shadow memory counts against the limit)
if ! grep -q __asan_init "$bin"; then
	n=$((n + 1))
	"$bin" "$ex/tailcall.bpf.o" "$src/examples/tailcall.inv" >"$tmp/nolimit" 2>&1
	(ulimit -d 40000 && exec "$bin" "$ex/tailcall.bpf.o" "$src/examples/tailcall.inv") \
		>"$tmp/limit" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/nolimit" "$tmp/limit" ||
		fail "ulimit -d 40000: exit $rc: $(head -c 300 "$tmp/limit")"
fi

echo "perf: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
