/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-demo, scenario "routing": a read-mostly routing table.
 *
 * Reader threads look up IPv4 destinations by longest-prefix match, each
 * lookup inside rcb_read_lock()/rcb_read_unlock(): no lock, no atomic
 * read-modify-write, no waiting for the updater.  One updater thread
 * changes the table the RCU way: copy it, modify the copy, publish the
 * copy with rcb_assign_pointer(), and hand the old copy to
 * rcb_call_sized(), which frees it once every reader that might still
 * be looking at it has finished (a grace period).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rcuboost.h"
#include "demo.h"

#define TABLE_LIVE 0x726f7574u /* "rout" */
#define TABLE_DEAD 0xdeadu
#define NHOPS 8

struct route {
	uint32_t prefix;
	uint8_t len;
	uint8_t hop;
};

struct route_table {
	struct rcb_head_sized rh; /* for rcb_call_sized() */
	_Atomic unsigned int magic; /* TABLE_DEAD once freed */
	unsigned long version;
	unsigned int n;
	struct route r[];         /* longest prefix first; 0.0.0.0/0 last */
};

/* The RCU-protected pointer: readers load it with rcb_dereference(). */
static struct route_table *routing_table;

static _Atomic bool stop;
static _Atomic unsigned long tables_alloc, tables_freed;

struct reader {
	pthread_t thread;
	unsigned int idx;
	uint64_t rng;
	uint64_t ns;
	unsigned long lookups;
	unsigned long versions_seen;
	unsigned long last_version;
	unsigned long backwards;   /* a version older than one seen before */
	unsigned long dead_tables; /* lookups that found a freed table */
	/* keeps the lookups from being optimised away */
	unsigned long hop_sum;
};

struct updater {
	pthread_t thread;
	uint64_t rng;
	unsigned int update_us;
	unsigned int base_routes;
	unsigned long published;
	unsigned long changed, added, withdrawn;
	unsigned long call_errors;
};

static uint32_t mask_of(unsigned int len)
{
	return len ? ~0u << (32 - len) : 0;
}

static size_t table_bytes(unsigned int n)
{
	return sizeof(struct route_table) + n * sizeof(struct route);
}

static struct route_table *table_alloc(unsigned int n, unsigned long version)
{
	struct route_table *t = malloc(table_bytes(n));

	if (!t) {
		fprintf(stderr, "rcuboost-demo: out of memory\n");
		exit(1);
	}
	memset(t, 0, sizeof(*t));
	atomic_store_explicit(&t->magic, TABLE_LIVE, memory_order_relaxed);
	t->version = version;
	t->n = n;
	atomic_fetch_add_explicit(&tables_alloc, 1, memory_order_relaxed);
	return t;
}

/* The RCU callback: runs after a grace period, when no reader can still
 * hold the old table. */
static void table_free_cb(struct rcb_head *h)
{
	struct route_table *t = (struct route_table *)((char *)h -
				 offsetof(struct route_table, rh));

	atomic_store_explicit(&t->magic, TABLE_DEAD, memory_order_relaxed);
	free(t);
	atomic_fetch_add_explicit(&tables_freed, 1, memory_order_relaxed);
}

/* Longest-prefix match: routes are sorted by decreasing prefix length,
 * so the first match is the longest; the default route matches all. */
static const struct route *lookup(const struct route_table *t, uint32_t addr)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (((addr ^ t->r[i].prefix) & mask_of(t->r[i].len)) == 0)
			return &t->r[i];
	return NULL;
}

static struct route random_route(uint64_t *rng)
{
	uint64_t x = tool_rand(rng);
	struct route r;

	r.len = (uint8_t)(8 + x % 21); /* /8 .. /28 */
	/* Mostly inside 10.0.0.0/8 so that prefixes overlap and nest. */
	r.prefix = (uint32_t)(x >> 16);
	if ((x >> 8) % 4)
		r.prefix = 0x0a000000u | (r.prefix & 0x00ffffffu);
	r.prefix &= mask_of(r.len);
	r.hop = (uint8_t)((x >> 5) % NHOPS);
	return r;
}

/* Insert @r in @t (room for one more entry), keeping the order. */
static void table_insert(struct route_table *t, struct route r)
{
	unsigned int pos = 0;

	while (pos < t->n && t->r[pos].len >= r.len)
		pos++;
	memmove(&t->r[pos + 1], &t->r[pos], (t->n - pos) * sizeof(r));
	t->r[pos] = r;
	t->n++;
}

static struct route_table *initial_table(unsigned int n, uint64_t *rng)
{
	struct route_table *t = table_alloc(n, 1);
	struct route def = { .prefix = 0, .len = 0, .hop = 0 };

	t->n = 0;
	table_insert(t, def);
	while (t->n < n)
		table_insert(t, random_route(rng));
	return t;
}

static void format_route(const struct route *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u/%u via 192.0.2.%u", r->prefix >> 24,
		 (r->prefix >> 16) & 255, (r->prefix >> 8) & 255,
		 r->prefix & 255, r->len, r->hop + 1);
}

/* ------------------------------------------------------------------ */

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;
	uint64_t t0 = tool_now_ns();

	rcb_register_thread();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = 0; i < 256; i++) {
			uint32_t addr = (uint32_t)tool_rand(&rd->rng);
			const struct route_table *t;
			const struct route *r;
			unsigned long v;

			if (i & 1) /* half the traffic goes to 10/8 */
				addr = 0x0a000000u | (addr & 0x00ffffffu);
			rcb_read_lock();
			t = rcb_dereference(routing_table);
			r = lookup(t, addr);
			rd->hop_sum += r ? r->hop : 0;
			v = t->version;
			if (atomic_load_explicit(&t->magic,
						 memory_order_relaxed) !=
			    TABLE_LIVE)
				rd->dead_tables++;
			rcb_read_unlock();
			if (v != rd->last_version) {
				if (v < rd->last_version)
					rd->backwards++;
				rd->versions_seen++;
				rd->last_version = v;
			}
		}
		rd->lookups += 256;
	}
	rd->ns = tool_now_ns() - t0;
	return NULL;
}

/* Copy, change one route, publish, retire the old copy. */
static void update_once(struct updater *up)
{
	/* only this thread writes it */
	struct route_table *old = routing_table;
	struct route_table *t = table_alloc(old->n + 1, old->version + 1);
	uint64_t x = tool_rand(&up->rng);
	unsigned int op = x % 3, i;

	memcpy(t->r, old->r, old->n * sizeof(old->r[0]));
	t->n = old->n;
	if (op == 1 && t->n > 2 * up->base_routes)
		op = 2;
	if (op == 2 && t->n <= up->base_routes / 2 + 1)
		op = 1;
	switch (op) {
	case 0: /* a next hop changes */
		i = (unsigned int)((x >> 8) % t->n);
		t->r[i].hop =
			(uint8_t)((t->r[i].hop + 1 + (x >> 40) % (NHOPS - 1)) %
				  NHOPS);
		up->changed++;
		break;
	case 1: /* a route is announced */
		table_insert(t, random_route(&up->rng));
		up->added++;
		break;
	default: /* a route is withdrawn (never the default, which is last) */
		i = (unsigned int)((x >> 8) % (t->n - 1));
		memmove(&t->r[i], &t->r[i + 1],
			(t->n - i - 1) * sizeof(t->r[0]));
		t->n--;
		up->withdrawn++;
		break;
	}
	/* Every store above is visible to a reader that sees @t. */
	rcb_assign_pointer(routing_table, t);
	/* Readers may still be walking @old: free it after a grace period,
	 * and let the backlog count its size meanwhile. */
	if (rcb_call_sized(&old->rh, table_free_cb, table_bytes(old->n)) != 0)
		up->call_errors++;
	up->published++;
}

static void *updater_fn(void *arg)
{
	struct updater *up = arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		update_once(up);
		tool_sleep_ns((uint64_t)up->update_us * 1000);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */

static const uint32_t sample_addrs[] = {
	0x0a010203u, /* 10.1.2.3 */
	0x0a800001u, /* 10.128.0.1 */
	0xc6336401u, /* 198.51.100.1 */
};

/* Describe where the sample addresses go, into @buf.  Context: no
 * updater running. */
static void format_samples(char *buf, size_t len, const char *when)
{
	const struct route_table *t = routing_table;
	size_t off;
	char rt[64];

	off = (size_t)snprintf(buf, len, "  %s (table version %lu, %u routes):\n",
			       when, t->version, t->n);
	for (size_t i = 0; i < sizeof(sample_addrs) / sizeof(sample_addrs[0]);
	     i++) {
		uint32_t a = sample_addrs[i];

		if (off >= len)
			break;
		format_route(lookup(t, a), rt, sizeof(rt));
		off += (size_t)snprintf(
			buf + off, len - off, "    %u.%u.%u.%u -> %s\n",
			a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255, rt);
	}
}

static const char *flavor_explained(enum rcb_flavor f)
{
	if (f == RCB_FLAVOR_MEMBARRIER)
		return "readers use compiler barriers only; each grace period issues membarrier()";
	return "readers issue a full memory fence on entry and exit; membarrier() is not used";
}

/* One run: its threads and what was measured. */
struct run {
	const struct demo_opts *opt;
	unsigned int nr;
	struct reader *rd;
	struct updater up;
	struct rcb_gp_stats st0, st1;
	struct rcb_backlog bl0, bl1;
	unsigned long lookups, bad;
	enum rcb_flavor flavor;
	char before[512], after[512];
	double secs, rate;
};

/* The readers and the updater for --duration-ms, then the last table
 * retired and every callback waited for. */
static void run_threads(struct run *r)
{
	const struct demo_opts *opt = r->opt;
	struct route_table *last;
	uint64_t t0;

	rcb_stats(&r->st0);
	rcb_backlog_reset_peak();
	rcb_backlog(&r->bl0);
	atomic_store(&stop, false);
	r->up.rng = opt->seed ^ 0x5bd1e995u;
	r->up.update_us = opt->update_us;
	r->up.base_routes = opt->routes;
	t0 = tool_now_ns();
	for (unsigned int i = 0; i < r->nr; i++) {
		r->rd[i].idx = i;
		r->rd[i].rng =
			opt->seed ^ ((uint64_t)(i + 1) << 32) ^ 0x9e3779b9u;
		if (pthread_create(&r->rd[i].thread, NULL, reader_fn,
				   &r->rd[i]) != 0) {
			fprintf(stderr, "rcuboost-demo: cannot create a reader thread\n");
			exit(1);
		}
	}
	if (pthread_create(&r->up.thread, NULL, updater_fn, &r->up) != 0) {
		fprintf(stderr, "rcuboost-demo: cannot create the updater thread\n");
		exit(1);
	}
	tool_sleep_ns(opt->duration_ms * 1000000ull);
	atomic_store(&stop, true);
	for (unsigned int i = 0; i < r->nr; i++)
		pthread_join(r->rd[i].thread, NULL);
	pthread_join(r->up.thread, NULL);
	r->secs = (double)(tool_now_ns() - t0) / 1e9;

	format_samples(r->after, sizeof(r->after), "Sample lookups after");
	last = rcb_xchg_pointer(&routing_table, NULL);
	if (rcb_call_sized(&last->rh, table_free_cb, table_bytes(last->n)) != 0)
		r->up.call_errors++;
	rcb_barrier();
	rcb_stats(&r->st1);
	rcb_backlog(&r->bl1);
	for (unsigned int i = 0; i < r->nr; i++) {
		r->lookups += r->rd[i].lookups;
		r->bad += r->rd[i].backwards + r->rd[i].dead_tables;
		if (r->rd[i].ns)
			r->rate += (double)r->rd[i].lookups * 1e9 /
				   (double)r->rd[i].ns;
	}
}

static void print_details(const struct run *r)
{
	const struct demo_opts *opt = r->opt;
	char b1[32], b2[32];

	printf("\nA routing table of %u IPv4 prefixes was read by %u thread%s and updated by\n"
	       "1 thread, the read-copy-update way, for %.1f s.\n\n%s%s\n",
	       opt->routes, r->nr, r->nr == 1 ? "" : "s", r->secs, r->before,
	       r->after);
	for (unsigned int i = 0; i < r->nr; i++)
		printf("  reader %u: %.2f M lookups/s, saw %lu table versions, "
		       "%lu out of order, %lu freed tables\n",
		       i,
		       r->rd[i].ns ? (double)r->rd[i].lookups * 1e3 /
					     (double)r->rd[i].ns :
				     0.0,
		       r->rd[i].versions_seen, r->rd[i].backwards,
		       r->rd[i].dead_tables);
	printf("  updater: %lu table versions published (%.0f/s): %lu next hops changed, "
	       "%lu routes announced, %lu withdrawn\n",
	       r->up.published, (double)r->up.published / r->secs,
	       r->up.changed, r->up.added, r->up.withdrawn);
	printf("  grace periods: %" PRIu64 " (%" PRIu64 " rcb_synchronize() calls, "
	       "%" PRIu64 " of them shared another's grace period)\n",
	       r->st1.grace_periods - r->st0.grace_periods,
	       r->st1.synchronize_calls - r->st0.synchronize_calls,
	       r->st1.batched - r->st0.batched);
	printf("  callbacks invoked: %" PRIu64 " (old tables freed after a grace period; "
	       "%lu allocated, %lu freed)\n",
	       r->bl1.invoked - r->bl0.invoked, atomic_load(&tables_alloc),
	       atomic_load(&tables_freed));
	printf("  peak backlog: %" PRIu64
	       " callbacks, %s waiting for a grace period "
	       "(now %" PRIu64 ", %s)\n",
	       r->bl1.peak_callbacks,
	       demo_bytes(r->bl1.peak_bytes, b1, sizeof(b1)), r->bl1.callbacks,
	       demo_bytes(r->bl1.bytes, b2, sizeof(b2)));
	printf("  flavor: %s (%s)\n", rcb_flavor_name(r->flavor), flavor_explained(r->flavor));
	printf("\nReaders never waited for the updater and never saw a freed table;\n"
	       "the updater never waited for readers: rcb_call_sized() deferred each free.\n");
}

/* 0, or -1 if the file could not be written. */
static int write_json(const struct run *r, bool ok)
{
	FILE *j = tool_json_open(r->opt->json);

	if (!j)
		return -1;
	fprintf(j, "{\n  \"tool\": \"rcuboost-demo\",\n  \"scenario\": \"routing\",\n");
	fprintf(j, "  \"result\": \"%s\",\n  \"duration_s\": %.3f,\n  \"flavor\": \"%s\",\n",
		ok ? "OK" : "FAIL", r->secs, rcb_flavor_name(r->flavor));
	fprintf(j, "  \"readers\": [");
	for (unsigned int i = 0; i < r->nr; i++)
		fprintf(j,
			"%s{\"lookups\": %lu, \"lookups_per_s\": %.0f, \"versions_seen\": %lu}",
			i ? ", " : "", r->rd[i].lookups,
			r->rd[i].ns ? (double)r->rd[i].lookups * 1e9 /
					      (double)r->rd[i].ns :
				      0.0,
			r->rd[i].versions_seen);
	fprintf(j, "],\n  \"versions\": %lu,\n  \"gps\": %" PRIu64 ",\n",
		r->up.published, r->st1.grace_periods - r->st0.grace_periods);
	fprintf(j,
		"  \"callbacks\": %" PRIu64 ",\n  \"peak_backlog\": %" PRIu64
		",\n  \"peak_backlog_bytes\": %" PRIu64 "\n}\n",
		r->bl1.invoked - r->bl0.invoked, r->bl1.peak_callbacks,
		r->bl1.peak_bytes);
	return tool_json_close(j, r->opt->json) != 0 ? -1 : 0;
}

static int routing_run(const struct demo_opts *opt)
{
	struct run r = { .opt = opt, .nr = opt->readers };
	uint64_t rng = opt->seed;
	bool ok;
	int err;

	r.rd = calloc(r.nr, sizeof(*r.rd));
	if (!r.rd) {
		fprintf(stderr, "rcuboost-demo: out of memory\n");
		return 1;
	}
	err = rcb_init(NULL);
	if (err) {
		fprintf(stderr, "rcuboost-demo: rcb_init: %s\n", strerror(-err));
		free(r.rd);
		return 1;
	}
	r.flavor = rcb_flavor();
	routing_table = initial_table(opt->routes, &rng);
	format_samples(r.before, sizeof(r.before), "Sample lookups before");
	run_threads(&r);
	ok = r.bad == 0 && r.up.call_errors == 0 && r.bl1.callbacks == 0 &&
	     atomic_load(&tables_alloc) == atomic_load(&tables_freed);
	printf("rcuboost-demo: %s scenario=routing duration=%.3fs flavor=%s readers=%u "
	       "lookups=%lu lookups_per_s=%.0f versions=%lu gps=%" PRIu64
	       " callbacks=%" PRIu64 " peak_backlog=%" PRIu64
	       " peak_backlog_bytes=%" PRIu64 "\n",
	       ok ? "OK" : "FAIL", r.secs, rcb_flavor_name(r.flavor), r.nr,
	       r.lookups, r.rate, r.up.published,
	       r.st1.grace_periods - r.st0.grace_periods,
	       r.bl1.invoked - r.bl0.invoked, r.bl1.peak_callbacks,
	       r.bl1.peak_bytes);
	if (!opt->quiet)
		print_details(&r);
	if (opt->json && write_json(&r, ok) != 0)
		ok = false;
	free(r.rd);
	return ok ? 0 : 1;
}

const struct demo_scenario demo_routing = {
	.name = "routing",
	.summary = "a read-mostly routing table replaced by copy-update-publish, old copies freed by rcb_call_sized()",
	.run = routing_run,
};
