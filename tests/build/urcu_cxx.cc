// SPDX-License-Identifier: MIT
//
// rcuboost.h and rcuboost/urcu.h from C++17 (g++ and clang++), next to
// the standard library's <atomic> and <thread>: the read side, pointer
// publication, synchronize_rcu, call_rcu and rcu_barrier.
#include <rcuboost.h>
#include <rcuboost/urcu.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CHECK(c)                                                          \
	do {                                                              \
		if (!(c)) {                                               \
			std::fprintf(stderr, "%s:%d: check failed: %s\n", \
				     __FILE__, __LINE__, #c);             \
			std::exit(1);                                     \
		}                                                         \
	} while (0)

struct obj {
	int value;
	struct rcu_head rcu;
};

static obj *gptr;
static std::atomic<int> freed{0};

static obj *make(int value)
{
	obj *o = new obj();

	o->value = value;
	return o;
}

static void free_obj(struct rcu_head *head)
{
	delete caa_container_of(head, struct obj, rcu);
	freed.fetch_add(1);
}

int main()
{
	std::atomic<bool> stop{false};
	std::vector<std::thread> readers;

	rcu_register_thread();
	rcu_assign_pointer(gptr, make(1));
	for (int i = 0; i < 2; i++)
		readers.emplace_back([&stop] {
			rcu_register_thread();
			while (!stop.load()) {
				rcu_read_lock();
				obj *p = rcu_dereference(gptr);
				CHECK(p && p->value > 0);
				rcu_read_unlock();
			}
			rcu_unregister_thread();
		});
	for (int i = 2; i < 200; i++) {
		obj *old = rcu_xchg_pointer(&gptr, make(i));
		if (i % 2)
			call_rcu(&old->rcu, free_obj);
		else {
			synchronize_rcu();
			old->value = -1;
			delete old;
			freed.fetch_add(1);
		}
	}
	rcb_read_lock();
	CHECK(rcb_read_ongoing() && rcu_read_ongoing());
	rcb_read_unlock();
	stop.store(true);
	for (auto &t : readers)
		t.join();
	rcu_barrier();
	CHECK(freed.load() == 198);
	CHECK(rcb_synchronize() == 0);
	{
		struct node {
			int key;
			struct rcb_head rh;
		} n = { 7, {} };
		const struct rcb_head *h = &n.rh;

		CHECK(rcb_container_of(&n.rh, struct node, rh) == &n);
		CHECK(rcb_container_of(h, struct node, rh)->key == 7);
		CHECK(rcb_version() == RCB_VERSION_NUMBER);
	}
	delete rcu_xchg_pointer(&gptr, static_cast<obj *>(nullptr));
	rcu_unregister_thread();
	std::printf("ok\n");
	return 0;
}
