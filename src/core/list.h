/* SPDX-License-Identifier: MIT */
/* A minimal circular doubly linked list (the article's list_head). */
#ifndef RCB_LIST_H
#define RCB_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct rcb__list {
	struct rcb__list *prev, *next;
};

static inline void rcb__list_init(struct rcb__list *l)
{
	l->prev = l->next = l;
}

static inline bool rcb__list_empty(const struct rcb__list *l)
{
	return l->next == l;
}

static inline void rcb__list_add_tail(struct rcb__list *e, struct rcb__list *h)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static inline void rcb__list_del_init(struct rcb__list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	rcb__list_init(e);
}

/* Move every entry of @from to the tail of @to; @from becomes empty. */
static inline void rcb__list_splice_tail_init(struct rcb__list *from,
					      struct rcb__list *to)
{
	if (rcb__list_empty(from))
		return;
	from->next->prev = to->prev;
	to->prev->next = from->next;
	from->prev->next = to;
	to->prev = from->prev;
	rcb__list_init(from);
}

#define rcb__container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
