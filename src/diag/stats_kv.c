/* SPDX-License-Identifier: MIT */
/*
 * Statistics by key (rcb_stats_get(), rcb_stats_key()): every counter of
 * struct rcb_gp_stats, struct rcb_backlog and struct rcb_boost_stats
 * under a stable name, so that a counter can be added, or leave a
 * struct, without a layout change.  One table, generated from the
 * structs' own lists where there is one (RCB_BOOST_STATS_*), so that a
 * new boost field has its key without anyone writing it.
 */
#include <string.h>

#include "core/internal.h"

enum kv_src { KV_GP, KV_BACKLOG, KV_BOOST };

struct kv {
	const char *key;
	unsigned char src;  /* enum kv_src */
	unsigned char size; /* of the field: 4 (int) or 8 (long, uint64_t) */
	unsigned short off; /* of the field in its struct */
};

#define KV_GP(name) \
	{ "gp." #name, KV_GP, 8, offsetof(struct rcb_gp_stats, name) },
#define KV_BL(name) \
	{ "backlog." #name, KV_BACKLOG, 8, offsetof(struct rcb_backlog, name) },
/* The matrix's width (RCB_STAT_SHAPE) is no counter: no key. */
#define KV_BOOST(type, name, kind)                                        \
	{ (kind) == RCB_STAT_SHAPE ? NULL : "boost." #name, KV_BOOST,     \
	  sizeof(type), offsetof(struct rcb_boost_stats, name) },

static const struct kv kv_table[] = {
	KV_GP(grace_periods) KV_GP(synchronize_calls) KV_GP(batched)
	KV_GP(futex_waits) KV_GP(misuse) KV_GP(registered_threads)
	KV_BL(callbacks) KV_BL(bytes) KV_BL(peak_callbacks)
	KV_BL(peak_bytes) KV_BL(invoked)
	RCB_BOOST_STATS_ARTICLE(KV_BOOST)
	RCB_BOOST_STATS_MORE(KV_BOOST)
};

#define KV_N (sizeof(kv_table) / sizeof(kv_table[0]))

_Static_assert(sizeof(struct rcb_boost_stats) < 65536,
	       "kv offsets fit an unsigned short");

RCB_API const char *rcb_stats_key(size_t index)
{
	for (size_t i = 0; i < KV_N; i++)
		if (kv_table[i].key && index-- == 0)
			return kv_table[i].key;
	return NULL;
}

/* The field at @off of @base, @size bytes, signed (int or long) unless
 * it is a uint64_t of the gp or backlog structs. */
static int64_t field(const void *base, const struct kv *k)
{
	const unsigned char *p = (const unsigned char *)base + k->off;

	if (k->size == 4) {
		int v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	if (k->src == KV_BOOST) {
		long v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	uint64_t u;

	memcpy(&u, p, sizeof(u));
	return (int64_t)u;
}

RCB_API int rcb_stats_get(const char *key, int64_t *value)
{
	const struct kv *k = NULL;
	int ret = 0;

	if (!key || !value) {
		rcb__misuse("rcb_stats_get", "%s is NULL; nothing stored",
			    key ? "value" : "key");
		return -EINVAL;
	}
	for (size_t i = 0; i < KV_N && !k; i++)
		if (kv_table[i].key && !strcmp(kv_table[i].key, key))
			k = &kv_table[i];
	if (!k)
		return -ENOENT;
	switch (k->src) {
	case KV_GP: {
		struct rcb_gp_stats s = { .size = sizeof(s) };

		ret = rcb__gp_stats_sized(&s);
		*value = field(&s, k);
		break;
	}
	case KV_BACKLOG: {
		struct rcb_backlog s = { .size = sizeof(s) };

		ret = rcb__backlog_sized(&s);
		*value = field(&s, k);
		break;
	}
	default: {
		struct rcb_boost_stats s = { .size = sizeof(s) };

		ret = rcb_boost_stats(&s);
		*value = field(&s, k);
		break;
	}
	}
	return ret;
}
