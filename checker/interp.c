/* interp.c - the concrete BPF interpreter (contract: interp.h): values,
 * the accesses to memory (the run's and an environment's), calls and
 * returns, the instructions and the loop that runs them. The table of
 * regions and an access's fault are interp_mem.c. */
#include "interp_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ----------------------------------------------------------- */

static uint64_t bswap(uint64_t v, unsigned bits)
{
	uint64_t r = 0;
	unsigned i;

	for (i = 0; i < bits / 8; i++)
		r = (r << 8) | ((v >> (8 * i)) & 0xff);
	return r;
}

/* N is 1, 2, 4 or 8 (well_formed) for the accesses; the shifts and ors
 * of a known count are one load or store where the host is little-endian
 * (a byte a step was a loop of 3 instructions a byte) */
static inline uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	switch (n) {
	case 1:
		return p[0];
	case 2:
		return (uint64_t)p[0] | (uint64_t)p[1] << 8;
	case 4:
		return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		       (uint64_t)p[3] << 24;
	case 8:
		return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
		       (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
	}
	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static inline void store_le(uint8_t *p, unsigned n, uint64_t v)
{
	unsigned i;

	switch (n) {
	case 8:
		p[7] = (uint8_t)(v >> 56);
		p[6] = (uint8_t)(v >> 48);
		p[5] = (uint8_t)(v >> 40);
		p[4] = (uint8_t)(v >> 32);
		/* fall through */
	case 4:
		p[3] = (uint8_t)(v >> 24);
		p[2] = (uint8_t)(v >> 16);
		/* fall through */
	case 2:
		p[1] = (uint8_t)(v >> 8);
		/* fall through */
	case 1:
		p[0] = (uint8_t)v;
		return;
	}
	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* signed view of an operand of the given width */
static int64_t sval(uint64_t v, bool is64)
{
	return is64 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
}

static uint64_t sdiv(uint64_t d, uint64_t s, bool is64)
{
	int64_t a = sval(d, is64), b = sval(s, is64);

	if (b == 0)
		return 0;
	if (b == -1)    /* INT_MIN / -1 wraps to INT_MIN */
		return -(uint64_t)a;
	return (uint64_t)(a / b);
}

static uint64_t smod(uint64_t d, uint64_t s, bool is64)
{
	int64_t a = sval(d, is64), b = sval(s, is64);

	if (b == 0)
		return d;
	if (b == -1)
		return 0;
	return (uint64_t)(a % b);   /* C: the sign follows the dividend */
}

/* ---- errors ----------------------------------------------------------- */

static bool vfail(struct interp *ip, enum interp_status st, const char *fmt,
		  va_list ap)
{
	if (ip->failed)
		return false;
	ip->failed = true;
	ip->res.status = st;
	vsnprintf(ip->res.msg, sizeof(ip->res.msg), fmt, ap);
	return false;
}

static bool fail(struct interp *ip, enum interp_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool fail(struct interp *ip, enum interp_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(ip, st, fmt, ap);
	va_end(ap);
	return false;
}

void interp_error(struct interp *ip, enum interp_status status,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(ip, status, fmt, ap);
	va_end(ap);
}

/* the run ended normally with R0 */
static bool finish(struct interp *ip, uint64_t r0)
{
	ip->failed = true;
	ip->res.status = INTERP_EXIT;
	ip->res.r0 = r0;
	ip->res.msg[0] = '\0';
	return false;
}

const char *interp_status_name(enum interp_status s)
{
	switch (s) {
	case INTERP_EXIT: return "exit";
	case INTERP_FAULT: return "fault";
	case INTERP_STEP_LIMIT: return "step limit";
	case INTERP_UNSUPPORTED: return "unsupported";
	case INTERP_INVALID: return "invalid";
	}
	return "?";
}

/* ---- accesses --------------------------------------------------------- */

struct interp_region *interp_region(struct interp *ip, int index)
{
	if (index < 0 || (size_t)index >= ip->regions.len)
		return NULL;
	return (struct interp_region *)ip->regions.data + index;
}

void interp_track(struct interp *ip, int index, uint8_t *seen, uint32_t off, uint32_t len)
{
	struct interp_region *r = interp_region(ip, index);

	if (!r)
		return;
	r->seen = seen;
	r->seen_off = off;
	r->seen_len = len;
	memset(seen, 0, len);
}

/* Bytes [OFF, OFF + SIZE) of R are touched (interp_track). */
static void touch(const struct interp_region *r, uint64_t off, uint64_t size)
{
	static const uint8_t ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	uint64_t lo = off > r->seen_off ? off : r->seen_off;
	uint64_t hi = off + size < (uint64_t)r->seen_off + r->seen_len ?
		      off + size : (uint64_t)r->seen_off + r->seen_len;
	uint8_t *p = r->seen + (lo - r->seen_off);

	if (lo >= hi)
		return;
	/* an access's 1, 2, 4 or 8 bytes: stores of a known size (a memset
	 * call was most of a tracked access) */
	switch (hi - lo) {
	case 1: p[0] = 1; return;
	case 2: memcpy(p, ones, 2); return;
	case 4: memcpy(p, ones, 4); return;
	case 8: memcpy(p, ones, 8); return;
	}
	memset(p, 1, hi - lo);
}

uint8_t *interp_mem(struct interp *ip, uint64_t addr, uint32_t size,
		    bool write)
{
	int i = interp_region_at(ip, addr, size);
	struct interp_region *r = interp_region(ip, i);

	if (!r || (write && !r->writable))
		return NULL;
	if (r->seen)
		touch(r, addr - r->base, size);
	return r->bytes + (addr - r->base);
}

/* The region, live or dead, that contains [ADDR, ADDR + SIZE) (SIZE > 0),
 * or -1. Regions do not overlap, so no other can contain it, and the
 * order they are tried in is free: the one the scan found last and the
 * current frame's stack first (most accesses go to one of them), then the
 * ones past the stacks (the context, the packet, ...), then the other
 * stacks. */
static int find_scan(struct interp *ip, uint64_t addr, uint32_t size);

/* find's first two tries inline (most accesses end there: a call to
 * find and one to access_in were half an access's instructions), the
 * scan out of line */
static inline int find(struct interp *ip, uint64_t addr, uint32_t size)
{
	const struct interp_region *r = ip->regions.data;
	size_t f = ip->depth - 1, n = ip->regions.len;

	if ((size_t)ip->hit < n && contains(&r[ip->hit], addr, size))
		return ip->hit;
	if (f < n && contains(&r[f], addr, size))
		return (int)f;
	return find_scan(ip, addr, size);
}

__attribute__((noinline))
static int find_scan(struct interp *ip, uint64_t addr, uint32_t size)
{
	const struct interp_region *r = ip->regions.data;
	size_t n = ip->regions.len, i;

	for (i = INTERP_MAX_FRAMES; i < n; i++)
		if (contains(&r[i], addr, size))
			return ip->hit = (int)i;
	for (i = 0; i < INTERP_MAX_FRAMES && i < n; i++)
		if (contains(&r[i], addr, size))
			return ip->hit = (int)i;
	return -1;
}

/* Host pointer for an access by the current instruction to region I
 * (find), or a FAULT (interp_access_fault, out of line). */
static inline uint8_t *access_in(struct interp *ip, int i, uint64_t addr, uint32_t size,
				 bool write, const char *what)
{
	const struct interp_region *r = i >= 0 ? (struct interp_region *)ip->regions.data + i : NULL;

	if (r && r->live && (!write || r->writable)) {
		if (r->seen)
			touch(r, addr - r->base, size);
		return r->bytes + (addr - r->base);
	}
	return interp_access_fault(ip, r, addr, size, what);
}

static uint8_t *access(struct interp *ip, uint64_t addr, uint32_t size,
		       bool write, const char *what)
{
	return access_in(ip, find(ip, addr, size), addr, size, write, what);
}

/* ---- control flow ----------------------------------------------------- */

/* Section SEC runs (its code and slot count read per instruction) */
static void at_section(struct interp *ip, int sec)
{
	ip->sec = sec;
	ip->code = ip->secs[sec];
	ip->ncode = ip->nslots[sec];
}

/* continue at (SEC, SLOT); checks that it is a real instruction */
static bool go(struct interp *ip, int sec, int64_t slot)
{
	if (sec < 0 || sec >= ip->nsecs)
		return fail(ip, INTERP_INVALID, "slot %u: transfer to section "
			    "%d of %d", ip->pc, sec, ip->nsecs);
	if (slot < 0 || slot >= ip->nslots[sec])
		return fail(ip, INTERP_INVALID, "slot %u: %s slot %lld outside "
			    "the section (%u slots)", ip->pc,
			    slot == (int64_t)ip->pc + 1 ? "falls through to" :
			    "transfer to", (long long)slot, ip->nslots[sec]);
	if (ip->secs[sec][slot].cont)
		return fail(ip, INTERP_INVALID, "slot %u: transfer into the "
			    "second slot of an LD imm64 (slot %lld)", ip->pc,
			    (long long)slot);
	at_section(ip, sec);
	ip->pc = (uint32_t)slot;
	return true;
}

/* On to the next slot: the running section's, so only the slot is
 * checked here (most instructions end so); go says what is wrong. */
static inline bool next(struct interp *ip)
{
	uint32_t pc = ip->pc + 1;

	if (pc < ip->ncode && !ip->code[pc].cont) {
		ip->pc = pc;
		return true;
	}
	return go(ip, ip->sec, (int64_t)ip->pc + 1);
}

static bool local_call(struct interp *ip, int sec, int64_t target)
{
	struct interp_frame *f;
	struct interp_region *stack;

	if (ip->depth >= INTERP_MAX_FRAMES)
		return fail(ip, INTERP_FAULT, "slot %u: call depth exceeds %d "
			    "frames", ip->pc, INTERP_MAX_FRAMES);
	f = &ip->frames[ip->depth];
	f->ret_sec = ip->sec;
	f->ret_slot = ip->pc + 1;
	memcpy(f->saved, &ip->regs[6], sizeof(f->saved));
	/* r0 and r6-r9 are not the callee's to read (undefined: 0) */
	ip->regs[0] = 0;
	memset(&ip->regs[6], 0, 4 * sizeof(ip->regs[6]));
	stack = interp_region(ip, (int)ip->depth);
	stack->live = true;
	memset(stack->bytes, 0, stack->size);
	ip->depth++;
	ip->regs[ISA_REG_FP] = stack->base + stack->size;
	return go(ip, sec, target);
}

/* pop the current frame: r6-r10 back to the caller's, r1-r5 undefined
 * (0), its stack dead */
static struct interp_frame *pop_frame(struct interp *ip)
{
	struct interp_frame *f;

	ip->depth--;
	f = &ip->frames[ip->depth];
	interp_region(ip, (int)ip->depth)->live = false;
	memcpy(&ip->regs[6], f->saved, sizeof(f->saved));
	memset(&ip->regs[1], 0, 5 * sizeof(ip->regs[1]));
	return f;
}

static bool do_exit(struct interp *ip)
{
	struct interp_frame *f;

	if (ip->depth <= 1)
		return finish(ip, ip->regs[0]);
	if (ip->depth == ip->stop_depth) {     /* an interp_invoke() returns */
		pop_frame(ip);
		ip->returned = true;
		return false;
	}
	f = pop_frame(ip);
	return go(ip, f->ret_sec, f->ret_slot);
}

static bool env_call(struct interp *ip, const struct insn *in, int64_t id)
{
	uint64_t ret = 0, args[5];
	int err;

	memcpy(args, &ip->regs[1], sizeof(args));  /* stable across invokes */
	if (!ip->env.call)
		return fail(ip, INTERP_UNSUPPORTED, "slot %u: %s %lld: no "
			    "environment for calls", ip->pc,
			    in->op == ISA_CALLX ? "callx" : "call",
			    (long long)id);
	err = ip->env.call(ip->env.arg, ip, in, id, args, &ret);
	if (err < 0)
		return fail(ip, INTERP_UNSUPPORTED, "slot %u: call %lld not "
			    "supported", ip->pc, (long long)id);
	if (ip->failed)  /* interp_error() but a non-negative return */
		return false;
	memset(&ip->regs[1], 0, 5 * sizeof(ip->regs[1]));  /* undefined: 0 */
	ip->regs[0] = ret;
	if (err == INTERP_CALL_EXIT)
		return finish(ip, ret);
	return next(ip);
}

static bool exec_call(struct interp *ip, const struct insn *in)
{
	switch (in->ref.kind) {
	case INSN_REF_SUBPROG:
		return local_call(ip, in->ref.sec, in->ref.target);
	case INSN_REF_HELPER:
	case INSN_REF_KFUNC:
		return env_call(ip, in, in->ref.index);
	case INSN_REF_NONE:
	case INSN_REF_MAP:
	case INSN_REF_MAP_VALUE:
	case INSN_REF_GLOBAL:
	case INSN_REF_CALLBACK:
	case INSN_REF_KSYM:
		break;
	}
	if (in->src == ISA_CALL_LOCAL)
		return local_call(ip, ip->sec, (int64_t)ip->pc + 1 + in->imm);
	return env_call(ip, in, in->imm);
}

/* ---- instructions ----------------------------------------------------- */

static inline bool put(struct interp *ip, unsigned reg, uint64_t v)
{
	if (reg == ISA_REG_FP)
		return fail(ip, INTERP_INVALID, "slot %u: write to r10",
			    ip->pc);
	ip->regs[reg] = v;
	return true;
}

/* ALU result: zero-extended for 32-bit operations */
static inline bool alu(struct interp *ip, const struct insn *in, uint64_t v)
{
	return put(ip, in->dst, in->is64 ? v : (uint32_t)v) && next(ip);
}

/* A jump stays in the running section: only the slot is checked here
 * (as next does); go says what is wrong. */
static inline bool jump(struct interp *ip, const struct insn *in, bool taken)
{
	int64_t off = in->op == ISA_JA && !in->is64 ? in->imm : in->off;
	int64_t slot = (int64_t)ip->pc + 1 + (taken ? off : 0);

	if (slot >= 0 && slot < ip->ncode && !ip->code[slot].cont) {
		ip->pc = (uint32_t)slot;
		return true;
	}
	return go(ip, ip->sec, slot);
}

static bool exec_end(struct interp *ip, const struct insn *in)
{
	uint64_t d = ip->regs[in->dst];
	unsigned bits = (unsigned)in->imm;

	if (bits != 16 && bits != 32 && bits != 64)
		return fail(ip, INTERP_INVALID, "slot %u: byte swap of width "
			    "%u", ip->pc, bits);
	if (in->op == ISA_LE)
		return put(ip, in->dst, val_zext(d, bits)) && next(ip);
	return put(ip, in->dst, bswap(d, bits)) && next(ip);
}

/* Does [ADDR, ADDR+SIZE) overlap any region, live or dead? */
static bool overlaps_any(const struct interp *ip, uint64_t addr, uint32_t size)
{
	const struct interp_region *r = ip->regions.data;
	uint64_t end = addr + size;
	size_t i;

	if (end < addr)
		return true;    /* wraps: leave it to access() */
	for (i = 0; i < ip->regions.len; i++)
		if (addr < r[i].base + r[i].size && r[i].base < end)
			return true;
	return false;
}

/* A load no region covers, answered by env->load_unmapped. */
static bool load_unmapped(struct interp *ip, uint64_t addr, uint32_t size,
			  uint64_t *v)
{
	if (ip->env.load_unmapped(ip->env.arg, ip, addr, size, v) < 0 ||
	    ip->failed) {
		access(ip, addr, size, false, "load");  /* the usual fault */
		return false;
	}
	*v = val_zext(*v, 8u * size);
	return true;
}

/* The access width of a load, store, atomic or legacy packet load: 1,
 * 2, 4 or 8 bytes (well_formed) */
static inline bool sized(struct interp *ip, const struct insn *in)
{
	if (in->size == 1 || in->size == 2 || in->size == 4 || in->size == 8)
		return true;
	return fail(ip, INTERP_INVALID, "slot %u: access size %u", ip->pc, in->size);
}

static bool exec_load(struct interp *ip, const struct insn *in)
{
	uint64_t addr = ip->regs[in->src] + (int64_t)in->off;
	int i;
	uint8_t *p;
	uint64_t v;

	if (!sized(ip, in))
		return false;
	i = find(ip, addr, in->size);
	if (i < 0 && ip->env.load_unmapped && !overlaps_any(ip, addr, in->size)) {
		if (!load_unmapped(ip, addr, in->size, &v))
			return false;
	} else {
		p = access_in(ip, i, addr, in->size, false, "load");
		if (!p)
			return false;
		v = load_le(p, in->size);
	}
	if (in->op == ISA_LDXSX)
		v = val_sext(v, 8u * in->size);
	return put(ip, in->dst, v) && next(ip);
}

static bool exec_store(struct interp *ip, const struct insn *in)
{
	uint64_t addr = ip->regs[in->dst] + (int64_t)in->off;
	uint64_t v = in->op == ISA_STX ? ip->regs[in->src]
				       : (uint64_t)(int64_t)in->imm;
	uint8_t *p;

	if (!sized(ip, in))
		return false;
	p = access(ip, addr, in->size, true, "store");
	if (!p)
		return false;
	store_le(p, in->size, v);
	return next(ip);
}

static bool exec_atomic(struct interp *ip, const struct insn *in)
{
	uint64_t addr = ip->regs[in->dst] + (int64_t)in->off;
	unsigned bits = 8u * in->size;
	uint8_t *p;
	uint64_t old, s, v = 0;

	if (!sized(ip, in))
		return false;
	s = val_zext(ip->regs[in->src], bits);
	if (in->size != 4 && in->size != 8)
		return fail(ip, INTERP_INVALID, "slot %u: atomic of %u bytes",
			    ip->pc, in->size);
	p = access(ip, addr, in->size, true, "atomic");
	if (!p)
		return false;
	old = load_le(p, in->size);
	switch ((enum isa_atomic)in->aop) {
	case ISA_ATOMIC_ADD: v = old + s; break;
	case ISA_ATOMIC_OR:  v = old | s; break;
	case ISA_ATOMIC_AND: v = old & s; break;
	case ISA_ATOMIC_XOR: v = old ^ s; break;
	case ISA_ATOMIC_XCHG: v = s; break;
	case ISA_ATOMIC_CMPXCHG:
		v = old == val_zext(ip->regs[0], bits) ? s : old;
		store_le(p, in->size, v);
		ip->regs[0] = old;
		return next(ip);
	case ISA_NATOMICS:
		return fail(ip, INTERP_INVALID, "slot %u: atomic op %u",
			    ip->pc, in->aop);
	}
	store_le(p, in->size, v);
	if (in->fetch || in->aop == ISA_ATOMIC_XCHG)
		return put(ip, in->src, old) && next(ip);
	return next(ip);
}

static bool exec_lddw(struct interp *ip, const struct insn *in)
{
	uint64_t v = in->imm64;

	if (in->ref.kind != INSN_REF_NONE || in->src != ISA_PSEUDO_NONE) {
		if (!ip->env.lddw_value)
			return fail(ip, INTERP_UNSUPPORTED, "slot %u: LD imm64 "
				    "with a reference (src %u, ref %d): no "
				    "environment", ip->pc, in->src,
				    (int)in->ref.kind);
		if (ip->env.lddw_value(ip->env.arg, ip, in, &v) < 0)
			return fail(ip, INTERP_UNSUPPORTED, "slot %u: LD imm64 "
				    "value not supported", ip->pc);
		if (ip->failed)
			return false;
	}
	return put(ip, in->dst, v) && go(ip, ip->sec, (int64_t)ip->pc + 2);
}

static bool exec_ldpkt(struct interp *ip, const struct insn *in)
{
	int idx = ip->packet;
	struct interp_region *r = NULL;
	int64_t off = in->imm;
	size_t i;

	if (!sized(ip, in))
		return false;
	if (in->op == ISA_LDIND)
		off = (int32_t)(uint32_t)(ip->regs[in->src] + (int64_t)in->imm);
	if (idx < 0)
		for (i = 0; i < ip->regions.len && idx < 0; i++)
			if (interp_region(ip, (int)i)->kind == INTERP_MEM_PACKET)
				idx = (int)i;
	r = interp_region(ip, idx);
	if (!r)
		return fail(ip, INTERP_UNSUPPORTED, "slot %u: legacy packet "
			    "load without a packet region", ip->pc);
	if (off < 0 && off >= -0x200000)
		return fail(ip, INTERP_UNSUPPORTED, "slot %u: legacy packet "
			    "load at the special offset %lld", ip->pc,
			    (long long)off);
	if (off < 0 || (uint64_t)off + in->size > r->size)
		return finish(ip, 0);   /* the kernel: return 0 */
	if (r->seen)
		touch(r, (uint64_t)off, in->size);
	ip->regs[0] = bswap(load_le(r->bytes + off, in->size), 8u * in->size);
	return next(ip);
}

/* The register operations, by op: an ALU operation's value (before
 * alu's 32-bit zero extension) and a conditional jump's condition, of D
 * and S (the operands, cut to 32 bits for a 32-bit operation, IS64
 * false): exec and run_loop's switch both expand them, so the two cannot
 * disagree. */
#define INTERP_ALU(X) \
	X(ADD, d + s) \
	X(SUB, d - s) \
	X(MUL, d * s) \
	X(DIV, s ? d / s : 0) \
	X(SDIV, sdiv(d, s, is64)) \
	X(OR, d | s) \
	X(AND, d & s) \
	X(LSH, d << (s & (is64 ? 63 : 31))) \
	X(RSH, d >> (s & (is64 ? 63 : 31))) \
	X(NEG, -d) \
	X(MOD, s ? d % s : d) \
	X(SMOD, smod(d, s, is64)) \
	X(XOR, d ^ s) \
	X(MOV, s) \
	X(MOVSX, val_sext(s, in->off == 8 || in->off == 16 || in->off == 32 ? \
				(unsigned)in->off : 64)) \
	X(ARSH, (uint64_t)(sval(d, is64) >> (s & (is64 ? 63 : 31))))
#define INTERP_JCOND(X) \
	X(JEQ, d == s) \
	X(JGT, d > s) \
	X(JGE, d >= s) \
	X(JSET, (d & s) != 0) \
	X(JNE, d != s) \
	X(JSGT, sval(d, is64) > sval(s, is64)) \
	X(JSGE, sval(d, is64) >= sval(s, is64)) \
	X(JLT, d < s) \
	X(JLE, d <= s) \
	X(JSLT, sval(d, is64) < sval(s, is64)) \
	X(JSLE, sval(d, is64) <= sval(s, is64))

/* inline in run_loop, which calls it for every instruction its switch
 * does not run (a call of it cost more than the fast path gained) */
static inline __attribute__((always_inline)) bool exec(struct interp *ip, const struct insn *in)
{
	const bool is64 = in->is64;
	uint64_t d = ip->regs[in->dst];
	uint64_t s = in->srcreg ? ip->regs[in->src] : (uint64_t)(int64_t)in->imm;

	if (!is64) {
		d = (uint32_t)d;
		s = (uint32_t)s;
	}
	switch (in->op) {
#define X(op, e) case ISA_##op: return alu(ip, in, (e));
	INTERP_ALU(X)
#undef X
#define X(op, e) case ISA_##op: return jump(ip, in, (e));
	INTERP_JCOND(X)
#undef X
	case ISA_LE:
	case ISA_BE:
	case ISA_BSWAP: return exec_end(ip, in);
	case ISA_JA:   return jump(ip, in, true);
	case ISA_CALL:  return exec_call(ip, in);
	case ISA_CALLX: return env_call(ip, in, (int64_t)ip->regs[in->dst]);
	case ISA_EXIT:  return do_exit(ip);
	case ISA_LDDW:  return exec_lddw(ip, in);
	case ISA_LDABS:
	case ISA_LDIND: return exec_ldpkt(ip, in);
	case ISA_LDX:
	case ISA_LDXSX: return exec_load(ip, in);
	case ISA_ST:
	case ISA_STX:   return exec_store(ip, in);
	case ISA_ATOMIC: return exec_atomic(ip, in);
	case ISA_NOPS:
		break;
	}
	return fail(ip, INTERP_INVALID, "slot %u: not an instruction (code "
		    "0x%02x)", ip->pc, in->code);
}

/* Its registers exist; a memory access's width is checked by its
 * handler (sized), before anything else it does: exec reads registers
 * only before it dispatches, so a bad width ends the run as here. */
static bool well_formed(struct interp *ip, const struct insn *in)
{
	if (in->dst >= ISA_NREGS || in->src >= ISA_NREGS)
		return fail(ip, INTERP_INVALID, "slot %u: register out of "
			    "range (dst %u, src %u)", ip->pc, in->dst, in->src);
	return true;
}

/* ---- the run ---------------------------------------------------------- */

/* A register operation of class C = INSN_FAST(op, is64, srcreg) (insn.h:
 * the decoder gives it only where exec could not fail: the registers
 * exist, dst is not r10, the next slot or both targets are instructions
 * of the section), run as exec runs it, without exec's checks. */
#define FAST_ALU(op, e) \
	FAST_ALU1(op, e, false, false) FAST_ALU1(op, e, false, true) \
	FAST_ALU1(op, e, true, false) FAST_ALU1(op, e, true, true)
/* Its operands D and S as exec reads them: S the register or the
 * immediate (X), both cut to 32 bits for a 32-bit operation (WIDE false;
 * D unused by MOV and MOVSX, S by NEG) */
#define FAST_OPERANDS(wide, x) \
	const bool is64 = wide; \
	const uint64_t s0 = x ? regs[in->src] : (uint64_t)(int64_t)in->imm; \
	uint64_t d __attribute__((unused)) = is64 ? regs[in->dst] : (uint32_t)regs[in->dst]; \
	uint64_t s __attribute__((unused)) = is64 ? s0 : (uint32_t)s0;
#define FAST_ALU1(op, e, wide, x) \
	case INSN_FAST(ISA_##op, wide, x): { \
		FAST_OPERANDS(wide, x) \
		uint64_t v = (e); \
		\
		regs[in->dst] = is64 ? v : (uint32_t)v; \
		ip->pc++; \
		continue; \
	}
#define FAST_JCOND(op, e) \
	FAST_JCOND1(op, e, false, false) FAST_JCOND1(op, e, false, true) \
	FAST_JCOND1(op, e, true, false) FAST_JCOND1(op, e, true, true)
#define FAST_JCOND1(op, e, wide, x) \
	case INSN_FAST(ISA_##op, wide, x): { \
		FAST_OPERANDS(wide, x) \
		ip->pc += 1 + (uint32_t)((e) ? in->off : 0); \
		continue; \
	}

/* The host bytes of an access of SIZE at ADDR (WRITE: a store) that
 * find's first two tries place (the region an access found last, the
 * frame's stack) in a region it may use, touched as access_in touches
 * them; else NULL, and exec runs the instruction (the scan, a kernel
 * load, the fault's message) as before. */
static inline uint8_t *quick_access(struct interp *ip, uint64_t addr, uint32_t size, bool write)
{
	const struct interp_region *r = ip->regions.data;
	size_t f = ip->depth - 1, n = ip->regions.len;

	if ((size_t)ip->hit < n && contains(&r[ip->hit], addr, size))
		r += ip->hit;
	else if (f < n && contains(&r[f], addr, size))
		r += f;
	else
		return NULL;
	if (!r->live || (write && !r->writable))
		return NULL;
	if (r->seen)
		touch(r, addr - r->base, size);
	return r->bytes + (addr - r->base);
}

/* Execute until the run ends or an interp_invoke() callee returns. The
 * operations the decoder classed (insn.h INSN_FAST) run in the loop's
 * own switch, a load or store when quick_access finds its bytes; the
 * rest, and code decoded otherwise, through well_formed and exec (which
 * took 50-60 host instructions for an ALU operation or a jump, 86 an
 * instruction on average). */
static void run_loop(struct interp *ip)
{
	uint64_t limit = ip->max_steps ? ip->max_steps : INTERP_DEFAULT_STEPS;
	/* the environment is set before a run (interp.h) */
	void (*on_insn)(void *, int, uint32_t, const uint64_t *) = ip->env.on_insn;
	uint64_t *regs = ip->regs;

	if (ip->failed || ip->returned)
		return;
	/* only exec (and well_formed) end a run or return from a callee:
	 * the fast cases go on to the next instruction without asking
	 * (on_insn does not end a run: interp.h) */
	for (;;) {
		const struct insn *in = &ip->code[ip->pc];

		if (ip->res.steps >= limit) {
			fail(ip, INTERP_STEP_LIMIT, "slot %u: step limit of "
			     "%llu instructions reached", ip->pc,
			     (unsigned long long)limit);
			break;
		}
		if (on_insn)
			on_insn(ip->env.arg, ip->sec, ip->pc, regs);
		ip->res.steps++;
		switch (in->fast) {
#define X(op, e) FAST_ALU(op, e)
		INTERP_ALU(X)
#undef X
#define X(op, e) FAST_JCOND(op, e)
		INTERP_JCOND(X)
#undef X
		case INSN_FAST(ISA_LDX, false, false):
		case INSN_FAST(ISA_LDXSX, false, false): {
			uint8_t *p = quick_access(ip, regs[in->src] + (int64_t)in->off, in->size,
						  false);
			uint64_t v;

			if (!p)
				break;
			v = load_le(p, in->size);
			regs[in->dst] = in->op == ISA_LDXSX ? val_sext(v, 8u * in->size) : v;
			ip->pc++;
			continue;
		}
		case INSN_FAST(ISA_ST, false, false):
		case INSN_FAST(ISA_STX, false, false): {
			uint8_t *p = quick_access(ip, regs[in->dst] + (int64_t)in->off, in->size,
						  true);

			if (!p)
				break;
			store_le(p, in->size,
				 in->op == ISA_STX ? regs[in->src] : (uint64_t)(int64_t)in->imm);
			ip->pc++;
			continue;
		}
		case INSN_FAST(ISA_JA, true, false):
			ip->pc += 1 + (uint32_t)in->off;
			continue;
		case INSN_FAST(ISA_JA, false, false):      /* gotol */
			ip->pc += 1 + (uint32_t)in->imm;
			continue;
		default:
			break;
		}
		if (well_formed(ip, in))
			exec(ip, in);
		if (ip->failed || ip->returned)
			break;
	}
}

int interp_invoke(struct interp *ip, int sec, uint32_t slot,
		  const uint64_t args[5], uint64_t *ret)
{
	uint64_t regs[ISA_NREGS];
	int csec = ip->sec;
	uint32_t cpc = ip->pc;
	unsigned stop = ip->stop_depth;

	if (!ip->running || ip->failed)
		return -EINVAL;
	memcpy(regs, ip->regs, sizeof(regs));
	memmove(&ip->regs[1], args, 5 * sizeof(args[0]));
	if (!local_call(ip, sec, slot)) {
		memcpy(ip->regs, regs, sizeof(regs));
		return -1;
	}
	ip->stop_depth = ip->depth;
	run_loop(ip);
	if (ip->failed)
		return -1;      /* the run ends where the callee failed */
	ip->returned = false;
	ip->stop_depth = stop;
	*ret = ip->regs[0];
	memcpy(ip->regs, regs, sizeof(regs));
	at_section(ip, csec);
	ip->pc = cpc;
	return 0;
}


int interp_run(struct interp *ip, int sec, uint32_t slot,
	       const uint64_t args[5], struct interp_result *out)
{
	struct interp_region *stack;
	unsigned f;

	if (sec < 0 || sec >= ip->nsecs || slot >= ip->nslots[sec] ||
	    ip->secs[sec][slot].cont)
		return -EINVAL;
	memset(&ip->res, 0, sizeof(ip->res));
	memset(ip->regs, 0, sizeof(ip->regs));
	if (args)
		memcpy(&ip->regs[1], args, 5 * sizeof(args[0]));
	stack = ip->regions.data;      /* the stacks: regions 0..7 (interp_init) */
	for (f = 0; f < INTERP_MAX_FRAMES; f++)
		stack[f].live = f == 0;
	memset(stack->bytes, 0, stack->size);
	ip->regs[ISA_REG_FP] = stack->base + stack->size;
	ip->depth = 1;
	ip->failed = false;
	ip->returned = false;
	at_section(ip, sec);
	ip->pc = slot;
	ip->stop_depth = 0;
	ip->running = true;
	run_loop(ip);
	ip->running = false;
	ip->res.sec = ip->sec;
	ip->res.slot = ip->pc;
	ip->res.depth = ip->depth;
	if (out)
		*out = ip->res;
	return (int)ip->res.status;
}
