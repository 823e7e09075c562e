#!/usr/bin/env python3
"""bench.py --build BUILD --src SRC: the benchmark of docs/performance.md.

One run measures, on this machine:
  * every example (BUILD/examples/NAME.bpf.o with SRC/examples/NAME.inv):
    bpf-invcheck --stats --format=json as a process, median of 3 (its wall
    time, the stage times of its --stats line, each check's seconds), and
    the kernel verifier's load time of the same object measured two ways:
    a process (bench_kload --process: open + load + close + exit, wall
    time), a `bpftool prog loadall` process (the issue's reference; needs
    bpftool and a bpffs) and in-process (bench_kload: libbpf
    bpf_object__load timed inside the process, median of 5). The ratios
    compare like with like: checker process / kernel process, and the
    checker's --stats total less its final write of the report (--stats
    write) / the kernel's in-process load (which prints after its window);
  * generated programs (genprog.py: straight, branchy, loops; 1k, 10k, 100k,
    1M instructions): load + decode + CFG + SSA (bench_lift, loop bound 4,
    the heap set up as the CLI's and its prefault helper, fastest of 3
    processes lifting once each) with peak RSS, at 1M also 3 without the
    helper (the ratio of the two), and the
    kernel's load time the same way;
then prints the table with ratios, the fitted exponents, every target as
met / not met, and writes BUILD/bench/bench.csv, docs/performance.csv, the
plot docs/performance.png (gnuplot, when installed) and the results section
of docs/performance.md.

Options: --sizes 1000,10000 (fewer sizes), --examples xdp_fw,... (fewer
examples), --no-docs (leave docs/ alone).
"""
import argparse
import csv
import json
import math
import os
import resource
import re
import shutil
import statistics
import subprocess
import sys
import time

STAGES = ['load', 'decode', 'cfg', 'ssa', 'instrument', 'encode', 'solve']
SHAPES = ['straight', 'branchy', 'loops']
LOOP_BOUND = 4
T_RATE = 5e6          # instructions/s, load+decode+CFG+SSA at 1M
T_MEM = 1024          # bytes of peak RSS per instruction
T_MEDIAN, T_P95 = 1.0, 3.0
REPS_CHECK = 15       # checker processes per example (median) ...
REPS_KPROC = 15       # ... and kernel-load processes, in turns (one of each a round)
T_CHECK = 2.0         # seconds per invariant
T_CACHE = 0.05        # seconds for a --cache hit (ours: below one check's Z3 encoding)


def kv(line):
    return {k: v for k, v in re.findall(r'(\w+)=(\S+)', line)}


def kernel_load(kload, obj, reps):
    p = subprocess.run([kload, obj, str(reps)], capture_output=True, text=True)
    out = p.stdout.strip()
    if p.returncode == 0:
        return float(kv(out)['median']), 'ok'
    if p.returncode == 77:
        return None, 'skipped: ' + out.split('skipped: ', 1)[-1]
    return None, 'refused: ' + out.split('refused: ', 1)[-1]


def child_faults():
    """Minor page faults of the children waited for so far."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt


def kernel_process(kload, obj):
    """Wall time of one process that opens, loads and closes OBJ, its minor
    page faults and its in-process time (from its main's start to the
    close, as it prints it); (None, None, None) when it fails."""
    f0 = child_faults()
    t0 = time.monotonic()
    p = subprocess.run([kload, '--process', obj], capture_output=True, text=True)
    t = time.monotonic() - t0
    if p.returncode != 0:
        return None, None, None
    return t, child_faults() - f0, float(kv(p.stdout)['inproc'])


BPFFS = '/sys/fs/bpf'


def bpftool_ready():
    """None when `bpftool prog loadall` can be timed (bpftool installed, a
    bpffs at /sys/fs/bpf: mounted here when missing and we are root, as
    systemd does at boot), else why not."""
    if not shutil.which('bpftool'):
        return 'skipped: bpftool is not installed'
    def mounted():
        with open('/proc/mounts') as f:
            return any(l.split()[1:3] == [BPFFS, 'bpf'] for l in f if len(l.split()) > 2)
    if not mounted() and os.geteuid() == 0:
        subprocess.run(['mount', '-t', 'bpf', 'bpf', BPFFS], capture_output=True)
        if mounted():
            print('bench: mounted a bpffs at %s for bpftool prog loadall' % BPFFS)
    return None if mounted() else 'skipped: no bpffs at %s' % BPFFS


def bpftool_process(obj, n):
    """Wall time of one `bpftool prog loadall OBJ DIR` process (the issue's
    own reference: a whole bpftool process; its pins removed after, not
    timed); None when it fails."""
    d = os.path.join(BPFFS, 'invcheck-bench-%d-%d' % (os.getpid(), n))
    t0 = time.monotonic()
    p = subprocess.run(['bpftool', 'prog', 'loadall', obj, d], capture_output=True)
    t = time.monotonic() - t0
    subprocess.run(['rm', '-rf', d])
    return t if p.returncode == 0 else None


def checker_run(a, obj, spec):
    """One bpf-invcheck --stats process: (wall, --stats fields, JSON, exit)."""
    f0 = child_faults()
    t0 = time.monotonic()
    p = subprocess.run([a.checker, '--stats', '--format=json', obj, spec],
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    faults = child_faults() - f0
    # fields by name: other stages may add their own (absint=, search=)
    line = [l for l in p.stderr.splitlines() if l.startswith('bpf-invcheck-stats:')]
    if not line:
        sys.exit('bench: %s: no --stats line (exit %d): %s' % (obj, p.returncode, p.stderr))
    st = kv(line[0])
    st['faults'] = faults
    return wall, st, p.stdout, p.returncode


def run_example(a, name):
    obj = os.path.join(a.build, 'examples', name + '.bpf.o')
    spec = os.path.join(a.src, 'examples', name + '.inv')
    # warm: bpf_object__load after an untimed open, in a process that has
    # loaded before (reported, not a target: see the method); it also says
    # whether the kernel loads the object at all
    kw, kstate = kernel_load(a.kload, obj, 5)
    # the two processes in turns, so that the machine's load drifting
    # during the run weighs on both medians alike
    runs, kts, kins, kfaults = [], [], [], None
    bts = [] if kw is not None and a.bpftool is None else None
    for i in range(max(REPS_CHECK, REPS_KPROC)):
        if kw is not None and kts is not None and i < REPS_KPROC:
            t, kfaults, tin = kernel_process(a.kload, obj)
            kts = None if t is None else kts + [t]
            kins = None if t is None else kins + [tin]
        if bts is not None and i < REPS_KPROC:
            t = bpftool_process(obj, i)
            bts = None if t is None else bts + [t]
        if i < REPS_CHECK:
            runs.append(checker_run(a, obj, spec))
    kp = statistics.median(kts) if kts else None
    k = statistics.median(kins) if kins else None
    bp = statistics.median(bts) if bts else None
    runs.sort(key=lambda r: r[0])
    wall, st, out, rc = runs[len(runs) // 2]
    total = statistics.median(float(r[1]['total']) for r in runs)
    # in-process: to the work done, before the process writes its result
    # (the kernel-load process prints after its window; the checker's
    # final write of its report, --stats write, is left out)
    write = statistics.median(float(r[1].get('write', 0)) for r in runs)
    inproc = statistics.median(float(r[1]['total']) - float(r[1].get('write', 0)) for r in runs)
    checks = json.loads(out).get('results', [])
    slow = max(checks, key=lambda c: c.get('seconds', 0)) if checks else {}
    verdicts = {}
    for c in checks:
        verdicts[c['verdict']] = verdicts.get(c['verdict'], 0) + 1
    # --cache: one run fills a fresh cache, the next is a hit (timed)
    cdir = os.path.join(a.out, 'cache')
    shutil.rmtree(cdir, ignore_errors=True)
    subprocess.run([a.checker, '--cache', cdir, '--format=json', obj, spec], capture_output=True)
    t0 = time.monotonic()
    h = subprocess.run([a.checker, '--cache', cdir, '--format=json', obj, spec],
                       capture_output=True, text=True)
    cached = time.monotonic() - t0
    # a hit is the stored report; the "seconds" fields are the first run's
    if h.returncode != rc:
        sys.exit('bench: %s: cached run exit %d, uncached %d' % (name, h.returncode, rc))
    row = {'name': name, 'kind': 'example', 'cached': cached, 'insns': int(st['insns']),
           'checks': int(st['checks']), 'wall': wall, 'kernel': k, 'kernel_warm': kw,
           'kernel_state': kstate if kw is None or k is not None else
           'refused: its kernel-load process failed',
           'kernel_proc': kp, 'bpftool_proc': bp,
           'max_check': float(st['max_check']), 'slowest': slow.get('check', ''),
           'peak_rss_kb': int(st['peak_rss_kb']), 'faults': st['faults'], 'kernel_faults': kfaults,
           'verdicts': ' '.join('%d %s' % (n, v) for v, n in sorted(verdicts.items()))}
    for s in STAGES:
        row[s] = float(st[s])
    row['total'] = total
    row['write'] = write
    row['inproc'] = inproc
    row['ratio'] = wall / kp if kp else None          # process vs process
    row['ratio_bpftool'] = wall / bp if bp else None  # process vs a bpftool process
    row['ratio_inproc'] = inproc / k if k else None   # in-process vs in-process
    row['ratio_warm'] = inproc / kw if kw else None   # ... against a warm load (not a target)
    return row


def run_generated(a, shape, n):
    gdir = os.path.join(a.out, 'gen')
    os.makedirs(gdir, exist_ok=True)
    obj = os.path.join(gdir, '%s-%d.o' % (shape, n))
    subprocess.run([sys.executable, a.genprog, shape, str(n), obj], check=True)
    # fastest of 3 processes (the machine is shared), each lifting once as
    # the CLI does: a second lift in one process would reuse the first's
    # pages, which the CLI never does; peak RSS: the largest of the three
    # At 1M also 3 without the prefault helper (bench_lift's PREFAULT 0),
    # in turns with the others: the helper's effect, as a ratio of one run
    def lift_run(helper):
        p = subprocess.run([a.lift, obj, str(LOOP_BOUND), '1', '1' if helper else '0'],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit('bench: lift %s: %s' % (obj, p.stderr))
        return kv(p.stdout)
    runs, bare = [], []
    for _ in range(3):
        runs.append(lift_run(True))
        if n >= 1000000:
            bare.append(lift_run(False))
    st = min(runs, key=lambda r: float(r['total']))
    st['peak_rss_kb'] = str(max(int(r['peak_rss_kb']) for r in runs))
    k, kstate = kernel_load(a.kload, obj, 1 if n >= 1000000 else 3)
    lift = float(st['total'])
    row = {'name': '%s-%d' % (shape, n), 'kind': shape, 'insns': n,
           'lift': lift, 'rate': n / lift if lift > 0 else float('inf'),
           'peak_rss_kb': int(st['peak_rss_kb']), 'rss_start_kb': int(st['rss_start_kb']),
           'bytes_per_insn': (int(st['peak_rss_kb']) - int(st['rss_start_kb'])) * 1024.0 / n,
           'blocks': int(st['blocks']), 'values': int(st['values']),
           'unsupported': st['unsupported'], 'kernel': k, 'kernel_state': kstate}
    for s in ['load', 'decode', 'cfg', 'ssa']:
        row[s] = float(st[s])
    row['ratio'] = lift / k if k else None
    if bare:
        b = min(bare, key=lambda r: float(r['total']))
        row['lift_bare'] = float(b['total'])
        row['rss_bare_kb'] = max(int(r['peak_rss_kb']) for r in bare)
    return row


def fit(points):
    """Least squares slope of log t against log n."""
    pts = [(math.log(n), math.log(t)) for n, t in points if t > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None


def p95(xs):
    xs = sorted(xs)
    return xs[max(0, math.ceil(0.95 * len(xs)) - 1)]


def fmt(x, d=4):
    return '-' if x is None else ('%.*f' % (d, x))


def targets(ex, gen, sizes):
    """[(target, numbers, met)]"""
    out = []
    big = max(sizes)
    for shape in SHAPES:
        r = [g for g in gen if g['kind'] == shape and g['insns'] == big]
        if not r:
            continue
        r = r[0]
        out.append(('load+decode+CFG+SSA >= 5M insns/s on %s-%d' % (shape, big),
                    '%.2fM insns/s (%.3f s)' % (r['rate'] / 1e6, r['lift']),
                    r['rate'] >= T_RATE and big >= 1000000))
        out.append(('peak RSS <= 1 KiB per instruction on %s-%d' % (shape, big),
                    '%.0f bytes/insn (peak %d KiB, %d KiB at start)' %
                    (r['bytes_per_insn'], r['peak_rss_kb'], r['rss_start_kb']),
                    r['bytes_per_insn'] <= T_MEM and big >= 1000000))
    for key, how in (('ratio', 'process vs process: checker wall / kernel-load process wall'),
                     ('ratio_bpftool', 'process vs bpftool: checker wall / `bpftool prog loadall` '
                      'process wall, the issue\'s reference'),
                     ('ratio_inproc', 'in-process: checker --stats total less its final write '
                      'of the report / the kernel-load process\'s open + load + close, both from '
                      'main\'s start to the work done')):
        ratios = [e[key] for e in ex if e.get(key) is not None]
        if ratios:
            med, hi = statistics.median(ratios), p95(ratios)
            out.append(('checking an example <= 1.0x the kernel load (%s), median over %d examples' %
                        (how, len(ratios)), '%.2fx' % med, med <= T_MEDIAN))
            out.append(('... p95 <= 3x (%s)' % how.split(':')[0], '%.2fx' % hi, hi <= T_P95))
        else:
            out.append(('checking an example vs the kernel load (%s)' % how,
                        'no kernel numbers (bpf() not available)', False))
    warm = [e['ratio_warm'] for e in ex if e.get('ratio_warm') is not None]
    if warm:
        out.append(('checker in-process / a warm bpf_object__load (the second to sixth load '
                    'of a process, its open not timed: not like with like, see the method)',
                    'median %.2fx, p95 %.2fx' % (statistics.median(warm), p95(warm)), None))
    if ex:
        worst = max(ex, key=lambda e: e['max_check'])
        hit = max(ex, key=lambda e: e['cached'])
        out.append(('an unchanged program costs nothing with --cache: every hit <= 50 ms '
                    '(our threshold, not the issue\'s)',
                    'slowest hit: %s %.3f s' % (hit['name'], hit['cached']), hit['cached'] <= T_CACHE))
        out.append(('no example invariant takes more than 2 s',
                    'slowest: %s %.2f s' % (worst['slowest'], worst['max_check']),
                    worst['max_check'] <= T_CHECK))
    return out


BUILD_KIND = 'unknown'


def build_kind(path):
    """Static (meson option static; a PIE with static_pie) or dynamically linked."""
    p = subprocess.run(['readelf', '-l', '-W', path], capture_output=True, text=True)
    if p.returncode != 0:
        return 'of an unknown kind (readelf failed)'
    if 'INTERP' in p.stdout:
        return ('dynamically linked (meson option static off), and so is the kernel-load '
                'process')
    kind = ('a static PIE (meson options static and static_pie)' if 'DYN' in p.stdout.split('\n', 3)[1]
            else 'a static position-dependent executable (meson option static)')
    return (kind + ', and so is the kernel-load process (like '
            'with like; bpftool is Debian\'s, libc linked dynamically): a run that needs Z3 is '
            'handed over to bpf-invcheck-z3, the same program linked dynamically, which does it '
            'again (docs/architecture.md, "A static binary, and Z3 in its sibling"): scx_pack\'s '
            'and scx_percpu\'s times include both processes')


def report(ex, gen, exps, tg, sizes):
    L = []
    L.append('Examples: the default spec examples/NAME.inv, bpf-invcheck processes (median of %d); '
             'wall = the checker process, total = its --stats total, write = the part of it '
             'in the final write of the report to stdout (--stats write: to this benchmark\'s pipe), '
             'in-proc = total less write (the work done, as the kernel-load process\'s window ends '
             'before it prints); '
             'kernel proc = wall time of a process that opens, loads and closes the object '
             '(bench_kload --process, median of %d); bpftool proc = wall time of a '
             '`bpftool prog loadall OBJ DIR` process (the issue\'s own reference, a whole bpftool '
             'process; Debian\'s bpftool links libbpf statically; its pins removed after, not timed; '
             'median of %d, in the same rounds); kernel = the kernel-load process\'s own time from '
             'its main\'s start to the object\'s close (open + load + close; in-process, median '
             'of the same %d processes); kernel warm = bpf_object__load after an untimed open, '
             'the second to sixth load of one process (median of 5; not a target); '
             'ratio proc = wall / kernel proc (process vs process); '
             'ratio in-proc = in-proc / kernel (in-process vs in-process, both from main\'s start); '
             'ratio warm = in-proc / kernel warm; '
             '--cache hit = wall time of the same run answered from --cache DIR; '
             'faults = minor page faults of the checker process (its last run, as the parent sees a '
             'child: from the fork on), kernel faults = those of the last kernel-load process '
             '(a page touched for the first time costs 11-16 us on this machine: '
             'docs/architecture.md, "Pages touched").' % (REPS_CHECK, REPS_KPROC, REPS_KPROC,
                                                           REPS_KPROC))
    L.append('')
    L.append('The bpf-invcheck measured is %s.' % BUILD_KIND)
    L.append('')
    L.append('| example | insns | checks | verdicts | ' + ' | '.join(STAGES) +
             ' | total | write | in-proc | wall | slowest check | kernel proc | bpftool proc | kernel | kernel warm'
             ' | ratio proc | ratio bpftool | ratio in-proc | ratio warm | --cache hit | faults'
             ' | kernel faults |')
    L.append('|' + '---|' * (len(STAGES) + 20))
    for e in ex:
        kern = fmt(e['kernel']) if e['kernel'] is not None else e['kernel_state']
        L.append('| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s (%.2f s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            e['name'], e['insns'], e['checks'], e['verdicts'],
            ' | '.join(fmt(e[s]) for s in STAGES), fmt(e['total']), fmt(e['write']),
            fmt(e['inproc']), fmt(e['wall']),
            e['slowest'], e['max_check'], fmt(e['kernel_proc']), fmt(e['bpftool_proc']), kern,
            fmt(e['kernel_warm']),
            ('%.1fx' % e['ratio']) if e['ratio'] is not None else '-',
            ('%.1fx' % e['ratio_bpftool']) if e['ratio_bpftool'] is not None else '-',
            ('%.2fx' % e['ratio_inproc']) if e['ratio_inproc'] is not None else '-',
            ('%.1fx' % e['ratio_warm']) if e['ratio_warm'] is not None else '-',
            fmt(e['cached']), e['faults'],
            e['kernel_faults'] if e['kernel_faults'] is not None else '-'))
    L.append('')
    L.append('Generated programs: load + decode + CFG + SSA (no spec), loop bound %d; '
             'bytes/insn = (peak RSS - RSS at start) / insns; ratio = lift / kernel '
             '(bench_lift\'s stage times, open included, against bpf_object__load after an untimed '
             'open, median of 3, 1 at 1M: warm, not a target).' % LOOP_BOUND)
    L.append('')
    L.append('| program | insns | load | decode | cfg | ssa | lift | M insns/s | SSA blocks | '
             'SSA values | peak RSS KiB | bytes/insn | kernel | ratio |')
    L.append('|' + '---|' * 14)
    for g in gen:
        kern = fmt(g['kernel']) if g['kernel'] is not None else g['kernel_state']
        L.append('| %s | %d | %s | %s | %s | %s | %s | %.2f | %d | %d | %d | %.0f | %s | %s |' % (
            g['name'], g['insns'], fmt(g['load']), fmt(g['decode']), fmt(g['cfg']), fmt(g['ssa']),
            fmt(g['lift']), g['rate'] / 1e6, g['blocks'], g['values'], g['peak_rss_kb'],
            g['bytes_per_insn'], kern, ('%.2fx' % g['ratio']) if g['ratio'] is not None else '-'))
    L.append('')
    L.append('Scaling exponents (least squares of log t against log n over %s instructions):' %
             ', '.join(str(s) for s in sizes))
    L.append('')
    ss = sorted(sizes)
    for shape, stage, e, top in exps:
        L.append('- %s, %s: %s%s' % (shape, stage, '-' if e is None else '%.2f' % e,
                                     '' if top is None else
                                     ' (%.2f from %d to %d)' % (top, ss[-2], ss[-1])))
    if len(sizes) > 2:
        L.append('')
        L.append('The exponent over every size is below the one over the two largest where '
                 'a constant weighs at the small ones (the heap\'s first huge page, set up '
                 'as the CLI\'s, is touched in the load: about 0.3 ms); the one over the '
                 'two largest is the growth rate.')
    bare = [g for g in gen if g.get('lift_bare')]
    if bare:
        L.append('')
        L.append('The prefault helper (docs/architecture.md, "Prefaulting on another CPU"): '
                 'the same lifts without it (bench_lift PREFAULT 0, fastest of 3, in turns '
                 'with the runs above):')
        L.append('')
        for g in bare:
            L.append('- %s: %.3f s with it, %.3f s without: %.2fx the time; peak RSS %d MB, '
                     '%d MB without' % (g['name'], g['lift'], g['lift_bare'],
                                        g['lift'] / g['lift_bare'], g['peak_rss_kb'] // 1024,
                                        g['rss_bare_kb'] // 1024))
    L.append('')
    L.append('Targets:')
    L.append('')
    for t, nums, ok in tg:
        L.append('- %s: %s: **%s**' % (t, nums, 'reported, not a target' if ok is None else
                                         'met' if ok else 'not met'))
    return '\n'.join(L)


def write_csv(path, ex, gen):
    cols = ['name', 'kind', 'insns', 'checks'] + STAGES + ['total', 'write', 'inproc', 'wall', 'cached', 'lift', 'max_check',
            'peak_rss_kb', 'bytes_per_insn', 'kernel', 'kernel_proc', 'bpftool_proc', 'kernel_state',
            'ratio', 'ratio_bpftool', 'ratio_inproc', 'faults', 'kernel_faults', 'kernel_warm',
            'ratio_warm']
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in ex + gen:
            w.writerow(['' if r.get(c) is None else (('%.6f' % r[c]) if isinstance(r[c], float)
                                                   else r[c]) for c in cols])


def plot(path_png, ex, gen, out):
    if not shutil.which('gnuplot'):
        print('bench: gnuplot is not installed: no plot (apt-get install gnuplot-nox)')
        return False
    data = os.path.join(out, 'plot')
    os.makedirs(data, exist_ok=True)
    series = []
    for shape in SHAPES:
        rows = [g for g in gen if g['kind'] == shape]
        with open(os.path.join(data, shape + '.dat'), 'w') as f:
            for g in rows:
                f.write('%d %.6f %s\n' % (g['insns'], g['lift'],
                                          '%.6f' % g['kernel'] if g['kernel'] else 'NaN'))
        series.append("'%s' u 1:2 w lp t '%s: checker lift'" % (f.name, shape))
        series.append("'%s' u 1:3 w lp dt 2 t '%s: kernel load'" % (f.name, shape))
    with open(os.path.join(data, 'examples.dat'), 'w') as f:
        for e in ex:
            f.write('%d %.6f %s %s %s %s\n' % (e['insns'], e['wall'],
                                               '%.6f' % e['kernel'] if e['kernel'] else 'NaN', e['name'],
                                               '%.6f' % e['kernel_proc'] if e['kernel_proc'] else 'NaN',
                                               '%.6f' % e['bpftool_proc'] if e['bpftool_proc'] else 'NaN'))
    series.append("'%s' u 1:2 w p pt 7 ps 1.5 t 'examples: checker (process)'" % f.name)
    series.append("'%s' u 1:5 w p pt 9 ps 1.3 t 'examples: kernel-load process'" % f.name)
    series.append("'%s' u 1:6 w p pt 13 ps 1.3 t 'examples: bpftool prog loadall process'" % f.name)
    series.append("'%s' u 1:3 w p pt 5 ps 1.2 t 'examples: kernel open+load+close (in-process)'" % f.name)
    series.append("'%s' u 1:2:4 w labels noenhanced offset 0,0.8 font ',8' notitle" % f.name)
    script = "\n".join([
        "set terminal png size 1000,700 noenhanced",
        "set format x '%g'", "set format y '%g'",
        "set output '%s'" % path_png,
        "set logscale xy", "set grid",
        "set xlabel 'instructions'", "set ylabel 'seconds'",
        "set key bottom right noenhanced",
        "set title 'bpf-invcheck vs the kernel verifier: time vs instruction count'",
        "plot " + ", ".join(series)])
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    return True


def update_doc(path, text):
    begin, end = '<!-- bench:begin -->', '<!-- bench:end -->'
    with open(path) as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        sys.exit('bench: %s has no %s ... %s markers' % (path, begin, end))
    head, rest = doc.split(begin, 1)
    tail = rest.split(end, 1)[1]
    with open(path, 'w') as f:
        f.write(head + begin + '\n' + text + '\n' + end + tail)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--src', required=True)
    ap.add_argument('--sizes', default='1000,10000,100000,1000000')
    ap.add_argument('--examples', default='')
    ap.add_argument('--no-docs', action='store_true')
    a = ap.parse_args()
    a.build, a.src = os.path.abspath(a.build), os.path.abspath(a.src)
    a.out = os.path.join(a.build, 'bench')
    a.checker = os.path.join(a.build, 'bpf-invcheck')
    global BUILD_KIND
    BUILD_KIND = build_kind(a.checker)
    a.lift = os.path.join(a.build, 'tests', 'bench', 'bench_lift')
    a.kload = os.path.join(a.build, 'tests', 'bench', 'bench_kload')
    a.genprog = os.path.join(a.src, 'tests', 'bench', 'genprog.py')
    os.makedirs(a.out, exist_ok=True)
    a.bpftool = bpftool_ready()
    if a.bpftool:
        print('bench: bpftool prog loadall not measured: %s' % a.bpftool[len('skipped: '):])
    sizes = [int(s) for s in a.sizes.split(',')]
    names = sorted(f[:-4] for f in os.listdir(os.path.join(a.src, 'examples'))
                   if f.endswith('.inv') and
                   os.path.exists(os.path.join(a.build, 'examples', f[:-4] + '.bpf.o')))
    if a.examples:
        names = [n for n in names if n in a.examples.split(',')]
    ex = []
    for n in names:
        print('bench: example %s' % n, flush=True)
        ex.append(run_example(a, n))
    gen = []
    for shape in SHAPES:
        for n in sizes:
            print('bench: generated %s-%d' % (shape, n), flush=True)
            gen.append(run_generated(a, shape, n))
    if any(e['kernel_state'].startswith('skipped') for e in ex + gen):
        print('bench: the kernel verifier is not measured: bpf() is not available')
    exps = []
    for shape in SHAPES:
        rows = sorted((g for g in gen if g['kind'] == shape), key=lambda g: g['insns'])
        for stage, key in [('load+decode+CFG+SSA', 'lift'), ('cfg', 'cfg'), ('ssa', 'ssa')]:
            pts = [(g['insns'], g[key]) for g in rows]
            # the last decade alone too, where more than two sizes ran
            exps.append((shape, stage, fit(pts), fit(pts[-2:]) if len(pts) > 2 else None))
    tg = targets(ex, gen, sizes)
    text = report(ex, gen, exps, tg, sizes)
    print(text)
    write_csv(os.path.join(a.out, 'bench.csv'), ex, gen)
    print('bench: wrote %s' % os.path.join(a.out, 'bench.csv'))
    if not a.no_docs:
        docs = os.path.join(a.src, 'docs')
        write_csv(os.path.join(docs, 'performance.csv'), ex, gen)
        png = plot(os.path.join(docs, 'performance.png'), ex, gen, a.out)
        stamp = 'Measured %s on %s (%d CPUs), kernel %s.' % (
            time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), os.uname().nodename,
            os.cpu_count(), os.uname().release)
        update_doc(os.path.join(docs, 'performance.md'),
                   stamp + '\n\n' + text + ('\n\n![time vs instructions](performance.png)'
                                           if png else '\n\n(no plot: gnuplot not installed)'))
        print('bench: updated docs/performance.md, docs/performance.csv' +
              (', docs/performance.png' if png else ''))
    else:
        plot(os.path.join(a.out, 'performance.png'), ex, gen, a.out)


if __name__ == '__main__':
    main()
