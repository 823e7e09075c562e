#!/usr/bin/env python3
"""handover.py BPF_INVCHECK SOLVER HANDOVER_SIGNAL HANDOVER_OBJ HANDOVER_SPEC EXAMPLES_DIR SOURCE_ROOT PIE

A static bpf-invcheck hands a run that needs Z3 over to bpf-invcheck-z3
beside it (checker/handover.h):

- the run needing Z3 (tests/data/e2e/handover.bpf.c: a load warning, then
  an invariant only Z3 proves) reports what the solver build reports, byte
  for byte, with the warning shown once (held, not shown twice), and libz3
  is loaded (by the process it was handed to);
- examples, with and without Z3: the same output and exit code as the
  solver build's;
- a static binary without its sibling: the checks needing Z3 are internal
  errors naming the missing file (exit 2), the warning still shown once;
  a run needing no Z3 is unaffected;
- a static sibling (a handover to a static binary) stops with an error
  instead of handing over again;
- the run's start is taken over (BPF_INVCHECK_HANDOVER): --deadline and
  the --stats total count from it; a malformed value is ignored;
- a signal that ends the run shows what is held first, and an exit
  shows it too (handover_signal.c: the checker cannot be stopped at a
  known point while it holds its stderr);
- bpf-invcheck is linked as the build asked: a position-dependent
  executable (ELF type EXEC: no start-up relocation), or a static PIE
  (type DYN) where PIE is 'pie' (meson option static_pie).

Skipped (77) where bpf-invcheck is not a static build (meson option
static)."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

binary, solver, sigdrv, hobj, hspec, ex, src, pie = sys.argv[1:9]
fails = []


def environ(extra=None):
    """This process's environment without a handover's start, plus EXTRA."""
    e = dict(os.environ)
    e.pop('BPF_INVCHECK_HANDOVER', None)
    e.update(extra or {})
    return e


def run(argv, env=None, timeout=120):
    p = subprocess.run(argv, capture_output=True, text=True, env=environ(env), timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def fail(msg):
    fails.append(msg)
    print('FAIL: ' + msg)


def is_static(path):
    out = subprocess.run(['readelf', '-l', '-W', path], capture_output=True, text=True).stdout
    return 'INTERP' not in out


if not is_static(binary):
    print('skipped: %s is not a static build (meson option static)' % binary)
    sys.exit(77)
if is_static(solver):
    fail('%s is static: it must open libz3' % solver)
with open(binary, 'rb') as f:
    e_type = int.from_bytes(f.read(18)[16:18], 'little')
if e_type != (3 if pie == 'pie' else 2):
    fail('%s has ELF type %d, the build asked for %s' % (binary, e_type, pie))

WARN = '%s: warning: map \'painted\': unknown member \'colour\' ignored' % hobj

# 1. the handover: the solver build's report, the warning once, libz3 loaded
rc, out, err = run([binary, hobj, hspec], env={'LD_DEBUG': 'files'})
src_rc, src_out, src_err = run([solver, hobj, hspec])
if rc != 0 or out != 'odd_square.passes: holds\n1 check: 1 hold, 0 violated, 0 unknown\n':
    fail('handover run: exit %d, stdout %r' % (rc, out))
if (rc, out) != (src_rc, src_out):
    fail('handover run differs from the solver build: exit %d vs %d' % (rc, src_rc))
lines = [l for l in err.splitlines() if 'warning:' in l]
if lines != [WARN]:
    fail('the load warning should be shown once, got %r' % lines)
if not re.search(r'file=libz3\.so[.0-9]* \[0\];  dynamically loaded by', err):
    fail('the handed-over run did not load libz3 (no handover?)')
if src_err.strip() != WARN:
    fail('solver build stderr: %r' % src_err)

# 2. examples: the same output as the solver build (Z3: scx_pack, scx_percpu)
for name in ['scx_pack', 'scx_percpu', 'xdp_lb', 'trace_exec', 'loop_sum']:
    argv = ['--no-timing', '--format=json', os.path.join(ex, name + '.bpf.o'),
            os.path.join(src, 'examples', name + '.inv')]
    a = run([binary] + argv)
    b = run([solver] + argv)
    if a != b:
        fail('%s: static and solver builds differ (exit %d vs %d)' % (name, a[0], b[0]))

with tempfile.TemporaryDirectory() as tmp:
    # 3. no sibling
    lone = os.path.join(tmp, 'lone')
    os.mkdir(lone)
    shutil.copy2(binary, os.path.join(lone, 'bpf-invcheck'))
    rc, out, err = run([os.path.join(lone, 'bpf-invcheck'), hobj, hspec])
    want = re.compile(r'^bpf-invcheck: internal error in odd_square\.passes: this bpf-invcheck is a '
                      r'static build: it runs bpf-invcheck-z3 \(the same program, which opens the '
                      r'solver library libz3\.so[.0-9]*\) for checks that need it, but cannot run '
                      + re.escape(os.path.join(os.path.realpath(lone), 'bpf-invcheck-z3'))
                      + r': No such file or directory$', re.M)
    if rc != 2 or not want.search(err):
        fail('without the sibling: exit %d, stderr %r' % (rc, err))
    if [l for l in err.splitlines() if 'warning:' in l] != [WARN]:
        fail('without the sibling: the load warning should be shown once: %r' % err)
    rc, out, err = run([os.path.join(lone, 'bpf-invcheck'), os.path.join(ex, 'trace_exec.bpf.o'),
                        os.path.join(src, 'examples', 'trace_exec.inv')])
    if rc != 0 or not out.endswith('9 checks: 9 hold, 0 violated, 0 unknown\n'):
        fail('without the sibling, a run needing no Z3: exit %d: %r' % (rc, out[-200:]))

    # 4. a static sibling: no second handover
    loop = os.path.join(tmp, 'loop')
    os.mkdir(loop)
    shutil.copy2(binary, os.path.join(loop, 'bpf-invcheck'))
    shutil.copy2(binary, os.path.join(loop, 'bpf-invcheck-z3'))
    try:
        rc, out, err = run([os.path.join(loop, 'bpf-invcheck'), hobj, hspec], timeout=60)
    except subprocess.TimeoutExpired:
        rc, err = -1, 'timed out'
    want = ('bpf-invcheck: internal error in odd_square.passes: this bpf-invcheck is a static build '
            'started with BPF_INVCHECK_HANDOVER set, as by a handover (is bpf-invcheck-z3 a static '
            'build too?): it cannot open the solver library libz3.so')
    if rc != 2 or want not in err:
        fail('a static sibling: exit %d, stderr %r' % (rc, err))

# 5. the run's start taken over
trace = [os.path.join(ex, 'trace_exec.bpf.o'), os.path.join(src, 'examples', 'trace_exec.inv')]
past = str(time.monotonic_ns() - 10 * 10**9)
rc, out, err = run([solver, '--deadline=5', '--stats'] + trace, env={'BPF_INVCHECK_HANDOVER': past})
n = out.count("deadline: the run's --deadline=5 s ran out before this check started")
m = re.search(r' total=([0-9.]+) ', err)
if rc != 3 or n != 9 or not out.endswith('9 checks: 0 hold, 0 violated, 9 unknown\n'):
    fail('a start 10 s ago and --deadline=5: exit %d, %d deadline unknowns' % (rc, n))
if not m or float(m.group(1)) < 10:
    fail('a start 10 s ago: --stats total %s, expected at least 10 s' % (m and m.group(1)))
for bad in ['junk', '', str(time.monotonic_ns() + 3600 * 10**9)]:
    rc, out, err = run([solver, '--deadline=5', '--stats'] + trace,
                       env={'BPF_INVCHECK_HANDOVER': bad})
    m = re.search(r' total=([0-9.]+) ', err)
    if rc != 0 or not m or float(m.group(1)) > 5:
        fail('BPF_INVCHECK_HANDOVER=%r should be ignored: exit %d, total %s' %
             (bad, rc, m and m.group(1)))

# 6. a signal that ends the run shows what is held, and an exit does:
# handover_signal holds a line and then sends itself the signal (0: exits).
# Each signal at its default action in the driver: one this test inherits
# as ignored (run under nohup, or in the background of a shell without job
# control) stays ignored in the checker, as the next case checks
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGSEGV, signal.SIGABRT)


def default_signals():
    for s in SIGNALS:
        signal.signal(s, signal.SIG_DFL)


for sig in (0,) + SIGNALS:
    p = subprocess.run([sigdrv, str(int(sig))], capture_output=True, text=True, env=environ(),
                       preexec_fn=default_signals)
    rc, err = p.returncode, p.stderr
    if rc != -int(sig) or err != 'held: %d\n' % int(sig):
        fail('held stderr and signal %d: exit %d, stderr %r' % (sig, rc, err))
# ... and one ignored (nohup) stays ignored: the line is shown at exit
p = subprocess.run([sigdrv, str(int(signal.SIGHUP))], capture_output=True, text=True,
                   env=environ(), preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
if p.returncode != 0 or p.stderr != 'held: %d\n' % int(signal.SIGHUP):
    fail('an ignored SIGHUP: exit %d, stderr %r' % (p.returncode, p.stderr))

print('handover: %d failures' % len(fails))
sys.exit(1 if fails else 0)
