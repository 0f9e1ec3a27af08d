// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the example tools: exact-address lookup in /proc/kallsyms,
 * and return values narrowed to the width of their BTF type.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "ksyms.h"

struct ksym {
	unsigned long addr;
	char *name;
};

struct ksyms {
	struct ksym *syms;
	size_t cnt;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct ksyms *ksyms__load(void)
{
	struct ksyms *ks;
	size_t cap = 0;
	unsigned long addr;
	char name[256], type;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		goto err;
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, name) == 3) {
		if (ks->cnt == cap) {
			struct ksym *n;

			cap = cap ? cap * 2 : 4096;
			n = realloc(ks->syms, cap * sizeof(*n));
			if (!n)
				goto err;
			ks->syms = n;
		}
		ks->syms[ks->cnt].addr = addr;
		ks->syms[ks->cnt].name = strdup(name);
		if (!ks->syms[ks->cnt].name)
			goto err;
		ks->cnt++;
	}
	fclose(f);
	qsort(ks->syms, ks->cnt, sizeof(*ks->syms), ksym_cmp);
	return ks;
err:
	fclose(f);
	ksyms__free(ks);
	errno = ENOMEM;
	return NULL;
}

const char *ksyms__name(const struct ksyms *ks, unsigned long addr)
{
	struct ksym key = { .addr = addr }, *k;

	k = bsearch(&key, ks->syms, ks->cnt, sizeof(*ks->syms), ksym_cmp);
	return k ? k->name : NULL;
}

void ksyms__free(struct ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->cnt; i++)
		free(ks->syms[i].name);
	free(ks->syms);
	free(ks);
}

long long ksyms__ret_value(const struct btf *btf, const char *fn, long long ret)
{
	const struct btf_type *t;
	int id, bits;

	id = fn && btf ? btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) : -1;
	if (id < 0)
		return ret;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	t = btf__type_by_id(btf, btf__resolve_type(btf, t->type));
	if (!t || (!btf_is_int(t) && !btf_is_enum(t)) || t->size >= 8)
		return ret;
	bits = 8 * t->size;
	/* enums print signed, as the kernel's negative errno enums expect */
	if (btf_is_enum(t) || (btf_int_encoding(t) & BTF_INT_SIGNED))
		return (long long)((unsigned long long)ret << (64 - bits)) >> (64 - bits);
	return ret & ((1ULL << bits) - 1);
}
