/* Bad RCUBOOST_* variables and struct rcb_config fields make rcb_init() fail
 * with -EINVAL, a precise message, and nothing started. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/unit/harness.h"

#define MAX_CASES 640

struct var {
	const char *name;
	const char *range;
	const char *bad[8];
	const char *good[4];
	int choice; /* a word from a list, not a number */
	int wide;   /* 64-bit range: 2^32 + 1 is valid */
};

static const char *const bad_words[] = {
	"garbage", "", "1x", "-1", "-0", " 1", "1 ", "+1", "0x10", "1e3",
	"99999999999999999999999", "18446744073709551615",
	"18446744073709551617", "4294967297", "4294967298", NULL,
};

static const char *const bad_choices[] = {
	"garbage", "", "-1", "1", "99999999999999999999999", NULL,
};

static const struct var vars[] = {
	{ "RCUBOOST_FLAVOR", "auto, membarrier or fence",
	  { "fence ", " fence", "fencex", "FENCE", "Auto" },
	  { "auto", "fence" }, 1, 0 },
	{ "RCUBOOST_MISUSE", "warn or abort",
	  { "warn ", "warnx", "WARN", "abort\t" },
	  { "warn", "abort" }, 1, 0 },
	{ "RCUBOOST_CALLBACK_BATCH_US", "0 to 1000000", { "1000001" },
	  { "0", "1000000" }, 0, 0 },
	{ "RCUBOOST_BOOST", "0 to 1", { "2", "10" }, { "0", "1" }, 0, 0 },
	{ "RCUBOOST_PRIO", "2 to 99", { "0", "1", "100" }, { "2", "99" }, 0, 0 },
	{ "RCUBOOST_PERIOD_MS", "1 to 10000", { "0", "10001" }, { "1", "10000" }, 0, 0 },
	{ "RCUBOOST_ELEMENTS", "2 to 64", { "0", "1", "3", "6", "65", "128" },
	  { "2", "64" }, 0, 0 },
	{ "RCUBOOST_STATS_INTERVAL", "0 to 86400", { "86401" }, { "0", "86400" }, 0, 0 },
	/* enhancements (issue 6) */
	{ "RCUBOOST_PRESSURE_CALLBACKS", "0 to 1000000000000", { "1000000000001" },
	  { "0", "1", "4294967297", "1000000000000" }, 0, 1 },
	{ "RCUBOOST_PRESSURE_BYTES", "0 to 1125899906842624",
	  { "1125899906842625" }, { "0", "4096", "4294967298" }, 0, 1 },
	{ "RCUBOOST_PRESSURE_PSI", "0 to 100", { "101" }, { "0", "1", "100" }, 0, 0 },
	{ "RCUBOOST_PRESSURE_LOW", "1 to 99", { "0", "100" }, { "1", "99" }, 0, 0 },
	{ "RCUBOOST_ESCALATE", "0 to 1000", { "1001" }, { "0", "1", "1000" }, 0, 0 },
	/* with the default booster priority 50 */
	{ "RCUBOOST_READER_PRIO", "1 to 98", { "0", "99" }, { "1", "49" }, 0, 0 },
	{ "RCUBOOST_CEILING", "1 to 98", { "0", "99" }, { "49" }, 0, 0 },
	{ "RCUBOOST_BOOSTER_CPUS", "node, all, or a CPU count from 1 to 4096",
	  { "0", "4097", "Node", "all ", "none" }, { "node", "all", "1", "4096" }, 0, 0 },
	{ "RCUBOOST_BACKEND", "sched or pi", { "Sched", "pi ", "rt_mutex" },
	  { "sched", "pi" }, 1, 0 },
	{ "RCUBOOST_PI_HELPERS", "1 to 64", { "0", "65" }, { "1", "64" }, 0, 0 },
	/* stall detector (issue 11): 0 turns it off */
	{ "RCUBOOST_STALL_MS", "0 to 3600000", { "3600001" },
	  { "0", "1", "3600000" }, 0, 0 },
	/* expedited grace periods, inheritance (issue 13) */
	{ "RCUBOOST_EXPEDITED", "0 to 1", { "2", "10" }, { "0", "1" }, 0, 0 },
	{ "RCUBOOST_INHERIT", "0 to 1", { "2", "10" }, { "0", "1" }, 0, 0 },
	{ "RCUBOOST_INHERIT_CEILING", "1 to 99", { "0", "100" }, { "1", "99" }, 0, 0 },
	/* local callback lists (issue 12) */
	{ "RCUBOOST_CALLBACK_LOCAL", "0 to 1", { "2", "10" }, { "0", "1" }, 0, 0 },
	{ "RCUBOOST_CALLBACK_FOLLOW", "0 to 1", { "2", "x" }, { "0", "1" }, 0, 0 },
	/* liburcu's callback timing for the drop-in: 0 turns it off */
	{ "RCUBOOST_URCU_CALLBACK_DELAY_US", "0 to 1000000", { "1000001", "-1" },
	  { "0", "1", "1000000" }, 0, 0 },
};

#define NVARS ((int)(sizeof(vars) / sizeof(vars[0])))

static struct rcbt_case cases[MAX_CASES];
static char names[MAX_CASES][96];
static char envs[MAX_CASES][160];
static char wants[MAX_CASES][160];
static int ncases;

static atomic_int counter;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&counter, 1);
}

/* The library works after a successful initialisation. */
static void check_works(void)
{
	struct rcb_head h;

	rcb_read_lock();
	rcb_read_unlock();
	CHECK_EQ(rcb_synchronize(), 0);
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
	CHECK_EQ(rcb_shutdown(), 0);
}

/* rcb_init(@cfg) succeeds and prints nothing. */
static void init_silently(const struct rcb_config *cfg)
{
	char out[1024];
	int saved = rcbt_capture_begin();
	int ret = rcb_init(cfg);

	rcbt_capture_end(saved, out, sizeof(out));
	if (out[0])
		fprintf(stderr, "unexpected output: %s\n", out);
	CHECK_EQ(ret, 0);
	CHECK(!out[0]);
}

static void t_bad(const struct rcbt_case *c)
{
	int tasks = rcbt_task_count();

	CHECK_EQ(rcb_init(NULL), -EINVAL);
	CHECK_EQ(rcb_init(NULL), -EINVAL);
	CHECK_EQ(rcbt_task_count(), tasks);
	CHECK_EQ(rcbt_registered(), 0);
	CHECK_EQ(rcb_shutdown(), -EALREADY);
	CHECK_EQ(unsetenv(c->arg), 0);
	init_silently(NULL);
	check_works();
}

static void t_good(const struct rcbt_case *c)
{
	init_silently(NULL);
	if (strcmp(c->arg, "RCUBOOST_FLAVOR") == 0 &&
	    strcmp(getenv(c->arg), "fence") == 0)
		CHECK_EQ(rcb_flavor(), RCB_FLAVOR_FENCE);
	if (strcmp(c->arg, "RCUBOOST_MISUSE") == 0) {
		if (strcmp(getenv(c->arg), "abort") == 0)
			rcbt_expect("rcuboost: aborting");
		else
			rcbt_expect("rcuboost: misuse: rcb_read_unlock: ");
		rcb_read_unlock();
	}
	check_works();
}

/* A variable is not read when its struct rcb_config field is set. */
static void t_ignored(const struct rcbt_case *c)
{
	struct rcb_config cfg = { .misuse = RCB_MISUSE_WARN };

	switch (c->num) {
	case 0: cfg.flavor = RCB_FLAVOR_REQUIRE_FENCE; break;
	case 1: cfg.misuse = RCB_MISUSE_WARN; break;
	case 2: cfg.callback_batch_us = 5; break;
	case 3: cfg.boost = -1; break;
	case 4: cfg.boost_prio = 10; break;
	case 5: cfg.boost_period_ms = 5; break;
	case 6: cfg.boost_elements = 8; break;
	case 7: cfg.stats_interval_s = 86400; break;
	case 8: cfg.pressure_callbacks = 100; break;
	case 9: cfg.pressure_bytes = 4096; break;
	case 10: cfg.pressure_psi = 50; break;
	case 11: cfg.pressure_low_pct = 10; break;
	case 12: cfg.escalate_periods = 2; break;
	case 13: cfg.boost_reader_prio = 20; break;
	case 14: cfg.boost_ceiling = 49; break;
	case 15: cfg.booster_cpus = -1; break;
	case 16: cfg.boost_backend = RCB_BACKEND_SCHED; break;
	case 17: cfg.pi_helpers = 2; break;
	case 18: cfg.stall_ms = 5000; break;
	case 19: cfg.size = sizeof(cfg); cfg.expedited = -1; break;
	case 20: cfg.size = sizeof(cfg); cfg.inherit = -1; break;
	case 21: cfg.size = sizeof(cfg); cfg.inherit_ceiling = 50; break;
	case 22: cfg.size = sizeof(cfg); cfg.callback_local = -1; break;
	case 23: cfg.size = sizeof(cfg); cfg.callback_follow = -1; break;
	case 24: cfg.size = sizeof(cfg); cfg.urcu_callback_delay_us = -1; break;
	}
	init_silently(&cfg);
	check_works();
}

static void t_cfg_bad(const struct rcbt_case *c)
{
	struct rcb_config cfg = { 0 };
	int tasks = rcbt_task_count();

	switch (c->num) {
	case 0: cfg.flavor = (enum rcb_flavor_request)3; break;
	case 1: cfg.misuse = (enum rcb_misuse_policy)3; break;
	case 2: cfg.boost = 2; break;
	case 3: cfg.boost = -2; break;
	case 4: cfg.boost_prio = -1; break;
	case 5: cfg.boost_prio = 100; break;
	case 6: cfg.boost_period_ms = 10001; break;
	case 7: cfg.boost_elements = 1; break;
	case 8: cfg.boost_elements = 3; break;
	case 9: cfg.boost_elements = 128; break;
	case 10: cfg.callback_batch_us = 1000001; break;
	case 11: cfg.stats_interval_s = 86401; break;
	case 12: cfg.flavor = (enum rcb_flavor_request)-1; break;
	case 13: cfg.pressure_psi = 101; break;
	case 14: cfg.pressure_low_pct = 100; break;
	case 15: cfg.escalate_periods = 1001; break;
	case 16: cfg.boost_reader_prio = 99; break;
	case 17: cfg.boost_ceiling = -1; break;
	case 18: cfg.booster_cpus = -2; break;
	case 19: cfg.boost_backend = 3; break;
	case 20: cfg.pi_helpers = 65; break;
	/* combinations */
	case 21: cfg.boost_reader_prio = 40; cfg.boost_ceiling = 30; break;
	case 22: cfg.boost_ceiling = 50; break;
	case 23: cfg.boost_machine = 8; cfg.escalate_periods = 1; break;
	case 24: cfg.boost_machine = 8; cfg.pressure_callbacks = 10; break;
	case 25: cfg.boost_machine = 8; cfg.booster_cpus = 1; break;
	case 26: cfg.boost_prio = 30; cfg.boost_reader_prio = 40; break;
	case 27: cfg.stall_ms = -2; break;
	case 28: cfg.stall_ms = 3600001; break;
	/* fields past RCB_CONFIG_SIZE_V1: the size says they are set */
	case 29: cfg.size = sizeof(cfg); cfg.expedited = 2; break;
	case 30: cfg.size = sizeof(cfg); cfg.inherit = -2; break;
	case 31: cfg.size = sizeof(cfg); cfg.inherit_ceiling = 100; break;
	case 32:
		cfg.size = sizeof(cfg);
		cfg.boost_machine = 8;
		cfg.inherit = 1;
		break;
	case 33: cfg.boost_prio = 1; break;
	case 34: cfg.size = sizeof(cfg); cfg.reserved_v1 = 5; break;
	/* the ceiling left at its default, below the first boost */
	case 35: cfg.boost_reader_prio = 60; break;
	case 36: cfg.size = sizeof(cfg); cfg.urcu_callback_delay_us = -2; break;
	case 37:
		cfg.size = sizeof(cfg);
		cfg.urcu_callback_delay_us = 1000001;
		break;
	}
	CHECK_EQ(rcb_init(&cfg), -EINVAL);
	CHECK_EQ(rcbt_task_count(), tasks);
	CHECK_EQ(rcb_shutdown(), -EALREADY);
	init_silently(NULL);
	check_works();
}

static const char *const cfg_bad_wants[] = {
	"rcb_init: |flavor",      "rcb_init: |misuse",
	"rcb_init: |boost|-1",    "rcb_init: |boost|-1",
	"rcb_init: |boost_prio|99", "rcb_init: |boost_prio|99",
	"rcb_init: |boost_period_ms|10000", "rcb_init: |boost_elements|64",
	"rcb_init: |boost_elements|64", "rcb_init: |boost_elements|64",
	"rcb_init: |callback_batch_us|1000000",
	"rcb_init: |stats_interval_s|86400", "rcb_init: |flavor",
	"rcb_init: |pressure_psi|1 to 100", "rcb_init: |pressure_low_pct|1 to 99",
	"rcb_init: |escalate_periods|1 to 1000", "rcb_init: |boost_reader_prio|1 to 98",
	"rcb_init: |boost_ceiling|1 to 98", "rcb_init: |booster_cpus|1 to 4096",
	"rcb_init: |boost_backend|_PI", "rcb_init: |pi_helpers|1 to 64",
	"invalid combination|boost priority 40 (boost_reader_prio, RCUBOOST_READER_PRIO)|above the ceiling 30",
	"invalid combination|the ceiling 50|must be below the booster's priority 50 (boost_prio",
	"invalid combination|3-state machine",
	"invalid combination|3-state machine",
	"invalid combination|3-state machine",
	"invalid combination|above the ceiling",
	"rcb_init: |stall_ms|-2|-1 (off), 0 (default 10000) or 1 to 3600000",
	"rcb_init: |stall_ms|3600001|1 to 3600000",
	"rcb_init: |expedited|2|-1 (off), 0 (default) or 1 (on)",
	"rcb_init: |inherit|-2|-1 (off), 0 (default) or 1 (on)",
	"rcb_init: |inherit_ceiling|100|0 (default 99) or 1 to 99",
	"invalid combination|inheritance|3-state machine",
	"rcb_init: |boost_prio|1|0 (default) or 2 to 99",
	"rcb_init: |reserved_v1 = 5|0 (reserved)",
	"invalid combination|above the ceiling, which defaults to one below|RCUBOOST_CEILING",
	"rcb_init: |urcu_callback_delay_us|-2|-1 (none), 0 (default 10000) or 1 to 1000000",
	"rcb_init: |urcu_callback_delay_us|1000001|1 to 1000000",
};

static const char *const cfg_bad_names[] = {
	"flavor=3", "misuse=3", "boost=2", "boost=-2", "boost_prio=-1",
	"boost_prio=100", "boost_period_ms=10001", "boost_elements=1",
	"boost_elements=3", "boost_elements=128", "callback_batch_us=1000001",
	"stats_interval_s=86401", "flavor=-1",
	"pressure_psi=101", "pressure_low_pct=100", "escalate_periods=1001",
	"boost_reader_prio=99", "boost_ceiling=-1", "booster_cpus=-2",
	"boost_backend=3", "pi_helpers=65", "reader_prio>ceiling",
	"ceiling>=boost_prio", "machine8+escalate", "machine8+pressure",
	"machine8+booster_cpus", "reader_prio>=boost_prio",
	"stall_ms=-2", "stall_ms=3600001",
	"expedited=2", "inherit=-2", "inherit_ceiling=100", "machine8+inherit",
	"boost_prio=1", "reserved_v1=5", "reader_prio>default ceiling",
	"urcu_callback_delay_us=-2", "urcu_callback_delay_us=1000001",
};

/* RCUBOOST_EARLY is read by the shared library's constructor, before
 * main(): a bad value is named there, and nothing starts early. */
static void t_early(const struct rcbt_case *c)
{
	(void)c;
	CHECK(rcb_booster_tids(NULL, 0) == 0);
	CHECK(rcb_callback_tids(NULL, 0) == 0);
}

/* RCUBOOST_EARLY spelt with a leading zero starts the library before
 * main(), as "1" does (the rules of every numeric setting): its
 * boosters run before any call.  Without permission for real-time
 * priority there are none to see. */
static void t_early_on(const struct rcbt_case *c)
{
	(void)c;
	if (geteuid() != 0) {
		printf("not root: the early boosters are not visible\n");
		return;
	}
	CHECK(rcb_booster_tids(NULL, 0) > 0);
}

/* rcb_init() with settings other than those RCUBOOST_EARLY=1 started
 * the library with: -EBUSY, and the message says who initialised it. */
static void t_early_busy(const struct rcbt_case *c)
{
	struct rcb_config cfg = { .boost_prio = 60 };

	(void)c;
	CHECK_EQ(rcb_init(&cfg), -EBUSY);
}

/* rcb_init() with other settings while initialised: -EBUSY, and the
 * hint fits the setting (probe, 2026-12-06: a fixed one was told to
 * shut down first, which could not help).  @c->num 0: boost_elements,
 * fixed for the life of the process; 1: boost_prio, which a
 * re-initialisation after rcb_shutdown() may change. */
static void t_init_busy_hint(const struct rcbt_case *c)
{
	struct rcb_config cfg = { .size = sizeof(cfg) };

	if (c->num == 0)
		cfg.boost_elements = 8;
	else
		cfg.boost_prio = 60;
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_init(&cfg), -EBUSY);
	CHECK_EQ(rcb_shutdown(), 0);
}

/* An expedited grace period with boosting turned off: it works, and
 * says once why it cannot boost, naming the setting. */
static void t_expedited_boost_off(const struct rcbt_case *c)
{
	(void)c;
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_synchronize_expedited(), 0);
	CHECK_EQ(rcb_synchronize_expedited(), 0);
	CHECK_EQ(rcb_shutdown(), 0);
}

/* A bad variable at a first use (no rcb_init()), which has no error
 * to return: the process stops, naming the variable and why. */
static void t_lazy_bad(const struct rcbt_case *c)
{
	switch (c->num) {
	case 0:
		rcb_read_lock();
		rcb_read_unlock();
		break;
	case 1:
		(void)rcb_synchronize();
		break;
	}
	fprintf(stderr, "survived a first use with a bad environment\n");
}

static const char *const early_bad[] = {
	"garbage", "", "2", "10", " 1", "1 ", "yes", "-1", "1x", NULL,
};

static struct rcbt_case *add(const char *name,
			     void (*fn)(const struct rcbt_case *))
{
	struct rcbt_case *c;

	CHECK(ncases < MAX_CASES);
	c = &cases[ncases];
	snprintf(names[ncases], sizeof(names[0]), "%s", name);
	c->name = names[ncases];
	c->fn = fn;
	/* Every case starts from a clean environment. */
	for (int i = 0; i < NVARS; i++)
		c->env[i] = vars[i].name;
	ncases++;
	return c;
}

static void set_env(struct rcbt_case *c, int slot, const char *var,
		    const char *val)
{
	int k = (int)(c - cases);

	snprintf(envs[k], sizeof(envs[0]), "%s=%s", var, val);
	c->env[slot] = envs[k];
}

static void add_bad(int v, const char *val)
{
	char name[96], shown[40];
	struct rcbt_case *c;
	int k;

	snprintf(shown, sizeof(shown), "%s", val);
	for (char *p = shown; *p; p++)
		if (*p == '\t')
			*p = '~';
	snprintf(name, sizeof(name), "bad/%s/\"%s\"", vars[v].name, shown);
	c = add(name, t_bad);
	k = (int)(c - cases);
	set_env(c, v, vars[v].name, val);
	c->arg = vars[v].name;
	snprintf(wants[k], sizeof(wants[0]), "rcuboost: |%s|%s", vars[v].name,
		 vars[v].range);
	c->want[0] = wants[k];
#if defined(__SANITIZE_ADDRESS__)
	/* LeakSanitizer's exit-time scan is half of this test's time under
	 * ASan: it checks the first bad value of each variable (and every
	 * other kind of case); the rest take the same refusal path. */
	{
		static int last_v = -1;

		if (v == last_v)
			c->env[NVARS] = "ASAN_OPTIONS=detect_leaks=0";
		last_v = v;
	}
#endif
}

/* Under ASan, each bad value is a fresh process with the sanitizer's
 * start and exit: only the values whose parsing reads furthest (a word,
 * the empty string, digits past every width) and a variable's first own
 * bad value; the plain build refuses every one.  @i: the index in the
 * variable's own list, or -1 for a shared word. */
static bool asan_skip(const char *val, int i)
{
#if defined(__SANITIZE_ADDRESS__)
	if (i >= 0)
		return i > 0;
	return strcmp(val, "garbage") != 0 && val[0] != '\0' &&
	       strlen(val) < 20;
#else
	(void)val;
	(void)i;
	return false;
#endif
}

static void build_cases(void)
{
	struct rcbt_case *c;
	char name[96];

	for (int v = 0; v < NVARS; v++) {
		int choice = vars[v].choice;

		for (int i = 0;
		     choice ? bad_choices[i] != NULL : bad_words[i] != NULL;
		     i++) {
			if (vars[v].wide && !choice &&
			    strncmp(bad_words[i], "429496729", 9) == 0)
				continue;
			const char *w = choice ? bad_choices[i] : bad_words[i];

			if (!asan_skip(w, -1))
				add_bad(v, w);
		}
		for (int i = 0; i < 8 && vars[v].bad[i]; i++)
			if (!asan_skip(vars[v].bad[i], i))
				add_bad(v, vars[v].bad[i]);
		for (int i = 0; i < 4 && vars[v].good[i]; i++) {
			snprintf(name, sizeof(name), "good/%s=%s", vars[v].name,
				 vars[v].good[i]);
			c = add(name, t_good);
			set_env(c, v, vars[v].name, vars[v].good[i]);
			c->arg = vars[v].name;
			if (v == 1 && strcmp(vars[v].good[i], "abort") == 0)
				c->sig = SIGABRT;
		}
		snprintf(name, sizeof(name), "ignored/%s", vars[v].name);
		c = add(name, t_ignored);
		set_env(c, v, vars[v].name, "garbage");
		c->num = v;
	}
	for (int i = 0; early_bad[i]; i++) {
		snprintf(name, sizeof(name), "early/bad/\"%s\"", early_bad[i]);
		c = add(name, t_early);
		set_env(c, NVARS, "RCUBOOST_EARLY", early_bad[i]);
		c->want[0] = "rcuboost: |RCUBOOST_EARLY|is invalid: expected 0 or 1";
	}
	for (int i = 0; i < 2; i++) {
		c = add(i ? "lazy_bad/synchronize" : "lazy_bad/read_lock", t_lazy_bad);
		set_env(c, 0, vars[0].name, "garbage");
		c->num = i;
		c->sig = SIGABRT;
		c->want[0] = wants[(int)(c - cases)];
		snprintf(wants[(int)(c - cases)], sizeof(wants[0]),
			 "rcuboost: |%s|is invalid", vars[0].name);
		c->want[1] = "rcuboost: fatal: cannot start|environment is invalid|Fix or unset";
		c->reject[0] = "survived";
	}
	c = add("early/0", t_early);
	set_env(c, NVARS, "RCUBOOST_EARLY", "0");
	c->reject[0] = "RCUBOOST_EARLY";
	c = add("expedited/boost_off", t_expedited_boost_off);
	set_env(c, NVARS, "RCUBOOST_BOOST", "0");
	c->want[0] = "rcb_synchronize_expedited: an expedited grace period|cannot boost its readers: boosting is off (RCUBOOST_BOOST=0";
	c = add("early/busy", t_early_busy);
	set_env(c, NVARS, "RCUBOOST_EARLY", "1");
	c->want[0] = "rcb_init: already initialised with a different boost_prio|RCUBOOST_EARLY=1, before main()";
	c = add("init/busy_fixed", t_init_busy_hint);
	c->num = 0;
	c->want[0] = "already initialised with a different boost_elements|boost_elements cannot change for the life of the process";
	c->reject[0] = "call rcb_shutdown() first";
	c = add("init/busy_changeable", t_init_busy_hint);
	c->num = 1;
	c->want[0] = "already initialised with a different boost_prio; call rcb_shutdown() first";
	c->reject[0] = "for the life of the process";
	c = add("early/01", t_early_on);
	set_env(c, NVARS, "RCUBOOST_EARLY", "01");
	c->reject[0] = "RCUBOOST_EARLY";
	for (int i = 0;
	     i < (int)(sizeof(cfg_bad_names) / sizeof(cfg_bad_names[0])); i++) {
		snprintf(name, sizeof(name), "config/%s", cfg_bad_names[i]);
		c = add(name, t_cfg_bad);
		c->num = i;
		c->want[0] = cfg_bad_wants[i];
		/* It names the bad field, not a list of every field. */
		c->reject[0] = i == 11 ? "boost_prio" : "stats_interval_s";
	}
}

int main(int argc, char **argv)
{
	build_cases();
	return rcbt_main(argc, argv, cases, ncases);
}
