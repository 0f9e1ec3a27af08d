/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc/meminfo counters that the kernel memory of a probe shows in,
 * for the fprobe_memory test and for make bench's memory runs.
 */
#ifndef __FPM_MEMINFO_H
#define __FPM_MEMINFO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct meminfo {
	long slab, vmalloc, percpu;	/* kB */
};

static inline long meminfo_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Returns 0, or -1 when /proc/meminfo cannot be read. */
static inline int read_meminfo(struct meminfo *m)
{
	char text[8192];
	size_t n;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	m->slab = meminfo_kb(text, "\nSlab:");
	m->vmalloc = meminfo_kb(text, "\nVmallocUsed:");
	m->percpu = meminfo_kb(text, "\nPercpu:");
	return 0;
}

#endif
