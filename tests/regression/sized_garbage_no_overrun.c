/* Bug : a sized struct whose size held garbage from 9 to 4096 was taken for a
 * newer, longer layout: rcb_boost_stats() zeroed the bytes past its own struct
 * (a size of 3000 wrote 2,448 bytes past a 552-byte struct, or crashed in the
 * memset), and every sized call accepted the size without a report. Each call
 * must now refuse such a size as misuse, naming the call and the field, and no
 * call may write past min(size, the library's sizeof). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define CANARY 0xa5
/* Canary bytes between each struct and the guard page after it. */
#define SLACK 256

static unsigned char *page; /* one page, a PROT_NONE page after it */
static long page_size;
static int stderr_fd = 2; /* the real stderr, for on_segv() */

static void on_segv(int sig)
{
	static const char msg[] =
		"FAIL: a sized call wrote or read past the caller's struct into the guard page\n";

	(void)sig;
	(void)!write(stderr_fd, msg, sizeof(msg) - 1);
	_exit(1);
}

/* A struct of @len bytes placed SLACK canary bytes before the guard
 * page, every byte of it and of the slack set to CANARY. */
static void *place(size_t len)
{
	memset(page, CANARY, (size_t)page_size);
	return page + page_size - SLACK - len;
}

/* No byte from @from to the guard page changed. */
static int untouched_from(const void *from)
{
	for (const unsigned char *p = from; p < page + page_size; p++)
		if (*p != CANARY)
			return 0;
	return 1;
}

/* Runs @what with stderr in a file; returns what it printed in @buf. */
#define CAPTURE(what, buf)                                                 \
	do {                                                               \
		FILE *f_ = tmpfile();                                      \
		int saved_ = dup(2);                                       \
		ssize_t n_;                                                \
		CHECK(f_ && saved_ >= 0);                                  \
		CHECK_EQ(dup2(fileno(f_), 2), 2);                          \
		what;                                                      \
		n_ = pread(2, (buf), sizeof(buf) - 1, 0);                  \
		CHECK_EQ(dup2(saved_, 2), 2);                              \
		close(saved_);                                             \
		fclose(f_);                                                \
		CHECK(n_ >= 0);                                            \
		(buf)[n_] = '\0';                                          \
		fprintf(stderr, "%s", (buf));                              \
	} while (0)

static void names(const char *out, const char *call, const char *field)
{
	if (!strstr(out, "misuse") || !strstr(out, call) || !strstr(out, field)) {
		fprintf(stderr, "FAIL: expected a misuse report naming %s and %s, got: %s\n",
			call, field, out);
		exit(1);
	}
}

static unsigned long long misuse(void)
{
	struct rcb_gp_stats s;

	rcb_stats(&s);
	return s.misuse;
}

/* Every sized call with @size: refused, reported, nothing written. */
static void refused(size_t size)
{
	struct rcb_boost_stats *bs;
	struct rcb_config *cfg;
	struct rcb_worker_attr *attr;
	struct rcb_worker *w = (struct rcb_worker *)1;
	unsigned long long m;
	char out[1024], text[2048];
	int ret;

	fprintf(stderr, "size %zu:\n", size);
	bs = place(sizeof(*bs));
	bs->size = size;
	m = misuse();
	CAPTURE(ret = rcb_boost_stats(bs), out);
	CHECK_EQ(ret, -EINVAL);
	CHECK_EQ(misuse(), m + 1);
	names(out, "rcb_boost_stats", "out->size");
	CHECK_EQ(bs->size, size);
	CHECK(untouched_from((unsigned char *)bs + sizeof(size_t)));

	m = misuse();
	CAPTURE(ret = rcb_boost_stats_format(bs, text, sizeof(text), 1), out);
	CHECK_EQ(ret, -EINVAL);
	CHECK_EQ(misuse(), m + 1);
	names(out, "rcb_boost_stats_format", "s->size");

	cfg = place(sizeof(*cfg));
	cfg->size = size;
	m = misuse();
	CAPTURE(ret = rcb_init(cfg), out);
	CHECK_EQ(ret, -EINVAL);
	CHECK_EQ(misuse(), m + 1);
	names(out, "rcb_init", "cfg->size");

	attr = place(sizeof(*attr));
	attr->size = size;
	m = misuse();
	CAPTURE(ret = rcb_worker_create(attr, &w), out);
	CHECK_EQ(ret, -EINVAL);
	CHECK(w == NULL);
	CHECK_EQ(misuse(), m + 1);
	names(out, "rcb_worker_create", "attr->size");
}

int main(void)
{
	/* Sizes no layout has: the 3000, others from 9 to 4096
	 * (below the first layout, not a multiple of 8, past 1024), and
	 * what an uninitialised field holds (a stack address, the fill
	 * pattern of -ftrivial-auto-var-init=pattern). */
	const size_t garbage[] = {
		3000,
		4096,
		1032,
		2049,
		9,
		17,
		100,
		sizeof(struct rcb_boost_stats) + 4,
		(size_t)0x00007ffd5a3c1e28ull,
		(size_t)0xfefefefefefefefeull,
		SIZE_MAX,
	};
	struct rcb_boost_stats *bs;
	const size_t known = sizeof(*bs);
	int ret;

	setenv("RCUBOOST_MISUSE", "warn", 1);
	stderr_fd = dup(2);
	CHECK(stderr_fd >= 0);
	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, 2 * (size_t)page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED);
	CHECK_EQ(mprotect(page + page_size, (size_t)page_size, PROT_NONE), 0);
	signal(SIGSEGV, on_segv);
	signal(SIGBUS, on_segv);

	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++)
		refused(garbage[i]);

	/* Below the statistics' first layout (a size the two other structs
	 * have had). */
	bs = place(known);
	bs->size = RCB_BOOST_STATS_SIZE_V1 - 8;
	CHECK_EQ(rcb_boost_stats(bs), -EINVAL);
	CHECK(untouched_from((unsigned char *)bs + sizeof(size_t)));
	CHECK_EQ(rcb_boost_stats_format(bs, NULL, 0, 0), -EINVAL);

	/* A caller built against a newer, longer layout: its fields up to
	 * this library's are filled, the size tells it so, and not a byte
	 * past them is written. */
	bs = place(known);
	bs->size = known + 64;
	ret = rcb_boost_stats(bs);
	CHECK(ret == 0 || ret == -ENOTSUP);
	CHECK_EQ(bs->size, known);
	CHECK(untouched_from((unsigned char *)bs + known));
	CHECK(bs->idx != (int)0xa5a5a5a5);
	/* This library's layout, and size 0 (the first layout). */
	bs = place(known);
	bs->size = known;
	ret = rcb_boost_stats(bs);
	CHECK(ret == 0 || ret == -ENOTSUP);
	CHECK_EQ(bs->size, known);
	CHECK(untouched_from((unsigned char *)bs + known));
	bs = place(known);
	bs->size = 0;
	ret = rcb_boost_stats(bs);
	CHECK(ret == 0 || ret == -ENOTSUP);
	CHECK_EQ(bs->size, 0);
	CHECK(untouched_from((unsigned char *)bs + RCB_BOOST_STATS_SIZE_V1));
	printf("garbage sizes refused as misuse; nothing written past a struct\n");
	return 0;
}
