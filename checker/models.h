/* models.h - helper models as data: what a helper returns, which pointer
 * arguments it reads or writes and how much, and which memory it changes.
 * The encoder (smt.c) and the lift read this table; a helper that is not in
 * it is unknown: any return value, and any memory it was given a pointer to
 * may change (sound, and reported as a note).
 *
 * Sources: the helper descriptions of include/uapi/linux/bpf.h and the
 * kernel's bpf_func_proto definitions (arg and return types).
 */
#ifndef INVCHECK_MODELS_H
#define INVCHECK_MODELS_H

#include "base.h"

enum model_ret {
	MODEL_RET_ANY,          /* any 64-bit value */
	MODEL_RET_RANGE,        /* lo..hi (signed comparison if sign) */
	MODEL_RET_ERRNO,        /* 0 or a negative errno: [-4095, 0] signed */
	MODEL_RET_MAP_VALUE,    /* NULL or a pointer to the value of key arg2
	                         * in map arg1 (array map, key < max_entries:
	                         * never NULL) */
	MODEL_RET_RINGBUF,      /* NULL or fresh writable memory of arg2 bytes */
	MODEL_RET_KPTR,         /* a kernel object pointer, maybe NULL */
	MODEL_RET_REDIRECT_MAP, /* XDP_REDIRECT (4) or the low 2 bits of arg3 */
	MODEL_RET_REDIRECT,     /* XDP: XDP_REDIRECT or XDP_ABORTED (0);
	                         * other types: TC_ACT_REDIRECT (7) or TC_ACT_SHOT (2) */
	MODEL_RET_SKB_LOAD,     /* bpf_skb_load_bytes on an __sk_buff: 0 when
	                         * arg2 + arg4 <= skb->len (ctx.len) and
	                         * arg2 <= 0xffff, -EFAULT when the read is
	                         * outside skb->len or arg2 > INT_MAX, one of
	                         * the two in between (kernel-dependent); other
	                         * contexts: as ERRNO */
	MODEL_RET_VOID,         /* returns nothing: r0 is any value */
};

enum model_arg {
	MODEL_ARG_SCALAR,       /* a number (also: unused) */
	MODEL_ARG_MAP,          /* a map (LD imm64 of a map) */
	MODEL_ARG_CTX,          /* the program's context */
	MODEL_ARG_READ,         /* pointer to memory the helper only reads */
	MODEL_ARG_WRITE,        /* pointer to memory the helper may write */
	MODEL_ARG_KEY,          /* reads key_size bytes (the map in arg1) */
	MODEL_ARG_VALUE,        /* reads value_size bytes (the map in arg1) */
	MODEL_ARG_PTR,          /* a pointer whose memory may be read and written,
	                         * size unknown (kernel objects, dynptrs) */
	MODEL_ARG_FUNC,         /* a callback function (bpf_loop, for_each) */
};

/* Memory the helper changes, besides its MODEL_ARG_WRITE arguments. */
enum {
	MODEL_FX_PACKET   = 1u << 0,  /* packet bytes and pointers change (old
	                               * packet pointers are invalid) */
	MODEL_FX_MAP      = 1u << 1,  /* the values of map arg1 change */
	MODEL_FX_HEAD     = 1u << 2,  /* bpf_xdp_adjust_head: data += (s32)arg2 */
	MODEL_FX_TAIL     = 1u << 3,  /* bpf_xdp_adjust_tail: data_end += (s32)arg2 */
	MODEL_FX_META     = 1u << 4,  /* bpf_xdp_adjust_meta: data_meta += (s32)arg2 */
	MODEL_FX_ALL      = 1u << 5,  /* any memory the program can reach (unknown) */
};

struct helper_model {
	int id;                 /* BPF_FUNC_* */
	enum model_ret ret;
	int64_t lo, hi;         /* RANGE */
	bool sign;              /* RANGE: lo/hi are signed */
	uint8_t arg[5];         /* enum model_arg, r1..r5 */
	/* size of a READ/WRITE argument: the value of argument size_arg[i]
	 * (1-based) when nonzero, else the constant size[i] (0: unknown) */
	uint8_t size_arg[5];
	uint32_t size[5];
	unsigned fx;            /* MODEL_FX_* */
};

/* The model of helper ID, or NULL when the helper is not modelled. */
const struct helper_model *model_helper(int id);
/* bpf_redirect_map looks its key up in a map of TYPE (enum bpf_map_type)
 * as an array index: a DEVMAP, CPUMAP or XSKMAP (__cpu_map_lookup_elem and
 * its kin return NULL from max_entries on: the redirect falls back to the
 * flags' action); a DEVMAP_HASH is a hash map. */
bool model_redirect_array(uint32_t type);
/* Is a context of program type TYPE an __sk_buff, where MODEL_RET_SKB_LOAD
 * is exact (else it is as ERRNO)? The encoder (smt_call.c) and the
 * search's probe (search_probe.c) ask the same. */
bool model_skb_load_exact(uint32_t type);
/* Number of modelled helpers, and the I-th (for tests and docs). */
unsigned model_count(void);
const struct helper_model *model_at(unsigned i);

/* Kfunc models by name: the return only (see models.c). */
struct kfunc_model {
	const char *name;
	enum model_ret ret;     /* ANY, VOID, RANGE, ERRNO or KPTR */
	int64_t lo, hi;
	bool sign;
};

/* The model of kfunc symbol SYM (a "___" flavour suffix is ignored), or
 * NULL when it is not modelled. */
const struct kfunc_model *model_kfunc(const char *sym);
unsigned model_kfunc_count(void);
const struct kfunc_model *model_kfunc_at(unsigned i);

#endif
