// SPDX-License-Identifier: GPL-2.0
/*
 * insn_profile: a QEMU TCG plugin that counts the guest instructions
 * executed at each kernel address, for scripts/insn-profile.py to sum up
 * per function against System.map. It explains where a probe's
 * instructions go when fpm_bench reports them (see bench/README.rst).
 *
 * usage: qemu-system-x86_64 ... -plugin insn_profile.so,out=FILE
 *
 * Each translated block gets an inline counter; at exit, every
 * instruction of a block is charged the block's execution count. A block
 * left early by an exception overcounts its tail, which is noise next to
 * the millions of calls a benchmark row makes.
 *
 * Debian ships QEMU without its plugin header: qemu_plugin_api.h declares
 * the few entry points of plugin API version 1 (QEMU 7.2) used here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "qemu_plugin_api.h"

EXPORT int qemu_plugin_version = 1;

/* Only the kernel's text is of interest. */
#define KERNEL_START 0xffffffff80000000ULL

struct block {
	uint64_t count;
	struct block *next;
	size_t n;
	uint64_t pc[];
};

static struct block *blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char out[4096] = "insn_profile.txt";

static void tb_trans(uint64_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	if (!n || qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)) < KERNEL_START)
		return;
	b = calloc(1, sizeof(*b) + n * sizeof(b->pc[0]));
	if (!b)
		return;
	b->n = n;
	for (i = 0; i < n; i++)
		b->pc[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	pthread_mutex_lock(&lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
}

/* One line per executed block: its count, then its instruction addresses. */
static void at_exit(uint64_t id, void *userdata)
{
	struct block *b;
	size_t i;
	FILE *f;

	f = fopen(out, "w");
	if (!f)
		return;
	for (b = blocks; b; b = b->next) {
		if (!b->count)
			continue;
		fprintf(f, "%llu", (unsigned long long)b->count);
		for (i = 0; i < b->n; i++)
			fprintf(f, " %llx", (unsigned long long)b->pc[i]);
		fputc('\n', f);
	}
	fclose(f);
}

EXPORT int qemu_plugin_install(uint64_t id, const void *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out, sizeof(out), "%s", argv[i] + 4);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
