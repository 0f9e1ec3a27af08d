// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * codegen.c: BPF instructions from the typed AST.
 *
 * Takes the AST typed by types.c, its struct fpt_sema (links, maps) and
 * the kernel's BTF (for the kfuncs' ids); gives a struct fpt_bpf: one
 * program a link and one a BEGIN, END or interval probe, each a plain
 * struct bpf_insn array with the list of its map loads to patch, and the
 * table of the events that its ring buffer records carry.
 *
 * The program model
 * -----------------
 * Link programs are BPF_PROG_TYPE_KPROBE with expected attach type
 * BPF_TRACE_FPROBE_MULTI (as libbpf's fprobe.multi sections, and
 * Documentation/bpf/fprobe_multi.rst, have it), attached with the mode of
 * fpt_link.mode, its session_size and saved_args. Their context, a
 * struct ftrace_regs *, is only handed to the bpf_fprobe_*() kfuncs and to
 * bpf_get_attach_cookie() and bpf_get_stackid(). A program reads:
 *
 *	r6 = r1				the context, for the whole program
 *	r7 = session data		session links with session_size > 0;
 *					a NULL data ends the run
 *	if is_return goto exit		session links
 *	entry parts, in source order	(each: predicate, then its block)
 *	*(u64 *)(r7 + ts_off) = now	if an exit part reads latency
 *	goto out
 *	exit: exit parts
 *	out: r0 = 0; exit		0: a session's exit run always runs
 *
 * BEGIN, END and interval probes are programs of their own, of type
 * BPF_PROG_TYPE_SYSCALL (which BPF_PROG_TEST_RUN runs, in the calling
 * task): the runtime runs each BEGIN program once before attaching the
 * links, each END program once after detaching them, and each interval
 * program from a timer every period_ns. They share the maps and the
 * events of the links, so nothing is interpreted in user space; they may
 * not read the traced function (types.c refuses args, retval, func, ...).
 *
 * Registers: r6 and r7 as above; r8 keeps str()'s pointer across its
 * first read; r9 is unused. An expression's
 * scalar value ends in r0; a binary operator keeps its left value in a
 * stack slot while the right one is computed, then works in r0 and r1.
 * Helper and kfunc arguments go in r1-r5 just before the call.
 *
 * Stack (below r10): bytes 1-8 are the kfuncs' out value (bpf_fprobe_arg,
 * bpf_fprobe_ret; zeroed at the start), then each part's $variables, all
 * its own (8 bytes or the string's size; zeroed at the part's start, but
 * for the session variables of an exit part, read from the session data;
 * an entry part writes its session variables there at the end of its body,
 * where exit() jumps too, so that the exit run sees them), then
 * temporaries taken and given back statement by statement: spilled left
 * operands, map keys and values, strings (comm, str(), literals), event
 * records. A program over 512 bytes is an error.
 *
 * Strings are zero-padded buffers of their type's size: comm 16 bytes,
 * str() and literals 64. str() zeroes its buffer and calls
 * bpf_probe_read_kernel_str(), or bpf_probe_read_user_str() for a pointer
 * whose BTF carries the "user" type tag. == and != compare the shorter
 * size 8 bytes at a time. A pointer without the tag is read as a kernel
 * pointer first and, if that faults, as a user one (BTF of kernels built
 * without type tags carries no "user").
 *
 * Maps: see struct fpt_map_info for the layouts. Each map reference is a
 * BPF_LD_IMM64 with src_reg BPF_PSEUDO_MAP_FD and imm 0, listed in
 * fpt_bpf_prog.relocs for the runtime to patch with the map's fd.
 * Aggregations look the key up; on a miss they insert a zeroed value
 * (BPF_NOEXIST) and look it up again (arrays: skip the update), then
 * update the value of this CPU in place, without atomics. hist() and
 * lhist() compute the bucket as fpt_hist_index() and fpt_lhist_index() do
 * (an unrolled log2 for hist) and count it under the keys followed by the
 * u64 bucket, or without keys at the bucket's index in the array. delete()
 * is bpf_map_delete_elem(): maps without keys are hashes of one element
 * too, so that a delete() clears every CPU's value of a per-CPU
 * aggregation (a per-CPU array's update from BPF writes only this CPU's)
 * and a map never set has no element to print. The exception is an
 * aggregation without keys whose value tells whether it was set (all but
 * sum(); a histogram's indexed by the bucket): a per-CPU array, so that
 * an event costs no hashing. Its delete() is a clear event, for the
 * runtime to zero every CPU's value, and its zero values are not printed.
 *
 * Events: printf, print, clear and exit write a record to the ".events"
 * ring buffer with bpf_ringbuf_output(): a u32 event id, 4 bytes of
 * padding, and printf's arguments (see struct fpt_event). exit() then ends
 * its probe. A record the ring buffer has no room for adds one to this
 * CPU's count in the per-CPU array ".lost", which the runtime reports.
 * The runtime prints, and clears or stops, when it reads them.
 *
 * Builtins: pid and tid from bpf_get_current_pid_tgid(), uid and gid
 * from bpf_get_current_uid_gid(), cpu, nsecs (bpf_ktime_get_ns()), comm,
 * cookie (bpf_get_attach_cookie()), func (bpf_fprobe_func_ip(), a ksym),
 * kstack and kstack(N) (bpf_get_stackid() on the stack map of N frames,
 * ".stacks" for 127 and ".stacksN" for others, the id as the value:
 * negative when no stack was taken; the type says which map, and the
 * mode, for the runtime to print it), probe ((probe index * 2 + 1 at
 * exit) << 48 | the low 48 bits of the function's address: the runtime
 * names it), argN and args.NAME (bpf_fprobe_arg(), then sign- or
 * zero-extended from the parameter's size), retval (bpf_fprobe_ret(),
 * likewise), latency (now minus the entry's timestamp in the session
 * data), elapsed (now minus the run's start, a constant the runtime
 * patches in: see FPT_RELOC_START).
 *
 * Members: p->NAME and s.NAME add the member's offset to the address of
 * their base (a pointer's value, or an embedded struct's address, itself
 * a member), then bpf_probe_read_kernel() reads the member's bytes into
 * the kfuncs' out slot (an integer or a pointer: then extended as an
 * argument is) or into the string's buffer (a char array). A read that
 * faults reads zeroes, as the helper leaves them. A cast changes no bits.
 *
 * Operators: integers are 64-bit; / % and >> are unsigned whatever the
 * operands (bpftrace's udiv, urem and lshr: -10 / 3 is 6148914691236517202,
 * -16 >> 2 is 2^62 - 4); comparisons are signed when both operands are.
 * && and || short-circuit and give 0 or 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>
#include <linux/btf.h>
#include <bpf/btf.h>

#include "fptrace.h"

#define STACK_MAX	512
#define OUT_SLOT	(-8)	/* the kfuncs' out value */

static const char *const kfunc_names[FPT_KF__COUNT] = {
	[FPT_KF_ARG] = "bpf_fprobe_arg",
	[FPT_KF_RET] = "bpf_fprobe_ret",
	[FPT_KF_FUNC_IP] = "bpf_fprobe_func_ip",
	[FPT_KF_IS_RETURN] = "bpf_fprobe_is_return",
	[FPT_KF_SESSION_DATA] = "bpf_fprobe_session_data",
};

const char *fpt_kfunc_name(enum fpt_kfunc k)
{
	return k < FPT_KF__COUNT ? kfunc_names[k] : "?";
}

/* A local $variable: its slot below r10. */
struct local {
	const char *name;
	int off;
	unsigned int size;
};

struct fix {
	int insn, label;
};

struct cg {
	struct fpt_diag *d;
	const struct fpt_program *prog;
	const struct fpt_sema *s;
	const struct btf *btf;
	struct fpt_bpf *out;
	struct fpt_bpf_prog *p;
	int cap, rcap, kcap;
	int *labels, nlabels;
	struct fix *fixes;
	int nfixes;
	int sp, max_sp;			/* bytes of stack in use, at most */
	struct local *locals;
	int nlocals;
	const struct fpt_link *link;	/* NULL: BEGIN, END, interval */
	bool exit_part;
	int probe;			/* the part's probe */
	int out_label;			/* r0 = 0; exit */
	int done_label;			/* the end of the part's body (exit()) */
	bool failed;
	struct fpt_loc loc;		/* the statement being generated */
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* ---- Instructions and labels ------------------------------------------- */

static struct bpf_insn insn(__u8 code, int dst, int src, __s16 off, __s32 imm)
{
	return (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src,
				  .off = off, .imm = imm };
}

static void emit(struct cg *g, struct bpf_insn i)
{
	struct fpt_bpf_prog *p = g->p;

	if (p->ninsns == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		p->insns = xrealloc(p->insns, g->cap * sizeof(*p->insns));
		p->locs = xrealloc(p->locs, g->cap * sizeof(*p->locs));
	}
	p->locs[p->ninsns] = g->loc;
	p->insns[p->ninsns++] = i;
}

static void alu(struct cg *g, int op, int dst, int src)
{
	emit(g, insn(BPF_ALU64 | op | BPF_X, dst, src, 0, 0));
}

static void alu_imm(struct cg *g, int op, int dst, __s32 imm)
{
	emit(g, insn(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm));
}

static void mov(struct cg *g, int dst, int src)
{
	alu(g, BPF_MOV, dst, src);
}

static void mov_imm(struct cg *g, int dst, __s32 imm)
{
	alu_imm(g, BPF_MOV, dst, imm);
}

static void ldx(struct cg *g, int size, int dst, int src, __s16 off)
{
	emit(g, insn(BPF_LDX | size | BPF_MEM, dst, src, off, 0));
}

static void stx(struct cg *g, int size, int dst, __s16 off, int src)
{
	emit(g, insn(BPF_STX | size | BPF_MEM, dst, src, off, 0));
}

static void st(struct cg *g, int size, int dst, __s16 off, __s32 imm)
{
	emit(g, insn(BPF_ST | size | BPF_MEM, dst, 0, off, imm));
}

static void ld_imm64(struct cg *g, int dst, int src, uint64_t v)
{
	emit(g, insn(BPF_LD | BPF_DW | BPF_IMM, dst, src, 0, (__u32)v));
	emit(g, insn(0, 0, 0, 0, (__u32)(v >> 32)));
}

/* r = v, in one instruction when v fits. */
static void load_const(struct cg *g, int dst, uint64_t v)
{
	if ((int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX)
		mov_imm(g, dst, (__s32)v);
	else
		ld_imm64(g, dst, 0, v);
}

/* The next instruction, a BPF_LD_IMM64, gets map's fd (or the start time). */
static void add_reloc(struct cg *g, int map)
{
	struct fpt_bpf_prog *p = g->p;

	if (p->nrelocs == g->rcap) {
		g->rcap = g->rcap ? 2 * g->rcap : 8;
		p->relocs = xrealloc(p->relocs, g->rcap * sizeof(*p->relocs));
	}
	p->relocs[p->nrelocs++] = (struct fpt_reloc){ p->ninsns, map };
}

static void load_map(struct cg *g, int dst, int map)
{
	add_reloc(g, map);
	ld_imm64(g, dst, BPF_PSEUDO_MAP_FD, 0);
}

static void call(struct cg *g, int helper)
{
	emit(g, insn(BPF_JMP | BPF_CALL, 0, 0, 0, helper));
}

/* The BTF id of kfunc k; 0 (reported once) if the kernel lacks it. */
static int kfunc_id(struct cg *g, enum fpt_kfunc k)
{
	__s32 id = g->btf ? btf__find_by_name_kind(g->btf, kfunc_names[k],
						   BTF_KIND_FUNC) : -ENOENT;

	if (id > 0)
		return id;
	if (!g->failed)
		fpt_error_noloc(g->d, "kfunc %s not found in the kernel's BTF",
				kfunc_names[k]);
	g->failed = true;
	return 0;
}

static void kcall(struct cg *g, enum fpt_kfunc k)
{
	struct fpt_bpf_prog *p = g->p;

	if (p->nkcalls == g->kcap) {
		g->kcap = g->kcap ? 2 * g->kcap : 8;
		p->kcalls = xrealloc(p->kcalls, g->kcap * sizeof(*p->kcalls));
	}
	p->kcalls[p->nkcalls++] = (struct fpt_kcall){ p->ninsns, k };
	emit(g, insn(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, kfunc_id(g, k)));
}

static int new_label(struct cg *g)
{
	g->labels = xrealloc(g->labels, (g->nlabels + 1) * sizeof(*g->labels));
	g->labels[g->nlabels] = -1;
	return g->nlabels++;
}

static void set_label(struct cg *g, int l)
{
	g->labels[l] = g->p->ninsns;
}

/* A jump to label l: op BPF_JA, or a conditional one on dst and imm/src. */
static void jump(struct cg *g, int op, int dst, int src, bool reg, __s32 imm, int l)
{
	g->fixes = xrealloc(g->fixes, (g->nfixes + 1) * sizeof(*g->fixes));
	g->fixes[g->nfixes++] = (struct fix){ g->p->ninsns, l };
	emit(g, insn(BPF_JMP | op | (reg ? BPF_X : BPF_K), dst, src, 0, imm));
}

static void jump_imm(struct cg *g, int op, int dst, __s32 imm, int l)
{
	jump(g, op, dst, 0, false, imm, l);
}

static void jump_to(struct cg *g, int l)
{
	jump(g, BPF_JA, 0, 0, false, 0, l);
}

static void resolve_labels(struct cg *g)
{
	for (int i = 0; i < g->nfixes; i++) {
		struct fix *f = &g->fixes[i];

		g->p->insns[f->insn].off = g->labels[f->label] - f->insn - 1;
	}
	g->nfixes = 0;
	g->nlabels = 0;
}

/* ---- Stack -------------------------------------------------------------- */

/* Take n bytes (rounded to 8) of stack; their offset from r10. */
static int stack_take(struct cg *g, unsigned int n)
{
	g->sp += (n + 7) & ~7u;
	if (g->sp > g->max_sp)
		g->max_sp = g->sp;
	return -g->sp;
}

/* Zero n bytes (a multiple of 8) at off from register base. */
static void zero(struct cg *g, int base, int off, unsigned int n)
{
	for (unsigned int i = 0; i < n; i += 8)
		st(g, BPF_DW, base, off + i, 0);
}

/* Copy n bytes (a multiple of 8) from src+soff to dst+doff, through r1. */
static void copy(struct cg *g, int dst, int doff, int src, int soff, unsigned int n)
{
	for (unsigned int i = 0; i < n; i += 8) {
		ldx(g, BPF_DW, BPF_REG_1, src, soff + i);
		stx(g, BPF_DW, dst, doff + i, BPF_REG_1);
	}
}

/* ---- Variables and maps ------------------------------------------------- */

static const struct fpt_svar *svar(const struct cg *g, const char *name)
{
	for (int i = 0; g->link && i < g->link->nsvars; i++)
		if (!strcmp(g->link->svars[i].name, name))
			return &g->link->svars[i];
	return NULL;
}

static const struct local *local(const struct cg *g, const char *name)
{
	for (int i = 0; i < g->nlocals; i++)
		if (!strcmp(g->locals[i].name, name))
			return &g->locals[i];
	return NULL;
}

/* Where $name lives: its base register and offset (every one is a local). */
static void var_place(const struct cg *g, const char *name, int *base, int *off)
{
	const struct local *l = local(g, name);

	*base = BPF_REG_10;
	*off = l ? l->off : OUT_SLOT;
}

static int map_index(const struct cg *g, const char *name)
{
	for (int i = 0; i < g->s->nmaps; i++)
		if (!strcmp(g->s->maps[i].name, name))
			return i;
	return -1;
}

/* An aggregation without keys but sum(): a per-CPU array (types.c). */
static bool is_array(const struct fpt_map_info *m)
{
	return m->bpf_type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* A map without keys: one element, under the u32 key 0. */
static bool is_scalar_map(const struct fpt_map_info *m)
{
	return !m->nkeys && m->kind != FPT_V_HIST && m->kind != FPT_V_LHIST;
}

/* r2 = r10 + off */
static void stack_ptr(struct cg *g, int reg, int off)
{
	mov(g, reg, BPF_REG_10);
	alu_imm(g, BPF_ADD, reg, off);
}

static void map_call(struct cg *g, int helper, int mi, int key, int value, int flags)
{
	load_map(g, BPF_REG_1, mi);
	stack_ptr(g, BPF_REG_2, key);
	if (helper == BPF_FUNC_map_update_elem) {
		stack_ptr(g, BPF_REG_3, value);
		mov_imm(g, BPF_REG_4, flags);
	}
	call(g, helper);
}

static void gen_expr(struct cg *g, const struct fpt_expr *e);
static void gen_str(struct cg *g, const struct fpt_expr *e, int off);
static void extend(struct cg *g, const struct fpt_type *t);

/* Map mi's key for map expression e (its keys), on the stack; its offset. */
static int gen_key(struct cg *g, int mi, const struct fpt_expr *e)
{
	const struct fpt_map_info *m = &g->s->maps[mi];
	int k = stack_take(g, m->key_size);

	if (is_scalar_map(m)) {
		st(g, BPF_W, BPF_REG_10, k, 0);
		return k;
	}
	for (int i = 0; i < m->nkeys; i++) {
		const struct fpt_expr *x = e->u.map.keys.v[i];

		if (x->type.kind == FPT_TY_STR) {
			gen_str(g, x, k + m->key_off[i]);
		} else {
			gen_expr(g, x);
			stx(g, BPF_DW, BPF_REG_10, k + m->key_off[i], BPF_REG_0);
		}
	}
	return k;
}

/* r0 = @m[k] (0 when unset). */
static void gen_map_read(struct cg *g, const struct fpt_expr *e)
{
	int mark = g->sp, mi = map_index(g, e->u.map.name);
	int k = gen_key(g, mi, e);

	map_call(g, BPF_FUNC_map_lookup_elem, mi, k, 0, 0);
	emit(g, insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 1, 0));
	ldx(g, BPF_DW, BPF_REG_0, BPF_REG_0, 0);
	g->sp = mark;
}

/* The string @m[k] into the buffer at off (zeroes when unset). */
static void gen_map_str(struct cg *g, const struct fpt_expr *e, int off)
{
	int mark = g->sp, mi = map_index(g, e->u.map.name);
	int k = gen_key(g, mi, e), have = new_label(g), end = new_label(g);

	map_call(g, BPF_FUNC_map_lookup_elem, mi, k, 0, 0);
	jump_imm(g, BPF_JNE, BPF_REG_0, 0, have);
	zero(g, BPF_REG_10, off, e->type.size);
	jump_to(g, end);
	set_label(g, have);
	copy(g, BPF_REG_10, off, BPF_REG_0, 0, e->type.size);
	set_label(g, end);
	g->sp = mark;
}

/* ---- Members -------------------------------------------------------------- */

/*
 * r0 = the address of member e: the pointer that its chain of '.' starts
 * from, plus the offsets along the chain.
 */
static void gen_member_addr(struct cg *g, const struct fpt_expr *e)
{
	unsigned int off = e->u.field.off;

	for (; e->u.field.base->type.kind == FPT_TY_RECORD; e = e->u.field.base)
		off += e->u.field.base->u.field.off;
	gen_expr(g, e->u.field.base);
	if (off)
		alu_imm(g, BPF_ADD, BPF_REG_0, (__s32)off);
}

/* n bytes of member e into the stack at off (zeroes if the read faults). */
static void gen_member_read(struct cg *g, const struct fpt_expr *e, int off, unsigned int n)
{
	gen_member_addr(g, e);
	mov(g, BPF_REG_3, BPF_REG_0);
	stack_ptr(g, BPF_REG_1, off);
	mov_imm(g, BPF_REG_2, (__s32)n);
	call(g, BPF_FUNC_probe_read_kernel);
}

/*
 * Char array e as a string at off: up to its first NUL, into a zeroed
 * buffer, so that the bytes after the NUL do not make two keys differ.
 */
static void gen_member_str(struct cg *g, const struct fpt_expr *e, int off)
{
	zero(g, BPF_REG_10, off, e->type.size);
	gen_member_addr(g, e);
	mov(g, BPF_REG_3, BPF_REG_0);
	stack_ptr(g, BPF_REG_1, off);
	mov_imm(g, BPF_REG_2, (__s32)e->u.field.len);
	call(g, BPF_FUNC_probe_read_kernel_str);
}

/* r0 = member e, an integer or a pointer, extended from its size. */
static void gen_member(struct cg *g, const struct fpt_expr *e)
{
	gen_member_read(g, e, OUT_SLOT, e->type.size);
	ldx(g, e->type.size == 1 ? BPF_B : e->type.size == 2 ? BPF_H :
	    e->type.size == 4 ? BPF_W : BPF_DW, BPF_REG_0, BPF_REG_10, OUT_SLOT);
	extend(g, &e->type);
}

/* ---- Strings ------------------------------------------------------------- */

/* A pointer (to BTF type id) whose BTF says __user (the "user" type tag). */
static bool user_ptr(const struct btf *btf, int id)
{
	const struct btf_type *t;

	for (t = btf && id > 0 ? btf__type_by_id(btf, id) : NULL;
	     t && (btf_is_mod(t) || btf_is_typedef(t)); t = btf__type_by_id(btf, t->type))
		if (btf_is_type_tag(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "user"))
			return true;
	return false;
}

static void gen_literal(struct cg *g, const struct fpt_expr *e, int off)
{
	for (unsigned int i = 0; i < e->type.size; i += 8) {
		uint64_t v = 0;

		for (unsigned int j = 0;
		     j < 8 && i + j < e->u.str.len && i + j + 1 < e->type.size; j++)
			v |= (uint64_t)(unsigned char)e->u.str.s[i + j] << (8 * j);
		if (!v) {
			st(g, BPF_DW, BPF_REG_10, off + i, 0);
			continue;
		}
		ld_imm64(g, BPF_REG_1, 0, v);
		stx(g, BPF_DW, BPF_REG_10, off + i, BPF_REG_1);
	}
}

/* str(p [, n]) into the buffer at off. */
static void gen_str_call(struct cg *g, const struct fpt_expr *e, int off)
{
	const struct fpt_expr *a = e->u.call.args.v[0];
	uint64_t n = e->u.call.args.n > 1 ? e->u.call.args.v[1]->u.num : FPT_STR_LEN;

	zero(g, BPF_REG_10, off, e->type.size);
	gen_expr(g, a);
	mov(g, BPF_REG_3, BPF_REG_0);
	stack_ptr(g, BPF_REG_1, off);
	mov_imm(g, BPF_REG_2, (__s32)n);
	if (a->type.kind == FPT_TY_PTR && user_ptr(g->btf, a->type.btf_id)) {
		call(g, BPF_FUNC_probe_read_user_str);
		return;
	}
	/* without the BTF "user" tag, a user pointer is read on a fault */
	mov(g, BPF_REG_8, BPF_REG_3);
	call(g, BPF_FUNC_probe_read_kernel_str);
	emit(g, insn(BPF_JMP | BPF_JSGE | BPF_K, BPF_REG_0, 0, 5, 0));
	mov(g, BPF_REG_3, BPF_REG_8);
	stack_ptr(g, BPF_REG_1, off);
	mov_imm(g, BPF_REG_2, (__s32)n);
	call(g, BPF_FUNC_probe_read_user_str);
}

/* A string expression into the e->type.size bytes at off (below r10). */
static void gen_str(struct cg *g, const struct fpt_expr *e, int off)
{
	int base, voff;

	switch (e->kind) {
	case FPT_E_STR:
		gen_literal(g, e, off);
		break;
	case FPT_E_BUILTIN:		/* comm */
		stack_ptr(g, BPF_REG_1, off);
		mov_imm(g, BPF_REG_2, FPT_COMM_LEN);
		call(g, BPF_FUNC_get_current_comm);
		break;
	case FPT_E_CALL:		/* str() */
		gen_str_call(g, e, off);
		break;
	case FPT_E_VAR:
		var_place(g, e->u.name, &base, &voff);
		copy(g, BPF_REG_10, off, base, voff, e->type.size);
		break;
	case FPT_E_MAP:
		gen_map_str(g, e, off);
		break;
	case FPT_E_FIELD:		/* a char array */
		gen_member_str(g, e, off);
		break;
	default:
		zero(g, BPF_REG_10, off, e->type.size);
	}
}

/* ---- Builtins ------------------------------------------------------------ */

/* Sign- or zero-extend r0 from an integer of type t. */
static void extend(struct cg *g, const struct fpt_type *t)
{
	int bits = 64 - 8 * (int)t->size;

	if (t->kind != FPT_TY_INT || t->size >= 8 || !t->size)
		return;
	if (!t->is_signed && t->size == 4) {
		emit(g, insn(BPF_ALU | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_0, 0, 0));
		return;
	}
	alu_imm(g, BPF_LSH, BPF_REG_0, bits);
	alu_imm(g, t->is_signed ? BPF_ARSH : BPF_RSH, BPF_REG_0, bits);
}

/* r0 = argument n (bpf_fprobe_arg), or the return value (n < 0). */
static void gen_arg(struct cg *g, int n, const struct fpt_type *t)
{
	mov(g, BPF_REG_1, BPF_REG_6);
	if (n >= 0)
		mov_imm(g, BPF_REG_2, n);
	stack_ptr(g, n >= 0 ? BPF_REG_3 : BPF_REG_2, OUT_SLOT);
	kcall(g, n >= 0 ? FPT_KF_ARG : FPT_KF_RET);
	ldx(g, BPF_DW, BPF_REG_0, BPF_REG_10, OUT_SLOT);
	extend(g, t);
}

/* r0 = probe: (probe index * 2 + exit) << 48 | the address's low 48 bits. */
static void gen_probe(struct cg *g)
{
	mov(g, BPF_REG_1, BPF_REG_6);
	kcall(g, FPT_KF_FUNC_IP);
	alu_imm(g, BPF_LSH, BPF_REG_0, 16);
	alu_imm(g, BPF_RSH, BPF_REG_0, 16);
	ld_imm64(g, BPF_REG_1, 0, (uint64_t)(g->probe * 2 + g->exit_part) << 48);
	alu(g, BPF_OR, BPF_REG_0, BPF_REG_1);
}

/* r0 = elapsed: now minus the run's start, which the runtime patches in. */
static void gen_elapsed(struct cg *g)
{
	call(g, BPF_FUNC_ktime_get_ns);
	add_reloc(g, FPT_RELOC_START);
	ld_imm64(g, BPF_REG_1, 0, 0);
	alu(g, BPF_SUB, BPF_REG_0, BPF_REG_1);
}

/* r0 = the id of this stack in the stack map of t's frame count. */
static void gen_kstack(struct cg *g, const struct fpt_type *t)
{
	int mi = -1;

	for (int i = 0; i < g->s->nmaps; i++)
		if (g->s->maps[i].role == FPT_MAP_STACKS &&
		    g->s->maps[i].value_size == t->frames * 8)
			mi = i;
	if (mi < 0) {
		/* the type pass adds one per frame count: a bug if missing */
		fpt_error_noloc(g->d, "internal error: no stack map of %u frames",
				t->frames);
		g->failed = true;
		return;
	}
	mov(g, BPF_REG_1, BPF_REG_6);
	load_map(g, BPF_REG_2, mi);
	mov_imm(g, BPF_REG_3, 0);
	call(g, BPF_FUNC_get_stackid);
}

static void gen_builtin(struct cg *g, const struct fpt_expr *e)
{
	const char *n = e->u.name;

	if (!strcmp(n, "pid") || !strcmp(n, "tid")) {
		call(g, BPF_FUNC_get_current_pid_tgid);
		if (*n == 'p')
			alu_imm(g, BPF_RSH, BPF_REG_0, 32);
		else
			extend(g, &e->type);
	} else if (!strcmp(n, "uid") || !strcmp(n, "gid")) {
		call(g, BPF_FUNC_get_current_uid_gid);
		if (*n == 'g')
			alu_imm(g, BPF_RSH, BPF_REG_0, 32);
		else
			extend(g, &e->type);
	} else if (!strcmp(n, "cpu")) {
		call(g, BPF_FUNC_get_smp_processor_id);
	} else if (!strcmp(n, "nsecs") || !strcmp(n, "latency")) {
		call(g, BPF_FUNC_ktime_get_ns);
		if (*n == 'l') {
			ldx(g, BPF_DW, BPF_REG_1, BPF_REG_7, g->link->ts_off);
			alu(g, BPF_SUB, BPF_REG_0, BPF_REG_1);
		}
	} else if (!strcmp(n, "elapsed")) {
		gen_elapsed(g);
	} else if (!strcmp(n, "cookie")) {
		mov(g, BPF_REG_1, BPF_REG_6);
		call(g, BPF_FUNC_get_attach_cookie);
	} else if (!strcmp(n, "func")) {
		mov(g, BPF_REG_1, BPF_REG_6);
		kcall(g, FPT_KF_FUNC_IP);
	} else if (!strcmp(n, "probe")) {
		gen_probe(g);
	} else if (!strcmp(n, "kstack")) {
		gen_kstack(g, &e->type);
	} else if (!strcmp(n, "retval")) {
		gen_arg(g, -1, &e->type);
	} else {			/* arg0 .. arg5 */
		gen_arg(g, n[3] - '0', &e->type);
	}
}

/* ---- Operators ------------------------------------------------------------ */

static bool both_signed(const struct fpt_expr *l, const struct fpt_expr *r)
{
	return l->type.kind == FPT_TY_INT && r->type.kind == FPT_TY_INT &&
		l->type.is_signed && r->type.is_signed;
}

/* r0 = 1 if r1 op r2 holds (or r1 op imm when !reg), else 0. */
static void set_cond(struct cg *g, int op, bool reg, __s32 imm)
{
	emit(g, insn(BPF_JMP | op | (reg ? BPF_X : BPF_K), BPF_REG_1,
		     reg ? BPF_REG_2 : 0, 2, imm));
	mov_imm(g, BPF_REG_0, 0);
	emit(g, insn(BPF_JMP | BPF_JA, 0, 0, 1, 0));
	mov_imm(g, BPF_REG_0, 1);
}

static void gen_logical(struct cg *g, const struct fpt_expr *e)
{
	bool and = e->u.binary.op == FPT_T_LAND;
	int out = new_label(g), end = new_label(g);

	gen_expr(g, e->u.binary.l);
	jump_imm(g, and ? BPF_JEQ : BPF_JNE, BPF_REG_0, 0, out);
	gen_expr(g, e->u.binary.r);
	jump_imm(g, and ? BPF_JEQ : BPF_JNE, BPF_REG_0, 0, out);
	mov_imm(g, BPF_REG_0, and);
	jump_to(g, end);
	set_label(g, out);
	mov_imm(g, BPF_REG_0, !and);
	set_label(g, end);
}

/* == and != of two strings, 8 bytes at a time over the shorter one. */
static void gen_str_eq(struct cg *g, const struct fpt_expr *e)
{
	const struct fpt_expr *l = e->u.binary.l, *r = e->u.binary.r;
	unsigned int n = l->type.size < r->type.size ? l->type.size : r->type.size;
	int mark = g->sp, a = stack_take(g, l->type.size), b = stack_take(g, r->type.size);
	int ne = new_label(g), end = new_label(g);
	bool eq = e->u.binary.op == FPT_T_EQ;

	gen_str(g, l, a);
	gen_str(g, r, b);
	for (unsigned int i = 0; i < n; i += 8) {
		ldx(g, BPF_DW, BPF_REG_1, BPF_REG_10, a + i);
		ldx(g, BPF_DW, BPF_REG_2, BPF_REG_10, b + i);
		jump(g, BPF_JNE, BPF_REG_1, BPF_REG_2, true, 0, ne);
	}
	mov_imm(g, BPF_REG_0, eq);
	jump_to(g, end);
	set_label(g, ne);
	mov_imm(g, BPF_REG_0, !eq);
	set_label(g, end);
	g->sp = mark;
}

static int cmp_op(enum fpt_tok_kind op, bool sign)
{
	switch (op) {
	case FPT_T_EQ:
		return BPF_JEQ;
	case FPT_T_NE:
		return BPF_JNE;
	case FPT_T_LT:
		return sign ? BPF_JSLT : BPF_JLT;
	case FPT_T_LE:
		return sign ? BPF_JSLE : BPF_JLE;
	case FPT_T_GT:
		return sign ? BPF_JSGT : BPF_JGT;
	default:
		return sign ? BPF_JSGE : BPF_JGE;
	}
}

/* The ALU operation of op (division and shifts unsigned, as bpftrace's). */
static int alu_op(enum fpt_tok_kind op)
{
	switch (op) {
	case FPT_T_PLUS:
	case FPT_T_PLUS_ASSIGN:
		return BPF_ADD;
	case FPT_T_MINUS:
	case FPT_T_MINUS_ASSIGN:
		return BPF_SUB;
	case FPT_T_MUL:
	case FPT_T_MUL_ASSIGN:
		return BPF_MUL;
	case FPT_T_DIV:
	case FPT_T_DIV_ASSIGN:
		return BPF_DIV;
	case FPT_T_MOD:
	case FPT_T_MOD_ASSIGN:
		return BPF_MOD;
	case FPT_T_BAND:
	case FPT_T_BAND_ASSIGN:
		return BPF_AND;
	case FPT_T_BOR:
	case FPT_T_BOR_ASSIGN:
		return BPF_OR;
	case FPT_T_BXOR:
	case FPT_T_BXOR_ASSIGN:
		return BPF_XOR;
	case FPT_T_SHL:
	case FPT_T_SHL_ASSIGN:
		return BPF_LSH;
	default:
		return BPF_RSH;
	}
}

static bool is_compare(enum fpt_tok_kind op)
{
	return op == FPT_T_EQ || op == FPT_T_NE || op == FPT_T_LT || op == FPT_T_LE ||
		op == FPT_T_GT || op == FPT_T_GE;
}

/* r0 = r0 op (r1 or imm), as an arithmetic or a comparison operator. */
static void apply_op(struct cg *g, enum fpt_tok_kind op, bool sign, bool reg, __s32 imm)
{
	if (is_compare(op)) {
		if (reg)
			mov(g, BPF_REG_2, BPF_REG_1);
		mov(g, BPF_REG_1, BPF_REG_0);
		set_cond(g, cmp_op(op, sign), reg, imm);
		return;
	}
	emit(g, insn(BPF_ALU64 | alu_op(op) | (reg ? BPF_X : BPF_K), BPF_REG_0,
		     reg ? BPF_REG_1 : 0, 0, reg ? 0 : imm));
}

/* A right operand that can be an immediate. */
static bool imm_operand(const struct fpt_expr *r, enum fpt_tok_kind op, __s32 *imm)
{
	if (r->kind != FPT_E_INT || r->u.num > INT32_MAX)
		return false;
	*imm = (__s32)r->u.num;
	if ((op == FPT_T_DIV || op == FPT_T_MOD) && !*imm)
		return false;
	return (op != FPT_T_SHL && op != FPT_T_SHR) || *imm < 64;
}

static void gen_binary(struct cg *g, const struct fpt_expr *e)
{
	const struct fpt_expr *l = e->u.binary.l, *r = e->u.binary.r;
	enum fpt_tok_kind op = e->u.binary.op;
	bool sign = both_signed(l, r);
	int slot, mark = g->sp;
	__s32 imm;

	if (op == FPT_T_LAND || op == FPT_T_LOR) {
		gen_logical(g, e);
		return;
	}
	if (l->type.kind == FPT_TY_STR) {
		gen_str_eq(g, e);
		return;
	}
	if (imm_operand(r, op, &imm)) {
		gen_expr(g, l);
		apply_op(g, op, sign, false, imm);
		return;
	}
	slot = stack_take(g, 8);
	gen_expr(g, l);
	stx(g, BPF_DW, BPF_REG_10, slot, BPF_REG_0);
	gen_expr(g, r);
	mov(g, BPF_REG_1, BPF_REG_0);
	ldx(g, BPF_DW, BPF_REG_0, BPF_REG_10, slot);
	apply_op(g, op, sign, true, 0);
	g->sp = mark;
}

static void gen_unary(struct cg *g, const struct fpt_expr *e)
{
	gen_expr(g, e->u.unary.e);
	if (e->u.unary.op == FPT_T_MINUS) {
		alu_imm(g, BPF_NEG, BPF_REG_0, 0);
	} else if (e->u.unary.op == FPT_T_BNOT) {
		alu_imm(g, BPF_XOR, BPF_REG_0, -1);
	} else {
		mov(g, BPF_REG_1, BPF_REG_0);
		set_cond(g, BPF_JEQ, false, 0);
	}
}

static void gen_ternary(struct cg *g, const struct fpt_expr *e)
{
	int els = new_label(g), end = new_label(g);

	gen_expr(g, e->u.ternary.cond);
	jump_imm(g, BPF_JEQ, BPF_REG_0, 0, els);
	gen_expr(g, e->u.ternary.then);
	jump_to(g, end);
	set_label(g, els);
	gen_expr(g, e->u.ternary.els);
	set_label(g, end);
}

/* ++/-- of a map element: read (0 if unset), update, r0 = the result. */
static void gen_map_incdec(struct cg *g, const struct fpt_expr *e)
{
	const struct fpt_expr *t = e->u.incdec.target;
	int mark = g->sp, mi = map_index(g, t->u.map.name);
	int v = stack_take(g, 8), k = gen_key(g, mi, t);
	int d = e->u.incdec.inc ? 1 : -1;

	map_call(g, BPF_FUNC_map_lookup_elem, mi, k, 0, 0);
	emit(g, insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 1, 0));
	ldx(g, BPF_DW, BPF_REG_0, BPF_REG_0, 0);
	alu_imm(g, BPF_ADD, BPF_REG_0, d);
	stx(g, BPF_DW, BPF_REG_10, v, BPF_REG_0);
	map_call(g, BPF_FUNC_map_update_elem, mi, k, v, BPF_ANY);
	ldx(g, BPF_DW, BPF_REG_0, BPF_REG_10, v);
	if (e->u.incdec.post)
		alu_imm(g, BPF_ADD, BPF_REG_0, -d);
	g->sp = mark;
}

static void gen_incdec(struct cg *g, const struct fpt_expr *e)
{
	const struct fpt_expr *t = e->u.incdec.target;
	int base, off, d = e->u.incdec.inc ? 1 : -1;

	if (t->kind == FPT_E_MAP) {
		gen_map_incdec(g, e);
		return;
	}
	var_place(g, t->u.name, &base, &off);
	ldx(g, BPF_DW, BPF_REG_0, base, off);
	alu_imm(g, BPF_ADD, BPF_REG_0, d);
	stx(g, BPF_DW, base, off, BPF_REG_0);
	if (e->u.incdec.post)
		alu_imm(g, BPF_ADD, BPF_REG_0, -d);
}

/* A scalar expression into r0. */
static void gen_expr(struct cg *g, const struct fpt_expr *e)
{
	int base, off;

	switch (e->kind) {
	case FPT_E_INT:
		load_const(g, BPF_REG_0, e->u.num);
		break;
	case FPT_E_BUILTIN:
		gen_builtin(g, e);
		break;
	case FPT_E_VAR:
		var_place(g, e->u.name, &base, &off);
		ldx(g, BPF_DW, BPF_REG_0, base, off);
		break;
	case FPT_E_MAP:
		gen_map_read(g, e);
		break;
	case FPT_E_CALL:		/* ksym(x), kstack(...) */
		if (e->type.kind == FPT_TY_KSTACK)
			gen_kstack(g, &e->type);
		else
			gen_expr(g, e->u.call.args.v[0]);
		break;
	case FPT_E_FIELD:
		if (e->u.field.base->kind == FPT_E_BUILTIN)	/* args.NAME */
			gen_arg(g, e->u.field.argno, &e->type);
		else
			gen_member(g, e);
		break;
	case FPT_E_CAST:
		gen_expr(g, e->u.cast.e);
		break;
	case FPT_E_UNARY:
		gen_unary(g, e);
		break;
	case FPT_E_BINARY:
		gen_binary(g, e);
		break;
	case FPT_E_TERNARY:
		gen_ternary(g, e);
		break;
	case FPT_E_INCDEC:
		gen_incdec(g, e);
		break;
	default:
		mov_imm(g, BPF_REG_0, 0);
	}
}

/* ---- Aggregations ---------------------------------------------------------- */

/* r0 = hist bucket of r2 with bits k, as fpt_hist_index(); uses r1-r4. */
static void gen_hist_index(struct cg *g, int k)
{
	int end = new_label(g);

	mov_imm(g, BPF_REG_0, 0);
	jump_imm(g, BPF_JSLT, BPF_REG_2, 0, end);
	mov(g, BPF_REG_0, BPF_REG_2);
	alu_imm(g, BPF_ADD, BPF_REG_0, 1);
	jump_imm(g, BPF_JLT, BPF_REG_2, 2 << k, end);
	mov_imm(g, BPF_REG_3, 0);		/* r3 = log2(r2), unrolled */
	mov(g, BPF_REG_1, BPF_REG_2);
	for (int s = 32; s; s >>= 1) {
		mov(g, BPF_REG_4, BPF_REG_1);
		alu_imm(g, BPF_RSH, BPF_REG_4, s);
		emit(g, insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_4, 0, 2, 0));
		alu_imm(g, BPF_ADD, BPF_REG_3, s);
		mov(g, BPF_REG_1, BPF_REG_4);
	}
	if (k)
		alu_imm(g, BPF_SUB, BPF_REG_3, k);	/* shift */
	mov(g, BPF_REG_4, BPF_REG_2);
	alu(g, BPF_RSH, BPF_REG_4, BPF_REG_3);
	alu_imm(g, BPF_SUB, BPF_REG_4, 1 << k);
	mov(g, BPF_REG_0, BPF_REG_3);
	alu_imm(g, BPF_ADD, BPF_REG_0, 1);
	if (k)
		alu_imm(g, BPF_LSH, BPF_REG_0, k);
	alu(g, BPF_ADD, BPF_REG_0, BPF_REG_4);
	alu_imm(g, BPF_ADD, BPF_REG_0, 1);
	set_label(g, end);
}

/* r0 = lhist bucket of r2, as fpt_lhist_index(). */
static void gen_lhist_index(struct cg *g, const struct fpt_map_info *m)
{
	int end = new_label(g);

	mov_imm(g, BPF_REG_0, 0);
	jump_imm(g, BPF_JSLT, BPF_REG_2, (__s32)m->lmin, end);
	mov_imm(g, BPF_REG_0, (__s32)(1 + (m->lmax - m->lmin) / m->lstep));
	jump_imm(g, BPF_JSGT, BPF_REG_2, (__s32)m->lmax, end);
	mov(g, BPF_REG_0, BPF_REG_2);
	alu_imm(g, BPF_SUB, BPF_REG_0, (__s32)m->lmin);
	alu_imm(g, BPF_DIV, BPF_REG_0, (__s32)m->lstep);
	alu_imm(g, BPF_ADD, BPF_REG_0, 1);
	set_label(g, end);
}

/*
 * r0 = the value of key k in map mi, inserted zeroed if missing; else
 * skip. An array has every element: only an index out of range misses.
 */
static void lookup_or_init(struct cg *g, int mi, int k, int skip)
{
	int have = new_label(g), z;

	if (is_array(&g->s->maps[mi])) {
		map_call(g, BPF_FUNC_map_lookup_elem, mi, k, 0, 0);
		jump_imm(g, BPF_JEQ, BPF_REG_0, 0, skip);
		return;
	}
	z = stack_take(g, g->s->maps[mi].value_size);
	map_call(g, BPF_FUNC_map_lookup_elem, mi, k, 0, 0);
	jump_imm(g, BPF_JNE, BPF_REG_0, 0, have);
	zero(g, BPF_REG_10, z, (g->s->maps[mi].value_size + 7) & ~7u);
	map_call(g, BPF_FUNC_map_update_elem, mi, k, z, BPF_NOEXIST);
	map_call(g, BPF_FUNC_map_lookup_elem, mi, k, 0, 0);
	jump_imm(g, BPF_JEQ, BPF_REG_0, 0, skip);
	set_label(g, have);
}

/* *(u64 *)(r0 + off) += r2 (or 1 when one). */
static void add_at(struct cg *g, int off, bool one)
{
	ldx(g, BPF_DW, BPF_REG_1, BPF_REG_0, off);
	if (one)
		alu_imm(g, BPF_ADD, BPF_REG_1, 1);
	else
		alu(g, BPF_ADD, BPF_REG_1, BPF_REG_2);
	stx(g, BPF_DW, BPF_REG_0, off, BPF_REG_1);
}

/* min/max: { value, set } takes r2 if unset or r2 is lower (higher). */
static void gen_minmax(struct cg *g, const struct fpt_map_info *m)
{
	int set = new_label(g), done = new_label(g);
	bool sign = m->val.kind == FPT_TY_INT && m->val.is_signed;
	bool min = m->kind == FPT_V_MIN;

	ldx(g, BPF_DW, BPF_REG_1, BPF_REG_0, 8);
	jump_imm(g, BPF_JEQ, BPF_REG_1, 0, set);
	ldx(g, BPF_DW, BPF_REG_1, BPF_REG_0, 0);
	jump(g, min ? (sign ? BPF_JSGE : BPF_JGE) : (sign ? BPF_JSLE : BPF_JLE),
	     BPF_REG_2, BPF_REG_1, true, 0, done);
	set_label(g, set);
	stx(g, BPF_DW, BPF_REG_0, 0, BPF_REG_2);
	st(g, BPF_DW, BPF_REG_0, 8, 1);
	set_label(g, done);
}

/* The update of an aggregation's value at r0 with the value r2. */
static void gen_agg_apply(struct cg *g, const struct fpt_map_info *m)
{
	switch (m->kind) {
	case FPT_V_SUM:
		add_at(g, 0, false);
		break;
	case FPT_V_AVG: case FPT_V_STATS:
		add_at(g, 0, true);
		add_at(g, 8, false);
		break;
	case FPT_V_MIN: case FPT_V_MAX:
		gen_minmax(g, m);
		break;
	default:			/* count, hist, lhist */
		add_at(g, 0, true);
	}
}

/* @m[k] = agg(v). */
static void gen_agg(struct cg *g, const struct fpt_expr *t, const struct fpt_expr *call)
{
	int mark = g->sp, mi = map_index(g, t->u.map.name), skip = new_label(g);
	const struct fpt_map_info *m = &g->s->maps[mi];
	bool hist = m->kind == FPT_V_HIST || m->kind == FPT_V_LHIST;
	int v = stack_take(g, 8), k;

	if (call->u.call.args.n) {
		gen_expr(g, call->u.call.args.v[0]);
		stx(g, BPF_DW, BPF_REG_10, v, BPF_REG_0);
	}
	/* a histogram array's key is the bucket alone, stored below */
	k = hist && is_array(m) ? stack_take(g, m->key_size) : gen_key(g, mi, t);
	if (hist) {
		ldx(g, BPF_DW, BPF_REG_2, BPF_REG_10, v);
		if (m->kind == FPT_V_HIST)
			gen_hist_index(g, m->hist_bits);
		else
			gen_lhist_index(g, m);
		if (is_array(m))	/* the bucket is the index */
			stx(g, BPF_W, BPF_REG_10, k, BPF_REG_0);
		else
			stx(g, BPF_DW, BPF_REG_10, k + m->key_size - 8, BPF_REG_0);
	}
	lookup_or_init(g, mi, k, skip);
	/* the value, for the aggregations that take it in (not count or a bucket) */
	if (call->u.call.args.n && !hist)
		ldx(g, BPF_DW, BPF_REG_2, BPF_REG_10, v);
	gen_agg_apply(g, m);
	set_label(g, skip);
	g->sp = mark;
}

/* ---- Statements and events ----------------------------------------------- */

/* @m[k] = v, @m[k] op= v. */
static void gen_map_assign(struct cg *g, const struct fpt_stmt *s)
{
	const struct fpt_expr *t = s->u.assign.target, *x = s->u.assign.value;
	int mark = g->sp, mi = map_index(g, t->u.map.name);
	const struct fpt_map_info *m = &g->s->maps[mi];
	int v = stack_take(g, m->value_size), k;

	if (x->type.kind == FPT_TY_STR) {
		gen_str(g, x, v);
	} else {
		gen_expr(g, x);
		stx(g, BPF_DW, BPF_REG_10, v, BPF_REG_0);
	}
	k = gen_key(g, mi, t);
	if (s->u.assign.op != FPT_T_ASSIGN) {
		map_call(g, BPF_FUNC_map_lookup_elem, mi, k, 0, 0);
		emit(g, insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 1, 0));
		ldx(g, BPF_DW, BPF_REG_0, BPF_REG_0, 0);
		ldx(g, BPF_DW, BPF_REG_1, BPF_REG_10, v);
		apply_op(g, s->u.assign.op, m->val.is_signed && x->type.is_signed, true, 0);
		stx(g, BPF_DW, BPF_REG_10, v, BPF_REG_0);
	}
	map_call(g, BPF_FUNC_map_update_elem, mi, k, v, BPF_ANY);
	g->sp = mark;
}

/* $x = v, $x op= v. */
static void gen_var_assign(struct cg *g, const struct fpt_stmt *s)
{
	const struct fpt_expr *t = s->u.assign.target, *x = s->u.assign.value;
	int base, off, mark = g->sp, tmp;

	var_place(g, t->u.name, &base, &off);
	if (x->type.kind == FPT_TY_STR) {
		tmp = stack_take(g, x->type.size);
		gen_str(g, x, tmp);
		copy(g, base, off, BPF_REG_10, tmp, x->type.size);
		g->sp = mark;
		return;
	}
	gen_expr(g, x);
	if (s->u.assign.op != FPT_T_ASSIGN) {
		mov(g, BPF_REG_1, BPF_REG_0);
		ldx(g, BPF_DW, BPF_REG_0, base, off);
		apply_op(g, s->u.assign.op, t->type.is_signed && x->type.is_signed, true, 0);
	}
	stx(g, BPF_DW, base, off, BPF_REG_0);
}

static int event_add(struct cg *g, enum fpt_event_kind kind, struct fpt_loc loc)
{
	struct fpt_bpf *b = g->out;
	struct fpt_event *ev;

	b->events = xrealloc(b->events, (b->nevents + 1) * sizeof(*ev));
	ev = &b->events[b->nevents];
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->loc = loc;
	ev->map = -1;
	ev->size = 8;
	return b->nevents++;
}

/* A record the ring buffer had no room for counts in ".lost" (this CPU's). */
static void count_lost(struct cg *g)
{
	int mark = g->sp, k = stack_take(g, 8), done = new_label(g);

	jump_imm(g, BPF_JEQ, BPF_REG_0, 0, done);
	st(g, BPF_W, BPF_REG_10, k, 0);
	map_call(g, BPF_FUNC_map_lookup_elem, map_index(g, ".lost"), k, 0, 0);
	jump_imm(g, BPF_JEQ, BPF_REG_0, 0, done);
	add_at(g, 0, true);
	set_label(g, done);
	g->sp = mark;
}

/* Write the record of event id (its size) at r10 + off to the ring buffer. */
static void emit_record(struct cg *g, int id, int off)
{
	load_map(g, BPF_REG_1, map_index(g, ".events"));
	stack_ptr(g, BPF_REG_2, off);
	mov_imm(g, BPF_REG_3, g->out->events[id].size);
	mov_imm(g, BPF_REG_4, 0);
	call(g, BPF_FUNC_ringbuf_output);
	count_lost(g);
}

static void gen_printf(struct cg *g, const struct fpt_expr *e)
{
	const struct fpt_expr_list *l = &e->u.call.args;
	int id = event_add(g, FPT_EV_PRINTF, e->loc), mark = g->sp, r;
	struct fpt_event *ev = &g->out->events[id];

	ev->fmt = malloc(l->v[0]->u.str.len + 1);
	ev->args = calloc(l->n, sizeof(*ev->args));
	if (!ev->fmt || !ev->args)
		abort();
	memcpy(ev->fmt, l->v[0]->u.str.s, l->v[0]->u.str.len + 1);
	ev->fmt_len = l->v[0]->u.str.len;
	for (int i = 1; i < l->n; i++, ev->nargs++) {
		ev->args[i - 1] = (struct fpt_event_arg){ l->v[i]->type, ev->size };
		ev->size += l->v[i]->type.kind == FPT_TY_STR ? (l->v[i]->type.size + 7) & ~7u : 8;
	}
	r = stack_take(g, ev->size);
	st(g, BPF_W, BPF_REG_10, r, id);
	st(g, BPF_W, BPF_REG_10, r + 4, 0);
	for (int i = 1; i < l->n; i++) {
		int off = r + (int)g->out->events[id].args[i - 1].off;

		if (l->v[i]->type.kind == FPT_TY_STR) {
			gen_str(g, l->v[i], off);
		} else {
			gen_expr(g, l->v[i]);
			stx(g, BPF_DW, BPF_REG_10, off, BPF_REG_0);
		}
	}
	emit_record(g, id, r);
	g->sp = mark;
}

/* print(@m, top, div), clear(@m), exit(): a record with the event id only. */
static void gen_map_event(struct cg *g, const struct fpt_expr *e, enum fpt_event_kind kind)
{
	const struct fpt_expr_list *l = &e->u.call.args;
	int id = event_add(g, kind, e->loc), mark = g->sp, r = stack_take(g, 8);
	struct fpt_event *ev = &g->out->events[id];

	if (l->n)
		ev->map = map_index(g, l->v[0]->u.map.name);
	ev->top = l->n > 1 ? (uint32_t)l->v[1]->u.num : 0;
	ev->div = l->n > 2 ? (uint32_t)l->v[2]->u.num : 0;
	st(g, BPF_W, BPF_REG_10, r, id);
	st(g, BPF_W, BPF_REG_10, r + 4, 0);
	emit_record(g, id, r);
	g->sp = mark;
	if (kind == FPT_EV_EXIT)	/* ends this probe, as in bpftrace */
		jump_to(g, g->done_label);
}

/* time([FORMAT]): a record the runtime prints the time for, as strftime() does. */
static void gen_time(struct cg *g, const struct fpt_expr *e)
{
	static const char def[] = "%H:%M:%S\n";	/* bpftrace's */
	const struct fpt_expr *f = e->u.call.args.n ? e->u.call.args.v[0] : NULL;
	int id = event_add(g, FPT_EV_PRINTF, e->loc), mark = g->sp, r = stack_take(g, 8);
	struct fpt_event *ev = &g->out->events[id];

	ev->time = true;
	ev->fmt_len = f ? f->u.str.len : strlen(def);
	ev->fmt = malloc(ev->fmt_len + 1);
	if (!ev->fmt)
		abort();
	memcpy(ev->fmt, f ? f->u.str.s : def, ev->fmt_len + 1);
	st(g, BPF_W, BPF_REG_10, r, id);
	st(g, BPF_W, BPF_REG_10, r + 4, 0);
	emit_record(g, id, r);
	g->sp = mark;
}

/* delete(): the element goes, from every CPU's copy of a per-CPU map. */
static void gen_delete(struct cg *g, const struct fpt_expr *e)
{
	const struct fpt_expr *t = e->u.call.args.v[0];
	int mark = g->sp, mi = map_index(g, t->u.map.name);
	const struct fpt_map_info *m = &g->s->maps[mi];
	int k;

	if (is_array(m)) {	/* BPF clears only this CPU's: the runtime clears */
		gen_map_event(g, e, FPT_EV_CLEAR);
		return;
	}
	k = gen_key(g, mi, t);
	map_call(g, BPF_FUNC_map_delete_elem, mi, k, 0, 0);
	g->sp = mark;
}

static void gen_expr_stmt(struct cg *g, const struct fpt_expr *e)
{
	const char *n = e->kind == FPT_E_CALL ? e->u.call.name : "";

	if (!strcmp(n, "printf"))
		gen_printf(g, e);
	else if (!strcmp(n, "print"))
		gen_map_event(g, e, FPT_EV_PRINT);
	else if (!strcmp(n, "clear"))
		gen_map_event(g, e, FPT_EV_CLEAR);
	else if (!strcmp(n, "exit"))
		gen_map_event(g, e, FPT_EV_EXIT);
	else if (!strcmp(n, "delete"))
		gen_delete(g, e);
	else if (!strcmp(n, "time"))
		gen_time(g, e);
	else if (e->type.kind != FPT_TY_STR)
		gen_expr(g, e);
}

static void gen_block(struct cg *g, const struct fpt_block *b);

static void gen_stmt(struct cg *g, const struct fpt_stmt *s)
{
	const struct fpt_expr *t = s->u.assign.target, *v = s->u.assign.value;
	struct fpt_loc outer = g->loc;
	int els, end;

	g->loc = s->kind == FPT_S_IF ? s->u.if_.cond->loc : s->loc;
	switch (s->kind) {
	case FPT_S_EXPR:
		gen_expr_stmt(g, s->u.expr);
		break;
	case FPT_S_ASSIGN:
		if (t->kind == FPT_E_VAR)
			gen_var_assign(g, s);
		else if (v->type.kind == FPT_TY_AGG)
			gen_agg(g, t, v);
		else
			gen_map_assign(g, s);
		break;
	case FPT_S_IF:
		els = new_label(g);
		end = new_label(g);
		gen_expr(g, s->u.if_.cond);
		jump_imm(g, BPF_JEQ, BPF_REG_0, 0, els);
		gen_block(g, &s->u.if_.then);
		g->loc = s->u.if_.cond->loc;
		if (s->u.if_.els)
			jump_to(g, end);
		set_label(g, els);
		if (s->u.if_.els)
			gen_block(g, s->u.if_.els);
		set_label(g, end);
		break;
	}
	g->loc = outer;
}

static void gen_block(struct cg *g, const struct fpt_block *b)
{
	for (int i = 0; i < b->n; i++)
		gen_stmt(g, b->v[i]);
}

/* ---- Parts and programs -------------------------------------------------- */

static void add_local(struct cg *g, const struct fpt_expr *t)
{
	unsigned int size = t->type.kind == FPT_TY_STR ? t->type.size : 8;

	if (t->type.kind == FPT_TY_NONE || local(g, t->u.name))
		return;
	g->locals = xrealloc(g->locals, (g->nlocals + 1) * sizeof(*g->locals));
	g->locals[g->nlocals++] = (struct local){ t->u.name, stack_take(g, size), size };
}

/* Give a slot to each $variable that expression e reads or sets. */
static void find_expr_locals(struct cg *g, const struct fpt_expr *e)
{
	const struct fpt_expr_list *l = e->kind == FPT_E_MAP ? &e->u.map.keys :
		e->kind == FPT_E_CALL ? &e->u.call.args : NULL;

	for (int i = 0; l && i < l->n; i++)
		find_expr_locals(g, l->v[i]);
	if (e->kind == FPT_E_VAR)
		add_local(g, e);
	else if (e->kind == FPT_E_FIELD)
		find_expr_locals(g, e->u.field.base);
	else if (e->kind == FPT_E_CAST)
		find_expr_locals(g, e->u.cast.e);
	else if (e->kind == FPT_E_UNARY)
		find_expr_locals(g, e->u.unary.e);
	else if (e->kind == FPT_E_INCDEC)
		find_expr_locals(g, e->u.incdec.target);
	if (e->kind == FPT_E_BINARY) {
		find_expr_locals(g, e->u.binary.l);
		find_expr_locals(g, e->u.binary.r);
	} else if (e->kind == FPT_E_TERNARY) {
		find_expr_locals(g, e->u.ternary.cond);
		find_expr_locals(g, e->u.ternary.then);
		find_expr_locals(g, e->u.ternary.els);
	}
}

/* Give a slot to each $variable of the block: every one is the part's own. */
static void find_locals(struct cg *g, const struct fpt_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct fpt_stmt *s = b->v[i];

		if (s->kind == FPT_S_EXPR) {
			find_expr_locals(g, s->u.expr);
		} else if (s->kind == FPT_S_ASSIGN) {
			find_expr_locals(g, s->u.assign.target);
			find_expr_locals(g, s->u.assign.value);
		} else {
			find_expr_locals(g, s->u.if_.cond);
			find_locals(g, &s->u.if_.then);
			if (s->u.if_.els)
				find_locals(g, s->u.if_.els);
		}
	}
}

/* The session variable that local l carries, if any (same name and size). */
static const struct fpt_svar *carried(const struct cg *g, const struct local *l)
{
	const struct fpt_svar *sv = svar(g, l->name);
	unsigned int size = sv && sv->type.kind == FPT_TY_STR ? sv->type.size : 8;

	return sv && size == l->size ? sv : NULL;
}

/* Zero the locals; at exit, the session variables come from the session data. */
static void init_locals(struct cg *g, bool exit_part)
{
	for (int i = 0; i < g->nlocals; i++) {
		const struct local *l = &g->locals[i];
		const struct fpt_svar *sv = exit_part ? carried(g, l) : NULL;

		if (sv)
			copy(g, BPF_REG_10, l->off, BPF_REG_7, sv->off, l->size);
		else
			zero(g, BPF_REG_10, l->off, l->size);
	}
}

/* At the end of an entry part (or its exit()): its session variables saved. */
static void save_locals(struct cg *g)
{
	for (int i = 0; i < g->nlocals; i++) {
		const struct local *l = &g->locals[i];
		const struct fpt_svar *sv = carried(g, l);

		if (sv)
			copy(g, BPF_REG_7, sv->off, BPF_REG_10, l->off, l->size);
	}
}

/*
 * One probe's predicate and block. Its $variables are its own, on the
 * stack: an exit part starts with the session variables it uses read from
 * the session data, and an entry part writes its own back at the end of
 * its body, which exit() jumps to.
 */
static void gen_part(struct cg *g, const struct fpt_probe *p, bool exit_part)
{
	int mark = g->sp, end = new_label(g);

	g->probe = p->index;
	g->exit_part = exit_part;
	g->done_label = new_label(g);
	g->nlocals = 0;
	if (p->pred)
		find_expr_locals(g, p->pred);
	find_locals(g, &p->body);
	g->loc = p->loc;
	init_locals(g, exit_part);
	if (p->pred) {
		g->loc = p->pred->loc;
		gen_expr(g, p->pred);
		jump_imm(g, BPF_JEQ, BPF_REG_0, 0, end);
	}
	gen_block(g, &p->body);
	g->loc = p->loc;
	set_label(g, g->done_label);
	if (!exit_part)
		save_locals(g);
	set_label(g, end);
	g->sp = mark;
}

static struct fpt_bpf_prog *new_prog(struct cg *g, enum fpt_prog_kind kind, const char *name)
{
	struct fpt_bpf *b = g->out;
	struct fpt_bpf_prog *p;

	b->progs = xrealloc(b->progs, (b->nprogs + 1) * sizeof(*p));
	p = &b->progs[b->nprogs++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->kind = kind;
	p->link = -1;
	p->probe = -1;
	g->p = p;
	g->cap = 0;
	g->rcap = 0;
	g->kcap = 0;
	g->sp = 8;			/* the kfuncs' out value */
	g->max_sp = 8;
	g->out_label = new_label(g);
	st(g, BPF_DW, BPF_REG_10, OUT_SLOT, 0);
	mov(g, BPF_REG_6, BPF_REG_1);
	return p;
}

/* r0 = 0; exit; then the labels, and the stack's size checked. */
static void end_prog(struct cg *g, struct fpt_loc loc)
{
	set_label(g, g->out_label);
	mov_imm(g, BPF_REG_0, 0);
	emit(g, insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	resolve_labels(g);
	g->p->stack = g->max_sp;
	if (g->max_sp > STACK_MAX)
		fpt_error(g->d, loc, "%s needs %d bytes of stack, more than the %d of BPF",
			  g->p->name, g->max_sp, STACK_MAX);
}

/* The session prologue: r7 = session data, and the branch to the exit run. */
static void session_start(struct cg *g, int exit_label)
{
	if (g->link->session_size) {
		mov(g, BPF_REG_1, BPF_REG_6);
		mov_imm(g, BPF_REG_2, g->link->session_size);
		kcall(g, FPT_KF_SESSION_DATA);
		jump_imm(g, BPF_JEQ, BPF_REG_0, 0, g->out_label);
		mov(g, BPF_REG_7, BPF_REG_0);
	}
	mov(g, BPF_REG_1, BPF_REG_6);
	kcall(g, FPT_KF_IS_RETURN);
	alu_imm(g, BPF_AND, BPF_REG_0, 0xff);
	jump_imm(g, BPF_JNE, BPF_REG_0, 0, exit_label);
}

static void gen_link(struct cg *g, int li)
{
	const struct fpt_link *l = &g->s->links[li];
	const struct fpt_program *prog = g->prog;
	struct fpt_bpf_prog *p;
	char name[32];
	int exit_label;

	snprintf(name, sizeof(name), "fpt_link%d", li);
	g->loc = prog->probes[l->nentry ? l->entry[0] : l->exit[0]].loc;
	p = new_prog(g, FPT_PROG_LINK, name);
	p->link = li;
	p->prog_type = BPF_PROG_TYPE_KPROBE;
	p->attach_type = BPF_TRACE_FPROBE_MULTI;
	g->link = l;
	exit_label = new_label(g);
	if (l->mode == FPT_LINK_SESSION)
		session_start(g, exit_label);
	for (int i = 0; l->mode != FPT_LINK_EXIT && i < l->nentry; i++)
		gen_part(g, &prog->probes[l->entry[i]], false);
	if (l->latency) {
		call(g, BPF_FUNC_ktime_get_ns);
		stx(g, BPF_DW, BPF_REG_7, l->ts_off, BPF_REG_0);
	}
	if (l->mode == FPT_LINK_SESSION)
		jump_to(g, g->out_label);
	set_label(g, exit_label);
	for (int i = 0; i < l->nexit; i++)
		gen_part(g, &prog->probes[l->exit[i]], true);
	end_prog(g, prog->probes[l->nentry ? l->entry[0] : l->exit[0]].loc);
}

/* A BEGIN, END or interval probe: a program run by BPF_PROG_TEST_RUN. */
static void gen_user_prog(struct cg *g, const struct fpt_probe *pr, const struct fpt_spec *sp)
{
	static const char *const names[] = {
		[FPT_P_BEGIN] = "begin", [FPT_P_END] = "end", [FPT_P_INTERVAL] = "interval",
	};
	struct fpt_bpf_prog *p;
	char name[32];

	snprintf(name, sizeof(name), "fpt_%s%d", names[sp->kind], pr->index);
	g->loc = pr->loc;
	p = new_prog(g, sp->kind == FPT_P_BEGIN ? FPT_PROG_BEGIN : sp->kind == FPT_P_END ?
		     FPT_PROG_END : FPT_PROG_INTERVAL, name);
	p->probe = pr->index;
	p->period_ns = sp->period_ns;
	p->prog_type = BPF_PROG_TYPE_SYSCALL;
	g->link = NULL;
	gen_part(g, pr, false);
	end_prog(g, pr->loc);
}

int fpt_codegen(const struct fpt_program *prog, const struct fpt_sema *s,
		const struct btf *btf, struct fpt_diag *d, struct fpt_bpf *out)
{
	struct cg g = { .d = d, .prog = prog, .s = s, .btf = btf, .out = out };
	int errors = d->errors;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < s->nlinks; i++)
		gen_link(&g, i);
	for (int i = 0; i < prog->nprobes; i++)
		for (int j = 0; j < prog->probes[i].nspecs; j++) {
			const struct fpt_spec *sp = &prog->probes[i].specs[j];

			if (sp->kind != FPT_P_FPROBE && sp->kind != FPT_P_FRETPROBE)
				gen_user_prog(&g, &prog->probes[i], sp);
		}
	free(g.labels);
	free(g.fixes);
	free(g.locals);
	return d->errors - errors;
}

void fpt_bpf_free(struct fpt_bpf *b)
{
	for (int i = 0; i < b->nprogs; i++) {
		free(b->progs[i].insns);
		free(b->progs[i].relocs);
		free(b->progs[i].kcalls);
		free(b->progs[i].locs);
	}
	for (int i = 0; i < b->nevents; i++) {
		free(b->events[i].fmt);
		free(b->events[i].args);
	}
	free(b->progs);
	free(b->events);
	memset(b, 0, sizeof(*b));
}
