/* Test harness: each case runs in a fresh process, so library state never leaks
 * between cases. */
#define _GNU_SOURCE
#include <pthread.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/unit/harness.h"

#define EXPECT_TAG "rcbt-expect: "
#define DONE_TAG "rcbt-done"
#define CASE_TIMEOUT_S 30

void rcbt_expect(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, EXPECT_TAG "%s\n", buf);
}

void rcbt_expect_misuse(const char *call, const char *problem)
{
	char comm[17] = "";

	prctl(PR_GET_NAME, comm, 0, 0, 0);
	rcbt_expect("rcuboost: misuse: %s: |%s|(thread %d \"%s\")", call,
		    problem, (int)gettid(), comm);
}

void rcbt_init(void)
{
	const char *p = getenv("RCBT_POLICY");
	struct rcb_config cfg = { 0 };

	CHECK(p);
	if (strcmp(p, "cfg-warn") == 0) {
		cfg.misuse = RCB_MISUSE_WARN;
		CHECK_EQ(rcb_init(&cfg), 0);
	} else if (strcmp(p, "cfg-abort") == 0) {
		cfg.misuse = RCB_MISUSE_ABORT;
		CHECK_EQ(rcb_init(&cfg), 0);
	} else {
		CHECK(strcmp(p, "env") == 0);
		CHECK_EQ(rcb_init(NULL), 0);
	}
}

unsigned long long rcbt_misuse_count(void)
{
	struct rcb_gp_stats st;

	rcb_stats(&st);
	return st.misuse;
}

unsigned long long rcbt_registered(void)
{
	struct rcb_gp_stats st;

	rcb_stats(&st);
	return st.registered_threads;
}

#if defined(__SANITIZE_THREAD__)
#define RCBT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RCBT_TSAN 1
#endif
#endif

static void *rcbt_nothing(void *arg)
{
	return arg;
}

/* Threads of this process, not counting ThreadSanitizer's background
 * thread (started with the first pthread_create(), same name as ours):
 * under TSan, rcbt_main() starts it first thing and it is subtracted. */
int rcbt_task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	CHECK(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
#ifdef RCBT_TSAN
	n--;
#endif
	return n;
}

int rcbt_task_count_settle(int want)
{
	int n = rcbt_task_count();

	for (int i = 0; n != want && i < 200; i++) {
		rcbt_sleep_ms(10);
		n = rcbt_task_count();
	}
	return n;
}

void rcbt_sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void rcbt_set_name(const char *name)
{
	CHECK_EQ(prctl(PR_SET_NAME, name, 0, 0, 0), 0);
}

void rcbt_wait_flag(atomic_int *flag)
{
	for (int i = 0; !atomic_load(flag); i++) {
		CHECK(i < 10000);
		rcbt_sleep_ms(1);
	}
}

int rcbt_capture_begin(void)
{
	FILE *f = tmpfile();
	int saved;

	CHECK(f);
	fflush(stderr);
	saved = dup(2);
	CHECK(saved >= 0);
	CHECK_EQ(dup2(fileno(f), 2), 2);
	fclose(f);
	return saved;
}

void rcbt_capture_end(int saved, char *buf, size_t len)
{
	ssize_t n;

	fflush(stderr);
	CHECK(len > 0);
	n = pread(2, buf, len - 1, 0);
	CHECK(n >= 0);
	buf[n] = '\0';
	CHECK_EQ(dup2(saved, 2), 2);
	close(saved);
}

static void *syncer_main(void *arg)
{
	struct rcbt_syncer *s = arg;

	s->ret = rcb_synchronize();
	atomic_store(&s->done, 1);
	return NULL;
}

void rcbt_syncer_start_blocked(struct rcbt_syncer *s)
{
	atomic_store(&s->done, 0);
	s->ret = -1;
	CHECK_EQ(pthread_create(&s->tid, NULL, syncer_main, s), 0);
	rcbt_sleep_ms(200);
	CHECK(!atomic_load(&s->done));
}

void rcbt_syncer_finish(struct rcbt_syncer *s)
{
	CHECK_EQ(pthread_join(s->tid, NULL), 0);
	CHECK(atomic_load(&s->done));
	CHECK_EQ(s->ret, 0);
}

/* ---- parent side ------------------------------------------------- */

struct output {
	char *buf;
	size_t len;
};

static void read_all(int fd, struct output *o)
{
	size_t cap = 4096;
	ssize_t n;

	o->buf = malloc(cap);
	o->len = 0;
	CHECK(o->buf);
	for (;;) {
		if (cap - o->len < 1024) {
			cap *= 2;
			o->buf = realloc(o->buf, cap);
			CHECK(o->buf);
		}
		n = read(fd, o->buf + o->len, cap - o->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		o->len += (size_t)n;
	}
	o->buf[o->len] = '\0';
}

/* Does the line [l, e) hold the pieces of @pat ('|'-separated) in order? */
static int line_matches(const char *l, const char *e, const char *pat)
{
	char piece[512];

	while (*pat) {
		const char *bar = strchr(pat, '|');
		size_t n = bar ? (size_t)(bar - pat) : strlen(pat);
		const char *hit;

		CHECK(n < sizeof(piece));
		memcpy(piece, pat, n);
		piece[n] = '\0';
		hit = n ? memmem(l, (size_t)(e - l), piece, n) : l;
		if (!hit)
			return 0;
		l = hit + n;
		pat += n + (bar ? 1 : 0);
	}
	return 1;
}

static int is_tag_line(const char *l)
{
	return strncmp(l, "rcbt-", 5) == 0;
}

static int output_matches(const struct output *o, const char *pat)
{
	const char *l = o->buf;

	while (*l) {
		const char *e = strchr(l, '\n');

		if (!e)
			e = l + strlen(l);
		if (!is_tag_line(l) && line_matches(l, e, pat))
			return 1;
		l = *e ? e + 1 : e;
	}
	return 0;
}

static int output_has(const struct output *o, const char *s)
{
	const char *l = o->buf;

	while (*l) {
		const char *e = strchr(l, '\n');

		if (!e)
			e = l + strlen(l);
		if (!is_tag_line(l) && memmem(l, (size_t)(e - l), s, strlen(s)))
			return 1;
		l = *e ? e + 1 : e;
	}
	return 0;
}

static void apply_env(const struct rcbt_case *c)
{
	for (int i = 0; i < RCBT_MAX && c->env[i]; i++) {
		const char *eq = strchr(c->env[i], '=');
		char name[128];

		if (!eq) {
			unsetenv(c->env[i]);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - c->env[i]),
			 c->env[i]);
		setenv(name, eq + 1, 1);
	}
}

/* Returns 1 if the case passed. */
static int run_one(const char *argv0, const struct rcbt_case *c)
{
	struct output o;
	char why[768] = "";
	int fds[2], status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	CHECK_EQ(pipe(fds), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };

		close(fds[0]);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[1]);
		setrlimit(RLIMIT_CORE, &rl);
		apply_env(c);
		alarm(CASE_TIMEOUT_S);
		execl("/proc/self/exe", argv0, "--case", c->name, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	read_all(fds[0], &o);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		CHECK(errno == EINTR);

	if (c->sig) {
		if (!WIFSIGNALED(status) || WTERMSIG(status) != c->sig ||
		    strstr(o.buf, DONE_TAG "\n"))
			snprintf(why, sizeof(why),
				 "expected death by signal %d (%s) before the end",
				 c->sig, strsignal(c->sig));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		   !strstr(o.buf, DONE_TAG "\n")) {
		snprintf(why, sizeof(why), "expected a clean exit 0");
	}
	for (int i = 0; !why[0] && i < RCBT_MAX && c->want[i]; i++)
		if (!output_matches(&o, c->want[i]))
			snprintf(why, sizeof(why), "no output line matches \"%.400s\"",
				 c->want[i]);
	for (int i = 0; !why[0] && i < RCBT_MAX && c->reject[i]; i++)
		if (output_has(&o, c->reject[i]))
			snprintf(why, sizeof(why), "output holds \"%.400s\"",
				 c->reject[i]);
	for (const char *l = o.buf; !why[0] && (l = strstr(l, EXPECT_TAG));) {
		char pat[512];
		const char *e;

		l += strlen(EXPECT_TAG);
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		snprintf(pat, sizeof(pat), "%.*s", (int)(e - l), l);
		if (!output_matches(&o, pat))
			snprintf(why, sizeof(why), "no output line matches \"%.400s\"",
				 pat);
	}

	if (why[0]) {
		printf("FAIL %s: %s; ", c->name, why);
		if (WIFSIGNALED(status))
			printf("killed by signal %d (%s)%s\n", WTERMSIG(status),
			       strsignal(WTERMSIG(status)),
			       WTERMSIG(status) == SIGALRM ? ": timed out" : "");
		else
			printf("exit status %d\n", WEXITSTATUS(status));
		printf("---- output of %s ----\n%s---- end ----\n", c->name,
		       o.buf);
	} else {
		printf("ok   %s\n", c->name);
	}
	free(o.buf);
	return !why[0];
}

int rcbt_main(int argc, char **argv, const struct rcbt_case *cases, int n)
{
	int failed = 0, ran = 0;

#ifdef RCBT_TSAN
	{
		pthread_t t;

		CHECK(pthread_create(&t, NULL, rcbt_nothing, NULL) == 0);
		pthread_join(t, NULL);
	}
#else
	(void)rcbt_nothing;
#endif
	if (argc == 3 && strcmp(argv[1], "--case") == 0) {
		for (int i = 0; i < n; i++) {
			if (strcmp(cases[i].name, argv[2]) == 0) {
				prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
				cases[i].fn(&cases[i]);
				fprintf(stderr, DONE_TAG "\n");
				exit(0);
			}
		}
		fprintf(stderr, "no case %s\n", argv[2]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++) {
		int pick = argc < 2;

		for (int a = 1; a < argc; a++)
			pick |= strncmp(cases[i].name, argv[a],
					strlen(argv[a])) == 0;
		if (!pick)
			continue;
		ran++;
		failed += !run_one(argv[0], &cases[i]);
	}
	printf("%d of %d cases failed\n", failed, ran);
	return failed || !ran ? 1 : 0;
}
