/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * fptrace: bpftrace-style scripts compiled straight to BPF instructions and
 * run on fprobe.multi links.  This header holds every declaration the stages
 * share.
 *
 * The pipeline, one file a stage:
 *
 *   source text --lexer.c--> tokens --parser.c--> AST (struct fpt_program)
 *     --types.c (stage 2)--> AST with every fpt_expr.type filled from BTF
 *     --codegen.c (stage 2)--> struct bpf_insn arrays, one per link
 *     --runtime.c (stage 3)--> maps created, programs loaded and attached
 *     --print.c--> map contents printed as bpftrace prints them
 *
 * diag.c reports errors for every stage in bpftrace's layout:
 *
 *   FILE:LINE:COL-COL: ERROR: message
 *   <the source line>
 *   <marker under the range>
 *
 * Stage 1 is the lexer, the parser, the diagnostics and the printing.
 * Stage 2 adds the type pass (types.c: fpt_types() gives a struct
 * fpt_sema: every expression typed, the probes grouped into links, the
 * map table) and the code generator (codegen.c: fpt_codegen() gives a
 * struct fpt_bpf: one instruction array per program with its map
 * relocations, and the event table that the ring buffer records refer to).
 * The program model (registers, stack, session data, events, BEGIN/END)
 * is described at the top of codegen.c; stage 3 (the runtime) needs only
 * the declarations of the "Type pass" and "Code generation" parts below.
 */
#ifndef FPTRACE_H
#define FPTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * printf-style checking of a format and its arguments, as the kernel's
 * __printf() (user space has no <linux/compiler.h> here). The attribute
 * goes through FPT_PRINTF_FORMAT because checkpatch flags any spelled-out
 * format attribute, this definition's included.
 */
#ifndef __printf
#define FPT_PRINTF_FORMAT(a, b) format(printf, a, b)
#define __printf(a, b) __attribute__((FPT_PRINTF_FORMAT(a, b)))
#endif

/* ---- Source and locations ------------------------------------------- */

/* Where a program comes from: a file, or "stdin" for -e (as in bpftrace). */
struct fpt_source {
	const char *name;
	const char *text;	/* NUL-terminated */
	size_t len;
};

/*
 * A range of the source: lines and columns count from 1, and end_col is one
 * past the last character (bison's convention, which bpftrace prints), so
 * "fprobe" at the start of line 1 is 1:1-7.
 */
struct fpt_loc {
	int line, col;
	int end_line, end_col;
};

/* ---- Diagnostics (diag.c) --------------------------------------------- */

struct fpt_diag {
	const struct fpt_source *src;
	FILE *out;		/* where messages go (stderr in the tool) */
	int errors;
	int warnings;
};

void fpt_diag_init(struct fpt_diag *d, const struct fpt_source *src, FILE *out);
/* Report an error at loc; printf-style message without a trailing newline. */
void fpt_error(struct fpt_diag *d, struct fpt_loc loc, const char *fmt, ...)
	__printf(3, 4);
void fpt_warning(struct fpt_diag *d, struct fpt_loc loc, const char *fmt, ...)
	__printf(3, 4);
/* An error with no place in the source: "ERROR: message". */
void fpt_error_noloc(struct fpt_diag *d, const char *fmt, ...)
	__printf(2, 3);
/* The smallest range covering a and b. */
struct fpt_loc fpt_loc_join(struct fpt_loc a, struct fpt_loc b);

/* ---- Tokens (lexer.c) ------------------------------------------------- */

enum fpt_tok_kind {
	FPT_T_EOF,
	FPT_T_SPEC,		/* a probe spec: fprobe:vfs_*, interval:s:1, BEGIN */
	FPT_T_IDENT,		/* comm, count, args, ... (builtins are identifiers) */
	FPT_T_VAR,		/* $name */
	FPT_T_MAP,		/* @name or @ */
	FPT_T_INT,
	FPT_T_STRING,		/* text holds the unescaped bytes */
	FPT_T_IF,
	FPT_T_ELSE,
	FPT_T_PRED_OPEN,	/* the "/" that opens a predicate */
	FPT_T_ENDPRED,		/* the "/" that closes it (followed by "{") */
	FPT_T_LBRACE, FPT_T_RBRACE, FPT_T_LPAREN, FPT_T_RPAREN,
	FPT_T_LBRACKET, FPT_T_RBRACKET,
	FPT_T_COMMA, FPT_T_SEMI, FPT_T_COLON, FPT_T_QUES, FPT_T_DOT, FPT_T_PTR,
	FPT_T_ASSIGN,
	FPT_T_PLUS_ASSIGN, FPT_T_MINUS_ASSIGN, FPT_T_MUL_ASSIGN, FPT_T_DIV_ASSIGN,
	FPT_T_MOD_ASSIGN, FPT_T_BAND_ASSIGN, FPT_T_BOR_ASSIGN, FPT_T_BXOR_ASSIGN,
	FPT_T_SHL_ASSIGN, FPT_T_SHR_ASSIGN,
	FPT_T_INC, FPT_T_DEC,
	FPT_T_EQ, FPT_T_NE, FPT_T_LT, FPT_T_LE, FPT_T_GT, FPT_T_GE,
	FPT_T_LAND, FPT_T_LOR,
	FPT_T_PLUS, FPT_T_MINUS, FPT_T_MUL, FPT_T_DIV, FPT_T_MOD,
	FPT_T_BAND, FPT_T_BOR, FPT_T_BXOR, FPT_T_SHL, FPT_T_SHR,
	FPT_T_LNOT, FPT_T_BNOT,
	FPT_T__COUNT
};

struct fpt_token {
	enum fpt_tok_kind kind;
	struct fpt_loc loc;
	char *text;		/* SPEC, IDENT, VAR, MAP (with $ / @), STRING */
	size_t len;		/* bytes of text (a STRING may hold NULs) */
	uint64_t num;		/* INT */
};

struct fpt_tokens {
	struct fpt_token *v;
	size_t n, cap;		/* v[n - 1] is always FPT_T_EOF */
};

/* Tokenize src; lexical errors go to d. Returns the number of errors. */
int fpt_lex(const struct fpt_source *src, struct fpt_diag *d, struct fpt_tokens *out);
void fpt_tokens_free(struct fpt_tokens *t);
/* The name of a token kind as messages print it: "{", "identifier", ... */
const char *fpt_tok_name(enum fpt_tok_kind k);

/* ---- Types (filled by the type pass, stage 2) -------------------------- */

enum fpt_type_kind {
	FPT_TY_NONE,		/* not yet typed (all of stage 1) */
	FPT_TY_VOID,		/* statements-only calls: printf, delete, ... */
	FPT_TY_INT,
	FPT_TY_STR,
	FPT_TY_PTR,		/* a kernel pointer, btf_id is the type it points to */
	FPT_TY_KSYM,		/* ksym(), func */
	FPT_TY_KSTACK,		/* stack_mode and frames say which */
	FPT_TY_RECORD,		/* a struct or union inside one: only its fields are read */
	FPT_TY_PROBE,		/* the probe builtin */
	FPT_TY_AGG,		/* an aggregation call; agg says which */
};

enum fpt_agg_kind {
	FPT_AGG_NONE, FPT_AGG_COUNT, FPT_AGG_SUM, FPT_AGG_AVG, FPT_AGG_MIN,
	FPT_AGG_MAX, FPT_AGG_STATS, FPT_AGG_HIST, FPT_AGG_LHIST,
};

/* How a kstack prints: kstack(bpftrace) (the default) or kstack(perf). */
enum fpt_stack_mode { FPT_STACK_BPFTRACE, FPT_STACK_PERF };

struct fpt_type {
	enum fpt_type_kind kind;
	enum fpt_agg_kind agg;
	unsigned int size;	/* bytes (INT: 1/2/4/8, STR: buffer size) */
	bool is_signed;
	/*
	 * The BTF type it came from, 0 if none: PTR the type it points to
	 * (0: void; -1: the traced functions disagree), RECORD the struct
	 */
	int btf_id;
	enum fpt_stack_mode stack_mode;	/* KSTACK */
	unsigned int frames;		/* KSTACK: at most this many frames */
};

/* ---- AST (parser.c) ----------------------------------------------------- */

enum fpt_expr_kind {
	FPT_E_INT,		/* u.num */
	FPT_E_STR,		/* u.str */
	FPT_E_BUILTIN,		/* u.name: pid, comm, retval, arg0, args, ... */
	FPT_E_IDENT,		/* u.name: an identifier that is no builtin */
	FPT_E_VAR,		/* u.name: "$x" */
	FPT_E_MAP,		/* u.map: "@m" with its keys */
	FPT_E_CALL,		/* u.call: count(), str(x), ... */
	FPT_E_FIELD,		/* u.field: args.NAME, or a member: p->NAME, s.NAME */
	FPT_E_CAST,		/* u.cast: (struct NAME *)e */
	FPT_E_UNARY,		/* u.unary: - ! ~ */
	FPT_E_BINARY,		/* u.binary */
	FPT_E_TERNARY,		/* u.ternary: c ? a : b */
	FPT_E_INCDEC,		/* u.incdec: $x++ ++@m[k] ... */
};

struct fpt_expr;

struct fpt_expr_list {
	struct fpt_expr **v;
	int n, cap;
};

struct fpt_expr {
	enum fpt_expr_kind kind;
	struct fpt_loc loc;
	struct fpt_type type;	/* set by the type pass */
	union {
		uint64_t num;
		struct { char *s; size_t len; } str;
		char *name;
		struct { char *name; struct fpt_expr_list keys; } map;
		struct {
			char *name;
			struct fpt_loc name_loc;
			struct fpt_expr_list args;
		} call;
		struct {
			struct fpt_expr *base;
			char *name;
			bool arrow;
			int argno;	/* set by the type pass: args.NAME */
			unsigned int off;	/* set by the type pass: a member's offset */
			unsigned int len;	/* and a char array's bytes to read */
		} field;
		struct {
			char *name;	/* "struct file", "union bpf_attr" */
			struct fpt_expr *e;
		} cast;
		struct { enum fpt_tok_kind op; struct fpt_expr *e; } unary;
		struct { enum fpt_tok_kind op; struct fpt_expr *l, *r; } binary;
		struct { struct fpt_expr *cond, *then, *els; } ternary;
		struct { bool inc, post; struct fpt_expr *target; } incdec;
	} u;
};

enum fpt_stmt_kind {
	FPT_S_EXPR,		/* u.expr: a call such as printf() or count() */
	FPT_S_ASSIGN,		/* u.assign: $x = e, @m[k] = e, @m[k] += e */
	FPT_S_IF,		/* u.if_ */
};

struct fpt_stmt;

struct fpt_block {
	struct fpt_stmt **v;
	int n, cap;
	struct fpt_loc loc;
};

struct fpt_stmt {
	enum fpt_stmt_kind kind;
	struct fpt_loc loc;
	union {
		struct fpt_expr *expr;
		struct {
			enum fpt_tok_kind op;	/* FPT_T_ASSIGN or a compound */
			struct fpt_expr *target;	/* FPT_E_VAR or FPT_E_MAP */
			struct fpt_expr *value;
		} assign;
		struct {
			struct fpt_expr *cond;
			struct fpt_block then;
			struct fpt_block *els;	/* NULL, or else's block */
		} if_;
	} u;
};

enum fpt_probe_kind {
	FPT_P_FPROBE,		/* fprobe:GLOB, kprobe:GLOB */
	FPT_P_FRETPROBE,	/* fretprobe:GLOB, kretprobe:GLOB */
	FPT_P_BEGIN,
	FPT_P_END,
	FPT_P_INTERVAL,
};

struct fpt_spec {
	enum fpt_probe_kind kind;
	struct fpt_loc loc;
	char *text;		/* as written: "kretprobe:vfs_read" */
	char *provider;		/* as written: "kretprobe" */
	char *target;		/* FPROBE/FRETPROBE: the glob; else NULL */
	uint64_t period_ns;	/* INTERVAL */
};

struct fpt_probe {
	struct fpt_spec *specs;
	int nspecs;
	struct fpt_expr *pred;	/* NULL if none */
	struct fpt_block body;
	struct fpt_loc loc;
	int index;		/* 0-based, in source order */
};

struct fpt_program {
	struct fpt_probe *probes;
	int nprobes;
};

/*
 * Parse src into prog. Lexical errors are all reported; the parser stops at
 * its first syntax error (as bpftrace's bison parser, which has no error
 * recovery rules, does). Returns the number of errors; prog is empty then.
 */
int fpt_parse(const struct fpt_source *src, struct fpt_diag *d, struct fpt_program *prog);
void fpt_program_free(struct fpt_program *prog);
/* The AST as S-expressions, one probe a line (for -d and the tests). */
void fpt_ast_dump(FILE *out, const struct fpt_program *prog);
/* True if name is a builtin variable (pid, comm, arg0, ...). */
bool fpt_is_builtin(const char *name);
/*
 * Why fptrace leaves out bpftrace's probe type provider (its first len
 * bytes): "it traces the kernel only", ...; NULL if it is not one of them.
 */
const char *fpt_left_out_reason(const char *provider, size_t len);

/* ---- Map contents and printing (print.c) ------------------------------ */

/*
 * The runtime (stage 3) reads each BPF map into one fpt_map_view and hands
 * it to fpt_print_map(). Aggregations are already reduced across CPUs.
 */
enum fpt_val_kind {
	FPT_V_INT,		/* a plain integer: @x = 5 */
	FPT_V_STR,		/* a string (str(), comm, ...) */
	FPT_V_COUNT, FPT_V_SUM, FPT_V_MIN, FPT_V_MAX,
	FPT_V_AVG, FPT_V_STATS,	/* count and total */
	FPT_V_HIST, FPT_V_LHIST,	/* bucket counts */
};

enum fpt_key_kind { FPT_K_INT, FPT_K_UINT, FPT_K_STR };

struct fpt_key {
	enum fpt_key_kind kind;
	union { int64_t i; uint64_t u; const char *s; } u;
};

struct fpt_entry {
	const struct fpt_key *keys;	/* nkeys of them */
	union {
		int64_t i;		/* INT (signed), SUM, MIN, MAX (signed) */
		uint64_t u;		/* INT (unsigned), COUNT, ... */
		const char *s;		/* STR */
		struct { int64_t count, total; } stats;	/* AVG, STATS */
		/* HIST: fpt_hist_nbuckets(bits); LHIST: fpt_lhist_nbuckets() */
		const uint64_t *buckets;
	} v;
};

struct fpt_map_view {
	const char *name;		/* "@", "@bytes" */
	enum fpt_val_kind kind;
	bool is_signed;			/* INT, SUM, MIN, MAX, AVG, STATS */
	int nkeys;			/* 0 for a scalar */
	struct fpt_entry *entries;	/* reordered by fpt_print_map() */
	size_t n;
	int hist_bits;			/* HIST: hist(v, k)'s k, 0..5 */
	int64_t lmin, lmax, lstep;	/* LHIST */
};

enum fpt_format { FPT_FMT_TEXT, FPT_FMT_JSON };

/*
 * Sort m's entries as bpftrace sorts them and print them. top (0: all)
 * keeps the last top entries after sorting and div divides the values, as
 * print(@m, top, div) does. Returns 0, or -1 on an invalid view.
 */
int fpt_print_map(FILE *out, enum fpt_format fmt, struct fpt_map_view *m,
		  uint32_t top, uint32_t div);
/* Sort only (exposed for the tests). */
void fpt_sort_entries(struct fpt_map_view *m);

/*
 * Bucket rules, mirrored by the code generator in BPF.
 * hist(v, k): index 0 holds v < 0; indexes 1..2^(k+1) hold one value each
 * (v + 1); above that each power of two is split into 2^k buckets.
 * lhist(v, min, max, step): 0 holds v < min, buckets + 1 holds v > max (and
 * v == max), 1 + (v - min) / step otherwise, buckets = (max - min) / step.
 */
#define FPT_HIST_MAX_BITS 5
int fpt_hist_nbuckets(int bits);
int fpt_hist_index(int64_t v, int bits);
int64_t fpt_lhist_nbuckets(int64_t min, int64_t max, int64_t step);
int64_t fpt_lhist_index(int64_t v, int64_t min, int64_t max, int64_t step);

/* ---- Type pass (types.c) ------------------------------------------------ */

struct btf;
struct bpf_insn;

#define FPT_ARGS_MAX		6	/* BPF_FPROBE_MULTI_ARGS_MAX */
#define FPT_SESSION_MAX		64	/* BPF_FPROBE_MULTI_SESSION_MAX */
#define FPT_COMM_LEN		16	/* comm: string[16] */
#define FPT_STR_LEN		64	/* str() and string literals: string[64] */
#define FPT_KEYS_MAX		8	/* keys of one map */
#define FPT_STACK_DEPTH		127	/* frames of a kstack, kstack(N)'s most */
#define FPT_MAP_ENTRIES		4096	/* hash maps and the stack map */
#define FPT_RINGBUF_SIZE	(256 * 1024)
#define FPT_PRINTF_WIDTH_MAX	1024	/* printf's field widths and precisions */

/* Internal maps share the table with the script's maps. */
/* ".lost" counts, per CPU, the records the ring buffer had no room for. */
enum fpt_map_role { FPT_MAP_USER, FPT_MAP_EVENTS, FPT_MAP_STACKS, FPT_MAP_LOST };

/*
 * One map of the program, as the code generator uses it and the runtime
 * creates it. Keys are concatenated in key order: an integer (any size,
 * ksym, probe, kstack) takes 8 bytes, a string its buffer size. A map
 * without keys is a hash of one element with the u32 key 0, but for the
 * aggregations other than sum(): a per-CPU array of one element, so that
 * an event costs no hashing. hist and lhist maps add a u64 bucket index
 * after the keys (and are hashes then); without keys they are a per-CPU
 * array indexed by the bucket (a u32 key), an element for each bucket.
 * Values: INT, COUNT, SUM, HIST and LHIST (one bucket) are u64; STR its
 * buffer; MIN and MAX { s64 value; u64 set; } (set is 0 on the CPUs that
 * never wrote: skip them when reducing); AVG and STATS { u64 count; s64
 * total; }. Aggregations live in per-CPU maps; the runtime sums counts,
 * totals and buckets across CPUs and takes min/max over the set values.
 */
struct fpt_map_info {
	/* "@x", "@"; ".events", ".stacks" (kstack), ".stacks5" (kstack(5)) */
	char *name;
	enum fpt_map_role role;
	struct fpt_loc loc;		/* first use */
	int nkeys;
	struct fpt_type keys[FPT_KEYS_MAX];
	unsigned int key_off[FPT_KEYS_MAX];
	enum fpt_val_kind kind;
	struct fpt_type val;		/* the value, or the aggregated value */
	bool typed;			/* value kind known */
	int hist_bits;			/* HIST */
	int64_t lmin, lmax, lstep;	/* LHIST */
	uint32_t bpf_type;		/* BPF_MAP_TYPE_* */
	uint32_t key_size, value_size, max_entries;
};

enum fpt_link_mode { FPT_LINK_ENTRY, FPT_LINK_EXIT, FPT_LINK_SESSION };

/* A $variable kept in the session data: set at entry, read at exit. */
struct fpt_svar {
	char *name;
	struct fpt_type type;
	unsigned int off;
};

/*
 * One fprobe.multi link and its program: the probes (parts of probes:
 * a probe's fprobe specs give an entry part, its fretprobe specs an exit
 * part) on exactly the same set of functions. Entry and exit parts on one
 * set make a session; an exit part that reads latency makes one too.
 */
struct fpt_link {
	enum fpt_link_mode mode;
	char **funcs;			/* sorted, unique names */
	int nfuncs;
	int *entry, nentry;		/* probe indexes, in source order */
	int *exit, nexit;
	struct fpt_svar *svars;
	int nsvars;
	bool latency;			/* entry saves a timestamp at ts_off */
	unsigned int ts_off;
	unsigned int session_size;	/* link option (session only) */
	unsigned int saved_args;	/* link option (exit runs only) */
};

struct fpt_sema {
	struct fpt_map_info *maps;
	int nmaps;
	struct fpt_link *links;
	int nlinks;
};

/*
 * Type prog against the kernel's BTF. funcs (nfuncs names, the runtime's
 * available_filter_functions, sorted by strcmp()) is what probe globs
 * match. Fills every
 * fpt_expr.type and the argument number of args.NAME (u.field.argno), and
 * gives the links and the maps in *out. Errors go
 * to d; returns their number (*out must still be freed).
 */
int fpt_types(struct fpt_program *prog, const struct btf *btf,
	      const char *const *funcs, size_t nfuncs, struct fpt_diag *d,
	      struct fpt_sema *out);
void fpt_sema_free(struct fpt_sema *s);
/* bpftrace's name of a type: "int64", "uint32", "string[16]", "count_t". */
const char *fpt_type_name(const struct fpt_type *t, char *buf, size_t len);

/* ---- Code generation (codegen.c) ---------------------------------------- */

enum fpt_prog_kind {
	FPT_PROG_LINK,		/* BPF_PROG_TYPE_KPROBE, BPF_TRACE_FPROBE_MULTI */
	FPT_PROG_BEGIN,		/* BPF_PROG_TYPE_SYSCALL, run by BPF_PROG_TEST_RUN */
	FPT_PROG_END,
	FPT_PROG_INTERVAL,
};

enum fpt_kfunc {
	FPT_KF_ARG, FPT_KF_RET, FPT_KF_FUNC_IP, FPT_KF_IS_RETURN,
	FPT_KF_SESSION_DATA, FPT_KF__COUNT
};

/*
 * Instruction insn is a BPF_LD_IMM64 whose imm the runtime sets to map's
 * fd; or, for map FPT_RELOC_START, a plain one that it sets to the run's
 * start time (CLOCK_MONOTONIC, bpf_ktime_get_ns()'s clock, in ns), which
 * elapsed counts from.
 */
#define FPT_RELOC_START	(-1)

struct fpt_reloc {
	int insn;
	int map;		/* index in fpt_sema.maps, or FPT_RELOC_START */
};

/* Instruction insn calls kfunc (its imm is already the vmlinux BTF id). */
struct fpt_kcall {
	int insn;
	enum fpt_kfunc kfunc;
};

struct fpt_bpf_prog {
	char name[32];			/* "fpt_link0", "fpt_begin", ... */
	enum fpt_prog_kind kind;
	int link;			/* LINK: index in fpt_sema.links */
	int probe;			/* BEGIN/END/INTERVAL: probe index */
	uint64_t period_ns;		/* INTERVAL */
	uint32_t prog_type, attach_type;
	struct bpf_insn *insns;
	struct fpt_loc *locs;		/* ninsns: the statement each comes from */
	int ninsns;
	struct fpt_reloc *relocs;
	int nrelocs;
	struct fpt_kcall *kcalls;
	int nkcalls;
	int stack;			/* bytes of stack used */
};

/*
 * Ring buffer records: a u32 event id (index in fpt_bpf.events), 4 bytes
 * of padding, then the arguments at their offsets (8-byte aligned).
 */
enum fpt_event_kind { FPT_EV_PRINTF, FPT_EV_PRINT, FPT_EV_CLEAR, FPT_EV_EXIT };

struct fpt_event_arg {
	struct fpt_type type;	/* INT and the like: 8 bytes; STR: type.size */
	unsigned int off;
};

struct fpt_event {
	enum fpt_event_kind kind;
	struct fpt_loc loc;
	char *fmt;			/* PRINTF: the format, unescaped */
	size_t fmt_len;
	bool time;			/* PRINTF: time(): fmt is strftime()'s */
	struct fpt_event_arg *args;
	int nargs;
	int map;			/* PRINT, CLEAR */
	uint32_t top, div;		/* PRINT */
	uint32_t size;			/* bytes of the record */
};

struct fpt_bpf {
	struct fpt_bpf_prog *progs;
	int nprogs;
	struct fpt_event *events;
	int nevents;
};

/*
 * Generate the programs of a typed program. btf gives the kfuncs' ids.
 * Errors go to d; returns their number (*out must still be freed).
 */
int fpt_codegen(const struct fpt_program *prog, const struct fpt_sema *s,
		const struct btf *btf, struct fpt_diag *d, struct fpt_bpf *out);
void fpt_bpf_free(struct fpt_bpf *b);
const char *fpt_kfunc_name(enum fpt_kfunc k);
/* One line an instruction, as bpftool prog dump xlated prints them. */
void fpt_prog_dump(FILE *out, const struct fpt_sema *s, const struct fpt_bpf_prog *p);
/*
 * Static checks: known opcodes, every jump inside the program, the last
 * instruction an exit or a jump, r0 set before each exit, and no register
 * read before it is set along the instructions in order (r1 and r10 are
 * set at entry; a call sets r0 and clobbers r1-r5). Returns 0, or -1 with
 * the reason in msg.
 */
int fpt_prog_check(const struct fpt_bpf_prog *p, char *msg, size_t len);

/* ---- Runtime (runtime.c, output.c) ---------------------------------------- */

#include <sys/types.h>

/*
 * How fpt_run() runs a generated program. Text output goes to stdout as
 * bpftrace prints it; diagnostics, the verifier's log and the missed-call
 * counts go to stderr.
 */
struct fpt_run_opts {
	enum fpt_format fmt;
	bool verbose;		/* -v: the verifier's log on success too */
	pid_t child;		/* -c: the command, waiting to start; 0 if none */
	int child_go;		/* -c: written to let the command exec; -1 if none */
	int child_err;		/* -c: its exec's errno, or EOF once it ran; -1 if none */
	const char *cmd;	/* -c: the command, for messages */
	pid_t pid;		/* -p: stop when it is gone; 0 if none */
};

/*
 * Create the maps, load the programs (a verifier rejection is reported at
 * the statement of the failing instruction), run BEGIN, attach the links,
 * then print events until exit(), SIGINT/SIGTERM or the end of the command
 * or process; run END, print the maps and the links' missed calls.
 * Returns 0, or -1 when something failed to load or attach (reported).
 */
int fpt_run(const struct fpt_source *src, const struct fpt_program *prog,
	    const struct fpt_sema *s, const struct fpt_bpf *b,
	    const struct fpt_run_opts *o);

/* ---- Command line (cli.c) and listing (list.c) ------------------------------ */

/* The command line: see cli.c. */
struct fpt_cli {
	const char *expr, *file, *list, *cmd;	/* -e, FILE ("-": stdin), -l, -c */
	pid_t pid;				/* -p, 0 if none */
	bool dump, verbose, trace_self;		/* -d, -v, --trace-self */
	enum fpt_format fmt;			/* -f */
};

/*
 * Parse argv into o (zeroed but for fmt). Returns 0; 1 when --help was
 * printed (exit 0); -1 with the "ERROR: ..." line (or the usage) on err.
 */
int fpt_cli_parse(int argc, char **argv, struct fpt_cli *o, FILE *err);
/*
 * The program in file ("-": read from in), its first line blanked if it
 * starts with "#!"; NULL (reported on err) if it cannot be opened or read.
 */
char *fpt_read_program(const char *file, FILE *in, size_t *len, FILE *err);
/* -l's SPEC: its provider ("fprobe" when none), NULL if unknown; *glob the rest. */
const char *fpt_list_provider(const char *spec, const char **glob);
/*
 * The file exec would run for -c's name, into path: name itself when it
 * holds a '/', else the first executable regular file of that name in
 * PATH. 0, or -ENOENT (none), -EACCES (not executable) and the like.
 */
int fpt_find_command(const char *name, char *path, size_t len);

/*
 * fptrace -l [-v] SPEC (list.c): print the functions of names (n of them,
 * sorted, mods[i] their module or NULL) that SPEC matches, as
 * "fprobe:vfs_read", with their arguments from BTF when verbose. Returns
 * the exit status: 1 (reported) for an unknown provider or no match.
 */
int fpt_list(const char *spec, bool verbose, char *const *names, char *const *mods, size_t n);

/*
 * Kernel symbols from /proc/kallsyms, for ksym(), func, probe and kstack
 * (ksyms.c). fpt_ksyms_load() warns on stderr when kptr_restrict hides the
 * addresses; fpt_ksyms_read() reads a kallsyms listing from f.
 */
struct fpt_ksyms;
struct fpt_ksyms *fpt_ksyms_load(void);
struct fpt_ksyms *fpt_ksyms_read(FILE *f);
/* True when the listing had text symbols, all at address 0. */
bool fpt_ksyms_hidden(const struct fpt_ksyms *k);
/* The symbol holding addr and addr's offset in it; NULL if none. */
const char *fpt_ksym(const struct fpt_ksyms *k, uint64_t addr, uint64_t *off);
void fpt_ksyms_free(struct fpt_ksyms *k);

/* What output.c needs to name the values of ksym, probe and kstack. */
struct fpt_out {
	FILE *f;
	enum fpt_format fmt;
	const struct fpt_program *prog;
	const struct fpt_sema *s;
	struct fpt_ksyms *ksyms;	/* NULL until a value needs a name */
	const int *map_fds;	/* by index in s->maps: the stack maps' for kstack */
};

/* Print the printf event ev from its ring buffer record rec. */
void fpt_out_printf(struct fpt_out *o, const struct fpt_event *ev, const void *rec);
/* Read map mi (fd) and print it as fpt_print_map() does. Returns 0 or -1. */
int fpt_out_map(struct fpt_out *o, int mi, int fd, uint32_t top, uint32_t div);
/* Delete every element of map mi (zero those of an array). */
void fpt_clear_map(const struct fpt_map_info *m, int fd);
/* s as the inside of a JSON string. */
void fpt_json_escape(FILE *out, const char *s);

#endif /* FPTRACE_H */
