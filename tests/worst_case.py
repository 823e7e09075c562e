#!/usr/bin/env python3
"""A bound's worst case (check_worst.c worst_case): exact where it is known, the
proved upper bound where the search's budget of solver work runs out.

- Straight-line programs whose longest DAG path is feasible (test_bound:
  its static maximum): the worst case is that maximum, found from the
  path's own condition (bound_longest_path), with a witness the
  interpreter replays to exactly that many instructions.
- loop_sum: the DAG's maximum (1119) is far above any run; the search
  between models and proofs must end at the exact worst case, 239 (what
  the plain bisection found before models raised its lower bound), with a
  replayed witness of a short packet.
- xdp_lb: its longest path (the DAG's maximum, 222) is feasible, with a
  witness of a short packet; it took more than the search's budget
  (WORST_CASE_BUDGET) until the encoder gave X - X / Y * Y as the
  remainder (smt.c mul_of_div).
- xdp_lb with --rlimit=1000 (Z3 resource units per query: deterministic):
  every query of the search runs out, so the report gives the proved upper
  bound, the DAG's maximum 222, and no witness; the verdict still holds.
- Since session 18 loop_sum's and xdp_lb's worst cases come from the
  pre-pass and the concrete search without Z3 (check.c bound_top,
  search.c flip_len, flip_bytes, guide_flip); the same checks with
  --no-search go to Z3 as before and must give the same worst cases.

usage: worst_case.py BPF-INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR
"""
import json
import os
import subprocess
import sys

# (example, extra options, check): ('exact', N) or ('at_most', N)
WANT = {
    ('xdp_fw', '', 'xdp_fw.bound_insns'): ('exact', 64),
    ('tailcall', '', 'tail_tcp.bound_insns'): ('exact', 41),
    ('tailcall', '', 'tail_udp.bound_insns'): ('exact', 34),
    ('tailcall', '', 'tail_entry.bound_insns'): ('exact', 34),
    ('loop_sum', '', 'loop_sum.bound_insns'): ('exact', 239),
    ('xdp_lb', '', 'xdp_lb.bound_insns'): ('exact', 222),
    ('loop_sum', '--no-search', 'loop_sum.bound_insns'): ('exact', 239),
    ('xdp_lb', '--no-search', 'xdp_lb.bound_insns'): ('exact', 222),
    ('xdp_lb', '--no-search --rlimit=1000', 'xdp_lb.bound_insns'): ('at_most', 222),
}


def main():
    exe, src, exdir = sys.argv[1:4]
    bad = 0
    for ex, opts in sorted({(e, o) for e, o, _ in WANT}):
        out = subprocess.run([exe, '--format=json'] + opts.split() +
                             [os.path.join(exdir, ex + '.bpf.o'),
                              os.path.join(src, 'examples', ex + '.inv')],
                             stdout=subprocess.PIPE, check=False).stdout
        checks = {c['check']: c for c in json.loads(out)['results']}
        for (e, o, name), (kind, n) in sorted(WANT.items()):
            if (e, o) != (ex, opts):
                continue
            c = checks.get(name)
            got = None
            if c is None:
                got = 'no such check'
            elif c['verdict'] != 'holds':
                got = 'verdict ' + c['verdict']
            elif kind == 'exact':
                w = c.get('worst_case_input') or {}
                if c.get('worst_case_insns') != n or 'worst_case_insns_at_most' in c:
                    got = 'worst case %s (at most %s)' % (c.get('worst_case_insns'),
                                                          c.get('worst_case_insns_at_most'))
                elif not w.get('replayed') or w.get('steps') != n:
                    got = 'witness %s' % w
                elif w.get('packet_len', 0) > 64:
                    got = 'witness packet of %d bytes' % w['packet_len']
            elif (c.get('worst_case_insns_at_most') != n or 'worst_case_insns' in c or
                  'worst_case_input' in c):
                got = 'worst case %s, at most %s, witness %s' % (
                    c.get('worst_case_insns'), c.get('worst_case_insns_at_most'),
                    'worst_case_input' in c)
            if got:
                print('FAIL: %s %s%s: expected %s %d, got %s' % (ex, opts + ' ' if opts else '',
                                                              name, kind, n, got))
                bad += 1
    print('worst_case: %d checks, %d failed' % (len(WANT), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
