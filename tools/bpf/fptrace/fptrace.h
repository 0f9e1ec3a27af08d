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
 *     --codegen.c (stage 2)--> struct bpf_insn arrays, one per probe
 *     --runtime.c (stage 3)--> maps created, programs loaded and attached
 *     --print.c--> map contents printed as bpftrace prints them
 *
 * diag.c reports errors for every stage in bpftrace's layout:
 *
 *   FILE:LINE:COL-COL: ERROR: message
 *   <the source line>
 *   <marker under the range>
 *
 * Stage 1 (this state of the tree) is the lexer, the parser, the diagnostics
 * and the printing; the AST already carries the slots (fpt_expr.type,
 * fpt_map_info) that the type pass fills and the code generator reads.
 */
#ifndef FPTRACE_H
#define FPTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	__attribute__((format(printf, 3, 4)));
void fpt_warning(struct fpt_diag *d, struct fpt_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error with no place in the source: "ERROR: message". */
void fpt_error_noloc(struct fpt_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
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
	FPT_TY_PTR,		/* a kernel pointer, btf_id is the pointee */
	FPT_TY_KSYM,		/* ksym(), func */
	FPT_TY_KSTACK,
	FPT_TY_PROBE,		/* the probe builtin */
	FPT_TY_AGG,		/* an aggregation call; agg says which */
};

enum fpt_agg_kind {
	FPT_AGG_NONE, FPT_AGG_COUNT, FPT_AGG_SUM, FPT_AGG_AVG, FPT_AGG_MIN,
	FPT_AGG_MAX, FPT_AGG_STATS, FPT_AGG_HIST, FPT_AGG_LHIST,
};

struct fpt_type {
	enum fpt_type_kind kind;
	enum fpt_agg_kind agg;
	unsigned int size;	/* bytes (INT: 1/2/4/8, STR: buffer size) */
	bool is_signed;
	int btf_id;		/* the BTF type it came from, 0 if none */
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
	FPT_E_FIELD,		/* u.field: args.NAME or args->NAME */
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
		struct { char *name; struct fpt_loc name_loc;
			 struct fpt_expr_list args; } call;
		struct { struct fpt_expr *base; char *name; bool arrow; } field;
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

#endif /* FPTRACE_H */
