/* test_models.c - the helper model table (checker/models.c):
 *   shape      sorted by id, ids unique and known to helper_name()
 *   rows       every READ/WRITE argument has a size source, sizes only on
 *              memory arguments, KEY/VALUE only after a MAP in arg1,
 *              returns and effects consistent with their arguments,
 *              RANGE lo <= hi in its signedness
 *   exact      the rows of ten key helpers, field by field
 *   lookup     model_helper() finds every row and nothing else
 *   examples   every helper the examples call is modelled
 */
#include "models.h"
#include "object.h"

#include <check.h>
#include <linux/bpf.h>
#include <stdlib.h>

#define FX_KNOWN (MODEL_FX_PACKET | MODEL_FX_MAP | MODEL_FX_HEAD | \
		  MODEL_FX_TAIL | MODEL_FX_META | MODEL_FX_ALL)

static bool is_mem(uint8_t a)
{
	return a == MODEL_ARG_READ || a == MODEL_ARG_WRITE;
}

START_TEST(test_sorted)
{
	unsigned n = model_count();

	ck_assert_uint_gt(n, 50);
	ck_assert_ptr_null(model_at(n));
	for (unsigned i = 0; i < n; i++) {
		const struct helper_model *m = model_at(i);

		ck_assert_ptr_nonnull(m);
		ck_assert_msg(helper_name(m->id) != NULL,
			      "row %u: id %d has no helper name", i, m->id);
		if (i > 0)
			ck_assert_msg(model_at(i - 1)->id < m->id,
				      "row %u: id %d not above %d (sorted, unique)",
				      i, m->id, model_at(i - 1)->id);
	}
}
END_TEST

/* A READ/WRITE argument's size: the value of a SCALAR argument, a constant,
 * or (WRITE only) 0 = the whole region the pointer is into. */
static void check_sizes(const struct helper_model *m, const char *name)
{
	for (int i = 0; i < 5; i++) {
		uint8_t a = m->arg[i], sa = m->size_arg[i];

		if (!is_mem(a)) {
			ck_assert_msg(!sa && !m->size[i],
				      "%s: arg%d has a size but is not READ/WRITE", name, i + 1);
			continue;
		}
		ck_assert_msg(!(sa && m->size[i]), "%s: arg%d has two sizes", name, i + 1);
		if (sa) {
			ck_assert_msg(sa >= 1 && sa <= 5 && sa != i + 1,
				      "%s: arg%d: bad size_arg %u", name, i + 1, sa);
			ck_assert_msg(m->arg[sa - 1] == MODEL_ARG_SCALAR,
				      "%s: arg%d: size arg%u is not SCALAR", name, i + 1, sa);
		} else if (!m->size[i]) {
			ck_assert_msg(a == MODEL_ARG_WRITE,
				      "%s: arg%d: READ without a size", name, i + 1);
		}
	}
}

static void check_ret(const struct helper_model *m, const char *name)
{
	switch ((enum model_ret)m->ret) {
	case MODEL_RET_RANGE:
		if (m->sign)
			ck_assert_msg(m->lo <= m->hi, "%s: range %lld > %lld", name,
				      (long long)m->lo, (long long)m->hi);
		else
			ck_assert_msg((uint64_t)m->lo <= (uint64_t)m->hi,
				      "%s: unsigned range %llu > %llu", name,
				      (unsigned long long)m->lo, (unsigned long long)m->hi);
		return;
	case MODEL_RET_MAP_VALUE:
		ck_assert_msg(m->arg[0] == MODEL_ARG_MAP && m->arg[1] == MODEL_ARG_KEY,
			      "%s: MAP_VALUE needs (MAP, KEY)", name);
		break;
	case MODEL_RET_RINGBUF:
		ck_assert_msg(m->arg[0] == MODEL_ARG_MAP && m->arg[1] == MODEL_ARG_SCALAR,
			      "%s: RINGBUF needs (MAP, SCALAR size)", name);
		break;
	case MODEL_RET_REDIRECT_MAP:
		ck_assert_msg(m->arg[0] == MODEL_ARG_MAP && m->arg[2] == MODEL_ARG_SCALAR,
			      "%s: REDIRECT_MAP needs (MAP, _, SCALAR flags)", name);
		break;
	case MODEL_RET_ANY:
	case MODEL_RET_ERRNO:
	case MODEL_RET_KPTR:
	case MODEL_RET_REDIRECT:
	case MODEL_RET_SKB_LOAD:
	case MODEL_RET_VOID:
		break;
	}
	ck_assert_msg(!m->lo && !m->hi && !m->sign, "%s: lo/hi/sign outside RANGE", name);
}

START_TEST(test_rows)
{
	for (unsigned i = 0; i < model_count(); i++) {
		const struct helper_model *m = model_at(i);
		const char *name = helper_name(m->id);

		ck_assert_msg(m->ret <= MODEL_RET_VOID, "%s: bad ret %d", name, m->ret);
		for (int a = 0; a < 5; a++) {
			ck_assert_msg(m->arg[a] <= MODEL_ARG_FUNC, "%s: bad arg%d", name, a + 1);
			if (m->arg[a] == MODEL_ARG_KEY || m->arg[a] == MODEL_ARG_VALUE)
				ck_assert_msg(m->arg[0] == MODEL_ARG_MAP,
					      "%s: KEY/VALUE without a MAP in arg1", name);
		}
		check_sizes(m, name);
		check_ret(m, name);
		ck_assert_msg(!(m->fx & ~FX_KNOWN), "%s: unknown fx bits", name);
		if (m->fx & MODEL_FX_MAP)
			ck_assert_msg(m->arg[0] == MODEL_ARG_MAP, "%s: FX_MAP without arg1 MAP", name);
		if (m->fx & (MODEL_FX_HEAD | MODEL_FX_TAIL | MODEL_FX_META))
			ck_assert_msg((m->fx & MODEL_FX_PACKET) && m->arg[0] == MODEL_ARG_CTX,
				      "%s: HEAD/TAIL/META need PACKET and the context", name);
	}
}
END_TEST

/* An expected row; every field is compared. */
static void expect(const struct helper_model *want)
{
	const struct helper_model *m = model_helper(want->id);
	const char *name = helper_name(want->id);

	ck_assert_msg(m != NULL, "%s not modelled", name);
	ck_assert_int_eq(m->id, want->id);
	ck_assert_msg(m->ret == want->ret, "%s: ret %d, want %d", name, m->ret, want->ret);
	ck_assert_msg(m->lo == want->lo && m->hi == want->hi && m->sign == want->sign,
		      "%s: range [%lld, %lld] sign %d", name,
		      (long long)m->lo, (long long)m->hi, m->sign);
	for (int i = 0; i < 5; i++) {
		ck_assert_msg(m->arg[i] == want->arg[i], "%s: arg%d is %u, want %u",
			      name, i + 1, m->arg[i], want->arg[i]);
		ck_assert_msg(m->size_arg[i] == want->size_arg[i] && m->size[i] == want->size[i],
			      "%s: arg%d size (%u, %u), want (%u, %u)", name, i + 1,
			      m->size_arg[i], m->size[i], want->size_arg[i], want->size[i]);
	}
	ck_assert_msg(m->fx == want->fx, "%s: fx %#x, want %#x", name, m->fx, want->fx);
}

START_TEST(test_exact)
{
	static const struct helper_model want[] = {
		{ .id = BPF_FUNC_map_lookup_elem, .ret = MODEL_RET_MAP_VALUE,
		  .arg = { MODEL_ARG_MAP, MODEL_ARG_KEY } },
		{ .id = BPF_FUNC_map_update_elem, .ret = MODEL_RET_ERRNO,
		  .arg = { MODEL_ARG_MAP, MODEL_ARG_KEY, MODEL_ARG_VALUE, MODEL_ARG_SCALAR },
		  .fx = MODEL_FX_MAP },
		{ .id = BPF_FUNC_xdp_adjust_head, .ret = MODEL_RET_ERRNO,
		  .arg = { MODEL_ARG_CTX, MODEL_ARG_SCALAR },
		  .fx = MODEL_FX_PACKET | MODEL_FX_HEAD },
		{ .id = BPF_FUNC_redirect_map, .ret = MODEL_RET_REDIRECT_MAP,
		  .arg = { MODEL_ARG_MAP, MODEL_ARG_SCALAR, MODEL_ARG_SCALAR } },
		{ .id = BPF_FUNC_ringbuf_reserve, .ret = MODEL_RET_RINGBUF,
		  .arg = { MODEL_ARG_MAP, MODEL_ARG_SCALAR, MODEL_ARG_SCALAR } },
		{ .id = BPF_FUNC_get_prandom_u32, .ret = MODEL_RET_RANGE,
		  .lo = 0, .hi = UINT32_MAX, .sign = false },
		{ .id = BPF_FUNC_probe_read_kernel, .ret = MODEL_RET_ERRNO,
		  .arg = { MODEL_ARG_WRITE, MODEL_ARG_SCALAR, MODEL_ARG_SCALAR },
		  .size_arg = { 2 } },
		{ .id = BPF_FUNC_tail_call, .ret = MODEL_RET_ERRNO,
		  .arg = { MODEL_ARG_CTX, MODEL_ARG_MAP, MODEL_ARG_SCALAR } },
		{ .id = BPF_FUNC_loop, .ret = MODEL_RET_RANGE,
		  .lo = -4095, .hi = 1 << 23, .sign = true,
		  .arg = { MODEL_ARG_SCALAR, MODEL_ARG_FUNC, MODEL_ARG_PTR, MODEL_ARG_SCALAR },
		  .fx = MODEL_FX_ALL },
		{ .id = BPF_FUNC_get_current_comm, .ret = MODEL_RET_ERRNO,
		  .arg = { MODEL_ARG_WRITE, MODEL_ARG_SCALAR }, .size_arg = { 2 } },
		{ .id = BPF_FUNC_probe_read_user_str, .ret = MODEL_RET_RANGE,
		  .lo = -4095, .hi = INT32_MAX, .sign = true,
		  .arg = { MODEL_ARG_WRITE, MODEL_ARG_SCALAR, MODEL_ARG_SCALAR },
		  .size_arg = { 2 } },
		{ .id = BPF_FUNC_skb_load_bytes, .ret = MODEL_RET_SKB_LOAD,
		  .arg = { MODEL_ARG_CTX, MODEL_ARG_SCALAR, MODEL_ARG_WRITE, MODEL_ARG_SCALAR },
		  .size_arg = { 0, 0, 4 } },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		expect(&want[i]);
}
END_TEST

START_TEST(test_lookup)
{
	unsigned found = 0;

	for (unsigned i = 0; i < model_count(); i++)
		ck_assert_ptr_eq(model_helper(model_at(i)->id), model_at(i));
	for (int id = -2; id < helper_count() + 2; id++)
		if (model_helper(id))
			found++;
	ck_assert_uint_eq(found, model_count());
	ck_assert_ptr_null(model_helper(0));
	ck_assert_ptr_null(model_helper(-1));
	ck_assert_ptr_null(model_helper(100000));
	ck_assert_ptr_null(model_helper(INT32_MIN));
	ck_assert_ptr_null(model_helper(INT32_MAX));
}
END_TEST

/* The helpers the examples (examples/NAME.bpf.c) call. */
START_TEST(test_examples)
{
	static const int used[] = {
		BPF_FUNC_map_lookup_elem, BPF_FUNC_ktime_get_ns,
		BPF_FUNC_tail_call, BPF_FUNC_get_current_pid_tgid,
		BPF_FUNC_get_current_comm, BPF_FUNC_skb_load_bytes,
		BPF_FUNC_probe_read_user_str, BPF_FUNC_ringbuf_reserve,
		BPF_FUNC_ringbuf_submit, BPF_FUNC_loop,
	};

	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		ck_assert_msg(model_helper(used[i]) != NULL, "%s not modelled",
			      helper_name(used[i]));
}
END_TEST

/* Kfunc models: found by name and with flavour suffixes, names unique,
 * ranges ordered, only return kinds a kfunc row can have. */
START_TEST(test_kfuncs)
{
	const struct kfunc_model *k;
	unsigned i, j;

	k = model_kfunc("scx_bpf_dsq_nr_queued");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->ret, MODEL_RET_RANGE);
	ck_assert(k->sign);
	ck_assert_int_eq(k->lo, -4095);
	ck_assert_int_eq(k->hi, INT32_MAX);
	ck_assert_ptr_eq(model_kfunc("scx_bpf_dsq_insert___v2___compat"),
			 model_kfunc("scx_bpf_dsq_insert"));
	ck_assert_int_eq(model_kfunc("scx_bpf_dsq_insert")->ret, MODEL_RET_VOID);
	ck_assert_int_eq(model_kfunc("scx_bpf_select_cpu_dfl")->hi, 8191);
	ck_assert_ptr_null(model_kfunc("scx_bpf_dsq_insertx"));
	ck_assert_ptr_null(model_kfunc("scx_bpf"));
	ck_assert_ptr_null(model_kfunc("no_such_kfunc"));
	ck_assert_ptr_null(model_kfunc_at(model_kfunc_count()));
	for (i = 0; i < model_kfunc_count(); i++) {
		k = model_kfunc_at(i);
		ck_assert(k->ret == MODEL_RET_ANY || k->ret == MODEL_RET_VOID ||
			  k->ret == MODEL_RET_RANGE || k->ret == MODEL_RET_ERRNO ||
			  k->ret == MODEL_RET_KPTR);
		if (k->ret == MODEL_RET_RANGE)
			ck_assert(k->sign ? k->lo <= k->hi : (uint64_t)k->lo <= (uint64_t)k->hi);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(model_kfunc_at(j)->name, k->name);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("models");
	TCase *tc = tcase_create("models");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_sorted);
	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_exact);
	tcase_add_test(tc, test_lookup);
	tcase_add_test(tc, test_examples);
	tcase_add_test(tc, test_kfuncs);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
