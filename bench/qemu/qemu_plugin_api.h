/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QEMU TCG plugin entry points insn_profile.c uses, as plugin API
 * version 1 (QEMU 7.2) defines them. Plugin ids are uint64_t.
 */
#ifndef __FPM_QEMU_PLUGIN_API_H
#define __FPM_QEMU_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

#define EXPORT __attribute__((visibility("default")))

void qemu_plugin_register_vcpu_tb_trans_cb(uint64_t id,
					   void (*cb)(uint64_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_atexit_cb(uint64_t id,
				    void (*cb)(uint64_t id, void *userdata),
				    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op, void *ptr,
					      uint64_t imm);

#endif
