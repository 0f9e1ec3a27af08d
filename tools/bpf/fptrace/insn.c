// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * insn.c: the instruction dumper and the static checks of the programs
 * that codegen.c gives.
 *
 * Takes a struct fpt_bpf_prog (and the map table, to name the maps);
 * gives, for -d and the tests, one line an instruction in the layout of
 * "bpftool prog dump xlated":
 *
 *	   0: (7a) *(u64 *)(r10 -8) = 0
 *	   1: (bf) r6 = r1
 *	   2: (18) r1 = map[id:@bytes]
 *	   4: (85) call bpf_map_lookup_elem#1
 *	   5: (85) call kfunc bpf_fprobe_arg
 *
 * (the second half of a 16-byte load takes an index but no line), and
 * fpt_prog_check(): the checks that need no kernel (see fptrace.h).
 */
#include <string.h>

#include <linux/bpf.h>

#include "fptrace.h"

static const char *helper_name(int id)
{
	switch (id) {
	case BPF_FUNC_map_lookup_elem: return "bpf_map_lookup_elem";
	case BPF_FUNC_map_update_elem: return "bpf_map_update_elem";
	case BPF_FUNC_map_delete_elem: return "bpf_map_delete_elem";
	case BPF_FUNC_ktime_get_ns: return "bpf_ktime_get_ns";
	case BPF_FUNC_get_smp_processor_id: return "bpf_get_smp_processor_id";
	case BPF_FUNC_get_current_pid_tgid: return "bpf_get_current_pid_tgid";
	case BPF_FUNC_get_current_uid_gid: return "bpf_get_current_uid_gid";
	case BPF_FUNC_get_current_comm: return "bpf_get_current_comm";
	case BPF_FUNC_get_stackid: return "bpf_get_stackid";
	case BPF_FUNC_probe_read_user_str: return "bpf_probe_read_user_str";
	case BPF_FUNC_probe_read_kernel_str: return "bpf_probe_read_kernel_str";
	case BPF_FUNC_probe_read_kernel: return "bpf_probe_read_kernel";
	case BPF_FUNC_ringbuf_output: return "bpf_ringbuf_output";
	case BPF_FUNC_get_attach_cookie: return "bpf_get_attach_cookie";
	default: return "unknown";
	}
}

static const char *alu_name(int op, int off)
{
	if (off && op == BPF_DIV)
		return "s/=";
	if (off && op == BPF_MOD)
		return "s%=";
	switch (op) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_MOD: return "%=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_ARSH: return "s>>=";
	case BPF_XOR: return "^=";
	case BPF_MOV: return "=";
	default: return NULL;		/* NEG and END are written apart */
	}
}

static const char *jmp_name(int op)
{
	switch (op) {
	case BPF_JEQ: return "==";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JSET: return "&";
	case BPF_JNE: return "!=";
	case BPF_JSGT: return "s>";
	case BPF_JSGE: return "s>=";
	case BPF_JLT: return "<";
	case BPF_JLE: return "<=";
	case BPF_JSLT: return "s<";
	case BPF_JSLE: return "s<=";
	default: return NULL;
	}
}

static const char *size_name(int size)
{
	return size == BPF_B ? "u8" : size == BPF_H ? "u16" : size == BPF_W ? "u32" : "u64";
}

static void dump_alu(FILE *out, const struct bpf_insn *i)
{
	char r = BPF_CLASS(i->code) == BPF_ALU64 ? 'r' : 'w';
	int op = BPF_OP(i->code);

	if (op == BPF_NEG) {
		fprintf(out, "%c%d = -%c%d\n", r, i->dst_reg, r, i->dst_reg);
		return;
	}
	if (BPF_SRC(i->code) == BPF_X)
		fprintf(out, "%c%d %s %c%d\n", r, i->dst_reg, alu_name(op, i->off), r,
			i->src_reg);
	else
		fprintf(out, "%c%d %s %d\n", r, i->dst_reg, alu_name(op, i->off), i->imm);
}

static void dump_jmp(FILE *out, const struct fpt_bpf_prog *p, int n)
{
	const struct bpf_insn *i = &p->insns[n];
	int op = BPF_OP(i->code);

	if (op == BPF_EXIT) {
		fprintf(out, "exit\n");
	} else if (op == BPF_CALL && i->src_reg == BPF_PSEUDO_KFUNC_CALL) {
		for (int k = 0; k < p->nkcalls; k++)
			if (p->kcalls[k].insn == n)
				fprintf(out, "call kfunc %s\n", fpt_kfunc_name(p->kcalls[k].kfunc));
	} else if (op == BPF_CALL) {
		fprintf(out, "call %s#%d\n", helper_name(i->imm), i->imm);
	} else if (op == BPF_JA) {
		fprintf(out, "goto pc%+d\n", i->off);
	} else if (BPF_SRC(i->code) == BPF_X) {
		fprintf(out, "if r%d %s r%d goto pc%+d\n", i->dst_reg, jmp_name(op),
			i->src_reg, i->off);
	} else {
		fprintf(out, "if r%d %s 0x%x goto pc%+d\n", i->dst_reg, jmp_name(op),
			(unsigned int)i->imm, i->off);
	}
}

static void dump_ld64(FILE *out, const struct fpt_sema *s, const struct fpt_bpf_prog *p, int n)
{
	const struct bpf_insn *i = &p->insns[n];

	for (int k = 0; k < p->nrelocs; k++) {
		if (p->relocs[k].insn != n)
			continue;
		if (p->relocs[k].map == FPT_RELOC_START)
			fprintf(out, "r%d = <start ns>\n", i->dst_reg);
		else
			fprintf(out, "r%d = map[id:%s]\n", i->dst_reg,
				s->maps[p->relocs[k].map].name);
		return;
	}
	fprintf(out, "r%d = 0x%llx\n", i->dst_reg, (unsigned long long)
		((uint64_t)(uint32_t)i[1].imm << 32 | (uint32_t)i->imm));
}

void fpt_prog_dump(FILE *out, const struct fpt_sema *s, const struct fpt_bpf_prog *p)
{
	for (int n = 0; n < p->ninsns; n++) {
		const struct bpf_insn *i = &p->insns[n];

		fprintf(out, "%4d: (%02x) ", n, i->code);
		switch (BPF_CLASS(i->code)) {
		case BPF_ALU: case BPF_ALU64:
			dump_alu(out, i);
			break;
		case BPF_LDX:
			fprintf(out, "r%d = *(%s *)(r%d %+d)\n", i->dst_reg,
				size_name(BPF_SIZE(i->code)), i->src_reg, i->off);
			break;
		case BPF_STX:
			fprintf(out, "*(%s *)(r%d %+d) = r%d\n", size_name(BPF_SIZE(i->code)),
				i->dst_reg, i->off, i->src_reg);
			break;
		case BPF_ST:
			fprintf(out, "*(%s *)(r%d %+d) = %d\n", size_name(BPF_SIZE(i->code)),
				i->dst_reg, i->off, i->imm);
			break;
		case BPF_LD:
			dump_ld64(out, s, p, n++);
			break;
		default:
			dump_jmp(out, p, n);
		}
	}
}

/* ---- Static checks --------------------------------------------------------- */

struct check {
	const struct fpt_bpf_prog *p;
	unsigned int set;	/* registers set so far, a bit each */
	char *msg;
	size_t len;
};

static int fail(struct check *c, int n, const char *what, int reg)
{
	if (reg >= 0)
		snprintf(c->msg, c->len, "insn %d: r%d %s", n, reg, what);
	else
		snprintf(c->msg, c->len, "insn %d: %s", n, what);
	return -1;
}

static int need(struct check *c, int n, int reg)
{
	if (reg > 10)
		return fail(c, n, "is no register", reg);
	return c->set & (1u << reg) ? 0 : fail(c, n, "is read before it is set", reg);
}

static int write_reg(struct check *c, int n, int reg)
{
	if (reg >= 10)
		return fail(c, n, "cannot be written", reg);
	c->set |= 1u << reg;
	return 0;
}

/* The jump at n lands on an instruction, not in a 16-byte load. */
static int check_target(struct check *c, int n)
{
	int t = n + c->p->insns[n].off + 1;

	if (t < 0 || t >= c->p->ninsns)
		return fail(c, n, "jumps out of the program", -1);
	if (t > 0 && c->p->insns[t - 1].code == (BPF_LD | BPF_DW | BPF_IMM))
		return fail(c, n, "jumps into a 16-byte load", -1);
	return 0;
}

static int check_alu(struct check *c, int n, const struct bpf_insn *i)
{
	int op = BPF_OP(i->code);

	if (!alu_name(op, i->off) && op != BPF_NEG)
		return fail(c, n, "unknown ALU operation", -1);
	if (BPF_SRC(i->code) == BPF_X && need(c, n, i->src_reg))
		return -1;
	if (op != BPF_MOV && need(c, n, i->dst_reg))
		return -1;
	return write_reg(c, n, i->dst_reg);
}

static int check_jmp(struct check *c, int n, const struct bpf_insn *i)
{
	int op = BPF_OP(i->code);

	if (BPF_CLASS(i->code) != BPF_JMP)
		return fail(c, n, "is a 32-bit jump, which fptrace does not make", -1);
	if (op == BPF_EXIT)
		return need(c, n, BPF_REG_0);
	if (op == BPF_CALL) {
		c->set = (c->set & ~0x3fu) | 1u;	/* r0 set, r1-r5 clobbered */
		return 0;
	}
	if (op == BPF_JA)
		return check_target(c, n);
	if (!jmp_name(op))
		return fail(c, n, "unknown jump", -1);
	if (need(c, n, i->dst_reg) || (BPF_SRC(i->code) == BPF_X && need(c, n, i->src_reg)))
		return -1;
	return check_target(c, n);
}

static int check_insn(struct check *c, int n, const struct bpf_insn *i)
{
	switch (BPF_CLASS(i->code)) {
	case BPF_ALU: case BPF_ALU64:
		return check_alu(c, n, i);
	case BPF_LDX:
		return need(c, n, i->src_reg) ?: write_reg(c, n, i->dst_reg);
	case BPF_ST:
		return need(c, n, i->dst_reg);
	case BPF_STX:
		return need(c, n, i->dst_reg) ?: need(c, n, i->src_reg);
	case BPF_LD:
		if (i->code != (BPF_LD | BPF_DW | BPF_IMM) || n + 1 >= c->p->ninsns)
			return fail(c, n, "is a load fptrace does not make", -1);
		return write_reg(c, n, i->dst_reg);
	default:
		return check_jmp(c, n, i);
	}
}

int fpt_prog_check(const struct fpt_bpf_prog *p, char *msg, size_t len)
{
	struct check c = { p, 1u << 1 | 1u << 10, msg, len };
	const struct bpf_insn *last;

	if (!p->ninsns)
		return fail(&c, 0, "the program is empty", -1);
	for (int n = 0; n < p->ninsns; n++) {
		if (check_insn(&c, n, &p->insns[n]))
			return -1;
		if (BPF_CLASS(p->insns[n].code) == BPF_LD)
			n++;
	}
	last = &p->insns[p->ninsns - 1];
	if (last->code != (BPF_JMP | BPF_EXIT) && last->code != (BPF_JMP | BPF_JA))
		return fail(&c, p->ninsns - 1, "ends the program but is no exit", -1);
	if (p->stack > 512)
		return fail(&c, 0, "the stack is over 512 bytes", -1);
	snprintf(msg, len, "ok");
	return 0;
}
