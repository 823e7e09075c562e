/* tests/data/kbtf/scx_7.c - a kernel BTF for tests/kernel_btf.sh, made by
 * clang -g (the object's .BTF section is read like vmlinux BTF): sched_ext's
 * enums with SCX_ENQ_HEAD = 0x10000, as Linux 7.0 has it, and a longer
 * default slice, so that the checks of tests/data/e2e/scx_enums.inv differ
 * from the built-in profile's. */
enum scx_dsq_id_flags {
	SCX_DSQ_FLAG_BUILTIN	= 1ULL << 63,
	SCX_DSQ_FLAG_LOCAL_ON	= 1ULL << 62,
	SCX_DSQ_INVALID		= SCX_DSQ_FLAG_BUILTIN | 0,
	SCX_DSQ_GLOBAL		= SCX_DSQ_FLAG_BUILTIN | 1,
	SCX_DSQ_LOCAL		= SCX_DSQ_FLAG_BUILTIN | 2,
	SCX_DSQ_LOCAL_ON	= SCX_DSQ_FLAG_BUILTIN | SCX_DSQ_FLAG_LOCAL_ON,
	SCX_DSQ_LOCAL_CPU_MASK	= 0xffffffffULL,
};

enum scx_enq_flags {
	SCX_ENQ_WAKEUP		= 1ULL << 0,
	SCX_ENQ_HEAD		= 1ULL << 16,
	SCX_ENQ_PREEMPT		= 1ULL << 32,
};

enum scx_public_consts {
	SCX_SLICE_DFL		= 30000000ULL,
};

enum scx_dsq_id_flags kbtf_dsq;
enum scx_enq_flags kbtf_enq;
enum scx_public_consts kbtf_consts;
