/* SPDX-License-Identifier: MIT */
/* The tools' shared layer: see tool.h. */
#define _GNU_SOURCE /* CPU_SET, pthread_attr_setaffinity_np */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

const char *tool_prog = "rcuboost-tool";

uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	return ts;
}

void tool_sleep_ns(uint64_t ns)
{
	struct timespec ts = ns_to_ts(ns);

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void tool_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = ns_to_ts(deadline_ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

uint64_t tool_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

void tool_pick_cpus(int *a, int *b)
{
	cpu_set_t set;
	int found = 0;

	*a = *b = -1;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (found++ == 0)
			*a = cpu;
		else
			*b = cpu;
	}
	if (*b < 0)
		*b = *a;
}

int tool_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int tool_attr_pin(pthread_attr_t *attr, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

int tool_attr_sched(pthread_attr_t *attr, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err;

	err = pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
	if (!err)
		err = pthread_attr_setschedpolicy(attr, policy);
	if (!err)
		err = pthread_attr_setschedparam(attr, &sp);
	return err;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", tool_prog, what, strerror(err));
	exit(1);
}

void tool_thread_start(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	if (cpu >= 0) {
		err = tool_attr_pin(&attr, cpu);
		if (err) {
			fprintf(stderr, "%s: cannot pin to CPU %d: %s\n", tool_prog, cpu,
				strerror(err));
			exit(1);
		}
	}
	err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (err)
		die("pthread_create", err);
}

void tool_thread_join(pthread_t t)
{
	int err = pthread_join(t, NULL);

	if (err)
		die("pthread_join", err);
}

void tool_name_thread(const char *prefix, int idx)
{
	char name[16];

	if (idx < 0)
		snprintf(name, sizeof(name), "%s", prefix);
	else
		snprintf(name, sizeof(name), "%s%d", prefix, idx);
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

int tool_sattr_get(int tid, struct tool_sattr *a)
{
	memset(a, 0, sizeof(*a));
	if (syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0) != 0)
		return -errno;
	return 0;
}

int tool_sattr_set(const struct tool_sattr *a)
{
	struct tool_sattr b = {
		.size = sizeof(b),
		.policy = a->policy,
		.flags = a->flags,
		.nice = a->nice,
		.prio = a->prio,
	};

	if (syscall(SYS_sched_setattr, 0, &b, 0) != 0)
		return -errno;
	return 0;
}

int tool_sattr_same(const struct tool_sattr *a, const struct tool_sattr *b)
{
	if (a->policy != b->policy)
		return 0;
	if (a->policy == SCHED_FIFO || a->policy == SCHED_RR)
		return a->prio == b->prio;
	return a->nice == b->nice;
}

int tool_wait_flag(_Atomic int *flag, int ms)
{
	uint64_t end = tool_now_ns() + (uint64_t)ms * 1000000;

	while (!atomic_load(flag) && tool_now_ns() < end)
		tool_sleep_ns(100000);
	return atomic_load(flag);
}

void tool_gate_init(struct tool_gate *g, unsigned int parties)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->parties = parties;
	g->arrived = 0;
	g->open = 0;
}

void tool_gate_wait(struct tool_gate *g)
{
	pthread_mutex_lock(&g->lock);
	if (++g->arrived == g->parties) {
		g->open = 1;
		pthread_cond_broadcast(&g->cond);
	}
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void tool_gate_destroy(struct tool_gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static size_t quantile_index(size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	return i >= n ? n - 1 : i;
}

double tool_quantile_u64(uint64_t *v, size_t n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return (double)v[quantile_index(n, q)];
}

double tool_quantile(double *v, size_t n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[quantile_index(n, q)];
}

/* P(X > x) for X chi-square with @df degrees of freedom (df >= 1):
 * from df 1 (erfc) or 2 (exp) up in steps of two,
 * Q(x, k + 2) = Q(x, k) + (x/2)^(k/2) e^(-x/2) / Gamma(k/2 + 1). */
static double chi2_survival(double x, int df)
{
	int k = df % 2 ? 1 : 2;
	double q = k == 1 ? erfc(sqrt(x / 2)) : exp(-x / 2);

	if (x <= 0)
		return 1;
	for (; k + 2 <= df; k += 2)
		q += exp((k / 2.0) * log(x / 2) - x / 2 - lgamma(k / 2.0 + 1));
	return q > 1 ? 1 : q;
}

struct kw_item {
	double v;
	int group;
};

static int cmp_kw(const void *a, const void *b)
{
	double x = ((const struct kw_item *)a)->v,
	       y = ((const struct kw_item *)b)->v;

	return (x > y) - (x < y);
}

double tool_kruskal_wallis_p(const double *v, const int *group, size_t n,
			     int ngroups)
{
	struct kw_item *it;
	double *rank_sum, h = 0, ties = 0;
	size_t *count;
	int used = 0;

	if (n < 3 || ngroups < 2)
		return NAN;
	it = tool_xmalloc(n * sizeof(*it));
	rank_sum = tool_xmalloc((size_t)ngroups * sizeof(*rank_sum));
	count = tool_xmalloc((size_t)ngroups * sizeof(*count));
	for (int g = 0; g < ngroups; g++)
		rank_sum[g] = 0, count[g] = 0;
	for (size_t i = 0; i < n; i++)
		it[i] = (struct kw_item){ v[i], group[i] };
	qsort(it, n, sizeof(*it), cmp_kw);
	for (size_t i = 0, j; i < n; i = j) {
		double avg, t;

		for (j = i + 1; j < n && it[j].v == it[i].v; j++)
			;
		avg = (double)(i + j + 1) / 2; /* ranks i+1 .. j */
		t = (double)(j - i);
		ties += t * t * t - t;
		for (size_t m = i; m < j; m++) {
			rank_sum[it[m].group] += avg;
			count[it[m].group]++;
		}
	}
	for (int g = 0; g < ngroups; g++) {
		if (!count[g])
			continue;
		used++;
		h += rank_sum[g] * rank_sum[g] / (double)count[g];
	}
	h = 12.0 / ((double)n * (double)(n + 1)) * h - 3.0 * (double)(n + 1);
	if (ties < (double)n * n * n - (double)n)
		h /= 1 - ties / ((double)n * n * n - (double)n);
	free(it);
	free(rank_sum);
	free(count);
	return used < 2 ? NAN : chi2_survival(h, used - 1);
}

double tool_median(const double *v, size_t n)
{
	double *tmp, m;

	if (!n)
		return 0;
	tmp = tool_xmalloc(n * sizeof(*v));
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	m = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	free(tmp);
	return m;
}

void *tool_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "%s: out of memory (%zu bytes)\n", tool_prog, n);
		exit(1);
	}
	return p;
}

void tool_progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

void tool_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void tool_json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fprintf(f, "null");
	else
		fprintf(f, "%.6g", v);
}

FILE *tool_json_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "%s: cannot write %s: %s\n", tool_prog, path, strerror(errno));
	return f;
}

int tool_json_close(FILE *f, const char *path)
{
	if (fclose(f) != 0) {
		int err = errno;

		fprintf(stderr, "%s: cannot write %s: %s\n", tool_prog, path, strerror(err));
		return -err;
	}
	return 0;
}

unsigned long long tool_parse_num(const char *opt, const char *s,
				  unsigned long long lo, unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s < '0' || *s > '9' || errno || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: --%s=%s: expected an integer %llu..%llu\n", tool_prog, opt,
			s, lo, hi);
		exit(2);
	}
	return v;
}

void tool_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", tool_prog);
	exit(2);
}

static void store_num(const struct tool_opt *o, unsigned long long v)
{
	if (o->size == sizeof(uint64_t))
		*(uint64_t *)o->var = v;
	else
		*(uint32_t *)o->var = (uint32_t)v;
}

static void store_flag(const struct tool_opt *o, int v)
{
	if (o->size == sizeof(_Bool))
		*(_Bool *)o->var = v;
	else
		*(int *)o->var = v;
}

int tool_getopt(int argc, char **argv, const struct tool_opt *opts, size_t n,
		void (*usage)(FILE *out))
{
	struct option *lo = tool_xmalloc((n + 2) * sizeof(*lo));
	char *so = tool_xmalloc(2 * n + 2), *s = so;
	int c, idx;

	for (size_t i = 0; i < n; i++) {
		int arg = opts[i].kind >= TOOL_STR;

		/* Long options without a short one return 256 + their row. */
		lo[i] = (struct option){
			opts[i].name, arg ? required_argument : no_argument,
			NULL, opts[i].key ? opts[i].key : 256 + (int)i
		};
		if (opts[i].key) {
			*s++ = (char)opts[i].key;
			if (arg)
				*s++ = ':';
		}
	}
	lo[n] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	*s++ = 'h';
	*s = '\0';
	while ((c = getopt_long(argc, argv, so, lo, &idx)) != -1) {
		const struct tool_opt *o = NULL;

		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		for (size_t i = 0; i < n && !o; i++)
			if (c == (opts[i].key ? opts[i].key : 256 + (int)i))
				o = &opts[i];
		if (!o) {
			fprintf(stderr, "Try '%s --help'.\n", tool_prog);
			exit(2);
		}
		switch (o->kind) {
		case TOOL_FLAG:
		case TOOL_CLEAR:
			store_flag(o, o->kind == TOOL_FLAG);
			break;
		case TOOL_STR:
			*(const char **)o->var = optarg;
			break;
		case TOOL_NUM:
			store_num(o, tool_parse_num(o->name, optarg, o->lo,
						    o->hi));
			break;
		case TOOL_CALL:
		case TOOL_FN:
			o->fn(o->kind == TOOL_FN ? optarg : NULL, o->var);
			break;
		}
	}
	free(lo);
	free(so);
	return optind;
}
