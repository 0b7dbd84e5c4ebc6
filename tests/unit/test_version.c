/*
 * The version has one source (include/rcuboost.h): the library's
 * rcb_version() and rcb_version_string(), the header's macros, the
 * pkg-config file CMake wrote from them (argv[1]) and the SONAME the
 * library was loaded by all agree.  Also rcb_container_of().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcuboost.h"
#include "tests/check.h"

struct obj {
	int key;
	struct rcb_head rh;
	long value;
};

static void version(const char *pc)
{
	char want[64], line[256], soname[64];
	FILE *f;
	int found = 0;
	Dl_info info;

	snprintf(want, sizeof(want), "%d.%d.%d", RCB_VERSION_MAJOR,
		 RCB_VERSION_MINOR, RCB_VERSION_PATCH);
	CHECK(strcmp(RCB_VERSION_STRING, want) == 0);
	CHECK(strcmp(rcb_version_string(), want) == 0);
	CHECK_EQ(rcb_version(), RCB_VERSION_NUMBER);
	CHECK_EQ(RCB_VERSION_NUMBER, (RCB_VERSION_MAJOR << 16) |
				     (RCB_VERSION_MINOR << 8) |
				     RCB_VERSION_PATCH);
	CHECK(RCB_VERSION_NUM(0, 1, 0) < RCB_VERSION_NUM(0, 2, 0));
	CHECK(RCB_VERSION_NUM(0, 255, 255) < RCB_VERSION_NUM(1, 0, 0));

	f = fopen(pc, "r");
	CHECK(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Version:", 8))
			continue;
		line[strcspn(line, "\n")] = 0;
		CHECK(strcmp(line + 8 + strspn(line + 8, " \t"), want) == 0);
		found = 1;
	}
	fclose(f);
	CHECK(found);

	/* Loaded by its SONAME, librcuboost.so.RCB_SONAME_MAJOR. */
	CHECK(dladdr((void *)rcb_version, &info) && info.dli_fname);
	snprintf(soname, sizeof(soname), "librcuboost.so.%d", RCB_SONAME_MAJOR);
	CHECK(strstr(info.dli_fname, soname));
}

static void container_of(void)
{
	struct obj o = { .key = 7, .value = 9 };
	struct rcb_head *h = &o.rh;
	const struct rcb_head *ch = h;
	void *v = h;
	struct obj *p = rcb_container_of(h, struct obj, rh);
	int calls = 0;

	CHECK(p == &o && p->key == 7 && p->value == 9);
	CHECK(rcb_container_of(ch, struct obj, rh) == &o);
	CHECK(rcb_container_of(v, struct obj, rh) == &o);
	CHECK(rcb_container_of(&o.key, struct obj, key) == &o);
	/* @ptr is evaluated once. */
	CHECK(rcb_container_of((calls++, h), struct obj, rh) == &o);
	CHECK_EQ(calls, 1);
}

int main(int argc, char **argv)
{
	CHECK(argc == 2);
	version(argv[1]);
	container_of();
	printf("ok: rcuboost %s (SONAME %d)\n", rcb_version_string(),
	       RCB_SONAME_MAJOR);
	return 0;
}
