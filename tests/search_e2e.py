#!/usr/bin/env python3
"""search_e2e.py BPF-INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR: the concrete
search before Z3 (checker/search.h) changes no verdict.

Every (object, spec) pair of tests/e2e/*.tsv runs twice, with and without
--no-search (--format=json --no-timing --stats): each check must get the
same verdict and, when violated, fail the same assert (assert_location);
both runs must exit alike, and a bound that holds must have the same worst
case (worst_case_insns: the search's longest run, or Z3's model). Prints how many checks the search decided
(--stats: search=N), which must be more than 0, and how many of the
violations it found.
"""
import json
import os
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    m = re.search(r'bpf-invcheck-stats: .* search=(\d+)', p.stderr)
    out = json.loads(p.stdout)
    return p.returncode, {r['check']: r for r in out['results']}, int(m.group(1)) if m else -1


def main():
    exe, src, exdir = sys.argv[1:4]
    pairs = set()
    edir = os.path.join(src, 'tests', 'e2e')
    for name in sorted(os.listdir(edir)):
        if not name.endswith('.tsv'):
            continue
        with open(os.path.join(edir, name)) as f:
            for line in f:
                line = line.rstrip('\n')
                if line.strip() and not line.startswith('#'):
                    pairs.add(tuple(line.split('\t')[:2]))
    bad = searched = violations = 0
    for obj, spec in sorted(pairs):
        if obj.startswith('tests/'):
            path = os.path.join(os.path.dirname(exdir), obj + '.bpf.o')
        else:
            path = os.path.join(exdir, obj + '.bpf.o')
        base = [exe, '--format=json', '--no-timing', '--stats', '--jobs=2', path,
                os.path.join(src, spec)]
        rc0, z3, s0 = run(base[:1] + ['--no-search'] + base[1:])
        rc1, got, s1 = run(base)
        if s0 != 0 or s1 < 0:
            print(f'FAIL {obj} {spec}: search= is {s0} with --no-search, {s1} without')
            bad += 1
        searched += max(s1, 0)
        if rc0 != rc1:
            print(f'FAIL {obj} {spec}: exit {rc1}, with --no-search {rc0}')
            bad += 1
        if set(z3) != set(got):
            print(f'FAIL {obj} {spec}: other checks reported')
            bad += 1
        for check, r in sorted(z3.items()):
            g = got.get(check)
            if g is None:
                continue
            if g['verdict'] != r['verdict']:
                print(f'FAIL {obj} {check}: {g["verdict"]}, with --no-search {r["verdict"]} '
                      f'({g.get("reason", "")})')
                bad += 1
            elif r['verdict'] == 'violated':
                violations += 1
                if g.get('assert_location') != r.get('assert_location'):
                    print(f'FAIL {obj} {check}: fails the assert at {g.get("assert_location")}, '
                          f'with --no-search {r.get("assert_location")}')
                    bad += 1
            elif r['verdict'] == 'holds':
                for k in ('worst_case_insns', 'worst_case_insns_at_most'):
                    if g.get(k) != r.get(k):
                        print(f'FAIL {obj} {check}: {k} {g.get(k)}, with --no-search {r.get(k)}')
                        bad += 1
    print(f'search: {searched} checks decided without Z3 (violations and worst cases); '
          f'{violations} violations in all ({len(pairs)} object/spec pairs)')
    if searched == 0:
        print('FAIL: the search found nothing')
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
