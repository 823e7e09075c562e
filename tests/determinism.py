#!/usr/bin/env python3
"""Determinism: every (object, spec) pair of tests/e2e/*.tsv (every example,
buggy variant and e2e fixture) gives byte-identical output across runs and
--jobs values: text with --jobs=1 and 4, JSON (--no-timing) with --jobs=2
and 4 (stdout, stderr and exit code; four separate runs). A difference
prints the first differing line.

usage: determinism.py BPF-INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR [--skip OBJ,...]
--skip leaves out the named objects (the sanitizer build skips xdp_lb,
a minute a run there; the normal build checks every pair).
"""
import os
import subprocess
import sys


def pairs(src, exdir):
    edir = os.path.join(src, 'tests', 'e2e')
    seen = []
    for name in sorted(os.listdir(edir)):
        if not name.endswith('.tsv'):
            continue
        with open(os.path.join(edir, name)) as f:
            for line in f:
                if not line.strip() or line.startswith('#'):
                    continue
                obj, spec = line.split('\t')[:2]
                if obj.startswith('tests/'):
                    path = os.path.join(os.path.dirname(exdir), obj + '.bpf.o')
                else:
                    path = os.path.join(exdir, obj + '.bpf.o')
                if (path, spec) not in seen:
                    seen.append((path, spec))
    return seen


def first_diff(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f'line {i + 1}:\n    {x!r}\n    {y!r}'
    return f'lengths {len(la)} and {len(lb)} lines'


def main():
    exe, src, exdir = sys.argv[1:4]
    skip = set()
    if sys.argv[4:5] == ['--skip']:
        skip = set(sys.argv[5].split(','))
    bad = runs = 0
    todo = [(o, s) for o, s in pairs(src, exdir)
            if os.path.basename(o)[:-len('.bpf.o')] not in skip]
    for obj, spec in todo:
        spec = os.path.join(src, spec)
        for variant in (['--format=text'], ['--format=json', '--no-timing']):
            outs = []
            for jobs in ([1, 4] if variant[0] == '--format=text' else [2, 4]):
                p = subprocess.run([exe, f'--jobs={jobs}'] + variant + [obj, spec],
                                   capture_output=True, timeout=600)
                runs += 1
                outs.append((jobs, p.returncode, p.stdout, p.stderr))
            j0, rc0, out0, err0 = outs[0]
            for j, rc, out, err in outs[1:]:
                what = None
                if rc != rc0:
                    what = f'exit {rc0} vs {rc}'
                elif out != out0:
                    what = 'stdout ' + first_diff(out0.decode(), out.decode())
                elif err != err0:
                    what = 'stderr ' + first_diff(err0.decode(), err.decode())
                if what:
                    print(f'FAIL {os.path.basename(obj)} {os.path.basename(spec)} '
                          f'{variant[0]}: --jobs={j0} and --jobs={j} differ: {what}')
                    bad += 1
    print(f'determinism: {len(todo)} (object, spec) pairs, {runs} runs, {bad} differences'
          + (f' (skipped: {", ".join(sorted(skip))})' if skip else ''))
    return 1 if bad or not todo else 0


if __name__ == '__main__':
    sys.exit(main())
