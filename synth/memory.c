/*
 * A small model of PyTorch's CUDA caching allocator for the synthetic trace: blocks are multiples
 * of 512 bytes carved from a per-device address range by a bump pointer; a freed block goes to a
 * cache of blocks of its exact size and the next request of that size reuses it (last freed, first
 * reused), so steady-state steps reuse the same addresses as real training does. The bump
 * high-water mark is the reserved size. Memory use is bounded by the number of distinct blocks,
 * which the workload bounds by its layer count, never by the number of events.
 */
#include "synth_internal.h"
#include "util/vec.h"

#include <stdlib.h>
#include <tracekit/error.h>

void sy_mem_init(struct sy_mem *m, int64_t base)
{
	m->base = m->bump = base;
	m->in_use = 0;
	m->lists = NULL;
	m->nlists = m->caplists = 0;
}

void sy_mem_free_all(struct sy_mem *m)
{
	for (size_t i = 0; i < m->nlists; i++)
		free(m->lists[i].addr);
	free(m->lists);
	m->lists = NULL;
	m->nlists = m->caplists = 0;
}

/* The cache of blocks of @bytes, created when @create; NULL when absent or out of memory. */
static struct sy_free_list *find_list(struct sy_mem *m, int64_t bytes, int create)
{
	for (size_t i = 0; i < m->nlists; i++)
		if (m->lists[i].bytes == bytes)
			return &m->lists[i];
	if (!create)
		return NULL;
	if (TKU_GROW(m->lists, m->caplists, m->nlists + 1, 16) != TK_OK)
		return NULL;
	struct sy_free_list *l = &m->lists[m->nlists++];
	l->bytes = bytes;
	l->addr = NULL;
	l->n = l->cap = 0;
	return l;
}

int sy_mem_alloc(struct sy_mem *m, int64_t bytes, int64_t *addr)
{
	struct sy_free_list *l = find_list(m, bytes, 0);
	if (l && l->n > 0) {
		*addr = l->addr[--l->n];
	} else {
		*addr = m->bump;
		/* Large blocks start on 2 MiB boundaries, as the allocator's segments do. */
		if (bytes >= (1 << 20))
			*addr = m->bump = (m->bump + (2 << 20) - 1) / (2 << 20) * (2 << 20);
		m->bump += bytes;
	}
	m->in_use += bytes;
	return TK_OK;
}

int sy_mem_release(struct sy_mem *m, int64_t addr, int64_t bytes)
{
	int rc = TK_OK;
	struct sy_free_list *l = find_list(m, bytes, 1);
	if (!l) {
		rc = TK_ENOMEM;
		goto out;
	}
	if (TKU_GROW(l->addr, l->cap, l->n + 1, 8) != TK_OK) {
		rc = TK_ENOMEM;
		goto out;
	}
	l->addr[l->n++] = addr;
	m->in_use -= bytes;
out:
	return rc;
}
