/* replay.c - counterexample replay with the concrete monitor (contract:
 * replay.h). The interpreter runs the program; its environment answers
 * helper / kfunc calls, LD imm64 references and unmapped loads from the
 * cex and runs the monitor (monitor_eval.c) at every event. */
#include "replay.h"
#include "replay_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BPF_MAX_LOOPS (8u << 20)   /* the kernel's bpf_loop limit */

struct replay {
	const struct object *o;
	const struct mon_check *c;
	const struct cex *x;
	struct replay_result *r;
	struct interp ip;
	struct mon_eval m;
	unsigned ncall, nread;     /* the next cex call / read */
	bool stopped;              /* r->outcome is decided */
	struct vec path;           /* struct replay_step */
	uint32_t *nslots;          /* per section */
	int *globals;              /* per map: its INTERP_MEM_GLOBAL region */
	int *values;               /* per map: the region of its first value */
	uint8_t *ctx;              /* ctx bytes at entry */
	struct insn *const *insns; /* per section (pkt_written: stores) */
};

const char *replay_outcome_name(enum replay_outcome o)
{
	switch (o) {
	case REPLAY_ASSERT_FAILED: return "assert failed";
	case REPLAY_ASSUME_FAILED: return "assume failed";
	case REPLAY_EXITED: return "exited";
	case REPLAY_DIVERGED: return "diverged";
	case REPLAY_INTERP: return "interpreter";
	}
	return "?";
}

void replay_result_free(struct replay_result *r)
{
	if (!r)
		return;
	free(r->path);
	r->path = NULL;
	r->npath = 0;
}

/* ---- names for messages ----------------------------------------------- */

static void where(const struct replay *rp, int sec, uint32_t slot, char *buf,
		  size_t size)
{
	if (sec >= 0 && (uint32_t)sec < rp->o->nsections)
		snprintf(buf, size, "%s+%u", rp->o->sections[sec].name, slot);
	else
		snprintf(buf, size, "section %d+%u", sec, slot);
}

static void callee(const struct replay *rp, int helper, int kfunc, char *buf,
		   size_t size)
{
	const char *name = helper >= 0 ? helper_name(helper) : NULL;

	if (name)
		snprintf(buf, size, "%s", name);
	else if (helper >= 0)
		snprintf(buf, size, "helper %d", helper);
	else if (kfunc >= 0 && (uint32_t)kfunc < rp->o->nkfuncs)
		snprintf(buf, size, "%s", rp->o->kfuncs[kfunc].name);
	else
		snprintf(buf, size, "kfunc %d", kfunc);
}

/* ---- outcomes --------------------------------------------------------- */

/* Decide the outcome and end the run (from a callback: return its -1). */
static int stop(struct replay *rp, enum replay_outcome o,
		enum spec_event_kind ev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int stop(struct replay *rp, enum replay_outcome o,
		enum spec_event_kind ev, const char *fmt, ...)
{
	va_list ap;

	if (rp->stopped)
		return -1;
	rp->stopped = true;
	rp->r->outcome = o;
	rp->r->event = ev;
	va_start(ap, fmt);
	vsnprintf(rp->r->msg, sizeof(rp->r->msg), fmt, ap);
	va_end(ap);
	if (rp->ip.running)
		interp_error(&rp->ip, INTERP_UNSUPPORTED, "replay: %s",
			     rp->r->msg);
	return -1;
}

/* The monitor failed at an event described by AT ("exit: r0 = 1"). */
static int monitor_failed(struct replay *rp, const char *at)
{
	const struct mon_eval *m = &rp->m;

	if (m->failed == MON_FAIL_ASSERT) {
		rp->r->site = m->site;
		return stop(rp, REPLAY_ASSERT_FAILED, m->ev,
			    "assert %u failed at %s", m->site, at);
	}
	return stop(rp, REPLAY_ASSUME_FAILED, m->ev,
		    "assume at %u:%u failed at %s", m->pos.line, m->pos.col, at);
}

/* ---- the environment: calls ------------------------------------------- */

/* The helper id or kfunc index of call IN (the other one is -1). */
static void call_target(const struct insn *in, int64_t id, int *helper,
			int *kfunc)
{
	*helper = -1;
	*kfunc = -1;
	if (in->op != ISA_CALLX &&
	    (in->ref.kind == INSN_REF_KFUNC || in->src == ISA_CALL_KFUNC))
		*kfunc = (int)id;
	else
		*helper = (int)id;
}

/* The next cex entry, if it is this call; else DIVERGED. */
static const struct cex_call *next_call(struct replay *rp, int helper,
					int kfunc)
{
	const struct cex_call *cc;
	char at[96], want_at[96], name[96], want[96];

	/* the call the counterexample has next: nothing to name (two
	 * snprintf a call, 1.6K instructions, were most of a replay's
	 * call) */
	cc = rp->ncall < rp->x->ncalls ? &rp->x->calls[rp->ncall] : NULL;
	if (cc && cc->sec == rp->ip.sec && cc->slot == rp->ip.pc &&
	    cc->helper == helper && cc->kfunc == kfunc) {
		rp->ncall++;
		return cc;
	}
	where(rp, rp->ip.sec, rp->ip.pc, at, sizeof(at));
	callee(rp, helper, kfunc, name, sizeof(name));
	if (!cc) {
		stop(rp, REPLAY_DIVERGED, SPEC_EV_CALL, "call at %s is %s, the "
		     "counterexample has no more calls (%u made)", at, name,
		     rp->x->ncalls);
		return NULL;
	}
	where(rp, cc->sec, cc->slot, want_at, sizeof(want_at));
	callee(rp, cc->helper, cc->kfunc, want, sizeof(want));
	if (strcmp(at, want_at))
		stop(rp, REPLAY_DIVERGED, SPEC_EV_CALL, "call at %s is %s, the "
		     "counterexample expected %s at %s (call %u)", at, name,
		     want, want_at, rp->ncall);
	else
		stop(rp, REPLAY_DIVERGED, SPEC_EV_CALL, "call at %s is %s, the "
		     "counterexample expected %s", at, name, want);
	return NULL;
}

/* Run a monitor event of a call; -1 when the monitor stopped the run. */
static int call_event(struct replay *rp, enum spec_event_kind ev, int helper,
		      int kfunc, uint64_t ret)
{
	char at[96], name[96], buf[256];

	rp->m.ev = ev;
	rp->m.ret = ret;
	rp->m.insns = ev == SPEC_EV_CALL ? rp->ip.res.steps - 1
					 : rp->ip.res.steps;
	if (mon_eval_call(&rp->m, ev, helper, kfunc))
		return 0;
	where(rp, rp->ip.sec, rp->ip.pc, at, sizeof(at));
	callee(rp, helper, kfunc, name, sizeof(name));
	if (ev == SPEC_EV_CALL)
		snprintf(buf, sizeof(buf), "call %s at %s", name, at);
	else
		snprintf(buf, sizeof(buf), "return of %s at %s: ret = %llu",
			 name, at, (unsigned long long)ret);
	return monitor_failed(rp, buf);
}

static int apply_writes(struct replay *rp, const struct cex_call *cc)
{
	unsigned i;
	char at[96];

	for (i = 0; i < cc->nwrites; i++) {
		const struct cex_write *w = &cc->writes[i];
		uint8_t *p = w->size ? interp_mem(&rp->ip, w->addr, w->size,
						  true) : NULL;

		if (!p) {
			where(rp, cc->sec, cc->slot, at, sizeof(at));
			return stop(rp, REPLAY_INTERP, SPEC_EV_CALL, "the "
				    "counterexample's write of %u bytes at "
				    "0x%llx after the call at %s is not in a "
				    "writable region", w->size,
				    (unsigned long long)w->addr, at);
		}
		memcpy(p, w->bytes, w->size);
	}
	return 0;
}

/* bpf_loop(nr_loops, callback, ctx, flags): run the callback. */
static int run_loop(struct replay *rp, const uint64_t args[5], uint64_t *ret)
{
	uint64_t fn = args[1], a[5] = {0, args[2], 0, 0, 0}, r = 0;
	uint32_t nr = (uint32_t)args[0], i, slot = (uint32_t)fn;
	uint64_t sec = (fn >> 32) & 0xffffff;
	char at[96];

	if (args[3]) {
		*ret = (uint64_t)-EINVAL;
		return 0;
	}
	if (nr > BPF_MAX_LOOPS) {
		*ret = (uint64_t)-E2BIG;
		return 0;
	}
	if (REPLAY_FUNC_ADDR(sec, slot) != fn || sec >= rp->o->nsections ||
	    slot >= rp->nslots[sec]) {
		where(rp, rp->ip.sec, rp->ip.pc, at, sizeof(at));
		return stop(rp, REPLAY_INTERP, SPEC_EV_CALL, "bpf_loop at %s: "
			    "callback 0x%llx is not a function address", at,
			    (unsigned long long)fn);
	}
	for (i = 0; i < nr; i++) {
		a[0] = i;
		if (interp_invoke(&rp->ip, (int)sec, slot, a, &r) < 0)
			return -1;
		if (r)
			break;
	}
	*ret = i < nr ? i + 1 : nr;
	return 0;
}

static int on_call(void *arg, struct interp *ip, const struct insn *in,
		   int64_t id, const uint64_t args[5], uint64_t *ret)
{
	struct replay *rp = arg;
	const struct cex_call *cc;
	int helper, kfunc;

	(void)ip;
	call_target(in, id, &helper, &kfunc);
	cc = next_call(rp, helper, kfunc);
	if (!cc)
		return -1;
	memcpy(rp->m.args, args, sizeof(rp->m.args));
	if (call_event(rp, SPEC_EV_CALL, helper, kfunc, 0) < 0)
		return -1;
	if (helper == BPF_FUNC_loop) {
		if (run_loop(rp, args, ret) < 0)
			return -1;
	} else if (helper == BPF_FUNC_tail_call && cc->tail_taken) {
		if (call_event(rp, SPEC_EV_RETURN, helper, kfunc, 0) < 0)
			return -1;
		/* what the program that ran left in memory, seen at the exit */
		if (apply_writes(rp, cc) < 0)
			return -1;
		rp->m.pkt_written = rp->m.pkt_written || cc->pkt_written;
		*ret = cc->tail_ret;
		return INTERP_CALL_EXIT;
	} else {
		if (apply_writes(rp, cc) < 0)
			return -1;
		rp->m.pkt_written = rp->m.pkt_written || cc->pkt_written;
		*ret = cc->ret;
	}
	memcpy(rp->m.args, args, sizeof(rp->m.args));  /* after callbacks */
	if (call_event(rp, SPEC_EV_RETURN, helper, kfunc, *ret) < 0)
		return -1;
	return INTERP_CALL_OK;
}

/* ---- the environment: LD imm64, unmapped loads, the trace -------------- */

/* The region of DATASEC's map, created from the object's bytes if the cex
 * has none. */
static int global_region(struct replay *rp, int ds)
{
	const struct obj_datasec *d = &rp->o->datasecs[ds];
	struct interp_region *reg;
	int ri;

	if (d->map < 0 || (uint32_t)d->map >= rp->o->nmaps)
		return -1;
	if (rp->globals[d->map] >= 0)
		return rp->globals[d->map];
	ri = interp_add_region(&rp->ip, INTERP_MEM_GLOBAL, d->name,
			       INTERP_BASE(INTERP_MEM_GLOBAL, d->map),
			       d->size ? d->size : 1, NULL, !d->readonly);
	if (ri < 0)
		return -1;
	reg = interp_region(&rp->ip, ri);
	memcpy(reg->bytes, d->init, d->size);
	rp->globals[d->map] = ri;
	if (rp->values[d->map] < 0)
		rp->values[d->map] = ri;
	return ri;
}

static int lddw_region(struct replay *rp, const struct insn *in)
{
	const struct insn_ref *ref = &in->ref;

	if (ref->kind == INSN_REF_GLOBAL) {
		if (ref->index < 0 || (uint32_t)ref->index >= rp->o->ndatasecs)
			return -1;
		return global_region(rp, ref->index);
	}
	if (ref->index < 0 || (uint32_t)ref->index >= rp->o->nmaps)
		return -1;
	if (rp->values[ref->index] < 0 && rp->o->maps[ref->index].datasec >= 0)
		return global_region(rp, rp->o->maps[ref->index].datasec);
	return rp->values[ref->index];
}

int replay_lddw_value(const struct object *o, const struct insn *in, int sec, uint32_t pc,
		      const uint64_t *ksyms, unsigned nksyms, uint64_t *value, int *map)
{
	const struct insn_ref *ref = &in->ref;

	*map = -1;
	switch (ref->kind) {
	case INSN_REF_MAP:
		*value = REPLAY_MAP_HANDLE(ref->index);
		return 1;
	case INSN_REF_CALLBACK:
	case INSN_REF_SUBPROG:
		*value = REPLAY_FUNC_ADDR(ref->sec, ref->target);
		return 1;
	case INSN_REF_KSYM:
		*value = ksyms && (unsigned)ref->index < nksyms ? ksyms[ref->index] :
			 REPLAY_KSYM_ADDR(ref->index);
		return 1;
	case INSN_REF_MAP_VALUE:
	case INSN_REF_GLOBAL:
		*map = ref->kind == INSN_REF_GLOBAL ?
		       ((uint32_t)ref->index < o->ndatasecs ? o->datasecs[ref->index].map : -1) :
		       ref->index;
		if (*map < 0 || (uint32_t)*map >= o->nmaps || o->maps[*map].datasec < 0)
			*map = -1;
		return 0;
	case INSN_REF_NONE:
	case INSN_REF_HELPER:
	case INSN_REF_KFUNC:
		if (in->src == ISA_PSEUDO_MAP_FD || in->src == ISA_PSEUDO_MAP_IDX) {
			*value = REPLAY_MAP_HANDLE((uint32_t)in->imm);
			return 1;
		}
		if (in->src == ISA_PSEUDO_FUNC) {
			*value = REPLAY_FUNC_ADDR(sec, pc + 1 + in->imm);
			return 1;
		}
		break;
	}
	return -1;
}

static int on_lddw(void *arg, struct interp *ip, const struct insn *in,
		   uint64_t *value)
{
	struct replay *rp = arg;
	int ri, map, k;
	char at[96];

	k = replay_lddw_value(rp->o, in, ip->sec, ip->pc, rp->x->ksyms, rp->x->nksyms, value, &map);
	if (k == 1)
		return 0;
	if (k == 0) {
		ri = lddw_region(rp, in);
		if (ri >= 0) {
			*value = interp_region(ip, ri)->base + (uint64_t)in->ref.off;
			return 0;
		}
	}
	where(rp, ip->sec, ip->pc, at, sizeof(at));
	return stop(rp, REPLAY_INTERP, SPEC_EV_EXIT, "LD imm64 at %s: no value "
		    "for its reference (src %u, ref %d, index %d) in the "
		    "counterexample", at, in->src, (int)in->ref.kind, in->ref.index);
}

static int on_load_unmapped(void *arg, struct interp *ip, uint64_t addr,
			    uint32_t size, uint64_t *value)
{
	struct replay *rp = arg;
	const struct cex_read *rd;
	char at[96];

	if (rp->nread < rp->x->nreads && rp->x->reads[rp->nread].addr == addr &&
	    rp->x->reads[rp->nread].size == size) {
		*value = rp->x->reads[rp->nread++].value;
		return 0;          /* the read the counterexample has next: nothing to name */
	}
	where(rp, ip->sec, ip->pc, at, sizeof(at));
	if (rp->nread >= rp->x->nreads)
		return stop(rp, REPLAY_DIVERGED, SPEC_EV_EXIT, "load of %u "
			    "bytes at 0x%llx (%s) is in no region, the "
			    "counterexample has no more reads (%u made)", size,
			    (unsigned long long)addr, at, rp->x->nreads);
	rd = &rp->x->reads[rp->nread];
	return stop(rp, REPLAY_DIVERGED, SPEC_EV_EXIT, "load of %u "
		    "bytes at 0x%llx (%s) is in no region, the "
		    "counterexample expected %u bytes at 0x%llx (read "
		    "%u)", size, (unsigned long long)addr, at, rd->size,
		    (unsigned long long)rd->addr, rp->nread);
}

/* pkt_written: a store or atomic about to write into the packet region
 * (the encoder's rule is the same: a store whose pointer is a packet
 * pointer; the verifier keeps those inside the packet). */
static void pkt_store(struct replay *rp, int sec, uint32_t slot,
		      const uint64_t regs[ISA_NREGS])
{
	const struct insn *in;
	enum isa_kind kind;
	int ri;

	if (rp->m.pkt_written || !rp->insns || sec < 0 ||
	    (uint32_t)sec >= rp->o->nsections || slot >= rp->nslots[sec])
		return;
	in = &rp->insns[sec][slot];
	kind = isa_table[in->op].kind;
	if (kind != ISA_K_ST && kind != ISA_K_STX && kind != ISA_K_ATOMIC)
		return;
	ri = interp_region_at(&rp->ip, regs[in->dst] + (uint64_t)(int64_t)in->off, in->size);
	if (ri >= 0 && interp_region(&rp->ip, ri)->kind == INTERP_MEM_PACKET)
		rp->m.pkt_written = true;
}

static void on_insn(void *arg, int sec, uint32_t slot,
		    const uint64_t regs[ISA_NREGS])
{
	struct replay *rp = arg;
	struct replay_step *s = buf_push(&rp->path, sizeof(*s));

	s->sec = sec;
	s->slot = slot;
	pkt_store(rp, sec, slot, regs);
}

/* ---- setup ------------------------------------------------------------ */

static int setup_fail(struct replay *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int setup_fail(struct replay *rp, const char *fmt, ...)
{
	va_list ap;

	rp->r->outcome = REPLAY_INTERP;
	rp->r->event = SPEC_EV_ENTRY;
	va_start(ap, fmt);
	vsnprintf(rp->r->msg, sizeof(rp->r->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Remember region RI (cex region CR) as its map's global or first value. */
static void note_map_region(struct replay *rp, const struct cex_region *cr,
			    int ri)
{
	int *v;

	if (cr->map < 0 || (uint32_t)cr->map >= rp->o->nmaps)
		return;
	if (cr->kind == INTERP_MEM_GLOBAL && rp->globals[cr->map] < 0)
		rp->globals[cr->map] = ri;
	if (cr->kind != INTERP_MEM_MAP_VALUE)
		return;
	v = &rp->values[cr->map];
	if (*v < 0 || cr->base < interp_region(&rp->ip, *v)->base)
		*v = ri;
}

static int add_regions(struct replay *rp)
{
	const struct cex *x = rp->x;
	unsigned i;
	int ri;

	for (i = 0; i < x->nregions; i++) {
		const struct cex_region *cr = &x->regions[i];

		ri = cr->base ? interp_add_region(&rp->ip, cr->kind, cr->name,
						  cr->base, cr->size, NULL,
						  cr->writable) : -EINVAL;
		if (ri < 0)
			return setup_fail(rp, "counterexample region %u (%s, "
					  "0x%llx, %u bytes) cannot be set up",
					  i, cr->name ? cr->name : "?",
					  (unsigned long long)cr->base,
					  cr->size);
		if (cr->bytes)
			memcpy(interp_region(&rp->ip, ri)->bytes, cr->bytes,
			       cr->size);
		note_map_region(rp, cr, ri);
	}
	for (i = 0; i < rp->o->nmaps; i++)
		if (rp->globals[i] >= 0)
			rp->values[i] = rp->globals[i];  /* globals first */
	return 0;
}

/* Copy the ctx bytes from args[0] to the end of its region. */
static void snapshot_ctx(struct replay *rp)
{
	const struct cex *x = rp->x;
	unsigned i;

	for (i = 0; i < x->nregions; i++) {
		const struct cex_region *cr = &x->regions[i];
		uint64_t off = x->args[0] - cr->base;

		if (cr->kind != INTERP_MEM_CTX || x->args[0] < cr->base ||
		    off >= cr->size)
			continue;
		rp->m.ctx_size = (uint32_t)(cr->size - off);
		rp->ctx = malloc(rp->m.ctx_size);
		if (!rp->ctx)
			abort();
		if (cr->bytes)
			memcpy(rp->ctx, cr->bytes + off, rp->m.ctx_size);
		else
			memset(rp->ctx, 0, rp->m.ctx_size);
		rp->m.ctx = rp->ctx;
		return;
	}
}

static int setup(struct replay *rp, const struct loaded *l)
{
	const struct object *o = l->o;
	const struct mon_check *c = rp->c;
	struct interp_env env = {
		.arg = rp, .call = on_call, .lddw_value = on_lddw,
		.on_insn = on_insn, .load_unmapped = on_load_unmapped,
	};
	uint32_t i;

	if (rp->x->func < 0 || (uint32_t)rp->x->func >= o->nfuncs ||
	    c->func != rp->x->func)
		return setup_fail(rp, "counterexample for function %d, check "
				  "for function %d (%u functions)",
				  rp->x->func, c->func, o->nfuncs);
	/* calloc_big: a malloc and a clear for these few bytes (calloc
	 * skips the thread's cache of small blocks); it aborts on failure */
	rp->nslots = calloc_big(o->nsections + 1, sizeof(uint32_t));
	rp->globals = calloc_big(o->nmaps + 1, sizeof(int));
	rp->values = calloc_big(o->nmaps + 1, sizeof(int));
	rp->m.vars = calloc_big(c->nvars + 1, sizeof(uint64_t));
	rp->m.counters = calloc_big(c->ncounters + 1, sizeof(uint64_t));
	for (i = 0; i < o->nsections; i++)
		rp->nslots[i] = o->sections[i].nslots;
	for (i = 0; i < o->nmaps; i++)
		rp->globals[i] = rp->values[i] = -1;
	if (interp_init(&rp->ip, l->insns, rp->nslots, (int)o->nsections,
			&env) < 0)
		return setup_fail(rp, "the interpreter cannot be set up");
	rp->ip.max_steps = rp->x->max_steps;
	rp->m.c = c;
	rp->m.o = o;
	rp->m.ip = &rp->ip;
	rp->m.pkt = rp->x->pkt;
	rp->m.pkt_end = rp->x->pkt_end;
	rp->insns = l->insns;
	rp->m.global_region = rp->globals;
	snapshot_ctx(rp);
	return add_regions(rp);
}

/* ---- the run ---------------------------------------------------------- */

static void after_exit(struct replay *rp, uint64_t r0)
{
	char at[64];

	rp->m.ret = r0;
	rp->m.insns = rp->ip.res.steps;
	memset(rp->m.args, 0, sizeof(rp->m.args));
	if (!mon_eval_exit(&rp->m)) {
		/* named only for the message (a snprintf every replay) */
		snprintf(at, sizeof(at), "exit: r0 = %llu", (unsigned long long)r0);
		monitor_failed(rp, at);
		return;
	}
	if (rp->ncall < rp->x->ncalls) {
		stop(rp, REPLAY_DIVERGED, SPEC_EV_EXIT, "the program exited "
		     "(r0 = %llu) after %u of the counterexample's %u calls",
		     (unsigned long long)r0, rp->ncall, rp->x->ncalls);
		return;
	}
	stop(rp, REPLAY_EXITED, SPEC_EV_EXIT, "exited with r0 = %llu after "
	     "%llu instructions, no assert failed", (unsigned long long)r0,
	     (unsigned long long)rp->ip.res.steps);
}

static void run(struct replay *rp)
{
	const struct obj_func *f = &rp->o->funcs[rp->x->func];
	struct interp_result res;
	char at[96];
	int st;

	if (!mon_eval_entry(&rp->m)) {
		monitor_failed(rp, "entry");
		return;
	}
	st = interp_run(&rp->ip, f->sec, f->start, rp->x->args, &res);
	rp->r->steps = res.steps;
	rp->r->r0 = st == INTERP_EXIT ? res.r0 : rp->ip.regs[0];
	if (st < 0) {
		stop(rp, REPLAY_INTERP, SPEC_EV_ENTRY, "%s starts at %u, "
		     "outside its section", f->name, f->start);
		return;
	}
	if (rp->stopped)
		return;
	if (st == INTERP_EXIT) {
		after_exit(rp, res.r0);
		return;
	}
	where(rp, res.sec, res.slot, at, sizeof(at));
	stop(rp, REPLAY_INTERP, SPEC_EV_EXIT, "interpreter %s at %s: %s",
	     interp_status_name(res.status), at, res.msg);
}

int replay_run(const struct loaded *l, const struct mon_check *c,
	       const struct cex *x, struct replay_result *r)
{
	struct replay rp = { .o = l->o, .c = c, .x = x, .r = r };
	int err;

	memset(r, 0, sizeof(*r));
	err = setup(&rp, l);
	if (!err) {
		run(&rp);
		r->path = rp.path.data;
		r->npath = rp.path.len;
		rp.path.data = NULL;
	}
	buf_free(&rp.path);
	interp_fini(&rp.ip);
	free(rp.nslots);
	free(rp.globals);
	free(rp.values);
	free(rp.m.vars);
	free(rp.m.counters);
	free(rp.ctx);
	return err;
}
