#!/usr/bin/env python3
"""End-to-end test: run bpf-invcheck on every (object, spec) pair of
tests/e2e/*.tsv with --format=json and compare each check's verdict
with the expected one. Every violation must come with a counterexample the
checker replayed (the JSON says so), and the exit code must be the one the
verdicts imply (0 all hold, 1 a violation, 3 an unknown).

Expectations: every tests/e2e/*.tsv (expect.tsv's header gives the format).

usage: e2e.py BPF-INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR [OBJECT ...]
(python3 is there wherever meson is: meson is written in it.)
E2E_OPTS (environment): more options for every run; the test e2e-no-absint
runs with --no-absint, so every line gets the same verdict with the
abstract-interpretation pre-pass and with Z3 alone.
"""
import json
import os
import subprocess
import sys


def main():
    exe, src, exdir = sys.argv[1:4]
    only = set(sys.argv[4:])
    expect = {}
    edir = os.path.join(src, 'tests', 'e2e')
    for name in sorted(os.listdir(edir)):
      if not name.endswith('.tsv'):
        continue
      with open(os.path.join(edir, name)) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            obj, spec, check, verdict = line.split('\t')
            expect.setdefault((obj, spec), {})[check] = (verdict, f'{name}:{n}')
    bad = 0
    runs = 0
    for (obj, spec), checks in sorted(expect.items()):
        if only and obj not in only:
            continue
        # an example (examples/), or a fixture tests/NAME (tests/data/e2e/)
        if obj.startswith('tests/'):
            path = os.path.join(os.path.dirname(exdir), obj + '.bpf.o')
        else:
            path = os.path.join(exdir, obj + '.bpf.o')
        cmd = [exe, '--format=json', '--jobs=2'] + os.environ.get('E2E_OPTS', '').split() + \
              [path, os.path.join(src, spec)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        runs += 1
        try:
            out = json.loads(p.stdout)
        except ValueError:
            print(f'FAIL {obj} {spec}: no JSON (exit {p.returncode}): {p.stderr.strip()}')
            bad += 1
            continue
        got = {r['check']: r for r in out['results']}
        for check, (verdict, n) in sorted(checks.items()):
            r = got.pop(check, None)
            if r is None:
                print(f'FAIL {obj} {check}: not reported ({n})')
                bad += 1
            elif r['verdict'] != verdict:
                why = r.get('reason') or r.get('message') or ''
                print(f'FAIL {obj} {check}: {r["verdict"]}, expected {verdict} '
                      f'({n}) {why}')
                bad += 1
            elif verdict == 'violated' and not r.get('counterexample', {}).get('replayed'):
                print(f'FAIL {obj} {check}: violated without a replayed counterexample')
                bad += 1
            else:
                print(f'ok   {obj} {check}: {verdict} ({r["seconds"]:.2f} s)')
        for check in sorted(got):
            print(f'FAIL {obj} {check}: reported ({got[check]["verdict"]}) but not in expect.tsv')
            bad += 1
        verdicts = [r['verdict'] for r in out['results']]
        code = 1 if 'violated' in verdicts else 3 if 'unknown' in verdicts else 0
        if 'error' in verdicts:
            code = 2
        if p.returncode != code:
            print(f'FAIL {obj} {spec}: exit code {p.returncode}, expected {code}')
            bad += 1
    print(f'e2e: {runs} runs, {bad} failures')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
