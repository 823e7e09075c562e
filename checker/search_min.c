/* search_min.c - the minimisation of the input the search found
 * (search_priv.h; the stage's contract: search.h): a shorter packet, then
 * bytes and call and read answers made 0 where the input still fails the
 * same assert, each tried by search_try.
 */
#include "search_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- minimisation ------------------------------------------------------ */

/* P[0..N) is all 0 (8 bytes a step) */
static bool all_zero(const uint8_t *p, size_t n)
{
	uint64_t w, acc = 0;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		acc |= w;
	}
	for (; i < n; i++)
		acc |= p[i];
	return !acc;
}

/* No byte of P[0..N) that is not 0 has its SEEN mark (0 or 1; SEEN
 * NULL: none marked), 8 bytes a step */
static bool unread(const uint8_t *p, const uint8_t *seen, size_t n)
{
	uint64_t w, m, acc = 0;
	size_t i;

	if (!seen)
		return all_zero(p, n);
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		memcpy(&m, seen + i, 8);
		acc |= w & m * 0xff;
	}
	for (; i < n; i++)
		acc |= p[i] & (uint8_t)-seen[i];
	return !acc;
}

/* The non-zero bytes of [LO, HI) of the N at OFF in CD made 0 where CD
 * still fails SITE with them (T: a copy of CD, and again on return): the
 * whole range at once, else each half. A failing input needs few non-zero
 * bytes as a rule, so this takes about k log n tries for k needed bytes of
 * n (one a byte took n: most of a search's inputs were its minimisation).
 * SAME: this try's candidate is the parent's, which did not fail (a first
 * half when the parent's second half is 0 in CD, a second half when the
 * first is 0 in CD now): the same run, counted and not run. MARKS:
 * pr->seen holds the marks of the parent's run, the last try (with
 * bound_only: the bytes it read, a run only clearing and setting the
 * ranges it tracks); a first half whose other bytes (the parent's second
 * half: 0 there, CD's here) that run did not read is that run again,
 * marks and all (tc_classifier's worst case ran 46 of its 50 tries so,
 * xdp_lb's searches 96 of 107). */
static void zero_range(struct search *sr, struct cand *cd, struct cand *t, size_t off,
		       size_t lo, size_t hi, unsigned site, struct probe *pr, bool same, bool marks)
{
	uint8_t *c = (uint8_t *)cd + off, *tc = (uint8_t *)t + off;
	unsigned s;
	size_t i, mid;

	i = lo;
	for (uint64_t w = 0; i + 8 <= hi && (memcpy(&w, c + i, 8), !w); i += 8)
		;                      /* 8 zero bytes a step (most are) */
	for (; i < hi && !c[i]; i++)
		;
	if (i == hi)
		return;
	lo = i;                        /* no try for the zero bytes before */
	memset(tc + lo, 0, hi - lo);
	sr->ran_cd = false;
	if (same) {
		sr->runs++;
	} else if (search_try(sr, t, (int)site, &s, pr) == 1) {
		memset(c + lo, 0, hi - lo);
		sr->ran_cd = true;     /* T was CD as it is now */
		return;
	} else {
		marks = sr->bound_only;
	}
	memcpy(tc + lo, c + lo, hi - lo);
	if (hi - lo == 1)
		return;
	mid = lo + (hi - lo) / 2;
	zero_range(sr, cd, t, off, lo, mid, site, pr,
		   unread(c + mid, marks ? pr->seen + off + mid : NULL, hi - mid), marks);
	/* the first half made 0 whole: the second half's candidate is this
	 * one's again */
	zero_range(sr, cd, t, off, mid, hi, site, pr, all_zero(c + lo, mid - lo), false);
}

/* The N bytes at OFF of CD made 0 where CD still fails SITE with them:
 * for a bound-only check, every byte the last run of CD did not touch at
 * once (the run with them 0 is the same run: sr->okseen), then
 * zero_range over the rest. */
static void zero_bytes(struct search *sr, struct cand *cd, struct cand *t, size_t off, size_t n,
		       unsigned site, struct probe *pr)
{
	uint8_t *c = (uint8_t *)cd + off;
	const uint8_t *seen = sr->okseen + off;
	uint64_t w, m, gone = 0;
	size_t i;

	if (sr->bound_only) {
		/* seen is 0 or 1: a mask of 0xff bytes is seen * 0xff (no
		 * carry), 8 bytes a step, vectorised */
		for (i = 0; i + 8 <= n; i += 8) {
			memcpy(&w, c + i, 8);
			memcpy(&m, seen + i, 8);
			m *= 0xff;
			gone |= w & ~m;
			w &= m;
			memcpy(c + i, &w, 8);
		}
		for (; i < n; i++) {
			gone |= c[i] & (uint8_t)(seen[i] - 1);
			c[i] &= (uint8_t)-seen[i];
		}
		memcpy((uint8_t *)t + off, c, n);
		if (gone)
			sr->ran_cd = false;   /* CD is another candidate now */
	}
	zero_range(sr, cd, t, off, 0, n, site, pr, false, false);
}

/* Simpler inputs that fail the same assert: a shorter packet, bytes and
 * answers 0. Each is tried in T, a copy of CD but for what the try
 * changes (put back unless it becomes CD's). */
void search_minimise(struct search *sr, struct cand *cd, unsigned site, struct probe *pr)
{
	static const uint32_t lens[] = { 0, 14, 34, 42, 54, 60, 64 };
	struct cand *t = malloc(sizeof(*t));
	unsigned s, i, k;

	if (!t)
		abort();
	memcpy(t, cd, sizeof(*t));
	sr->ran_cd = true;             /* the search's last try found CD */
	for (i = 0; i < ARRAY_SIZE(lens) && lens[i] < cd->len; i++) {
		sr->ran_cd = false;
		t->len = lens[i];
		if (search_try(sr, t, (int)site, &s, pr) == 1) {
			cd->len = lens[i];
			break;
		}
		t->len = cd->len;
	}
	if (!all_zero(cd->pkt + cd->len, S_PKT - cd->len))
		sr->ran_cd = false;
	memset(cd->pkt + cd->len, 0, S_PKT - cd->len);
	memset(t->pkt + cd->len, 0, S_PKT - cd->len);
	zero_bytes(sr, cd, t, offsetof(struct cand, pkt), cd->len, site, pr);
	zero_bytes(sr, cd, t, offsetof(struct cand, ent), sizeof(cd->ent), site, pr);
	/* CD's run for its calls: the last run when that was of CD (a try
	 * of the same candidate is the same run; counted, not run again:
	 * trace_exec's worst case, 2 of its 9 tries) */
	if (sr->ran_cd ? (sr->runs++, true) : search_try(sr, cd, (int)site, &s, pr) == 1) {
		unsigned n = pr->calls.len < S_CALLS ? (unsigned)pr->calls.len : S_CALLS;
		struct pcall pc[S_CALLS];

		memcpy(pc, pr->pc, sizeof(pc));
		for (k = 0; k < n; k++) {
			if (!pc[k].value || cd->opt[k] || !search_fits(&pc[k], 0) ||
			    (cd->has_ret[k] && !cd->ret[k]))
				continue;
			t->has_ret[k] = 1;
			t->ret[k] = 0;
			if (search_try(sr, t, (int)site, &s, pr) == 1) {
				cd->has_ret[k] = 1;
				cd->ret[k] = 0;
			}
			t->has_ret[k] = cd->has_ret[k];
			t->ret[k] = cd->ret[k];
		}
	}
	zero_bytes(sr, cd, t, offsetof(struct cand, wr), sizeof(cd->wr), site, pr);
	if (sr->plain_ctx)
		zero_bytes(sr, cd, t, offsetof(struct cand, ctx), sizeof(cd->ctx), site, pr);
	/* The last try that failed the assert ran CD (every one minimise
	 * makes becomes CD): read k of a run is answered by rd[k] (p_unmapped),
	 * so one past its ok_reads reads is never asked for; setting it is
	 * the same run, without running it (48 tries of every XDP, tc and
	 * cgroup input found, which make no kernel read: cgroup_skb's worst
	 * case took 70 tries, 22 now). */
	for (k = 0; k < S_READS; k++) {
		t->has_rd[k] = 1;
		t->rd[k] = 0;
		if (k >= sr->ok_reads ||
		    ((!cd->has_rd[k] || cd->rd[k]) && search_try(sr, t, (int)site, &s, pr) == 1)) {
			cd->has_rd[k] = 1;
			cd->rd[k] = 0;
		}
		t->has_rd[k] = cd->has_rd[k];
		t->rd[k] = cd->rd[k];
	}
	free(t);
}
