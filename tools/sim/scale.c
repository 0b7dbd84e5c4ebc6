/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-scale: the scale study of issue 15 (doc/scale.md).
 *
 * What is run and what is modelled.  The library's code cannot run on
 * 1,024 CPUs with 10^6 threads on a 2-CPU machine, and rcuboost-sim's
 * scheduler holds 64 real pthreads.  This tool is therefore a cost model,
 * evaluated in closed form for the busiest booster pass (not an event-
 * driven run), of the parts of the library whose cost grows with the
 * machine, counted from the code:
 *   - the grace period: membarrier(s) (an IPI to every CPU running one of
 *     our threads) and the registry scan (one ctr load per registered
 *     thread, gp.c readers_hold());
 *   - each booster's pass (booster_pass.c): the aged element of each of
 *     its CPUs (lock, walk, unlock), the boosts of the readers aged out
 *     (getattr + setattr + yield each), and, once a grace period has
 *     waited a period, the on-behalf scan of the whole registry under the
 *     registry lock with a /proc read of the last CPU of every holding
 *     reader not yet queued (made before the "is it my CPU" test, so by
 *     every booster), and a membarrier per batch of 64 queued;
 *   - aging: a reader queued at index k is boosted when the booster's
 *     index reaches k - 1, elements - 1 passes later;
 *   - the article's OOM scenario: hogs (SCHED_FIFO above the readers) on
 *     half the CPUs for 1 s, each preempting a reader inside its section;
 *     0.1% of the threads blocked inside sections (queued by themselves);
 *     updaters on the other half queueing a callback every 150 us each;
 *     the backlog is what was queued and not yet invoked.
 * Readers that do not run are records (a count), not threads: the O(threads)
 * work is the scans over them.  Every cost is a unit cost measured on this
 * machine by rcuboost-calib (or fitted to rcuboost-bench scale) times a
 * count of the operations the code makes; the parameters the 2-CPU machine
 * cannot measure (IPI send cost per extra CPU, remote-node penalty, node
 * size) are named assumptions, printed with the results.
 * Output: CSV on stdout, one row per (variant, CPUs, threads).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unit costs in ns.  Defaults: rcuboost-calib on this machine (see
 * doc/scale.md for the run), overridable with --calib FILE. */
static struct {
	const char *name;
	double v;
	const char *what;
} K[] = {
#define C_MB 0
	{ "membarrier", 1032, "membarrier, no other CPU runs our threads" },
#define C_MB_IPI 1
	{ "membarrier_ipi", 20639, "membarrier, one other CPU runs our thread" },
#define C_GETATTR 2
	{ "getattr", 982, "sched_getattr" },
#define C_SETATTR 3
	{ "setattr", 3376, "sched_setattr to FIFO and back (2 calls)" },
#define C_PROC 4
	{ "proc_cpu", 6503, "open+read+close /proc/self/task/TID/stat" },
#define C_FUTEX 5
	{ "futex_wake", 1042, "FUTEX_WAKE, no waiter (any cheap syscall)" },
#define C_MUTEX 6
	{ "mutex", 12, "uncontended mutex lock+unlock" },
	/* Fitted to rcuboost-bench scale (grace period, N idle registered). */
#define C_SCAN_HIT 7
	{ "scan_hit", 5.98, "registry scan per thread, first scan_cache threads" },
#define C_SCAN_MISS 8
	{ "scan_miss", 9.9, "registry scan per thread past scan_cache" },
#define C_SCAN_CACHE 9
	{ "scan_cache", 1000, "threads whose records stay cached" },
	/* Assumptions (not measurable on 2 CPUs). */
#define C_IPI_SEND 10
	{ "ipi_send", 100, "ASSUMED: membarrier cost per extra CPU running our threads" },
#define C_NODE_CPUS 11
	{ "node_cpus", 64, "ASSUMED: CPUs per NUMA node" },
#define C_REMOTE 12
	{ "remote_factor", 2, "ASSUMED: scan cost factor for a record on another node" },
#define C_REST 13
	{ "section_rest", 100000, "ASSUMED: rest of a boosted reader's section" },
	/* Fitted to rcuboost-bench boosters (1000 boosts, booster CPU time). */
#define C_BOOST 14
	{ "boost", 7900, "one boost by the booster, all included (sched backend)" },
#define C_PI_HELPERS 15
	{ "pi_helpers", 4, "pi backend helpers (RCUBOOST_PI_HELPERS, default 4)" },
};
#define NK (sizeof(K) / sizeof(K[0]))
#define k(i) (K[i].v)

#define PERIOD_NS 10e6
#define ELEMENTS 4
#define HOG_NS 1e9
#define CB_EVERY_NS 150e3
#define PRESSURE_THR 64
#define PRESSURE_POLL_NS 1e6
#define MAX_HELPERS 4096
#define ENQ_BATCH 64

/* V_SHARD*: not in the library, the change doc/scale.md proposes: each
 * booster scans only its own shard of the registry (threads last seen on
 * its CPUs, under a lock of its own) and reads /proc only for them. */
enum variant {
	V_NONE,
	V_3,
	V_3NODE,
	V_3PER16,
	V_8,
	V_PI,
	V_PRESSURE,
	V_SHARD_NODE,
	V_SHARD_PER16,
	NV
};
static const char *const vname[NV] = { "none", "3state", "3state-node", "3state-per16",
				       "8state", "pi", "pressure", "shard-node",
				       "shard-per16" };

struct result {
	double gp_idle_us;   /* grace period, every thread blocked outside */
	double gp_busy_us;   /* grace period, a reader running on every CPU */
	int boosters;
	/* booster CPU per pass, busiest pass, per booster */
	double pass_cpu_us;
	double pass_wall_us; /* the same with the registry-lock wait */
	/* worst preempted reader: stall begin -> boosted */
	double boost_ms;
	double boost_mean_ms; /* mean over the boosters' phases */
	double gp_stall_ms;  /* grace period under the inversion */
	double backlog;      /* peak callbacks queued, not invoked */
};

static double membarrier_ns(int running)
{
	/* No IPI when no other CPU runs our threads; one IPI round trip
	 * (measured) plus a send per further CPU (assumed). */
	if (running <= 1)
		return k(C_MB);
	return k(C_MB_IPI) + (running - 2) * k(C_IPI_SEND);
}

static double numa(int cpus)
{
	double local = cpus <= k(C_NODE_CPUS) ? 1.0 : k(C_NODE_CPUS) / cpus;

	return local + (1 - local) * k(C_REMOTE);
}

static double scan_ns(double threads, int cpus)
{
	double hit = fmin(threads, k(C_SCAN_CACHE));

	return (hit * k(C_SCAN_HIT) + (threads - hit) * k(C_SCAN_MISS)) *
	       numa(cpus);
}

/* One booster during the stall. */
struct booster {
	int cpus;          /* CPUs it owns */
	int hogged;        /* of which hogged: one preempted reader each */
	double blocked;    /* self-queued blocked readers on its CPUs */
	double next;       /* time of its next pass */
	int idx;           /* rcu_boost_idx */
	int queued_idx;    /* element its preempted readers wait on, -1 */
	int boosted;       /* preempted readers boosted so far */
	double blocked_left; /* pressure: blocked readers not boosted yet */
	double cpu;        /* CPU time of its busiest pass */
	double wall;       /* wall time of its busiest pass */
};

#define MAXB 1024

/*
 * The stall of the OOM scenario, pass by pass.  At time 0 the hogs start
 * (phase: where the boosters' passes stand then, as a fraction of a
 * period) and a grace period starts waiting for their preempted readers;
 * it kicks the boosters at once (its spin phase is microseconds).
 * Returns the time the last preempted reader is boosted; fills the
 * busiest pass of any booster.
 */
static double stall(enum variant v, int cpus, double threads, int nb,
		    double phase, double lambda, double *pass_cpu,
		    double *pass_wall)
{
	static struct booster B[MAXB];
	int hogged = cpus / 2 > 0 ? cpus / 2 : 1;
	int running = cpus < threads ? cpus : (int)threads;
	double blocked = floor(threads / 1000), lock_free = 0, last = 0;
	static double helpers[MAX_HELPERS];
	int nhelpers = (int)fmin(fmax(k(C_PI_HELPERS), 1), MAX_HELPERS);
	double boost_cost = k(C_BOOST);
	double kick = -1, walk = k(C_MUTEX) + 20;
	bool shard = v == V_SHARD_NODE || v == V_SHARD_PER16;
	int done = 0;

	if (v == V_PI)
		/* system calls per boost: 6 against 4 */
		boost_cost *= 6.0 / 4.0;
	if (v == V_8)
		boost_cost += 2 * 20;   /* two state cmpxchg per boost */
	memset(helpers, 0, sizeof(helpers));
	if (v == V_PRESSURE) /* backlog past the threshold, next 1 ms poll */
		kick = ceil(PRESSURE_THR / lambda / PRESSURE_POLL_NS) *
		       PRESSURE_POLL_NS;
	for (int b = 0; b < nb; b++) {
		B[b] = (struct booster){ 0 };
		B[b].cpus = cpus / nb + (b < cpus % nb);
		/* Hogs on every other CPU: half of each booster's CPUs. */
		B[b].hogged = B[b].cpus / 2 > 0 ? B[b].cpus / 2 : (b < hogged);
		B[b].blocked = blocked * B[b].cpus / cpus;
		B[b].blocked_left = B[b].blocked;
		B[b].queued_idx = -1;
		/* Boosters with queued (blocked) readers are not idle: their
		 * passes have a phase; idle ones are kicked at 0. */
		B[b].next = blocked >= 1 ? phase * PERIOD_NS : 0;
	}
	*pass_cpu = *pass_wall = 0;
	while (done < hogged) {
		struct booster *p = &B[0];
		double t, cpu = 0, boosts;
		bool aggressive;

		for (int b = 1; b < nb; b++)
			if (B[b].next < p->next)
				p = &B[b];
		t = p->next;
		if (t > HOG_NS)
			break; /* the hogs end first */
		if (kick >= 0 && t > kick) { /* a pressure kick wakes it */
			t = kick;
			for (int b = 0; b < nb; b++)
				B[b].next = fmin(B[b].next, kick);
		}
		aggressive = kick >= 0 && t >= kick;
		p->idx = (p->idx + 1) % ELEMENTS;
		/* The aged element of each CPU (all elements under pressure).
		 */
		cpu += p->cpus * walk * (aggressive ? ELEMENTS : 1);
		boosts = aggressive ? p->blocked_left : p->blocked / ELEMENTS;
		p->blocked_left -= aggressive ? p->blocked_left : 0;
		cpu += boosts * boost_cost;
		if (p->queued_idx >= 0 &&
		    (aggressive || (p->idx + 1) % ELEMENTS == p->queued_idx)) {
			for (; p->boosted < p->hogged; p->boosted++) {
				double at = t + cpu + boost_cost;

				/* a free helper, else next pass */
				if (v == V_PI) {
					int h = 0;

					for (int i = 1; i < nhelpers; i++)
						if (helpers[i] < helpers[h])
							h = i;
					if (helpers[h] > at)
						break;
					helpers[h] =
						at + k(C_REST) + 2 * k(C_FUTEX);
				}
				cpu += boost_cost;
				last = fmax(last, at);
				done++;
			}
		}
		/* On-behalf queueing once the grace period waited a period
		 * (at once under pressure): the whole registry under its
		 * lock, /proc for every holding reader not queued yet (of
		 * every booster: the ownership test comes after it). */
		if (aggressive || t >= PERIOD_NS) {
			double unq = 0, hold, start;

			for (int b = 0; b < nb; b++)
				if (!shard || &B[b] == p)
					unq += B[b].queued_idx < 0 ?
						       B[b].hogged :
						       0;
			hold = scan_ns(shard ? threads * p->cpus / cpus :
					       threads,
				       cpus) +
			       unq * k(C_PROC);
			if (p->queued_idx < 0 && p->hogged) {
				hold += ceil((double)p->hogged / ENQ_BATCH) *
					membarrier_ns(running);
				p->queued_idx = p->idx;
				/* boosted by this pass's walk */
				if (aggressive) {
					for (; p->boosted < p->hogged;
					     p->boosted++) {
						cpu += boost_cost;
						last = fmax(last,
							    t + cpu + hold);
						done++;
					}
				}
			}
			start = shard ? t + cpu : fmax(t + cpu, lock_free);
			if (!shard)
				lock_free = start + hold;
			cpu += hold;
			*pass_wall = fmax(*pass_wall, start + hold - t);
		} else {
			*pass_wall = fmax(*pass_wall, cpu);
		}
		*pass_cpu = fmax(*pass_cpu, cpu);
		/* The booster sleeps a period after its pass (1 ms under
		 * pressure). */
		p->next = (shard ? t + cpu : fmax(t + cpu, lock_free)) +
			  (aggressive ? PRESSURE_POLL_NS : PERIOD_NS);
	}
	return done < hogged ? HOG_NS : last;
}

static void model(enum variant v, int cpus, double threads, struct result *r)
{
	int running = cpus < threads ? cpus : (int)threads;
	int hogged = cpus / 2 > 0 ? cpus / 2 : 1;
	int updaters = cpus - hogged > 0 ? cpus - hogged : 1;
	double lambda = updaters / CB_EVERY_NS; /* callbacks per ns */
	double worst = 0, sum = 0, cpu, wall, end;
	int nb = 1, nphase = 10;

	memset(r, 0, sizeof(*r));
	r->gp_idle_us = (k(C_MB) + scan_ns(threads, cpus)) / 1e3;
	/* Readers running short sections are mostly read at 0: [GP-B]'s
	 * second membarrier is skipped (gp.c invariant 6), as
	 * rcuboost-bench sync.busy shows (one IPI round trip). */
	r->gp_busy_us = (membarrier_ns(running) + scan_ns(threads, cpus)) / 1e3;
	if (v == V_NONE) {
		r->boost_ms = r->boost_mean_ms = NAN;
		r->gp_stall_ms = HOG_NS / 1e6;
		r->backlog = lambda * (HOG_NS + 2 * r->gp_busy_us * 1e3);
		return;
	}
	if (v == V_3NODE || v == V_SHARD_NODE)
		nb = (int)ceil(cpus / k(C_NODE_CPUS));
	else if (v == V_3PER16 || v == V_SHARD_PER16)
		nb = cpus / 16 > 1 ? cpus / 16 : 1;
	r->boosters = nb;
	for (int ph = 0; ph < nphase; ph++) {
		double lat = stall(v, cpus, threads, nb, (double)ph / nphase,
				   lambda, &cpu, &wall);

		worst = fmax(worst, lat);
		sum += lat;
		r->pass_cpu_us = fmax(r->pass_cpu_us, cpu / 1e3);
		r->pass_wall_us = fmax(r->pass_wall_us, wall / 1e3);
	}
	r->boost_ms = worst / 1e6;
	r->boost_mean_ms = sum / nphase / 1e6;
	/* The grace period ends when the last boosted reader has left its
	 * section and a last scan saw it; the callbacks queued meanwhile
	 * wait for that and for the next grace period. */
	end = fmin(HOG_NS, worst + k(C_REST)) + r->gp_busy_us * 1e3;
	r->gp_stall_ms = end / 1e6;
	r->backlog = lambda * (end + r->gp_busy_us * 1e3);
}

static int load_calib(const char *path)
{
	FILE *f = fopen(path, "r");
	char name[64];
	double val;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fscanf(f, "%63s %lf", name, &val) == 2) {
		size_t i;

		for (i = 0; i < NK; i++)
			if (!strcmp(K[i].name, name))
				K[i].v = val;
		if (i == NK)
			for (i = 0; i < NK && strcmp(K[i].name, name); i++)
				;
		if (i == NK)
			fprintf(stderr, "rcuboost-scale: %s: unknown cost '%s' ignored\n",
				path, name);
	}
	fclose(f);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rcuboost-scale [--calib FILE] [--set NAME=NS]... [--quick] [--costs]\n"
		"Simulate the grace period, the boosters' passes, boost latency and the\n"
		"callback backlog of the article's OOM scenario (1 s hogs on half the CPUs)\n"
		"for 2-1024 CPUs and 10^3-10^6 threads, per variant (none, 3state, one\n"
		"booster per node, per 16 CPUs, 8state, pi, pressure).  CSV on stdout.\n"
		"  --calib FILE  unit costs, \"name ns\" lines (rcuboost-calib output)\n"
		"  --set N=V     override one cost (e.g. ipi_send=500)\n"
		"  --quick       CPUs 2 and 64, threads 10^3 and 10^4 only\n"
		"  --costs       print the unit costs and exit\n"
		"  --calibration print the model's 2-CPU figures for the real measurements\n");
}

static void print_costs(FILE *out)
{
	for (size_t i = 0; i < NK; i++)
		fprintf(out, "# %-14s %10.2f  %s\n", K[i].name, K[i].v, K[i].what);
}

/* The model at 2 CPUs in the configurations rcuboost-bench measured. */
static void calibration(void)
{
	static const double idle[] = { 10, 100, 1000, 10000 };
	struct result r;

	printf("figure,model\n");
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		printf("scale.gp%.0f us,%.2f\n", idle[i],
		       (k(C_MB) + scan_ns(idle[i], 2)) / 1e3);
	/* boosters: 1000 blocked readers, all boosted by one booster. */
	printf("boosters: booster CPU for 1000 boosts ms,%.2f\n", 1000 * k(C_BOOST) / 1e6);
	printf("boosters: unit-cost sum per boost (getattr+setattr/2+yield+lock) us,%.2f\n",
	       (k(C_GETATTR) + k(C_SETATTR) / 2 + k(C_FUTEX) + k(C_MUTEX)) /
		       1e3);
	model(V_3, 2, 10, &r);
	printf("inversion: grace period 1 s hog plain ms,%.1f\n", r.gp_stall_ms);
	model(V_PI, 2, 10, &r);
	printf("inversion: grace period 1 s hog pi ms,%.1f\n", r.gp_stall_ms);
	model(V_NONE, 2, 10, &r);
	printf("inversion: grace period 1 s hog none ms,%.1f\n", r.gp_stall_ms);
	model(V_3, 2, 2, &r);
	printf("sync.busy (a reader running on the other CPU) us,%.2f\n", r.gp_busy_us);
	model(V_PRESSURE, 2, 10, &r);
	printf("pressure: grace period ms,%.1f\n", r.gp_stall_ms);
	printf("pressure: peak backlog callbacks,%.0f\n", r.backlog);
	model(V_3, 2, 10, &r);
	printf("plain: peak backlog callbacks,%.0f\n", r.backlog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "calib", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "quick", no_argument, NULL, 'q' },
		{ "costs", no_argument, NULL, 'k' },
		{ "calibration", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int cpus[] = { 2, 64, 256, 1024 };
	static const double threads[] = { 1e3, 1e4, 1e5, 1e6 };
	bool quick = false, costs = false, calib_only = false;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (load_calib(optarg))
				return 2;
			break;
		case 's': {
			char *eq = strchr(optarg, '=');
			size_t i;

			for (i = 0; eq && i < NK; i++)
				if (!strncmp(K[i].name, optarg,
					     (size_t)(eq - optarg)) &&
				    !K[i].name[eq - optarg])
					break;
			if (!eq || i == NK) {
				fprintf(stderr, "rcuboost-scale: --set %s: unknown cost\n", optarg);
				return 2;
			}
			K[i].v = strtod(eq + 1, NULL);
			break;
		}
		case 'q':
			quick = true;
			break;
		case 'k':
			costs = true;
			break;
		case 'C':
			calib_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (costs) {
		print_costs(stdout);
		return 0;
	}
	if (calib_only) {
		calibration();
		return 0;
	}
	print_costs(stdout);
	printf("variant,cpus,threads,boosters,gp_idle_us,gp_busy_us,pass_cpu_us,"
	       "pass_wall_us,boost_ms,boost_mean_ms,gp_stall_ms,backlog\n");
	for (int v = 0; v < NV; v++)
		for (size_t i = 0; i < (quick ? 2 : 4); i++)
			for (size_t j = 0; j < (quick ? 2 : 4); j++) {
				struct result r;

				model((enum variant)v, cpus[i], threads[j], &r);
				printf("%s,%d,%.0f,%d,%.2f,%.2f,%.1f,%.1f,%.2f,%.2f,%.1f,%.0f\n",
				       vname[v], cpus[i], threads[j],
				       r.boosters, r.gp_idle_us, r.gp_busy_us,
				       r.pass_cpu_us, r.pass_wall_us,
				       r.boost_ms, r.boost_mean_ms,
				       r.gp_stall_ms, r.backlog);
			}
	return 0;
}
