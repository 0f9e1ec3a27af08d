// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ksyms.c: kernel symbols from /proc/kallsyms, for ksym(), func, probe
 * and kstack.
 *
 * Only text symbols (t, T) are kept, sorted by address. When kptr_restrict
 * hides the addresses, /proc/kallsyms shows every one as 0: the table is
 * then empty (fpt_ksyms_hidden() says why) and every address prints in
 * hex, rather than each resolving to the symbol that sorts first.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "fptrace.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct fpt_ksyms {
	struct ksym *v;
	size_t n;
	bool hidden;		/* symbols listed, but all at address 0 */
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void ksym_add(struct fpt_ksyms *k, size_t *cap, uint64_t addr, const char *name)
{
	if (k->n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		k->v = realloc(k->v, *cap * sizeof(*k->v));
		if (!k->v)
			abort();
	}
	k->v[k->n].addr = addr;
	k->v[k->n++].name = strdup(name);
}

struct fpt_ksyms *fpt_ksyms_read(FILE *f)
{
	struct fpt_ksyms *k = calloc(1, sizeof(*k));
	char name[256], type;
	unsigned long long addr;
	size_t cap = 0, zeros = 0;

	if (!k)
		abort();
	while (f && fscanf(f, "%llx %c %255s%*[^\n]", &addr, &type, name) == 3) {
		if (type != 't' && type != 'T')
			continue;
		if (!addr) {
			zeros++;
			continue;
		}
		ksym_add(k, &cap, addr, name);
	}
	k->hidden = zeros && !k->n;
	qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	return k;
}

struct fpt_ksyms *fpt_ksyms_load(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct fpt_ksyms *k = fpt_ksyms_read(f);

	if (f)
		fclose(f);
	if (k->hidden)
		fprintf(stderr,
			"fptrace: /proc/kallsyms hides the kernel's addresses (kptr_restrict): they print in hex\n");
	return k;
}

bool fpt_ksyms_hidden(const struct fpt_ksyms *k)
{
	return k && k->hidden;
}

const char *fpt_ksym(const struct fpt_ksyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) {		/* the first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !addr)
		return NULL;
	*off = addr - k->v[lo - 1].addr;
	return k->v[lo - 1].name;
}

void fpt_ksyms_free(struct fpt_ksyms *k)
{
	for (size_t i = 0; k && i < k->n; i++)
		free(k->v[i].name);
	if (k)
		free(k->v);
	free(k);
}
