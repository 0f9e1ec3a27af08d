// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of fptrace's stage 2 (tools/bpf/fptrace): the type pass
 * against a small BTF built here with libbpf (functions with known
 * arguments, and the fprobe kfuncs), every type error with its message and
 * marker, the links and the map table, and the code generator's programs
 * against the golden dumps of golden/codegen/, each program also passing
 * fpt_prog_check(). Nothing is loaded: the host kernel has no fprobe.multi.
 *
 * usage: fptrace_codegen [GOLDEN_DIR]
 * Prints "ok NAME" / "not ok NAME" per case; exits 1 if any failed.
 * FPT_UPDATE_GOLDEN=1 in the environment rewrites the golden dumps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>
#include <linux/btf.h>
#include <bpf/btf.h>

#include "fptrace.h"

#ifndef FPT_GOLDEN_DIR
#define FPT_GOLDEN_DIR "tests/host/fptrace/golden"
#endif

static const char *golden_dir = FPT_GOLDEN_DIR;
static int failed;
static struct btf *btf;

/* What available_filter_functions would list; nobtf_func has no BTF. */
/* sorted, as fpt_types() wants them */
static const char *const funcs[] = {
	"do_sys_openat2", "file_alloc", "flags_read", "fops_open", "fops_read", "nobtf_func",
	"seven_args", "vfs_fsync", "vfs_open", "vfs_read", "vfs_readx", "vfs_write",
};

static void report(const char *name, bool ok)
{
	printf("%s %s\n", ok ? "ok" : "not ok", name);
	failed |= !ok;
}

/* ---- The test BTF ---------------------------------------------------------- */

struct param {
	const char *name;
	int type;
};

static void add_func(const char *name, int ret, const struct param *p, int n)
{
	int proto = btf__add_func_proto(btf, ret);

	for (int i = 0; i < n; i++)
		btf__add_func_param(btf, p[i].name, p[i].type);
	btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

/*
 * A struct file to read the members of, with an embedded struct path,
 * a dentry behind a pointer, a qstr whose len is in an anonymous struct
 * of an anonymous union, a char array, a bitfield and an int array:
 *
 *	struct qstr { union { struct { u32 hash, len; }; u64 hash_len; };
 *		      const unsigned char *name; };		16 bytes
 *	struct dentry { unsigned int d_flags; struct qstr d_name; };	24
 *	struct path { void *mnt; struct dentry *dentry; };	16
 *	struct file { unsigned int f_flags; struct path f_path;	@0, @8
 *		      long f_pos; char name[10];		@24, @32
 *		      unsigned int bits:3; int arr[4];		@44, @48
 *		      union { int ua; short ub; }; };		@64, 72 bytes
 *
 * Returns the id of struct file *; *path_ptr gets struct path *'s.
 */
static int make_structs(int i32, int i64, int u64, int u32, int chr, int vptr, int *path_ptr)
{
	int uchr = btf__add_int(btf, "unsigned char", 1, 0);
	int i16 = btf__add_int(btf, "short", 2, BTF_INT_SIGNED);
	int name_ptr = btf__add_ptr(btf, btf__add_const(btf, uchr));
	int idx = btf__add_int(btf, "__ARRAY_SIZE_TYPE__", 4, 0);
	int hl, un, qstr, dentry, dptr, path, arr10, arr4, fu, file;

	hl = btf__add_struct(btf, NULL, 8);
	btf__add_field(btf, "hash", u32, 0, 0);
	btf__add_field(btf, "len", u32, 32, 0);
	un = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, NULL, hl, 0, 0);
	btf__add_field(btf, "hash_len", u64, 0, 0);
	qstr = btf__add_struct(btf, "qstr", 16);
	btf__add_field(btf, NULL, un, 0, 0);
	btf__add_field(btf, "name", name_ptr, 64, 0);
	dentry = btf__add_struct(btf, "dentry", 24);
	btf__add_field(btf, "d_flags", u32, 0, 0);
	btf__add_field(btf, "d_name", qstr, 64, 0);
	dptr = btf__add_ptr(btf, dentry);	/* before path: fields go to the last type */
	path = btf__add_struct(btf, "path", 16);
	btf__add_field(btf, "mnt", vptr, 0, 0);
	btf__add_field(btf, "dentry", dptr, 64, 0);
	arr10 = btf__add_array(btf, idx, chr, 10);
	arr4 = btf__add_array(btf, idx, i32, 4);
	fu = btf__add_union(btf, NULL, 4);
	btf__add_field(btf, "ua", i32, 0, 0);
	btf__add_field(btf, "ub", i16, 0, 0);
	file = btf__add_struct(btf, "file", 72);
	btf__add_field(btf, "f_flags", u32, 0, 0);
	btf__add_field(btf, "f_path", path, 64, 0);
	btf__add_field(btf, "f_pos", i64, 192, 0);
	btf__add_field(btf, "name", arr10, 256, 0);
	btf__add_field(btf, "bits", u32, 352, 3);
	btf__add_field(btf, "arr", arr4, 384, 0);
	btf__add_field(btf, NULL, fu, 512, 0);
	*path_ptr = btf__add_ptr(btf, path);
	return btf__add_ptr(btf, file);
}

/*
 * Bitfields of BTF without kflag, as older pahole writes them: the int
 * type says their bits, or their bit offset is not a whole byte.
 *
 *	struct flags { unsigned int lo:3 (its int 3 bits); int whole;
 *		       unsigned int mid (at bit 68); short hi (int bit offset 2); };
 */
static void make_flag_bits(int i32, int u32)
{
	int u3 = btf__add_int(btf, "unsigned int", 4, 0);
	int s2 = btf__add_int(btf, "short", 2, BTF_INT_SIGNED);
	int flags, fptr;

	/* libbpf adds only whole ints: set their bits and offset by hand */
	*(__u32 *)(btf__type_by_id(btf, u3) + 1) = 3;
	*(__u32 *)(btf__type_by_id(btf, s2) + 1) = BTF_INT_SIGNED << 24 | 2 << 16 | 14;
	flags = btf__add_struct(btf, "flags", 16);
	btf__add_field(btf, "lo", u3, 0, 0);
	btf__add_field(btf, "whole", i32, 32, 0);
	btf__add_field(btf, "mid", u32, 64, 0);
	btf__add_field(btf, "hi", s2, 96, 0);
	/* and libbpf adds no field at a bit offset without a bit size */
	((struct btf_member *)btf_members(btf__type_by_id(btf, flags)))[2].offset = 68;
	fptr = btf__add_ptr(btf, flags);
	add_func("flags_read", i32, (struct param[]){ { "f", fptr } }, 1);
}

static void make_btf(void)
{
	int i32, i64, u64, chr, u32, size, vptr, cptr, uptr, kf, fptr, pptr;

	btf = btf__new_empty();
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i64 = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	u64 = btf__add_int(btf, "unsigned long", 8, 0);
	chr = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	size = btf__add_typedef(btf, "size_t", u64);
	vptr = btf__add_ptr(btf, 0);
	cptr = btf__add_ptr(btf, chr);
	uptr = btf__add_ptr(btf, btf__add_type_tag(btf, "user", btf__add_const(btf, chr)));
	add_func("vfs_read", i64, (struct param[]){ { "file", vptr }, { "buf", cptr },
		 { "count", size }, { "pos", vptr } }, 4);
	add_func("vfs_write", i64, (struct param[]){ { "file", vptr }, { "buf", cptr },
		 { "count", size }, { "pos", vptr } }, 4);
	add_func("vfs_readx", i64, (struct param[]){ { "file", vptr }, { "buf", cptr },
		 { "count", i32 } }, 3);
	add_func("vfs_open", i32, (struct param[]){ { "path", vptr }, { "file", vptr } }, 2);
	add_func("vfs_fsync", i32, (struct param[]){ { "file", vptr }, { "datasync", i32 } }, 2);
	add_func("do_sys_openat2", i64, (struct param[]){ { "dfd", i32 },
		 { "filename", uptr }, { "how", vptr } }, 3);
	add_func("seven_args", i32, (struct param[]){ { "a", i32 }, { "b", i32 },
		 { "c", i32 }, { "d", i32 }, { "e", u32 }, { "f", i32 }, { "g", i32 } }, 7);
	fptr = make_structs(i32, i64, u64, u32, chr, vptr, &pptr);
	add_func("fops_read", i64, (struct param[]){ { "file", fptr }, { "buf", cptr } }, 2);
	add_func("fops_open", i32, (struct param[]){ { "file", pptr } }, 1);
	add_func("file_alloc", fptr, (struct param[]){ { "flags", i32 } }, 1);
	kf = btf__add_func_proto(btf, i32);
	btf__add_func(btf, "bpf_fprobe_arg", BTF_FUNC_GLOBAL, kf);
	btf__add_func(btf, "bpf_fprobe_ret", BTF_FUNC_GLOBAL, kf);
	btf__add_func(btf, "bpf_fprobe_func_ip", BTF_FUNC_GLOBAL, kf);
	btf__add_func(btf, "bpf_fprobe_is_return", BTF_FUNC_GLOBAL, kf);
	btf__add_func(btf, "bpf_fprobe_session_data", BTF_FUNC_GLOBAL, kf);
	make_flag_bits(i32, u32);	/* last: the ids above stay */
}

/* ---- Compiling ------------------------------------------------------------- */

struct result {
	struct fpt_program prog;
	struct fpt_sema sema;
	struct fpt_bpf bpf;
	char *msgs;		/* the diagnostics */
	int errors;
};

/* Parse, type and (if typed) generate text as -e would. */
static void compile(const char *text, struct result *r)
{
	struct fpt_source src = { "stdin", text, strlen(text) };
	struct fpt_diag d;
	size_t len;
	FILE *f = open_memstream(&r->msgs, &len);

	memset(&r->sema, 0, sizeof(r->sema));
	memset(&r->bpf, 0, sizeof(r->bpf));
	fpt_diag_init(&d, &src, f);
	r->errors = fpt_parse(&src, &d, &r->prog);
	if (!r->errors)
		r->errors = fpt_types(&r->prog, btf, funcs, ARRAY_SIZE(funcs), &d, &r->sema);
	if (!r->errors)
		r->errors = fpt_codegen(&r->prog, &r->sema, btf, &d, &r->bpf);
	fclose(f);
}

static void result_free(struct result *r)
{
	fpt_bpf_free(&r->bpf);
	fpt_sema_free(&r->sema);
	fpt_program_free(&r->prog);
	free(r->msgs);
}

/* ---- Dumps ------------------------------------------------------------------ */

static const char *bpf_map_type_name(uint32_t t)
{
	switch (t) {
	case BPF_MAP_TYPE_HASH: return "hash";
	case BPF_MAP_TYPE_ARRAY: return "array";
	case BPF_MAP_TYPE_PERCPU_HASH: return "percpu_hash";
	case BPF_MAP_TYPE_PERCPU_ARRAY: return "percpu_array";
	case BPF_MAP_TYPE_RINGBUF: return "ringbuf";
	case BPF_MAP_TYPE_STACK_TRACE: return "stack_trace";
	default: return "?";
	}
}

static const char *const val_kinds[] = {
	"int", "str", "count", "sum", "min", "max", "avg", "stats", "hist", "lhist",
};

static void dump_map(FILE *f, const struct fpt_map_info *m)
{
	char name[64];

	fprintf(f, "map %s %s key %u value %u entries %u", m->name,
		bpf_map_type_name(m->bpf_type), m->key_size, m->value_size, m->max_entries);
	if (m->role != FPT_MAP_USER) {
		fputc('\n', f);
		return;
	}
	fprintf(f, " %s", val_kinds[m->kind]);
	if (m->val.kind != FPT_TY_NONE && m->val.kind != FPT_TY_AGG)
		fprintf(f, " of %s", fpt_type_name(&m->val, name, sizeof(name)));
	for (int i = 0; i < m->nkeys; i++)
		fprintf(f, "%s%s@%u", i ? ", " : " keys ",
			fpt_type_name(&m->keys[i], name, sizeof(name)), m->key_off[i]);
	if (m->kind == FPT_V_HIST)
		fprintf(f, " bits %d", m->hist_bits);
	if (m->kind == FPT_V_LHIST)
		fprintf(f, " min %lld max %lld step %lld", (long long)m->lmin,
			(long long)m->lmax, (long long)m->lstep);
	fputc('\n', f);
}

static void dump_link(FILE *f, int i, const struct fpt_link *l)
{
	static const char *const modes[] = { "entry", "exit", "session" };

	fprintf(f, "link %d %s", i, modes[l->mode]);
	for (int j = 0; j < l->nfuncs; j++)
		fprintf(f, "%s%s", j ? "," : " funcs ", l->funcs[j]);
	fprintf(f, " session_size %u saved_args %u", l->session_size, l->saved_args);
	for (int j = 0; j < l->nsvars; j++)
		fprintf(f, " $%s@%u", l->svars[j].name + 1, l->svars[j].off);
	if (l->latency)
		fprintf(f, " ts@%u", l->ts_off);
	fputc('\n', f);
}

static void dump_event(FILE *f, int i, const struct fpt_event *ev)
{
	static const char *const kinds[] = { "printf", "print", "clear", "exit" };
	char name[64];

	fprintf(f, "event %d %s%s size %u", i, kinds[ev->kind], ev->time ? " time" : "",
		ev->size);
	if (ev->map >= 0)
		fprintf(f, " map %d top %u div %u", ev->map, ev->top, ev->div);
	for (int j = 0; j < ev->nargs; j++)
		fprintf(f, " %s@%u", fpt_type_name(&ev->args[j].type, name, sizeof(name)),
			ev->args[j].off);
	fputc('\n', f);
}

/* The tables and every program; false if a program fails the checks. */
static bool dump_all(FILE *f, const struct result *r)
{
	char msg[128];
	bool ok = true;

	for (int i = 0; i < r->sema.nmaps; i++)
		dump_map(f, &r->sema.maps[i]);
	for (int i = 0; i < r->sema.nlinks; i++)
		dump_link(f, i, &r->sema.links[i]);
	for (int i = 0; i < r->bpf.nevents; i++)
		dump_event(f, i, &r->bpf.events[i]);
	for (int i = 0; i < r->bpf.nprogs; i++) {
		const struct fpt_bpf_prog *p = &r->bpf.progs[i];

		fprintf(f, "prog %s type %u attach %u stack %d\n", p->name, p->prog_type,
			p->attach_type, p->stack);
		fpt_prog_dump(f, &r->sema, p);
		if (fpt_prog_check(p, msg, sizeof(msg))) {
			fprintf(stderr, "%s: %s\n", p->name, msg);
			ok = false;
		}
	}
	return ok;
}

/* ---- Golden programs ------------------------------------------------------ */

static const struct { const char *name, *src; } golden_cases[] = {
	{ "count_by_comm", "fprobe:vfs_read { @[comm] = count(); }" },
	{ "sum_args_size", "fprobe:vfs_read,fprobe:vfs_write { @bytes[func] = sum(args.count); }" },
	{ "hist_retval", "fretprobe:vfs_read /retval > 0/ { @bytes = hist(retval); }" },
	/* arg0 differs in type between the two: still saved at entry */
	{ "exit_args_mixed", "fretprobe:vfs_read,fretprobe:do_sys_openat2 { @[arg0] = count(); }" },
	/* a whole int next to bitfields of BTF without kflag is read */
	{ "member_beside_bitfields", "fprobe:flags_read { @ = sum(args.f->whole) }" },
	{ "lhist_args", "fprobe:vfs_read { @sizes[pid] = lhist(arg2, 0, 1000, 100) }" },
	{
		"session_latency",
		"fprobe:vfs_read { $t = nsecs; $c = args.count } fretprobe:vfs_read { @ns = hist(nsecs - $t); @lat[$c] = avg(latency) }",
	},
	{
		"printf_formats",
		"fprobe:do_sys_openat2 { printf(\"%d %s %x %s\\n\", pid, comm, args.dfd, str(args.filename)); }",
	},
	{ "predicate_logical",
	  "fprobe:vfs_write /pid == 1 || tid != 2 && !(uid >= 3)/ { @[cpu] = count() }" },
	{
		"if_else",
		"fretprobe:vfs_open { if (retval < 0) { @err = count() } else if (retval == 0) { @zero++ } else { @ok[retval] = max(retval); } }",
	},
	{ "kstack_key", "fprobe:vfs_fsync { @[kstack] = count(); @m = min(args.datasync) }" },
	{
		"delete_clear_exit",
		"fprobe:vfs_read { @start[tid] = nsecs; } fretprobe:vfs_read /@start[tid]/ { @ns = stats(nsecs - @start[tid]); delete(@start[tid]); } interval:s:1 { print(@ns); clear(@ns); } END { exit(); }",
	},
	{ "comm_filter_str",
	  "fprobe:vfs_open /comm == \"bash\"/ { $s = comm; @c[$s, probe] = count() }" },
	{ "begin_vars", "BEGIN { $x = 1 + 2 * 3; $x -= 4; @v = $x << 2; @s = \"hi\"; "
	  "printf(\"%d %s\\n\", @v, @s) }" },
	{
		"cookie_ternary",
		"fprobe:vfs_open { @[cookie > 3 ? cookie : -1, arg1] = count(); @d = 10 / (cookie % 3) }",
	},
	/* / % >> are unsigned as in bpftrace, on negative operands too */
	{ "unsigned_div_shift", "BEGIN { $a = -10; @d = $a / -3; @m = $a % 3; @s = $a >> 2; "
	  "$a /= -4; $a %= 5; $a >>= 1; @v = $a }" },
	/* maps read before the assignment that types them, through another map too */
	{ "map_read_before_assign",
	  "BEGIN { printf(\"%s %s\\n\", @a, @s[1]) } fprobe:vfs_read { "
	  "@a = @b; @s[pid] = \"str\" } fprobe:vfs_write { @b = comm }" },
	/*
	 * $variables are each probe's own: $s differs in type between the
	 * entry probes, and the last exit probe's $t must not clobber the
	 * session's $t that the first one reads
	 */
	{ "scratch_per_probe",
	  "fprobe:vfs_read { $t = nsecs; $s = comm; @a = $s } fprobe:vfs_read { "
	  "$s = 1; @b = $s } fretprobe:vfs_read { @c = nsecs - $t } fretprobe:vfs_read { "
	  "$t = 5; @d = $t }" },
	/* one body on both sides: typed for each, with the same types */
	{ "mixed_entry_exit",
	  "fprobe:vfs_read,fretprobe:vfs_read { $x = arg2; @[probe, $x] = count() }" },
	/* exit() ends the entry probe after saving $t, and the timestamp is stored */
	{ "exit_in_entry",
	  "fprobe:vfs_read { $t = 7; if (pid == 1) { exit() } $u = 2 } fretprobe:vfs_read { "
	  "@ = hist(latency); @t[$t] = count() }" },
	/*
	 * maps without keys are hashes, whose delete() clears every CPU's
	 * value; but for count() and the other aggregations whose value says
	 * whether it was set (not sum()): per-CPU arrays, cleared by a record
	 */
	{ "delete_scalar_agg",
	  "fprobe:vfs_read { @c = count(); @s = sum(pid); @x = 1 } fretprobe:vfs_read { "
	  "delete(@c); delete(@s); delete(@x) }" },
	/*
	 * elapsed in any probe: now minus the run's start, patched in by the
	 * runtime; no session for it (vfs_write's link is exit-only)
	 */
	{ "elapsed_any_probe",
	  "BEGIN { printf(\"%u\\n\", elapsed) } fretprobe:vfs_write { "
	  "@ = max(elapsed) } interval:s:1 { @i = elapsed }" },
	/* kstack(N) and kstack(perf): a stack map a frame count, shared by the modes */
	{ "kstack_modes",
	  "fprobe:vfs_read { @a[kstack(5)] = count(); @b[kstack(perf)] = count(); "
	  "@c[kstack(perf, 5)] = count(); printf(\"%s\\n\", kstack(3)) }" },
	/*
	 * members through pointers and embedded structs, an anonymous union's
	 * struct's field, a char array, an anonymous union's short
	 */
	{ "member_chain",
	  "fprobe:fops_read { "
	  "@[args.file->f_flags, str(args.file->f_path.dentry->d_name.name)] = count(); "
	  "@len = sum(args.file->f_path.dentry->d_name.len); "
	  "@n[args.file->name] = count(); @ub = min(args.file->ub) }" },
	/* a pointer return, a $variable holding it, and a cast */
	{ "member_retval_cast",
	  "fretprobe:file_alloc { $f = retval; @p = max($f->f_pos); "
	  "@r = sum(retval->f_flags) } fprobe:vfs_read { "
	  "@c = sum(((struct file *)arg0)->f_path.dentry->d_flags) }" },
	{ "time_calls", "BEGIN { time(); time(\"%Y-%m-%d\\n\") }" },
};

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &n, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void test_golden(void)
{
	bool update = getenv("FPT_UPDATE_GOLDEN");

	for (size_t i = 0; i < ARRAY_SIZE(golden_cases); i++) {
		struct result r;
		char path[512], *got = NULL, *want;
		size_t len;
		FILE *f;
		bool ok;

		compile(golden_cases[i].src, &r);
		f = open_memstream(&got, &len);
		fprintf(f, "# %s\n", golden_cases[i].src);
		ok = !r.errors && dump_all(f, &r);
		fclose(f);
		if (r.errors)
			fprintf(stderr, "%s:\n%s", golden_cases[i].name, r.msgs);
		snprintf(path, sizeof(path), "%s/codegen/%s.txt", golden_dir, golden_cases[i].name);
		f = update && ok ? fopen(path, "w") : NULL;
		if (f) {
			fputs(got, f);
			fclose(f);
		}
		want = read_file(path);
		if (ok && (!want || strcmp(want, got))) {
			fprintf(stderr, "%s: differs from %s\n--- got\n%s", golden_cases[i].name,
				path, got);
			ok = false;
		}
		report(golden_cases[i].name, ok);
		free(want);
		free(got);
		result_free(&r);
	}
}

/* ---- Type errors ------------------------------------------------------------ */

static const struct { const char *name, *src, *msg; } type_errors[] = {
	{ "terr_unknown_function", "fprobe:vfs_nosuch { }",
	  "stdin:1:1-18: ERROR: function 'vfs_nosuch' is not traceable\n"
	  "fprobe:vfs_nosuch { }\n"
	  "^~~~~~~~~~~~~~~~~\n" },
	{ "terr_pattern_matches_nothing", "fprobe:zzz_* { }",
	  "stdin:1:1-13: ERROR: pattern 'zzz_*' matches no traceable function\n"
	  "fprobe:zzz_* { }\n"
	  "^~~~~~~~~~~~\n" },
	{ "terr_retval_at_entry", "fprobe:vfs_read { @ = hist(retval) }",
	  "stdin:1:28-34: ERROR: The retval builtin can only be used with fretprobe and kretprobe probes\n"
	  "fprobe:vfs_read { @ = hist(retval) }\n"
	  "                           ^~~~~~\n" },
	{ "terr_arg_name_missing", "fprobe:vfs_read,fprobe:vfs_open { @ = sum(args.count) }",
	  "stdin:1:43-53: ERROR: Can't find function parameter 'count' of 'vfs_open'\n"
	  "fprobe:vfs_read,fprobe:vfs_open { @ = sum(args.count) }\n"
	  "                                          ^~~~~~~~~~\n" },
	{ "terr_arg_type_differs", "fprobe:vfs_read,fprobe:vfs_readx { @ = sum(args.count) }",
	  "stdin:1:44-54: ERROR: args.count has different types in 'vfs_read' (uint64) and 'vfs_readx' (int32)\n"
	  "fprobe:vfs_read,fprobe:vfs_readx { @ = sum(args.count) }\n"
	  "                                           ^~~~~~~~~~\n" },
	{ "terr_arg_position_differs",
	  "fprobe:vfs_open,fprobe:vfs_fsync { @[args.file] = count() }",
	  "stdin:1:38-47: ERROR: args.file is argument 1 of 'vfs_fsync' but argument 2 of 'vfs_open'\n"
	  "fprobe:vfs_open,fprobe:vfs_fsync { @[args.file] = count() }\n"
	  "                                     ^~~~~~~~~\n" },
	{ "terr_arg_no_btf", "fprobe:nobtf_func { @[args.x] = count() }",
	  "stdin:1:23-29: ERROR: Can't find function parameter 'x': 'nobtf_func' has no BTF\n"
	  "fprobe:nobtf_func { @[args.x] = count() }\n"
	  "                      ^~~~~~\n" },
	{ "terr_more_than_6_args", "fprobe:seven_args { @ = sum(args.g) }",
	  "stdin:1:29-35: ERROR: args.g is argument 7 of 'seven_args': fprobe.multi reads only the first 6 arguments\n"
	  "fprobe:seven_args { @ = sum(args.g) }\n"
	  "                            ^~~~~~\n" },
	{ "terr_string_arithmetic", "fprobe:vfs_read { $x = comm + 1 }",
	  "stdin:1:24-32: ERROR: The + operator can not be used on expressions of types string[16], int64\n"
	  "fprobe:vfs_read { $x = comm + 1 }\n"
	  "                       ^~~~~~~~\n" },
	{ "terr_string_compare_int", "fprobe:vfs_read /comm == 1/ { }",
	  "stdin:1:18-27: ERROR: The == operator can not be used on expressions of types string[16], int64\n"
	  "fprobe:vfs_read /comm == 1/ { }\n"
	  "                 ^~~~~~~~~\n" },
	{ "terr_unary_on_string", "fprobe:vfs_read { $x = -comm }",
	  "stdin:1:24-29: ERROR: The - operator can not be used on expressions of type string[16]\n"
	  "fprobe:vfs_read { $x = -comm }\n"
	  "                       ^~~~~\n" },
	{ "terr_map_key_types", "fprobe:vfs_read { @m[pid] = 1; @m[comm] = 2 }",
	  "stdin:1:32-40: ERROR: Argument mismatch for @m: trying to access with arguments: [string[16]] when map expects arguments: [uint32]\n"
	  "fprobe:vfs_read { @m[pid] = 1; @m[comm] = 2 }\n"
	  "                               ^~~~~~~~\n" },
	{ "terr_map_key_count", "fprobe:vfs_read { @m[pid] = 1; @m[pid, tid] = 2 }",
	  "stdin:1:32-44: ERROR: Argument mismatch for @m: trying to access with arguments: [uint32, uint32] when map expects arguments: [uint32]\n"
	  "fprobe:vfs_read { @m[pid] = 1; @m[pid, tid] = 2 }\n"
	  "                               ^~~~~~~~~~~~\n" },
	{ "terr_map_value_types", "fprobe:vfs_read { @m = 1; @m = comm }",
	  "stdin:1:32-36: ERROR: Type mismatch for @m: trying to assign value of type 'string[16]' when map already contains a value of type 'int64'\n"
	  "fprobe:vfs_read { @m = 1; @m = comm }\n"
	  "                               ^~~~\n" },
	{ "terr_agg_on_plain_map", "fprobe:vfs_read { @m = 1 } fretprobe:vfs_read { @m = count() }",
	  "stdin:1:54-61: ERROR: Type mismatch for @m: trying to assign value of type 'count_t' when map already contains a value of type 'int64'\n"
	  "fprobe:vfs_read { @m = 1 } fretprobe:vfs_read { @m = count() }\n"
	  "                                                     ^~~~~~~\n" },
	{ "terr_plain_on_agg_map", "fprobe:vfs_read { @m = count(); @m = 2 }",
	  "stdin:1:38-39: ERROR: Type mismatch for @m: trying to assign value of type 'int64' when map already contains a value of type 'count_t'\n"
	  "fprobe:vfs_read { @m = count(); @m = 2 }\n"
	  "                                     ^\n" },
	{ "terr_agg_read", "fprobe:vfs_read { @m = count(); $x = @m + 1 }",
	  "stdin:1:38-40: ERROR: @m holds an aggregation (count_t) and cannot be read in an expression\n"
	  "fprobe:vfs_read { @m = count(); $x = @m + 1 }\n"
	  "                                     ^~\n" },
	{ "terr_two_aggs", "fprobe:vfs_read { @m = count() } fprobe:vfs_write { @m = sum(arg2) }",
	  "stdin:1:58-67: ERROR: Type mismatch for @m: trying to assign value of type 'sum_t' when map already contains a value of type 'count_t'\n"
	  "fprobe:vfs_read { @m = count() } fprobe:vfs_write { @m = sum(arg2) }\n"
	  "                                                         ^~~~~~~~~\n" },
	{ "terr_unknown_identifier", "fprobe:vfs_read { $x = foo }",
	  "stdin:1:24-27: ERROR: Unknown identifier: 'foo'\n"
	  "fprobe:vfs_read { $x = foo }\n"
	  "                       ^~~\n" },
	{ "terr_unknown_function_call", "fprobe:vfs_read { $x = foo(1) }",
	  "stdin:1:24-27: ERROR: Unknown function: 'foo'\n"
	  "fprobe:vfs_read { $x = foo(1) }\n"
	  "                       ^~~\n" },
	{ "terr_undefined_variable", "fprobe:vfs_read { @ = $nope }",
	  "stdin:1:23-28: ERROR: Undefined or undeclared variable: $nope\n"
	  "fprobe:vfs_read { @ = $nope }\n"
	  "                      ^~~~~\n" },
	{ "terr_undefined_map", "fprobe:vfs_read { print(@nope) }",
	  "stdin:1:25-30: ERROR: Undefined map: @nope\n"
	  "fprobe:vfs_read { print(@nope) }\n"
	  "                        ^~~~~\n" },
	{
		"terr_session_over_64",
		"fprobe:vfs_read { $s = str(args.buf); $n = nsecs } fretprobe:vfs_read { printf(\"%s %d\\n\", $s, $n) }",
		"stdin:1:95-97: ERROR: session variables and latency need 72 bytes, more than the 64 bytes of fprobe.multi session data\n"
		"fprobe:vfs_read { $s = str(args.buf); $n = nsecs } fretprobe:vfs_read { printf(\"%s %d\\n\", $s, $n) }\n"
		"                                                                                              ^~\n",
	},
	{
		"terr_session_latency_over_64",
		"fprobe:vfs_read { $s = str(args.buf) } fretprobe:vfs_read { printf(\"%s %d\\n\", $s, latency) }",
		"stdin:1:83-90: ERROR: session variables and latency need 72 bytes, more than the 64 bytes of fprobe.multi session data\n"
		"fprobe:vfs_read { $s = str(args.buf) } fretprobe:vfs_read { printf(\"%s %d\\n\", $s, latency) }\n"
		"                                                                                  ^~~~~~~\n",
	},
	{ "terr_builtin_in_begin", "BEGIN { @ = arg0 }",
	  "stdin:1:13-17: ERROR: The arg0 builtin can not be used in BEGIN probes\n"
	  "BEGIN { @ = arg0 }\n"
	  "            ^~~~\n" },
	{ "terr_latency_at_entry", "fprobe:vfs_read { @ = avg(latency) }",
	  "stdin:1:27-34: ERROR: The latency builtin can only be used with fretprobe and kretprobe probes\n"
	  "fprobe:vfs_read { @ = avg(latency) }\n"
	  "                          ^~~~~~~\n" },
	{ "terr_latency_in_interval", "interval:s:1 { @ = latency }",
	  "stdin:1:20-27: ERROR: The latency builtin can not be used in interval probes\n"
	  "interval:s:1 { @ = latency }\n"
	  "                   ^~~~~~~\n" },
	{ "terr_count_not_assigned", "fprobe:vfs_read { count() }",
	  "stdin:1:19-26: ERROR: count() should be directly assigned to a map\n"
	  "fprobe:vfs_read { count() }\n"
	  "                  ^~~~~~~\n" },
	{ "terr_printf_too_many", "fprobe:vfs_read { printf(\"%d\\n\", pid, tid) }",
	  "stdin:1:19-43: ERROR: printf: Too many arguments for format string (2 supplied, 1 expected)\n"
	  "fprobe:vfs_read { printf(\"%d\\n\", pid, tid) }\n"
	  "                  ^~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_printf_not_enough", "fprobe:vfs_read { printf(\"%d %d\\n\", pid) }",
	  "stdin:1:19-41: ERROR: printf: Not enough arguments for format string (1 supplied, 2 expected)\n"
	  "fprobe:vfs_read { printf(\"%d %d\\n\", pid) }\n"
	  "                  ^~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_printf_string_for_int", "fprobe:vfs_read { printf(\"%d\\n\", comm) }",
	  "stdin:1:34-38: ERROR: printf: %d specifier expects a value of type integer (string[16] supplied)\n"
	  "fprobe:vfs_read { printf(\"%d\\n\", comm) }\n"
	  "                                 ^~~~\n" },
	{ "terr_printf_huge_width", "fprobe:vfs_read { printf(\"%999999999d\\n\", pid) }",
	  "stdin:1:26-41: ERROR: printf: the field width 999999999 is too large (at most 1024)\n"
	  "fprobe:vfs_read { printf(\"%999999999d\\n\", pid) }\n"
	  "                         ^~~~~~~~~~~~~~~\n" },
	{ "terr_printf_huge_precision",
	  "fprobe:vfs_read { printf(\"%5.99999999999999999999s\", comm) }",
	  "stdin:1:26-52: ERROR: printf: the precision 99999999999999999999 is too large (at most 1024)\n"
	  "fprobe:vfs_read { printf(\"%5.99999999999999999999s\", comm) }\n"
	  "                         ^~~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	/* literals beyond int64: no wrap to -1 or 1, no negated INT64_MIN */
	{ "terr_lhist_min_beyond_int64",
	  "fretprobe:vfs_read { @ = lhist(retval, -18446744073709551615, 10, 1) }",
	  "stdin:1:40-61: ERROR: lhist() argument 2 must be an integer literal from -2147483648 to 2147483647\n"
	  "fretprobe:vfs_read { @ = lhist(retval, -18446744073709551615, 10, 1) }\n"
	  "                                       ^~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_lhist_min_uint64_max",
	  "fretprobe:vfs_read { @ = lhist(retval, 18446744073709551615, 10, 1) }",
	  "stdin:1:40-60: ERROR: lhist() argument 2 must be an integer literal from -2147483648 to 2147483647\n"
	  "fretprobe:vfs_read { @ = lhist(retval, 18446744073709551615, 10, 1) }\n"
	  "                                       ^~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_lhist_min_int64_min",
	  "fretprobe:vfs_read { @ = lhist(retval, -9223372036854775808, 10, 1) }",
	  "stdin:1:40-60: ERROR: lhist() argument 2 must be an integer literal from -2147483648 to 2147483647\n"
	  "fretprobe:vfs_read { @ = lhist(retval, -9223372036854775808, 10, 1) }\n"
	  "                                       ^~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_map_read_before_assign", "BEGIN { $x = @m + 1 } fprobe:vfs_read { @m = comm }",
	  "stdin:1:14-20: ERROR: The + operator can not be used on expressions of types string[16], int64\n"
	  "BEGIN { $x = @m + 1 } fprobe:vfs_read { @m = comm }\n"
	  "             ^~~~~~\n" },
	{ "terr_session_var_conflict",
	  "fprobe:vfs_read{$x=1} fprobe:vfs_read{$x=comm} fretprobe:vfs_read{@=$x}",
	  "stdin:1:69-71: ERROR: $x is set with different types by the entry probes of this function set: the exit probes cannot read it\n"
	  "fprobe:vfs_read{$x=1} fprobe:vfs_read{$x=comm} fretprobe:vfs_read{@=$x}\n"
	  "                                                                    ^~\n" },
	{ "terr_mixed_arg_types", "fprobe:vfs_readx,fretprobe:vfs_read { @[arg2] = count() }",
	  "stdin:1:41-45: ERROR: This expression is int32 at the probe's fprobe specs but uint64 at its fretprobe specs: write them as two probes\n"
	  "fprobe:vfs_readx,fretprobe:vfs_read { @[arg2] = count() }\n"
	  "                                        ^~~~\n" },
	{ "terr_mixed_retval", "fprobe:vfs_read,fretprobe:vfs_read { @ = hist(retval) }",
	  "stdin:1:47-53: ERROR: The retval builtin can only be used with fretprobe and kretprobe probes (this probe has fprobe specs too: give them a probe of their own)\n"
	  "fprobe:vfs_read,fretprobe:vfs_read { @ = hist(retval) }\n"
	  "                                              ^~~~~~\n" },
	{ "terr_variable_type", "fprobe:vfs_read { $x = 1; $x = comm }",
	  "stdin:1:27-29: ERROR: Type mismatch for $x: trying to assign value of type 'string[16]' when variable already contains a value of type 'int64'\n"
	  "fprobe:vfs_read { $x = 1; $x = comm }\n"
	  "                          ^~\n" },
	{ "terr_hist_bits", "fretprobe:vfs_read { @ = hist(retval, 9) }",
	  "stdin:1:39-40: ERROR: hist() argument 2 must be an integer literal from 0 to 5\n"
	  "fretprobe:vfs_read { @ = hist(retval, 9) }\n"
	  "                                      ^\n" },
	{ "terr_lhist_range", "fretprobe:vfs_read { @ = lhist(retval, 10, 0, 1) }",
	  "stdin:1:26-49: ERROR: lhist() max must be greater than min, with at most 1000 buckets\n"
	  "fretprobe:vfs_read { @ = lhist(retval, 10, 0, 1) }\n"
	  "                         ^~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_args_alone", "fprobe:vfs_read { @ = args }",
	  "stdin:1:23-27: ERROR: The args builtin can only be used as args.NAME\n"
	  "fprobe:vfs_read { @ = args }\n"
	  "                      ^~~~\n" },
	{ "terr_void_in_expression", "fprobe:vfs_read { $x = exit() }",
	  "stdin:1:24-30: ERROR: exit() should not be used in an expression\n"
	  "fprobe:vfs_read { $x = exit() }\n"
	  "                       ^~~~~~\n" },
	/* kstack(...), latency, the left-out builtins and probe types, members, casts */
	{ "terr_kstack_too_many_args", "fprobe:vfs_read { @[kstack(perf, 3, 4)] = count() }",
	  "stdin:1:21-39: ERROR: kstack takes at most 2 arguments (3 provided)\n"
	  "fprobe:vfs_read { @[kstack(perf, 3, 4)] = count() }\n"
	  "                    ^~~~~~~~~~~~~~~~~~\n" },
	{ "terr_kstack_unknown_mode", "fprobe:vfs_read { @[kstack(foo)] = count() }",
	  "stdin:1:28-31: ERROR: kstack: unknown stack mode 'foo' (bpftrace, perf)\n"
	  "fprobe:vfs_read { @[kstack(foo)] = count() }\n"
	  "                           ^~~\n" },
	{ "terr_kstack_mode_second", "fprobe:vfs_read { @[kstack(3, perf)] = count() }",
	  "stdin:1:28-29: ERROR: kstack: the first of two arguments is the stack mode (bpftrace, perf)\n"
	  "fprobe:vfs_read { @[kstack(3, perf)] = count() }\n"
	  "                           ^\n" },
	{ "terr_kstack_zero_frames", "fprobe:vfs_read { @[kstack(0)] = count() }",
	  "stdin:1:28-29: ERROR: kstack() argument 1 must be an integer literal from 1 to 127\n"
	  "fprobe:vfs_read { @[kstack(0)] = count() }\n"
	  "                           ^\n" },
	{ "terr_kstack_too_many_frames", "fprobe:vfs_read { @[kstack(perf, 200)] = count() }",
	  "stdin:1:34-37: ERROR: kstack() argument 2 must be an integer literal from 1 to 127\n"
	  "fprobe:vfs_read { @[kstack(perf, 200)] = count() }\n"
	  "                                 ^~~\n" },
	{ "terr_kstack_frames_not_literal", "fprobe:vfs_read { @[kstack(pid)] = count() }",
	  "stdin:1:28-31: ERROR: kstack() argument 1 must be an integer literal from 1 to 127\n"
	  "fprobe:vfs_read { @[kstack(pid)] = count() }\n"
	  "                           ^~~\n" },
	{ "terr_kstack_in_begin", "BEGIN { printf(\"%s\", kstack(3)) }",
	  "stdin:1:22-31: ERROR: The kstack builtin can not be used in BEGIN probes\n"
	  "BEGIN { printf(\"%s\", kstack(3)) }\n"
	  "                     ^~~~~~~~~\n" },
	{ "terr_kstack_key_frames",
	  "fprobe:vfs_read { @[kstack(5)] = count(); @[kstack(6)] = count() }",
	  "stdin:1:43-55: ERROR: Argument mismatch for @: trying to access with arguments: [kstack_bpftrace_6] when map expects arguments: [kstack_bpftrace_5]\n"
	  "fprobe:vfs_read { @[kstack(5)] = count(); @[kstack(6)] = count() }\n"
	  "                                          ^~~~~~~~~~~~\n" },
	{ "terr_kstack_key_mode",
	  "fprobe:vfs_read { @[kstack] = count(); @[kstack(perf)] = count() }",
	  "stdin:1:40-55: ERROR: Argument mismatch for @: trying to access with arguments: [kstack_perf_127] when map expects arguments: [kstack_bpftrace_127]\n"
	  "fprobe:vfs_read { @[kstack] = count(); @[kstack(perf)] = count() }\n"
	  "                                       ^~~~~~~~~~~~~~~\n" },
	{ "terr_ustack", "fprobe:vfs_read { @[ustack] = count() }",
	  "stdin:1:21-27: ERROR: ustack is not supported: fptrace traces the kernel only\n"
	  "fprobe:vfs_read { @[ustack] = count() }\n"
	  "                    ^~~~~~\n" },
	{ "terr_ustack_call", "fprobe:vfs_read { @[ustack(5)] = count() }",
	  "stdin:1:21-27: ERROR: ustack is not supported: fptrace traces the kernel only\n"
	  "fprobe:vfs_read { @[ustack(5)] = count() }\n"
	  "                    ^~~~~~\n" },
	{ "terr_signal", "fprobe:vfs_read { signal(\"KILL\") }",
	  "stdin:1:19-25: ERROR: signal() is not supported by fptrace: it observes tasks and does not act on them\n"
	  "fprobe:vfs_read { signal(\"KILL\") }\n"
	  "                  ^~~~~~\n" },
	{ "terr_system", "fprobe:vfs_read { system(\"ls\") }",
	  "stdin:1:19-25: ERROR: system() is not supported by fptrace: a probe runs no commands\n"
	  "fprobe:vfs_read { system(\"ls\") }\n"
	  "                  ^~~~~~\n" },
	{ "terr_strftime", "fprobe:vfs_read { printf(\"%s\\n\", strftime(\"%H\", nsecs)) }",
	  "stdin:1:34-42: ERROR: strftime() is not supported by fptrace: time(FORMAT) prints the wall-clock time\n"
	  "fprobe:vfs_read { printf(\"%s\\n\", strftime(\"%H\", nsecs)) }\n"
	  "                                 ^~~~~~~~\n" },
	{ "terr_time_format", "BEGIN { time(1) }",
	  "stdin:1:14-15: ERROR: time() expects a string literal as format\n"
	  "BEGIN { time(1) }\n"
	  "             ^\n" },
	{ "terr_time_in_expression", "BEGIN { $x = time() }",
	  "stdin:1:14-20: ERROR: time() should not be used in an expression\n"
	  "BEGIN { $x = time() }\n"
	  "             ^~~~~~\n" },
	{ "terr_field_unknown", "fprobe:fops_read { @ = sum(args.file->f_flagz) }",
	  "stdin:1:28-46: ERROR: struct file has no field 'f_flagz'\n"
	  "fprobe:fops_read { @ = sum(args.file->f_flagz) }\n"
	  "                           ^~~~~~~~~~~~~~~~~~\n" },
	{ "terr_field_dot_on_pointer", "fprobe:fops_read { @ = sum(args.file.f_flags) }",
	  "stdin:1:28-45: ERROR: Can not access field 'f_flags' with '.' on a pointer (struct file *): use '->'\n"
	  "fprobe:fops_read { @ = sum(args.file.f_flags) }\n"
	  "                           ^~~~~~~~~~~~~~~~~\n" },
	{ "terr_field_arrow_on_struct",
	  "fprobe:fops_read { @ = sum(args.file->f_path->dentry->d_flags) }",
	  "stdin:1:28-53: ERROR: Can not access field 'dentry' with '->' on a struct path, which is no pointer: use '.'\n"
	  "fprobe:fops_read { @ = sum(args.file->f_path->dentry->d_flags) }\n"
	  "                           ^~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_field_void_pointer", "fprobe:vfs_read { @ = sum(args.file->f_flags) }",
	  "stdin:1:27-45: ERROR: Can not access field 'f_flags' of 'void *', which points to no struct or union (cast it: ((struct NAME *)p)->FIELD)\n"
	  "fprobe:vfs_read { @ = sum(args.file->f_flags) }\n"
	  "                          ^~~~~~~~~~~~~~~~~~\n" },
	{ "terr_field_on_integer", "fprobe:vfs_read { @ = sum(args.count->len) }",
	  "stdin:1:27-42: ERROR: Can not access field 'len' with '->' on an expression of type 'uint64'\n"
	  "fprobe:vfs_read { @ = sum(args.count->len) }\n"
	  "                          ^~~~~~~~~~~~~~~\n" },
	{ "terr_field_bitfield", "fprobe:fops_read { @ = sum(args.file->bits) }",
	  "stdin:1:28-43: ERROR: struct file field 'bits' is a bitfield, which fptrace does not read\n"
	  "fprobe:fops_read { @ = sum(args.file->bits) }\n"
	  "                           ^~~~~~~~~~~~~~~\n" },
	/* once two functions disagree, a third one's void * does not agree again */
	{ "terr_field_pointer_types_differ_void",
	  "fprobe:fops_read,fprobe:fops_open,fprobe:vfs_read { @ = sum(args.file->f_flags) }",
	  "stdin:1:61-79: ERROR: Can not access field 'f_flags': the traced functions give this pointer different types (probe them apart)\n"
	  "fprobe:fops_read,fprobe:fops_open,fprobe:vfs_read { @ = sum(args.file->f_flags) }\n"
	  "                                                            ^~~~~~~~~~~~~~~~~~\n" },
	{ "terr_field_bitfield_int_bits", "fprobe:flags_read { @ = sum(args.f->lo) }",
	  "stdin:1:29-39: ERROR: struct flags field 'lo' is a bitfield, which fptrace does not read\n"
	  "fprobe:flags_read { @ = sum(args.f->lo) }\n"
	  "                            ^~~~~~~~~~\n" },
	{ "terr_field_bitfield_bit_offset", "fprobe:flags_read { @ = sum(args.f->mid) }",
	  "stdin:1:29-40: ERROR: struct flags field 'mid' is a bitfield, which fptrace does not read\n"
	  "fprobe:flags_read { @ = sum(args.f->mid) }\n"
	  "                            ^~~~~~~~~~~\n" },
	{ "terr_field_bitfield_int_offset", "fprobe:flags_read { @ = sum(args.f->hi) }",
	  "stdin:1:29-39: ERROR: struct flags field 'hi' is a bitfield, which fptrace does not read\n"
	  "fprobe:flags_read { @ = sum(args.f->hi) }\n"
	  "                            ^~~~~~~~~~\n" },
	{ "terr_var_pointer_target",
	  "fprobe:fops_read { $p = args.file; $p = args.file->f_path.dentry; @ = sum($p->f_flags) }",
	  "stdin:1:36-38: ERROR: Type mismatch for $p: trying to assign value of type 'struct dentry *' when variable already contains a value of type 'struct file *'\n"
	  "fprobe:fops_read { $p = args.file; $p = args.file->f_path.dentry; @ = sum($p->f_flags) }\n"
	  "                                   ^~\n" },
	{ "terr_map_pointer_target",
	  "fprobe:fops_read { @p = args.file; @p = args.file->f_path.dentry }",
	  "stdin:1:41-65: ERROR: Type mismatch for @p: trying to assign value of type 'struct dentry *' when map already contains a value of type 'struct file *'\n"
	  "fprobe:fops_read { @p = args.file; @p = args.file->f_path.dentry }\n"
	  "                                        ^~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_key_pointer_target",
	  "fprobe:fops_read { @[args.file] = count(); @[args.file->f_path.dentry] = count() }",
	  "stdin:1:44-71: ERROR: Argument mismatch for @: trying to access with arguments: [struct dentry *] when map expects arguments: [struct file *]\n"
	  "fprobe:fops_read { @[args.file] = count(); @[args.file->f_path.dentry] = count() }\n"
	  "                                           ^~~~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_session_var_pointer_target",
	  "fprobe:fops_read{$p=args.file} fprobe:fops_read{$p=args.file->f_path.dentry} fretprobe:fops_read{@[$p]=count()}",
	  "stdin:1:100-102: ERROR: $p is set with different types by the entry probes of this function set: the exit probes cannot read it\n"
	  "fprobe:fops_read{$p=args.file} fprobe:fops_read{$p=args.file->f_path.dentry} fretprobe:fops_read{@[$p]=count()}\n"
	  "                                                                                                   ^~\n"
	},
	{ "terr_mixed_pointer_targets",
	  "fprobe:fops_read,fretprobe:fops_open { if (args.file == 0) { @ = count() } }",
	  "stdin:1:44-53: ERROR: This expression is struct file * at the probe's fprobe specs but struct path * at its fretprobe specs: write them as two probes\n"
	  "fprobe:fops_read,fretprobe:fops_open { if (args.file == 0) { @ = count() } }\n"
	  "                                           ^~~~~~~~~\n" },
	{ "terr_field_int_array", "fprobe:fops_read { @ = sum(args.file->arr) }",
	  "stdin:1:28-42: ERROR: struct file field 'arr' has a type fptrace does not read (arrays are read only of chars, as strings)\n"
	  "fprobe:fops_read { @ = sum(args.file->arr) }\n"
	  "                           ^~~~~~~~~~~~~~\n" },
	{ "terr_field_whole_struct", "fprobe:fops_read { @x[args.file->f_path] = count() }",
	  "stdin:1:23-40: ERROR: f_path is a whole struct path: read one of its fields\n"
	  "fprobe:fops_read { @x[args.file->f_path] = count() }\n"
	  "                      ^~~~~~~~~~~~~~~~~\n" },
	{ "terr_field_nested_unknown",
	  "fprobe:fops_read { @ = sum(args.file->f_path.dentry->d_name.lenx) }",
	  "stdin:1:28-65: ERROR: struct qstr has no field 'lenx'\n"
	  "fprobe:fops_read { @ = sum(args.file->f_path.dentry->d_name.lenx) }\n"
	  "                           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_field_pointer_types_differ",
	  "fprobe:fops_read,fprobe:fops_open { @ = sum(args.file->f_flags) }",
	  "stdin:1:45-63: ERROR: Can not access field 'f_flags': the traced functions give this pointer different types (probe them apart)\n"
	  "fprobe:fops_read,fprobe:fops_open { @ = sum(args.file->f_flags) }\n"
	  "                                            ^~~~~~~~~~~~~~~~~~\n" },
	{ "terr_cast_unknown_struct", "fprobe:vfs_read { @ = sum(((struct nosuch *)arg0)->x) }",
	  "stdin:1:28-49: ERROR: Unknown struct/union: 'struct nosuch' (not in the kernel's BTF)\n"
	  "fprobe:vfs_read { @ = sum(((struct nosuch *)arg0)->x) }\n"
	  "                           ^~~~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_cast_from_string", "fprobe:vfs_read { @ = sum(((struct file *)comm)->f_flags) }",
	  "stdin:1:28-47: ERROR: Cannot cast from 'string[16]' to 'struct file *'\n"
	  "fprobe:vfs_read { @ = sum(((struct file *)comm)->f_flags) }\n"
	  "                           ^~~~~~~~~~~~~~~~~~~\n" },
	{ "terr_cast_not_pointer", "fprobe:vfs_read { @ = sum(((struct file)arg0)->f_flags) }",
	  "stdin:1:28-41: ERROR: fptrace casts only to pointers: (struct file *)\n"
	  "fprobe:vfs_read { @ = sum(((struct file)arg0)->f_flags) }\n"
	  "                           ^~~~~~~~~~~~~\n" },
	{ "terr_cast_pointer_pointer",
	  "fprobe:vfs_read { @ = sum(((struct file **)arg0)->f_flags) }",
	  "stdin:1:42-43: ERROR: fptrace casts only to pointers to a struct or union: (struct file *)\n"
	  "fprobe:vfs_read { @ = sum(((struct file **)arg0)->f_flags) }\n"
	  "                                         ^\n" },
	{ "terr_probe_left_out", "usdt:x { }",
	  "stdin:1:1-7: ERROR: usdt probes are not supported by fptrace: it traces the kernel only\n"
	  "usdt:x { }\n"
	  "^~~~~~\n" },
	{ "terr_kfunc_left_out", "kfunc:vfs_read { }",
	  "stdin:1:1-15: ERROR: kfunc probes are not supported by fptrace: use fprobe, which reads args.NAME from BTF too\n"
	  "kfunc:vfs_read { }\n"
	  "^~~~~~~~~~~~~~\n" },
};

static void test_type_errors(void)
{
	bool show = getenv("FPT_SHOW_ERRORS");

	for (size_t i = 0; i < ARRAY_SIZE(type_errors); i++) {
		struct result r;
		bool ok;

		compile(type_errors[i].src, &r);
		if (show)
			printf("%s:\n%s", type_errors[i].name, r.msgs);
		ok = r.errors > 0 && !strcmp(r.msgs, type_errors[i].msg);
		if (!ok)
			fprintf(stderr, "%s: messages differ\n--- want\n%s--- got\n%s---\n",
				type_errors[i].name, type_errors[i].msg, r.msgs);
		report(type_errors[i].name, ok);
		result_free(&r);
	}
}

/* The code generator fails, not emits a wrong map, if kstack's map is missing. */
static void test_kstack_no_map(void)
{
	const char *text = "fprobe:vfs_read { @[kstack(3)] = count() }";
	struct fpt_source src = { "stdin", text, strlen(text) };
	struct result r = { 0 };
	struct fpt_diag d;
	size_t len;
	FILE *f = open_memstream(&r.msgs, &len);

	fpt_diag_init(&d, &src, f);
	r.errors = fpt_parse(&src, &d, &r.prog);
	r.errors += fpt_types(&r.prog, btf, funcs, ARRAY_SIZE(funcs), &d, &r.sema);
	for (int i = 0; i < r.sema.nmaps; i++)
		if (r.sema.maps[i].role == FPT_MAP_STACKS)
			r.sema.maps[i].value_size = 0;
	r.errors += fpt_codegen(&r.prog, &r.sema, btf, &d, &r.bpf);
	fclose(f);
	report("kstack_no_map", r.errors == 1 &&
	       !strcmp(r.msgs, "ERROR: internal error: no stack map of 3 frames\n"));
	if (r.errors != 1)
		printf("%d errors:\n%s", r.errors, r.msgs);
	result_free(&r);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		golden_dir = argv[1];
	make_btf();
	test_type_errors();
	test_golden();
	test_kstack_no_map();
	btf__free(btf);
	return failed;
}
