/* liburcu's call_rcu_data API through <rcuboost/urcu.h>, as multipathd uses it:
 * a private worker (create_call_rcu_data), its thread's scheduling set with
 * pthread_setschedparam (get_call_rcu_thread), this thread's callbacks sent to
 * it (set_thread_call_rcu_data), then freed; per-CPU workers; and the fork
 * helpers around fork() with callbacks pending (none lost, none run twice). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rcuboost/urcu.h>

#include "tests/check.h"

#define NCB 40

struct obj {
	struct rcu_head rcu;
	pid_t ran_on;
};

static struct obj objs[NCB];
static atomic_int counter;

static void obj_cb(struct rcu_head *h)
{
	struct obj *o = caa_container_of(h, struct obj, rcu);

	o->ran_on = gettid();
	atomic_fetch_add(&counter, 1);
}

static void queue(int n)
{
	atomic_store(&counter, 0);
	for (int i = 0; i < n; i++) {
		objs[i].ran_on = 0;
		call_rcu(&objs[i].rcu, obj_cb);
	}
}

static atomic_int hold_in, hold_go;

static void *holder(void *arg)
{
	(void)arg;
	rcu_register_thread();
	rcu_read_lock();
	atomic_store(&hold_in, 1);
	while (!atomic_load(&hold_go))
		usleep(100);
	rcu_read_unlock();
	rcu_unregister_thread();
	return NULL;
}

int main(void)
{
	struct call_rcu_data *crdp, *def;
	struct sched_param sp = { 0 };
	pthread_t th, r;
	int policy, st;
	pid_t pid;

	rcu_register_thread();
	def = get_default_call_rcu_data();
	CHECK(def != NULL);
	CHECK(get_thread_call_rcu_data() == NULL);
	CHECK(get_call_rcu_data() == def);

	/* multipathd: a private worker with its own scheduling. */
	crdp = create_call_rcu_data(0, -1);
	CHECK(crdp != NULL);
	th = get_call_rcu_thread(crdp);
	CHECK(th != 0);
	CHECK(!pthread_equal(th, get_call_rcu_thread(def)));
	if (geteuid() == 0) {
		sp.sched_priority = 1;
		CHECK_EQ(pthread_setschedparam(th, SCHED_RR, &sp), 0);
		CHECK_EQ(pthread_getschedparam(th, &policy, &sp), 0);
		CHECK_EQ(policy, SCHED_RR);
	}
	sp.sched_priority = 0;
	CHECK_EQ(pthread_setschedparam(th, SCHED_OTHER, &sp), 0);
	set_thread_call_rcu_data(crdp);
	CHECK(get_thread_call_rcu_data() == crdp);
	CHECK(get_call_rcu_data() == crdp);
	queue(NCB);
	rcu_barrier();
	CHECK_EQ(atomic_load(&counter), NCB);
	for (int i = 0; i < NCB; i++)
		CHECK_EQ(objs[i].ran_on,
			 rcb_worker_tid((struct rcb_worker *)crdp));
	set_thread_call_rcu_data(NULL);
	CHECK(get_call_rcu_data() == def);
	/* liburcu ignores these. */
	call_rcu_data_free(NULL);
	call_rcu_data_free(def);
	CHECK(get_default_call_rcu_data() == def);

	/* Per-CPU workers. */
	CHECK_EQ(set_cpu_call_rcu_data(-1, crdp), -EINVAL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(set_cpu_call_rcu_data(0, crdp), 0);
	CHECK(get_cpu_call_rcu_data(0) == crdp);
	CHECK_EQ(set_cpu_call_rcu_data(0, def), -EEXIST);
	CHECK_EQ(errno, EEXIST);
	CHECK_EQ(set_cpu_call_rcu_data(0, NULL), 0);
	CHECK_EQ(create_all_cpu_call_rcu_data(0), 0);
	for (int cpu = 0; cpu < get_nprocs(); cpu++)
		CHECK(get_cpu_call_rcu_data(cpu) != NULL);
	queue(NCB);
	rcu_barrier();
	CHECK_EQ(atomic_load(&counter), NCB);
	free_all_cpu_call_rcu_data();
	CHECK(get_cpu_call_rcu_data(0) == NULL);
	call_rcu_data_free(crdp);

	/* The fork helpers around fork(), callbacks pending on a private
	 * worker: each side runs its copy exactly once.  ThreadSanitizer
	 * cannot start threads in the child of a multi-threaded fork. */
#if !defined(__SANITIZE_THREAD__)
	crdp = create_call_rcu_data(URCU_CALL_RCU_RT, -1);
	CHECK(crdp != NULL);
	CHECK_EQ(pthread_create(&r, NULL, holder, NULL), 0);
	while (!atomic_load(&hold_in))
		usleep(100);
	set_thread_call_rcu_data(crdp);
	queue(NCB);
	fflush(stdout);
	call_rcu_before_fork();
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		call_rcu_after_fork_child();
		alarm(10);
		CHECK_EQ(atomic_load(&counter), 0);
		rcu_barrier();
		CHECK_EQ(atomic_load(&counter), NCB);
		rcu_barrier();
		CHECK_EQ(atomic_load(&counter), NCB);
		_exit(0);
	}
	call_rcu_after_fork_parent();
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(atomic_load(&counter), 0);
	atomic_store(&hold_go, 1);
	CHECK_EQ(pthread_join(r, NULL), 0);
	rcu_barrier();
	CHECK_EQ(atomic_load(&counter), NCB);
	set_thread_call_rcu_data(NULL);
	call_rcu_data_free(crdp);
#else
	(void)r, (void)pid, (void)st, (void)holder;
#endif
	rcu_unregister_thread();
	printf("ok: private worker, per-CPU workers, fork helpers\n");
	return 0;
}
