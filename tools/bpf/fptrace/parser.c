// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * parser.c: tokens to the AST, by recursive descent.
 *
 * Takes the tokens of lexer.c; gives a struct fpt_program (probes, each
 * with its specs, optional predicate and block), fpt_ast_dump() to print it
 * as S-expressions, and fpt_program_free(). Every expression gets its
 * location and an empty type slot for the type pass.
 *
 * The grammar is bpftrace's, less what fptrace has no use for (struct
 * declarations, casts but to struct and union pointers, unroll/while/for,
 * tuples, positional parameters, unary * and &):
 *
 *   program  := probe+
 *   block    := '{' [stmt (';' stmt)* [';']] '}'     if/else need no ';'
 *   probe    := spec (',' spec)* ['/' expr '/'] block
 *   stmt     := if '(' expr ')' block [else (if... | block)]
 *             | (var | map) ('=' | '+=' | '-=' | ... | '>>=') expr
 *             | expr
 *   operators, loosest first, all left-associative but ?: :
 *     ?:  ||  &&  |  ^  &  == !=  < <= > >=  << >>  + -  * / %
 *     unary ! ~ - ++ -- and casts '(' (struct | union) NAME '*' ')',
 *     then postfix .NAME ->NAME ++ --
 *   primary  := integer | string | $var | @map ['[' expr (',' expr)* ']']
 *             | name '(' [expr (',' expr)*] ')' | name | '(' expr ')'
 *
 * Errors: a syntax error reads as bison's (parse.error verbose) do in
 * bpftrace: "syntax error, unexpected X, expecting A or B". The parser
 * stops at its first error; the lexer's errors all come first and stop it
 * from running at all.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fptrace.h"

/*
 * Expressions and blocks nest at most this deep (an operator chain counts
 * one level an operator): the parser, the type pass and the code generator
 * recurse on the AST, and a bound keeps them off the end of the C stack.
 */
#define NEST_MAX	128

struct parser {
	struct fpt_token *t;
	size_t pos;
	struct fpt_diag *d;
	bool failed;
	int depth;		/* levels of nesting open */
};

/* ---- Allocation and freeing ------------------------------------------ */

static void *zalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		abort();
	return p;
}

static void grow(void **v, int *cap, int n, size_t elem)
{
	if (n < *cap)
		return;
	*cap = *cap ? 2 * *cap : 4;
	*v = realloc(*v, *cap * elem);
	if (!*v)
		abort();
}

static void list_add(struct fpt_expr_list *l, struct fpt_expr *e)
{
	grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v));
	l->v[l->n++] = e;
}

static void expr_free(struct fpt_expr *e);

static void list_free(struct fpt_expr_list *l)
{
	for (int i = 0; i < l->n; i++)
		expr_free(l->v[i]);
	free(l->v);
}

static void expr_free(struct fpt_expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case FPT_E_STR:
		free(e->u.str.s);
		break;
	case FPT_E_BUILTIN: case FPT_E_IDENT: case FPT_E_VAR:
		free(e->u.name);
		break;
	case FPT_E_MAP:
		free(e->u.map.name);
		list_free(&e->u.map.keys);
		break;
	case FPT_E_CALL:
		free(e->u.call.name);
		list_free(&e->u.call.args);
		break;
	case FPT_E_FIELD:
		expr_free(e->u.field.base);
		free(e->u.field.name);
		break;
	case FPT_E_CAST:
		free(e->u.cast.name);
		expr_free(e->u.cast.e);
		break;
	case FPT_E_UNARY:
		expr_free(e->u.unary.e);
		break;
	case FPT_E_BINARY:
		expr_free(e->u.binary.l);
		expr_free(e->u.binary.r);
		break;
	case FPT_E_TERNARY:
		expr_free(e->u.ternary.cond);
		expr_free(e->u.ternary.then);
		expr_free(e->u.ternary.els);
		break;
	case FPT_E_INCDEC:
		expr_free(e->u.incdec.target);
		break;
	case FPT_E_INT:
		break;
	}
	free(e);
}

static void stmt_free(struct fpt_stmt *s);

static void block_free(struct fpt_block *b)
{
	for (int i = 0; i < b->n; i++)
		stmt_free(b->v[i]);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static void stmt_free(struct fpt_stmt *s)
{
	if (!s)
		return;
	switch (s->kind) {
	case FPT_S_EXPR:
		expr_free(s->u.expr);
		break;
	case FPT_S_ASSIGN:
		expr_free(s->u.assign.target);
		expr_free(s->u.assign.value);
		break;
	case FPT_S_IF:
		expr_free(s->u.if_.cond);
		block_free(&s->u.if_.then);
		if (s->u.if_.els)
			block_free(s->u.if_.els);
		free(s->u.if_.els);
		break;
	}
	free(s);
}

static void probe_free(struct fpt_probe *p)
{
	for (int i = 0; i < p->nspecs; i++) {
		free(p->specs[i].text);
		free(p->specs[i].provider);
		free(p->specs[i].target);
	}
	free(p->specs);
	expr_free(p->pred);
	block_free(&p->body);
}

void fpt_program_free(struct fpt_program *prog)
{
	for (int i = 0; i < prog->nprobes; i++)
		probe_free(&prog->probes[i]);
	free(prog->probes);
	memset(prog, 0, sizeof(*prog));
}

/* ---- Tokens and errors ------------------------------------------------ */

static const struct fpt_token *cur(const struct parser *p)
{
	return &p->t[p->pos];
}

static bool at(const struct parser *p, enum fpt_tok_kind k)
{
	return cur(p)->kind == k;
}

static const struct fpt_token *next(struct parser *p)
{
	const struct fpt_token *t = cur(p);

	if (t->kind != FPT_T_EOF)
		p->pos++;
	return t;
}

/* "syntax error, unexpected X[, expecting A or B ...]" at the current token. */
static void syntax_error(struct parser *p, int nexp, ...)
{
	char buf[256];
	size_t n;
	va_list ap;

	if (p->failed)
		return;
	n = (size_t)snprintf(buf, sizeof(buf), "syntax error, unexpected %s",
			     fpt_tok_name(cur(p)->kind));
	va_start(ap, nexp);
	for (int i = 0; i < nexp && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      i ? " or " : ", expecting ",
				      fpt_tok_name(va_arg(ap, enum fpt_tok_kind)));
	va_end(ap);
	fpt_error(p->d, cur(p)->loc, "%s", buf);
	p->failed = true;
}

static void error_at(struct parser *p, struct fpt_loc l, const char *fmt, ...)
	__printf(3, 4);

static void error_at(struct parser *p, struct fpt_loc l, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (p->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fpt_error(p->d, l, "%s", buf);
	p->failed = true;
}

/* One more level of nesting at the current token; false (reported) if too deep. */
static bool nest(struct parser *p)
{
	if (++p->depth <= NEST_MAX)
		return true;
	error_at(p, cur(p)->loc, "nesting too deep: more than %d levels", NEST_MAX);
	return false;
}

/* Consume a token of kind k or report it missing; false on error. */
static bool expect(struct parser *p, enum fpt_tok_kind k)
{
	if (at(p, k)) {
		next(p);
		return true;
	}
	syntax_error(p, 1, k);
	return false;
}

/* ---- Expressions -------------------------------------------------------- */

static const char * const builtins[] = {
	"pid", "tid", "uid", "gid", "comm", "cpu", "nsecs", "elapsed", "latency",
	"func", "probe", "retval", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	"args", "kstack", "cookie",
};

bool fpt_is_builtin(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(name, builtins[i]))
			return true;
	return false;
}

static struct fpt_expr *new_expr(enum fpt_expr_kind k, struct fpt_loc l)
{
	struct fpt_expr *e = zalloc(sizeof(*e));

	e->kind = k;
	e->loc = l;
	return e;
}

static struct fpt_expr *parse_expr(struct parser *p);

/* Comma-separated expressions up to the closing token; false on error. */
static bool parse_list(struct parser *p, struct fpt_expr_list *l,
		       enum fpt_tok_kind close, bool allow_empty)
{
	if (allow_empty && at(p, close))
		return next(p), true;
	for (;;) {
		struct fpt_expr *e = parse_expr(p);

		if (!e)
			return false;
		list_add(l, e);
		if (at(p, close))
			return next(p), true;
		if (!at(p, FPT_T_COMMA)) {
			syntax_error(p, 2, FPT_T_COMMA, close);
			return false;
		}
		next(p);
	}
}

static struct fpt_expr *parse_map(struct parser *p)
{
	const struct fpt_token *t = next(p);
	struct fpt_expr *e = new_expr(FPT_E_MAP, t->loc);

	e->u.map.name = strdup(t->text);
	if (!at(p, FPT_T_LBRACKET))
		return e;
	next(p);
	if (!parse_list(p, &e->u.map.keys, FPT_T_RBRACKET, false)) {
		expr_free(e);
		return NULL;
	}
	e->loc = fpt_loc_join(e->loc, p->t[p->pos - 1].loc);
	return e;
}

static struct fpt_expr *parse_name(struct parser *p)
{
	const struct fpt_token *t = next(p);
	struct fpt_expr *e;

	if (!at(p, FPT_T_LPAREN)) {
		bool b = fpt_is_builtin(t->text);

		e = new_expr(b ? FPT_E_BUILTIN : FPT_E_IDENT, t->loc);
		e->u.name = strdup(t->text);
		return e;
	}
	e = new_expr(FPT_E_CALL, t->loc);
	e->u.call.name = strdup(t->text);
	e->u.call.name_loc = t->loc;
	next(p);
	if (!parse_list(p, &e->u.call.args, FPT_T_RPAREN, true)) {
		expr_free(e);
		return NULL;
	}
	e->loc = fpt_loc_join(e->loc, p->t[p->pos - 1].loc);
	return e;
}

static struct fpt_expr *parse_paren(struct parser *p)
{
	struct fpt_expr *e;

	next(p);
	e = parse_expr(p);
	if (e && !expect(p, FPT_T_RPAREN)) {
		expr_free(e);
		return NULL;
	}
	return e;
}

static struct fpt_expr *parse_primary(struct parser *p)
{
	const struct fpt_token *t = cur(p);
	struct fpt_expr *e;

	switch (t->kind) {
	case FPT_T_INT:
		e = new_expr(FPT_E_INT, next(p)->loc);
		e->u.num = t->num;
		return e;
	case FPT_T_STRING:
		e = new_expr(FPT_E_STR, next(p)->loc);
		e->u.str.s = malloc(t->len + 1);
		if (!e->u.str.s)
			abort();
		memcpy(e->u.str.s, t->text, t->len + 1);
		e->u.str.len = t->len;
		return e;
	case FPT_T_VAR:
		e = new_expr(FPT_E_VAR, next(p)->loc);
		e->u.name = strdup(t->text);
		return e;
	case FPT_T_MAP:
		return parse_map(p);
	case FPT_T_IDENT:
		return parse_name(p);
	case FPT_T_LPAREN:
		return parse_paren(p);
	default:
		syntax_error(p, 0);
		return NULL;
	}
}

static struct fpt_expr *new_incdec(struct fpt_expr *target, bool inc, bool post,
				   struct fpt_loc l)
{
	struct fpt_expr *e = new_expr(FPT_E_INCDEC, fpt_loc_join(l, target->loc));

	e->u.incdec.inc = inc;
	e->u.incdec.post = post;
	e->u.incdec.target = target;
	return e;
}

static bool is_lvalue(const struct fpt_expr *e)
{
	return e->kind == FPT_E_VAR || e->kind == FPT_E_MAP;
}

/* .NAME / ->NAME after a base. */
static struct fpt_expr *parse_field(struct parser *p, struct fpt_expr *base)
{
	bool arrow = next(p)->kind == FPT_T_PTR;
	struct fpt_expr *e;

	if (!at(p, FPT_T_IDENT)) {
		syntax_error(p, 1, FPT_T_IDENT);
		expr_free(base);
		return NULL;
	}
	e = new_expr(FPT_E_FIELD, fpt_loc_join(base->loc, cur(p)->loc));
	e->u.field.base = base;
	e->u.field.name = strdup(next(p)->text);
	e->u.field.arrow = arrow;
	return e;
}

static struct fpt_expr *parse_postfix(struct parser *p)
{
	struct fpt_expr *e = parse_primary(p);

	while (e) {
		if (at(p, FPT_T_DOT) || at(p, FPT_T_PTR))
			e = parse_field(p, e);
		else if ((at(p, FPT_T_INC) || at(p, FPT_T_DEC)) && is_lvalue(e))
			e = new_incdec(e, next(p)->kind == FPT_T_INC, true, p->t[p->pos - 1].loc);
		else
			break;
	}
	return e;
}

static struct fpt_expr *parse_unary(struct parser *p);

/* A cast: '(' already seen before "struct" or "union". */
static bool is_cast(const struct parser *p)
{
	const struct fpt_token *t = &p->t[p->pos + 1];

	return at(p, FPT_T_LPAREN) && t->kind == FPT_T_IDENT &&
		(!strcmp(t->text, "struct") || !strcmp(t->text, "union"));
}

/* (struct NAME *)e: a pointer to the struct, for -> to read its fields. */
static struct fpt_expr *parse_cast(struct parser *p)
{
	struct fpt_loc open = next(p)->loc;
	const char *tag = next(p)->text;
	struct fpt_expr *e, *sub;
	char *name;

	if (!at(p, FPT_T_IDENT)) {
		syntax_error(p, 1, FPT_T_IDENT);
		return NULL;
	}
	if (asprintf(&name, "%s %s", tag, next(p)->text) < 0)
		abort();
	if (!at(p, FPT_T_MUL)) {
		error_at(p, fpt_loc_join(open, cur(p)->loc),
			 "fptrace casts only to pointers: (%s *)", name);
		free(name);
		return NULL;
	}
	next(p);
	if (at(p, FPT_T_MUL)) {
		error_at(p, cur(p)->loc,
			 "fptrace casts only to pointers to a struct or union: (%s *)", name);
		free(name);
		return NULL;
	}
	sub = expect(p, FPT_T_RPAREN) && nest(p) ? parse_unary(p) : NULL;
	if (!sub) {
		free(name);
		return NULL;
	}
	p->depth--;
	e = new_expr(FPT_E_CAST, fpt_loc_join(open, sub->loc));
	e->u.cast.name = name;
	e->u.cast.e = sub;
	return e;
}

static struct fpt_expr *parse_unary(struct parser *p)
{
	const struct fpt_token *t = cur(p);
	struct fpt_expr *e, *sub;

	if (is_cast(p))
		return parse_cast(p);

	if (t->kind == FPT_T_INC || t->kind == FPT_T_DEC) {
		next(p);
		if (!at(p, FPT_T_VAR) && !at(p, FPT_T_MAP)) {
			syntax_error(p, 2, FPT_T_VAR, FPT_T_MAP);
			return NULL;
		}
		sub = parse_primary(p);
		return sub ? new_incdec(sub, t->kind == FPT_T_INC, false, t->loc) : NULL;
	}
	if (t->kind != FPT_T_LNOT && t->kind != FPT_T_BNOT && t->kind != FPT_T_MINUS)
		return parse_postfix(p);
	next(p);
	if (!nest(p))
		return NULL;
	sub = parse_unary(p);
	p->depth--;
	if (!sub)
		return NULL;
	e = new_expr(FPT_E_UNARY, fpt_loc_join(t->loc, sub->loc));
	e->u.unary.op = t->kind;
	e->u.unary.e = sub;
	return e;
}

/* Binary operators by level, loosest first; all left-associative. */
static const enum fpt_tok_kind levels[][5] = {
	{ FPT_T_LOR }, { FPT_T_LAND }, { FPT_T_BOR }, { FPT_T_BXOR },
	{ FPT_T_BAND }, { FPT_T_EQ, FPT_T_NE },
	{ FPT_T_LT, FPT_T_LE, FPT_T_GT, FPT_T_GE },
	{ FPT_T_SHL, FPT_T_SHR }, { FPT_T_PLUS, FPT_T_MINUS },
	{ FPT_T_MUL, FPT_T_DIV, FPT_T_MOD },
};

#define NLEVELS ((int)ARRAY_SIZE(levels))

static bool in_level(int level, enum fpt_tok_kind k)
{
	for (int i = 0; i < 5 && levels[level][i]; i++)
		if (levels[level][i] == k)
			return true;
	return false;
}

static struct fpt_expr *parse_binary(struct parser *p, int level)
{
	struct fpt_expr *l, *r, *e;
	int depth = p->depth;

	if (level == NLEVELS)
		return parse_unary(p);
	l = parse_binary(p, level + 1);
	while (l && in_level(level, cur(p)->kind)) {
		enum fpt_tok_kind op = next(p)->kind;

		r = nest(p) ? parse_binary(p, level + 1) : NULL;
		if (!r) {
			expr_free(l);
			return NULL;
		}
		e = new_expr(FPT_E_BINARY, fpt_loc_join(l->loc, r->loc));
		e->u.binary.op = op;
		e->u.binary.l = l;
		e->u.binary.r = r;
		l = e;
	}
	p->depth = depth;
	return l;
}

static struct fpt_expr *parse_ternary(struct parser *p, struct fpt_expr *cond)
{
	struct fpt_expr *e = new_expr(FPT_E_TERNARY, cond->loc);

	e->u.ternary.cond = cond;
	next(p);
	e->u.ternary.then = parse_expr(p);
	if (!e->u.ternary.then || !expect(p, FPT_T_COLON)) {
		expr_free(e);
		return NULL;
	}
	e->u.ternary.els = parse_expr(p);
	if (!e->u.ternary.els) {
		expr_free(e);
		return NULL;
	}
	e->loc = fpt_loc_join(e->loc, e->u.ternary.els->loc);
	return e;
}

static struct fpt_expr *parse_expr(struct parser *p)
{
	struct fpt_expr *e = nest(p) ? parse_binary(p, 0) : NULL;

	if (e && at(p, FPT_T_QUES))
		e = parse_ternary(p, e);
	p->depth--;
	return e;
}

/* ---- Statements and blocks -------------------------------------------- */

static bool is_assign_op(enum fpt_tok_kind k)
{
	return k == FPT_T_ASSIGN || (k >= FPT_T_PLUS_ASSIGN && k <= FPT_T_SHR_ASSIGN);
}

static struct fpt_stmt *new_stmt(enum fpt_stmt_kind k, struct fpt_loc l)
{
	struct fpt_stmt *s = zalloc(sizeof(*s));

	s->kind = k;
	s->loc = l;
	return s;
}

static bool parse_block(struct parser *p, struct fpt_block *b);

static struct fpt_stmt *parse_if(struct parser *p)
{
	struct fpt_stmt *s = new_stmt(FPT_S_IF, next(p)->loc);

	if (!expect(p, FPT_T_LPAREN))
		goto fail;
	s->u.if_.cond = parse_expr(p);
	if (!s->u.if_.cond || !expect(p, FPT_T_RPAREN) || !parse_block(p, &s->u.if_.then))
		goto fail;
	s->loc = fpt_loc_join(s->loc, s->u.if_.then.loc);
	if (!at(p, FPT_T_ELSE))
		return s;
	next(p);
	s->u.if_.els = zalloc(sizeof(*s->u.if_.els));
	if (at(p, FPT_T_IF)) {
		/* else if: a block holding the one if statement */
		struct fpt_stmt *inner = nest(p) ? parse_if(p) : NULL;

		if (!inner)
			goto fail;
		p->depth--;
		grow((void **)&s->u.if_.els->v, &s->u.if_.els->cap, 0, sizeof(inner));
		s->u.if_.els->v[s->u.if_.els->n++] = inner;
		s->u.if_.els->loc = inner->loc;
	} else if (!parse_block(p, s->u.if_.els)) {
		goto fail;
	}
	s->loc = fpt_loc_join(s->loc, s->u.if_.els->loc);
	return s;
fail:
	stmt_free(s);
	return NULL;
}

static struct fpt_stmt *parse_simple(struct parser *p)
{
	struct fpt_expr *e = parse_expr(p);
	struct fpt_stmt *s;

	if (!e)
		return NULL;
	if (!is_assign_op(cur(p)->kind) || !is_lvalue(e)) {
		s = new_stmt(FPT_S_EXPR, e->loc);
		s->u.expr = e;
		return s;
	}
	s = new_stmt(FPT_S_ASSIGN, e->loc);
	s->u.assign.op = next(p)->kind;
	s->u.assign.target = e;
	s->u.assign.value = parse_expr(p);
	if (!s->u.assign.value) {
		stmt_free(s);
		return NULL;
	}
	s->loc = fpt_loc_join(s->loc, s->u.assign.value->loc);
	return s;
}

static void block_add(struct fpt_block *b, struct fpt_stmt *s)
{
	grow((void **)&b->v, &b->cap, b->n, sizeof(*b->v));
	b->v[b->n++] = s;
}

/* '{' statements '}'; b's statements are freed by the caller on error. */
static bool parse_block(struct parser *p, struct fpt_block *b)
{
	struct fpt_loc open = cur(p)->loc;

	if (!nest(p) || !expect(p, FPT_T_LBRACE))
		return false;
	while (!at(p, FPT_T_RBRACE)) {
		bool is_if = at(p, FPT_T_IF);
		struct fpt_stmt *s = is_if ? parse_if(p) : parse_simple(p);

		if (!s)
			return false;
		block_add(b, s);
		if (is_if || at(p, FPT_T_RBRACE))
			continue;
		if (!at(p, FPT_T_SEMI)) {
			syntax_error(p, 2, FPT_T_SEMI, FPT_T_RBRACE);
			return false;
		}
		next(p);
	}
	b->loc = fpt_loc_join(open, next(p)->loc);
	p->depth--;
	return true;
}

/* ---- Probes -------------------------------------------------------------- */

static bool valid_glob(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '.' || *s == '*' || *s == '?' ||
		      (*s >= '0' && *s <= '9') || ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z')))
			return false;
	return true;
}

/* interval:UNIT:N, its text after "interval". */
static bool parse_interval(struct parser *p, struct fpt_spec *sp, const char *rest)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL }, { "hz", 0 },
	};
	const char *colon = *rest == ':' ? strchr(rest + 1, ':') : NULL;
	char *end;
	unsigned long long n;

	if (!colon) {
		error_at(p, sp->loc,
			 "interval needs a unit and a count: interval:UNIT:N, UNIT s, ms, us or hz");
		return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strlen(units[i].unit) != (size_t)(colon - rest - 1) ||
		    strncmp(units[i].unit, rest + 1, colon - rest - 1))
			continue;
		n = strtoull(colon + 1, &end, 10);
		if (colon[1] < '1' || colon[1] > '9' || *end || n > 1000000000ULL) {
			error_at(p, sp->loc, "invalid interval count '%s'", colon + 1);
			return false;
		}
		sp->period_ns = units[i].ns ? units[i].ns * n : 1000000000ULL / n;
		return true;
	}
	error_at(p, sp->loc, "invalid interval unit '%.*s': s, ms, us or hz",
		 (int)(colon - rest - 1), rest + 1);
	return false;
}

static bool parse_function_spec(struct parser *p, struct fpt_spec *sp, const char *rest)
{
	if (*rest != ':' || !rest[1]) {
		error_at(p, sp->loc, "%s needs a function name or pattern: %s:FUNCTION",
			 sp->provider, sp->provider);
		return false;
	}
	if (!valid_glob(rest + 1)) {
		error_at(p, sp->loc, "invalid function name or pattern '%s'", rest + 1);
		return false;
	}
	sp->target = strdup(rest + 1);
	return true;
}

/* bpftrace's probe types that fptrace leaves out, and why. */
static const struct { const char *name, *why; } left_out[] = {
	{ "tracepoint", "it attaches to kernel functions only" },
	{ "rawtracepoint", "it attaches to kernel functions only" },
	{ "profile", "it samples nothing: interval runs on one CPU" },
	{ "software", "it attaches to kernel functions only" },
	{ "hardware", "it attaches to kernel functions only" },
	{ "watchpoint", "it attaches to kernel functions only" },
	{ "uprobe", "it traces the kernel only" },
	{ "uretprobe", "it traces the kernel only" },
	{ "usdt", "it traces the kernel only" },
	{ "kfunc", "use fprobe, which reads args.NAME from BTF too" },
	{ "kretfunc", "use fretprobe, which reads args.NAME and retval from BTF too" },
	{ "fentry", "use fprobe, which reads args.NAME from BTF too" },
	{ "fexit", "use fretprobe, which reads args.NAME and retval from BTF too" },
	{ "iter", "it attaches to kernel functions only" },
};

const char *fpt_left_out_reason(const char *provider, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(left_out); i++)
		if (strlen(left_out[i].name) == len && !strncmp(left_out[i].name, provider, len))
			return left_out[i].why;
	return NULL;
}

static bool classify_spec(struct parser *p, struct fpt_spec *sp)
{
	static const struct { const char *name; enum fpt_probe_kind kind; } types[] = {
		{ "fprobe", FPT_P_FPROBE }, { "kprobe", FPT_P_FPROBE },
		{ "fretprobe", FPT_P_FRETPROBE }, { "kretprobe", FPT_P_FRETPROBE },
		{ "BEGIN", FPT_P_BEGIN }, { "END", FPT_P_END },
		{ "interval", FPT_P_INTERVAL },
	};
	const char *rest = sp->text + strlen(sp->provider), *why;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		if (strcmp(types[i].name, sp->provider))
			continue;
		sp->kind = types[i].kind;
		if (sp->kind == FPT_P_FPROBE || sp->kind == FPT_P_FRETPROBE)
			return parse_function_spec(p, sp, rest);
		if (sp->kind == FPT_P_INTERVAL)
			return parse_interval(p, sp, rest);
		if (*rest)
			error_at(p, sp->loc, "%s takes no argument", sp->provider);
		return !*rest;
	}
	why = fpt_left_out_reason(sp->provider, strlen(sp->provider));
	if (why) {
		error_at(p, sp->loc, "%s probes are not supported by fptrace: %s",
			 sp->provider, why);
		return false;
	}
	error_at(p, sp->loc, "unknown probe type '%s'", sp->provider);
	return false;
}

static bool parse_spec(struct parser *p, struct fpt_probe *pr)
{
	const struct fpt_token *t;
	struct fpt_spec *sp;

	if (!at(p, FPT_T_SPEC)) {
		syntax_error(p, 1, FPT_T_SPEC);
		return false;
	}
	t = next(p);
	pr->specs = realloc(pr->specs, (pr->nspecs + 1) * sizeof(*sp));
	if (!pr->specs)
		abort();
	sp = &pr->specs[pr->nspecs++];
	memset(sp, 0, sizeof(*sp));
	sp->loc = t->loc;
	sp->text = strdup(t->text);
	sp->provider = strndup(t->text, strcspn(t->text, ":"));
	return classify_spec(p, sp);
}

static bool parse_probe(struct parser *p, struct fpt_probe *pr)
{
	do {
		if (pr->nspecs)
			next(p);	/* the comma */
		if (!parse_spec(p, pr))
			return false;
	} while (at(p, FPT_T_COMMA));
	pr->loc = fpt_loc_join(pr->specs[0].loc, pr->specs[pr->nspecs - 1].loc);
	if (at(p, FPT_T_EOF)) {
		error_at(p, pr->loc, "unexpected end of file, expected {");
		return false;
	}
	if (at(p, FPT_T_PRED_OPEN)) {
		next(p);
		pr->pred = parse_expr(p);
		if (!pr->pred || !expect(p, FPT_T_ENDPRED))
			return false;
	} else if (!at(p, FPT_T_LBRACE)) {
		syntax_error(p, 3, FPT_T_COMMA, FPT_T_PRED_OPEN, FPT_T_LBRACE);
		return false;
	}
	if (!parse_block(p, &pr->body))
		return false;
	pr->loc = fpt_loc_join(pr->loc, pr->body.loc);
	return true;
}

int fpt_parse(const struct fpt_source *src, struct fpt_diag *d, struct fpt_program *prog)
{
	struct fpt_tokens toks;
	struct parser p = { .d = d };
	int errors = d->errors;

	memset(prog, 0, sizeof(*prog));
	if (fpt_lex(src, d, &toks)) {
		fpt_tokens_free(&toks);
		return d->errors - errors;
	}
	p.t = toks.v;
	do {
		struct fpt_probe *pr;

		prog->probes = realloc(prog->probes, (prog->nprobes + 1) * sizeof(*pr));
		if (!prog->probes)
			abort();
		pr = &prog->probes[prog->nprobes];
		memset(pr, 0, sizeof(*pr));
		pr->index = prog->nprobes++;
		if (!parse_probe(&p, pr))
			break;
	} while (!at(&p, FPT_T_EOF));
	fpt_tokens_free(&toks);
	if (p.failed)
		fpt_program_free(prog);
	return d->errors - errors;
}

/* ---- The S-expression dump ------------------------------------------- */

static void dump_expr(FILE *out, const struct fpt_expr *e);

static void dump_list(FILE *out, const struct fpt_expr_list *l)
{
	for (int i = 0; i < l->n; i++) {
		fputc(' ', out);
		dump_expr(out, l->v[i]);
	}
}

static void dump_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void dump_expr(FILE *out, const struct fpt_expr *e)
{
	switch (e->kind) {
	case FPT_E_INT:
		fprintf(out, "%llu", (unsigned long long)e->u.num);
		break;
	case FPT_E_STR:
		dump_string(out, e->u.str.s, e->u.str.len);
		break;
	case FPT_E_BUILTIN: case FPT_E_IDENT: case FPT_E_VAR:
		fputs(e->u.name, out);
		break;
	case FPT_E_MAP:
		if (!e->u.map.keys.n) {
			fputs(e->u.map.name, out);
			break;
		}
		fprintf(out, "(%s", e->u.map.name);
		dump_list(out, &e->u.map.keys);
		fputc(')', out);
		break;
	case FPT_E_CALL:
		fprintf(out, "(%s", e->u.call.name);
		dump_list(out, &e->u.call.args);
		fputc(')', out);
		break;
	case FPT_E_FIELD:
		fprintf(out, "(%s ", e->u.field.arrow ? "->" : ".");
		dump_expr(out, e->u.field.base);
		fprintf(out, " %s)", e->u.field.name);
		break;
	case FPT_E_CAST:
		fprintf(out, "(cast %s * ", e->u.cast.name);
		dump_expr(out, e->u.cast.e);
		fputc(')', out);
		break;
	case FPT_E_UNARY:
		fprintf(out, "(%s ", fpt_tok_name(e->u.unary.op));
		dump_expr(out, e->u.unary.e);
		fputc(')', out);
		break;
	case FPT_E_BINARY:
		fprintf(out, "(%s ", fpt_tok_name(e->u.binary.op));
		dump_expr(out, e->u.binary.l);
		fputc(' ', out);
		dump_expr(out, e->u.binary.r);
		fputc(')', out);
		break;
	case FPT_E_TERNARY:
		fputs("(? ", out);
		dump_expr(out, e->u.ternary.cond);
		fputc(' ', out);
		dump_expr(out, e->u.ternary.then);
		fputc(' ', out);
		dump_expr(out, e->u.ternary.els);
		fputc(')', out);
		break;
	case FPT_E_INCDEC:
		fprintf(out, "(%s%s ", e->u.incdec.post ? "post" : "pre",
			e->u.incdec.inc ? "++" : "--");
		dump_expr(out, e->u.incdec.target);
		fputc(')', out);
		break;
	}
}

static void dump_block(FILE *out, const struct fpt_block *b);

static void dump_stmt(FILE *out, const struct fpt_stmt *s)
{
	switch (s->kind) {
	case FPT_S_EXPR:
		dump_expr(out, s->u.expr);
		break;
	case FPT_S_ASSIGN:
		fprintf(out, "(%s ", fpt_tok_name(s->u.assign.op));
		dump_expr(out, s->u.assign.target);
		fputc(' ', out);
		dump_expr(out, s->u.assign.value);
		fputc(')', out);
		break;
	case FPT_S_IF:
		fputs("(if ", out);
		dump_expr(out, s->u.if_.cond);
		fputc(' ', out);
		dump_block(out, &s->u.if_.then);
		if (s->u.if_.els) {
			fputc(' ', out);
			dump_block(out, s->u.if_.els);
		}
		fputc(')', out);
		break;
	}
}

static void dump_block(FILE *out, const struct fpt_block *b)
{
	fputs("(block", out);
	for (int i = 0; i < b->n; i++) {
		fputc(' ', out);
		dump_stmt(out, b->v[i]);
	}
	fputc(')', out);
}

static void dump_spec(FILE *out, const struct fpt_spec *sp)
{
	static const char * const kinds[] = {
		[FPT_P_FPROBE] = "fprobe", [FPT_P_FRETPROBE] = "fretprobe",
		[FPT_P_BEGIN] = "BEGIN", [FPT_P_END] = "END",
		[FPT_P_INTERVAL] = "interval",
	};

	fprintf(out, "(%s", kinds[sp->kind]);
	if (sp->target)
		fprintf(out, " %s", sp->target);
	if (sp->kind == FPT_P_INTERVAL)
		fprintf(out, " %lluns", (unsigned long long)sp->period_ns);
	fputc(')', out);
}

void fpt_ast_dump(FILE *out, const struct fpt_program *prog)
{
	for (int i = 0; i < prog->nprobes; i++) {
		const struct fpt_probe *pr = &prog->probes[i];

		fputs("(probe", out);
		for (int j = 0; j < pr->nspecs; j++) {
			fputc(' ', out);
			dump_spec(out, &pr->specs[j]);
		}
		if (pr->pred) {
			fputs(" (pred ", out);
			dump_expr(out, pr->pred);
			fputc(')', out);
		}
		fputc(' ', out);
		dump_block(out, &pr->body);
		fputs(")\n", out);
	}
}
