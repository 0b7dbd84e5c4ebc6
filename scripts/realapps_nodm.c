/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for the kernel's device-mapper, with no maps, for
 * multipathd on a kernel built without device-mapper (where libdevmapper
 * cannot open /dev/mapper/control and multipathd exits at its first
 * configuration, in libmp_dm_init()).  scripts/realapps.sh preloads it
 * (LD_PRELOAD) only there; multipathd itself is unchanged.
 *
 * It answers the three requests that multipathd makes of a
 * device-mapper that has no maps: the driver's version (4.36.0: older
 * than event polling, so multipathd does not open the control device
 * for it), the targets' versions (multipath 1.14.0) and the list of
 * maps (empty).  Any other request on a task fails, as it would for a
 * map that does not exist.  Tasks are still made and freed by the real
 * libdevmapper; only dm_task_run() and the two getters are answered
 * here for the tasks of those requests.
 *
 * Not part of the build: the script compiles it (cc -shared -fPIC
 * realapps_nodm.c -ldl; Debian: libdevmapper-dev for the header).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libdevmapper.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The tasks made and not yet freed, with their request. */
#define MAX_TASKS 256

static struct {
	struct dm_task *t;
	int type;
} tasks[MAX_TASKS];
static pthread_mutex_t tasks_lock = PTHREAD_MUTEX_INITIALIZER;

static int task_type(struct dm_task *t)
{
	int type = -1;

	pthread_mutex_lock(&tasks_lock);
	for (int i = 0; i < MAX_TASKS; i++)
		if (tasks[i].t == t)
			type = tasks[i].type;
	pthread_mutex_unlock(&tasks_lock);
	return type;
}

struct dm_task *dm_task_create(int type)
{
	static struct dm_task *(*real)(int);
	struct dm_task *t;

	if (!real)
		real = (struct dm_task *(*)(int))dlsym(RTLD_NEXT, "dm_task_create");
	t = real ? real(type) : NULL;
	if (!t)
		return NULL;
	pthread_mutex_lock(&tasks_lock);
	for (int i = 0; i < MAX_TASKS; i++)
		if (!tasks[i].t) {
			tasks[i].t = t;
			tasks[i].type = type;
			break;
		}
	pthread_mutex_unlock(&tasks_lock);
	return t;
}

void dm_task_destroy(struct dm_task *t)
{
	static void (*real)(struct dm_task *);

	pthread_mutex_lock(&tasks_lock);
	for (int i = 0; i < MAX_TASKS; i++)
		if (tasks[i].t == t)
			tasks[i].t = NULL;
	pthread_mutex_unlock(&tasks_lock);
	if (!real)
		real = (void (*)(struct dm_task *))dlsym(RTLD_NEXT, "dm_task_destroy");
	if (real)
		real(t);
}

int dm_task_run(struct dm_task *t)
{
	switch (task_type(t)) {
	case DM_DEVICE_LIST:
	case DM_DEVICE_LIST_VERSIONS:
	case DM_DEVICE_VERSION:
		return 1;
	default:
		errno = ENXIO;
		return 0;
	}
}

int dm_driver_version(char *version, size_t size)
{
	return snprintf(version, size, "4.36.0") < (int)size;
}

struct dm_versions *dm_task_get_versions(struct dm_task *t)
{
	/* One target; next == 0 ends the list. */
	static union {
		struct dm_versions v;
		char space[sizeof(struct dm_versions) + 16];
	} one;

	(void)t;
	one.v.next = 0;
	one.v.version[0] = 1;
	one.v.version[1] = 14;
	one.v.version[2] = 0;
	strcpy(one.v.name, "multipath");
	return &one.v;
}

struct dm_names *dm_task_get_names(struct dm_task *t)
{
	/* dev == 0: no maps. */
	static union {
		struct dm_names n;
		char space[sizeof(struct dm_names) + 8];
	} none;

	(void)t;
	return &none.n;
}
