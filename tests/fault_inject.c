/* Fault injection by interposition; see fault_inject.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <link.h>
#include <string.h>
#include <stdint.h>
#include <malloc.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/fault_inject.h"

/* The tree builds with hidden visibility: the interposed names must be
 * in the dynamic symbol table for the library's calls to reach them. */
#define FI_EXPORT __attribute__((visibility("default")))

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *,
				  void *(*)(void *), void *);

static atomic_long fi_left;  /* calls to go before the failing one; 0: off */
static atomic_bool fi_sticky; /* every call fails until fi_disarm() */
static atomic_int fi_mask;
static atomic_long fi_count;
static const char *_Atomic fi_failed;
static atomic_int fi_thread_err = EAGAIN;

/* dlsym() may allocate (its error state) while we resolve: those calls
 * get a small static arena, never freed (free() is not interposed, and
 * nothing from it is freed in practice: dlsym succeeds). */
static _Thread_local int resolving;
static char arena[4096] __attribute__((aligned(64)));
static atomic_size_t arena_used;

static void *arena_alloc(size_t n)
{
	size_t at = atomic_fetch_add(&arena_used, (n + 63) & ~(size_t)63);

	if (at + n > sizeof(arena))
		return NULL;
	return arena + at;
}

static void resolve(void)
{
	if (real_pthread_create)
		return;
	resolving = 1;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	resolving = 0;
	if (!real_malloc || !real_calloc || !real_realloc ||
	    !real_aligned_alloc || !real_posix_memalign || !real_memalign ||
	    !real_pthread_create)
		abort();
}

__attribute__((constructor(101))) static void fi_init(void)
{
	resolve();
}

/* The library's code: only its own calls are counted and failed (the
 * sanitizer runtimes and glibc allocate through these too, e.g. inside
 * pthread_create(); failing those would test them, not us). */
static uintptr_t lib_lo, lib_hi;

static int find_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "librcuboost"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			lib_lo = info->dlpi_addr + ph->p_vaddr;
			lib_hi = lib_lo + ph->p_memsz;
		}
	}
	return 1;
}

/* Should this call of kind @kind (named @name), returning to @caller,
 * fail? */
static bool inject(int kind, const char *name, void *caller)
{
	long left;

	if (!(atomic_load(&fi_mask) & kind) || (uintptr_t)caller < lib_lo ||
	    (uintptr_t)caller >= lib_hi)
		return false;
	if (atomic_load(&fi_sticky)) {
		atomic_fetch_add(&fi_count, 1);
		atomic_store(&fi_failed, name);
		return true;
	}
	left = atomic_load(&fi_left);
	while (left > 0) {
		if (atomic_compare_exchange_weak(&fi_left, &left, left - 1)) {
			atomic_fetch_add(&fi_count, 1);
			if (left == 1) {
				atomic_store(&fi_failed, name);
				return true;
			}
			return false;
		}
	}
	return false;
}

void fi_arm(long n, int mask)
{
	resolve();
	if (!lib_hi && !dl_iterate_phdr(find_lib, NULL))
		abort(); /* the library is not loaded */
	atomic_store(&fi_failed, NULL);
	atomic_store(&fi_count, 0);
	atomic_store(&fi_mask, mask);
	atomic_store(&fi_left, n);
}

void fi_arm_sticky(int mask)
{
	fi_arm(0, mask);
	atomic_store(&fi_sticky, true);
}

void fi_thread_error(int err)
{
	atomic_store(&fi_thread_err, err);
}

bool fi_disarm(const char **what)
{
	const char *f;

	atomic_store(&fi_thread_err, EAGAIN);
	atomic_store(&fi_sticky, false);
	atomic_store(&fi_left, 0);
	atomic_store(&fi_mask, 0);
	f = atomic_load(&fi_failed);
	if (what)
		*what = f;
	return f != NULL;
}

long fi_calls(void)
{
	return atomic_load(&fi_count);
}

/* Threads of this process; @lib: only the library's ("rcuboost-*"). */
static int count_threads(bool lib)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		if (!lib) {
			n++;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* it exited meanwhile */
		if (fgets(comm, sizeof(comm), f) && strncmp(comm, "rcuboost", 8) == 0)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* @want < 0: just count, do not wait. */
static int settle(int want, bool lib)
{
	int n = count_threads(lib);

	for (int i = 0; want >= 0 && i < 200 && n != want; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		n = count_threads(lib);
	}
	return n;
}

int fi_threads_settle(int want)
{
	return settle(want, false);
}

int fi_lib_threads_settle(int want)
{
	return settle(want, true);
}

FI_EXPORT void *malloc(size_t n)
{
	if (resolving || !real_malloc) {
		if (!resolving)
			resolve();
		if (resolving)
			return arena_alloc(n);
	}
	if (inject(FI_ALLOC, "malloc", __builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_malloc(n);
}

FI_EXPORT void *calloc(size_t n, size_t m)
{
	if (resolving || !real_calloc) {
		if (!resolving)
			resolve();
		if (resolving)
			return arena_alloc(n * m); /* static: zeroed */
	}
	if (inject(FI_ALLOC, "calloc", __builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_calloc(n, m);
}

FI_EXPORT void *realloc(void *p, size_t n)
{
	resolve();
	if (inject(FI_ALLOC, "realloc", __builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_realloc(p, n);
}

FI_EXPORT void *aligned_alloc(size_t a, size_t n)
{
	resolve();
	if (inject(FI_ALLOC, "aligned_alloc", __builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_aligned_alloc(a, n);
}

FI_EXPORT void *memalign(size_t a, size_t n)
{
	resolve();
	if (inject(FI_ALLOC, "memalign", __builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_memalign(a, n);
}

FI_EXPORT int posix_memalign(void **p, size_t a, size_t n)
{
	resolve();
	if (inject(FI_ALLOC, "posix_memalign", __builtin_return_address(0)))
		return ENOMEM;
	return real_posix_memalign(p, a, n);
}

FI_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	resolve();
	if (inject(FI_THREAD, "pthread_create", __builtin_return_address(0)))
		return atomic_load(&fi_thread_err);
	return real_pthread_create(t, attr, fn, arg);
}
