/* SPDX-License-Identifier: MIT */
/*
 * Checks of the caller's arguments that several layers share: sized
 * public structs (core/internal.h, "sized public structs") copied in and
 * out without a byte past either side's layout, and thread-ID arrays.
 */
#include <limits.h>
#include <string.h>

#include "core/internal.h"

bool rcb__sized_in(void *dst, size_t known, const void *src, size_t usize)
{
	const unsigned char *tail = (const unsigned char *)src + known;

	memset(dst, 0, known);
	memcpy(dst, src, usize < known ? usize : known);
	for (size_t i = 0; known + i < usize; i++)
		if (tail[i])
			return false;
	return true;
}

size_t rcb__sized_arg(const char *call, const char *what, const size_t *size,
		      size_t v1, size_t known)
{
	size_t usize;

	if (!size) {
		rcb__misuse(call, "%s is NULL; nothing done", what);
		return 0;
	}
	usize = rcb__user_size(*size, v1);
	if (!usize)
		rcb__misuse(
			call,
			"%s->size %zu is no size this struct has (uninitialised?): "
			"expected 0 or the caller's sizeof, a multiple of %zu from %zu "
			"to %d (this library's: %zu); nothing done",
			what, *size, _Alignof(size_t), v1, RCB__USER_SIZE_MAX,
			known);
	return usize;
}

bool rcb__tids_args_bad(const char *call, const pid_t *tids, size_t n)
{
	if (n > INT_MAX)
		rcb__misuse(call, "n %zu is above INT_MAX (a negative count?); "
			    "nothing stored", n);
	else if (!tids && n > 0)
		rcb__misuse(call, "tids is NULL with n %zu; nothing stored", n);
	else
		return false;
	return true;
}

void rcb__sized_out(void *dst, size_t usize, const void *src, size_t known)
{
	unsigned char *d = dst;
	size_t n = usize < known ? usize : known;

	memcpy(d + sizeof(size_t), (const unsigned char *)src + sizeof(size_t),
	       n - sizeof(size_t));
	/* Never a byte past min(usize, known): a size past this library's
	 * struct may be garbage that looks like a newer layout (once,
	 * zeroing "the newer fields" of a 3000 wrote 2,448 bytes past a
	 * caller's struct).  A newer caller learns where the filled fields
	 * end from its size instead, as from sched_getattr(2)'s. */
	if (usize > known)
		memcpy(d, &known, sizeof(known));
}
