#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD TARGET SECONDS [LIBFUZZER_ARGS...]
# Seeds and runs one libFuzzer target of a -Dfuzz=true build for SECONDS
# (0: until stopped). The corpus grows in BUILD/fuzz-corpus/TARGET; a crash
# is written to BUILD/fuzz-crashes/ and the script exits non-zero.
# Targets: fuzz_object, fuzz_spec, fuzz_check, fuzz_replay (docs/testing.md).
set -euo pipefail
build=$1 target=$2 secs=$3
shift 3
src=$(cd "$(dirname "$0")/../.." && pwd)
seeds=$build/fuzz-seeds/$target
corpus=$build/fuzz-corpus/$target
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$build/fuzz-crashes"
ex=$build/examples
case $target in
fuzz_object)
	cp "$ex"/*.bpf.o "$seeds"/
	python3 "$src/tests/bad/gen_elf.py" "$src/tests/data/bad/base" "$seeds"   # the malformed corpus
	;;
fuzz_spec)
	for f in "$src"/examples/*.inv "$src"/invariants/*.inv "$src"/tests/data/spec/ok/* \
		 "$src"/tests/data/spec/bad/* "$src"/tests/data/bad/spec/*.inv; do
		[ -f "$f" ] && cp "$f" "$seeds/$(basename "$(dirname "$f")")-$(basename "$f")"
	done
	;;
fuzz_check | fuzz_replay)
	# the object order of tests/fuzz/meson.build (FUZZ_OBJECTS)
	i=0
	for n in xdp_fw loop_sum tc_classifier trace_exec tailcall scx_mini; do
		{ printf "\\$(printf %03o $i)"; cat "$src/examples/$n.inv"; } >"$seeds/spec-$n"
		i=$((i + 1))
	done
	# a `relate` (checked against scx_mini, object 5)
	{ printf '\005'; cat "$src/examples/scx_dsqs.inv"; } >"$seeds/spec-scx_dsqs"
	for n in xdp_fw tc_classifier tailcall lsm_policy cgroup_skb; do
		{ printf '\200'; cat "$ex/$n.bpf.o"; } >"$seeds/obj-$n"
	done
	;;
*)
	echo "run.sh: unknown target $target" >&2
	exit 2
	;;
esac
args=(-timeout=30 -rss_limit_mb=2560 -print_final_stats=1
      "-artifact_prefix=$build/fuzz-crashes/$target-")
# fuzz_object, fuzz_check, fuzz_replay: libFuzzer's entropic schedule
# spent a third to over half of each execution on its feature bookkeeping
# (UpdateFeatureFrequency); without it each target ran more inputs and
# reached more coverage in the same minute (docs/testing.md). fuzz_spec
# keeps it (faster with it there).
[ "$target" != fuzz_spec ] && args+=(-entropic=0)
# fuzz_spec: the keywords and punctuation of checker/spec.h as a dictionary
if [ "$target" = fuzz_spec ]; then
	grep -o 'X([A-Z_0-9]*, "[^"]*")' "$src/checker/spec.h" |
		sed 's/^X([A-Z_0-9]*, \(".*"\))$/\1/' | sort -u >"$build/fuzz-seeds/fuzz_spec.dict"
	args+=("-dict=$build/fuzz-seeds/fuzz_spec.dict")
fi
[ "$secs" != 0 ] && args+=("-max_total_time=$secs")
# Leak detection is on for every target (fuzz_check too: the one
# Z3-internal indirect leak report of the first long run did not come back
# in the second; docs/testing.md, "Leaks in fuzz_check")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
exec "$build/tests/fuzz/$target" "${args[@]}" "$@" "$corpus" "$seeds"
