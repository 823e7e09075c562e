#!/bin/sh
# precommit.sh MODE BPF_INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR
#
# MODE hook: tools/bpf-invcheck-hook run directly on file lists: the
#   NAME.bpf.o <-> NAME.inv convention, the pairs file, unknowns,
#   missing objects, errors; exact exit codes and messages.
# MODE pre-commit: a throwaway git repository with the example config
#   examples/pre-commit/pre-commit-config.yaml as written (a local hook) and
#   another using this tree's .pre-commit-hooks.yaml from a local-path hook
#   repository (no network): `git commit` passes with a correct object and
#   is refused with the buggy one. Skips (77) where pre-commit is missing.
set -u
mode=$1 bin=$2 src=$3 ex=$4
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $ex in /*) ;; *) ex=$(pwd)/$ex ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
hook=$src/tools/bpf-invcheck-hook
export BPF_INVCHECK="$bin"

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# expect CODE STDOUT-PATTERN STDERR HOOK-ARGS...: in $tmp/repo
expect() {
	code=$1 pat=$2 err=$3
	shift 3
	n=$((n + 1))
	(cd "$tmp/repo" && "$hook" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || [ "$(cat "$tmp/err")" != "$err" ] ||
	   { [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/out"; } ||
	   { [ -z "$pat" ] && [ -s "$tmp/out" ]; }; then
		fail "hook $*: expected exit $code, stdout matching '$pat', stderr '$err'"
		echo "  got exit $rc, stdout: $(cat "$tmp/out")"
		echo "  stderr: $(cat "$tmp/err")"
	fi
}

mkdir -p "$tmp/repo/src" "$tmp/repo/build" "$tmp/repo/specs"
cp "$ex/xdp_fw.bpf.o" "$tmp/repo/src/fw.bpf.o"
cp "$src/examples/xdp_fw.bpf.c" "$tmp/repo/src/fw.bpf.c"
cp "$src/examples/xdp_fw.inv" "$tmp/repo/src/fw.inv"
: >"$tmp/repo/src/nospec.bpf.c"
viol="bpf.c:[0-9]*:[0-9]*: error: invariant xdp_fw.ipv4_tcp_ssh_passes violated"

if [ "$mode" = hook ]; then
	# the convention: NAME.bpf.c / NAME.bpf.o / NAME.inv
	expect 0 "" "" src/fw.inv
	expect 0 "" "" src/fw.bpf.c src/fw.bpf.o src/fw.inv
	expect 0 "" "" src/nospec.bpf.c README.md
	expect 0 "" ""
	cp "$ex/xdp_fw_bug.bpf.o" "$tmp/repo/src/fw.bpf.o"
	expect 1 "$viol" "" src/fw.bpf.c
	expect 1 "$viol" "" ./src/fw.inv
	expect 0 "" "" --program=nothing_matches_no src/nospec.bpf.c
	rm "$tmp/repo/src/fw.bpf.o"
	expect 1 "" "bpf-invcheck-hook: error: src/fw.bpf.o: no such object for src/fw.inv (build it before committing)" src/fw.inv
	cp "$ex/xdp_fw.bpf.o" "$tmp/repo/src/fw.bpf.o"
	expect 1 "unknown: timeout" "bpf-invcheck-hook: src/fw.bpf.o: some invariants of src/fw.inv are unknown (--allow-unknown accepts that)" --timeout=0 src/fw.inv
	expect 0 "unknown: timeout" "" --allow-unknown --timeout=0 src/fw.inv
	printf 'program "xdp_fw" { invariant x { on exit { assert ret == nope; } } }\n' >"$tmp/repo/src/fw.inv"
	expect 1 "" "src/fw.inv:1:58: error: unknown name 'nope'" src/fw.bpf.o
	cp "$src/examples/xdp_fw.inv" "$tmp/repo/src/fw.inv"
	BPF_INVCHECK=/nonexistent/bpf-invcheck expect 1 "" "bpf-invcheck-hook: error: the checker '/nonexistent/bpf-invcheck' is not installed (or set BPF_INVCHECK)" src/fw.inv

	# a pairs file: objects elsewhere, options per pair
	cp "$ex/xdp_fw_bug.bpf.o" "$tmp/repo/build/fw.bpf.o"
	cp "$src/examples/xdp_fw.inv" "$tmp/repo/specs/firewall.inv"
	cp "$ex/loop_sum.bpf.o" "$tmp/repo/build/loop_sum.bpf.o"
	cp "$src/examples/loop_sum.inv" "$tmp/repo/specs/loop_sum.inv"
	printf '# object spec options\nbuild/fw.bpf.o specs/firewall.inv\n\nbuild/loop_sum.bpf.o ./specs/loop_sum.inv --loop-bound=3  # too small\n' \
		>"$tmp/repo/.bpf-invcheck.pairs"
	expect 1 "$viol" "" src/fw.bpf.c
	expect 1 "$viol" "" specs/firewall.inv
	expect 1 "$viol" "" build/fw.bpf.o
	expect 0 "" "" src/fw.inv
	expect 1 "loop bound 3 reached" "bpf-invcheck-hook: build/loop_sum.bpf.o: some invariants of specs/loop_sum.inv are unknown (--allow-unknown accepts that)" specs/loop_sum.inv
	expect 1 "loop bound 3 reached" "bpf-invcheck-hook: build/loop_sum.bpf.o: some invariants of specs/loop_sum.inv are unknown (--allow-unknown accepts that)" .bpf-invcheck.pairs
	n=$((n + 1))
	grep -q "$viol" "$tmp/out" || fail "the pairs file changed: every pair is checked"
	cp "$ex/xdp_fw.bpf.o" "$tmp/repo/build/fw.bpf.o"
	expect 0 "loop bound 3 reached" "" --allow-unknown .bpf-invcheck.pairs
	printf 'build/fw.bpf.o\n' >"$tmp/repo/other.pairs"
	expect 1 "" "other.pairs:1: error: expected 'OBJECT SPEC [OPTIONS...]'" --pairs=other.pairs src/fw.inv
	expect 1 "" "bpf-invcheck-hook: error: missing.pairs: no such pairs file" --pairs=missing.pairs src/fw.inv
	echo "hook: $((n - fails)) passed, $fails failed"
	[ "$fails" -eq 0 ]
	exit
fi

# ---- pre-commit in a throwaway repository --------------------------------
if ! command -v git >/dev/null 2>&1; then
	echo "precommit: skipped: git is not installed"
	exit 77
fi
if ! command -v pre-commit >/dev/null 2>&1; then
	echo "precommit: skipped: pre-commit is not installed (Debian: apt-get install pre-commit)"
	exit 77
fi
export PRE_COMMIT_HOME="$tmp/cache" HOME="$tmp" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
# the example config calls bpf-invcheck and bpf-invcheck-hook from PATH
mkdir "$tmp/bin"
ln -s "$bin" "$tmp/bin/bpf-invcheck"
ln -s "$hook" "$tmp/bin/bpf-invcheck-hook"
export PATH="$tmp/bin:$PATH"
unset BPF_INVCHECK

# commit_expect CODE PATTERN: stage everything and commit in $tmp/repo
commit_expect() {
	n=$((n + 1))
	(cd "$tmp/repo" && git add -A && git commit -q -m "$2") >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -ne "$1" ] || ! grep -q -- "$2" "$tmp/out"; then
		fail "git commit in the throwaway repository: expected exit $1 and '$2'"
		echo "  got exit $rc: $(cat "$tmp/out")"
	fi
}

setup_repo() {
	rm -rf "$tmp/repo/.git" "$tmp/cache"
	git -C "$tmp/repo" init -q -b main >/dev/null 2>&1 || git -C "$tmp/repo" init -q
	cp "$1" "$tmp/repo/.pre-commit-config.yaml"
	(cd "$tmp/repo" && pre-commit install) >"$tmp/out" 2>&1 ||
		fail "pre-commit install: $(cat "$tmp/out")"
}

# 1. the example config, exactly as written
setup_repo "$src/examples/pre-commit/pre-commit-config.yaml"
commit_expect 0 "bpf-invcheck.*Passed"
cp "$ex/xdp_fw_bug.bpf.o" "$tmp/repo/src/fw.bpf.o"
commit_expect 1 "$viol"
n=$((n + 1))
grep -q "bpf-invcheck.*Failed" "$tmp/out" || fail "pre-commit reports the hook as Failed"
cp "$ex/xdp_fw.bpf.o" "$tmp/repo/src/fw.bpf.o"
echo "# reviewed" >>"$tmp/repo/src/fw.inv"
commit_expect 0 "bpf-invcheck.*Passed"

# 2. this tree's .pre-commit-hooks.yaml from a hook repository on disk
mkdir -p "$tmp/hookrepo/tools"
cp "$src/.pre-commit-hooks.yaml" "$tmp/hookrepo/"
cp "$hook" "$tmp/hookrepo/tools/"
(cd "$tmp/hookrepo" && git init -q && git add -A && git commit -q -m hook) ||
	fail "making the hook repository"
rev=$(git -C "$tmp/hookrepo" rev-parse HEAD)
printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: bpf-invcheck\n' "$tmp/hookrepo" "$rev" >"$tmp/remote.yaml"
setup_repo "$tmp/remote.yaml"
cp "$ex/xdp_fw_bug.bpf.o" "$tmp/repo/src/fw.bpf.o"
commit_expect 1 "$viol"
cp "$ex/xdp_fw.bpf.o" "$tmp/repo/src/fw.bpf.o"
commit_expect 0 "bpf-invcheck (prove BPF invariants).*Passed"
echo "precommit: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
