// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * lexer.c: source text to tokens.
 *
 * Takes a struct fpt_source; gives a struct fpt_tokens ending with
 * FPT_T_EOF, every token with its line:column range, and reports lexical
 * errors through diag.c. It keeps going after an error, so every lexical
 * error of a script is reported.
 *
 * What it accepts, as bpftrace's lexer does:
 * - identifiers [A-Za-z_][A-Za-z0-9_]*, "if" and "else" as keywords; the
 *   builtins (pid, comm, args, ...) are identifiers the parser recognises;
 * - $name variables, @name maps and the bare map @;
 * - integers: decimal and 0x hexadecimal. bpftrace has no K/M/G suffixes,
 *   so neither has fptrace; "1K" is the integer 1 followed by the
 *   identifier K, and the parser rejects it;
 * - strings in double quotes with the escapes \n \t \r \" \\ \xHH and octal
 *   \NNN (the last three as bpftrace 0.17 and later);
 * - every operator bpftrace has, including ++ -- and the compound
 *   assignments += -= *= /= %= &= |= ^= <<= >>=, and -> besides . ;
 * - comments // to the end of the line and C comments.
 *
 * Probe specs need context: outside every block, and outside a predicate,
 * a run of [A-Za-z0-9_:*?.+\-\[\]] is one FPT_T_SPEC token, so
 * "fprobe:vfs_*" and "interval:s:1" come whole, and ',' separates specs.
 * There a '/' opens a predicate (FPT_T_PRED_OPEN); inside it, a '/' that is
 * followed by '{' (spaces and newlines between allowed) closes it
 * (FPT_T_ENDPRED), any other '/' divides, as bpftrace's ENDPRED rule does.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fptrace.h"

struct lexer {
	const struct fpt_source *src;
	struct fpt_diag *d;
	struct fpt_tokens *out;
	size_t pos;
	int line, col;
	int depth;		/* open braces */
	bool in_pred;
	int errors;
};

static const char * const tok_names[FPT_T__COUNT] = {
	[FPT_T_EOF] = "end of file", [FPT_T_SPEC] = "attach point",
	[FPT_T_IDENT] = "identifier", [FPT_T_VAR] = "variable",
	[FPT_T_MAP] = "map", [FPT_T_INT] = "integer", [FPT_T_STRING] = "string",
	[FPT_T_IF] = "if", [FPT_T_ELSE] = "else",
	[FPT_T_PRED_OPEN] = "/", [FPT_T_ENDPRED] = "end predicate",
	[FPT_T_LBRACE] = "{", [FPT_T_RBRACE] = "}", [FPT_T_LPAREN] = "(",
	[FPT_T_RPAREN] = ")", [FPT_T_LBRACKET] = "[", [FPT_T_RBRACKET] = "]",
	[FPT_T_COMMA] = ",", [FPT_T_SEMI] = ";", [FPT_T_COLON] = ":",
	[FPT_T_QUES] = "?", [FPT_T_DOT] = ".", [FPT_T_PTR] = "->",
	[FPT_T_ASSIGN] = "=", [FPT_T_PLUS_ASSIGN] = "+=",
	[FPT_T_MINUS_ASSIGN] = "-=", [FPT_T_MUL_ASSIGN] = "*=",
	[FPT_T_DIV_ASSIGN] = "/=", [FPT_T_MOD_ASSIGN] = "%=",
	[FPT_T_BAND_ASSIGN] = "&=", [FPT_T_BOR_ASSIGN] = "|=",
	[FPT_T_BXOR_ASSIGN] = "^=", [FPT_T_SHL_ASSIGN] = "<<=",
	[FPT_T_SHR_ASSIGN] = ">>=", [FPT_T_INC] = "++", [FPT_T_DEC] = "--",
	[FPT_T_EQ] = "==", [FPT_T_NE] = "!=", [FPT_T_LT] = "<", [FPT_T_LE] = "<=",
	[FPT_T_GT] = ">", [FPT_T_GE] = ">=", [FPT_T_LAND] = "&&",
	[FPT_T_LOR] = "||", [FPT_T_PLUS] = "+", [FPT_T_MINUS] = "-",
	[FPT_T_MUL] = "*", [FPT_T_DIV] = "/", [FPT_T_MOD] = "%",
	[FPT_T_BAND] = "&", [FPT_T_BOR] = "|", [FPT_T_BXOR] = "^",
	[FPT_T_SHL] = "<<", [FPT_T_SHR] = ">>", [FPT_T_LNOT] = "!",
	[FPT_T_BNOT] = "~",
};

const char *fpt_tok_name(enum fpt_tok_kind k)
{
	return k < FPT_T__COUNT && tok_names[k] ? tok_names[k] : "?";
}

/* Operators, longest first so that the first match is the longest. */
static const struct { const char *s; enum fpt_tok_kind k; } ops[] = {
	{ "<<=", FPT_T_SHL_ASSIGN }, { ">>=", FPT_T_SHR_ASSIGN },
	{ "->", FPT_T_PTR }, { "++", FPT_T_INC }, { "--", FPT_T_DEC },
	{ "+=", FPT_T_PLUS_ASSIGN }, { "-=", FPT_T_MINUS_ASSIGN },
	{ "*=", FPT_T_MUL_ASSIGN }, { "/=", FPT_T_DIV_ASSIGN },
	{ "%=", FPT_T_MOD_ASSIGN }, { "&=", FPT_T_BAND_ASSIGN },
	{ "|=", FPT_T_BOR_ASSIGN }, { "^=", FPT_T_BXOR_ASSIGN },
	{ "==", FPT_T_EQ }, { "!=", FPT_T_NE }, { "<=", FPT_T_LE },
	{ ">=", FPT_T_GE }, { "&&", FPT_T_LAND }, { "||", FPT_T_LOR },
	{ "<<", FPT_T_SHL }, { ">>", FPT_T_SHR },
	{ "{", FPT_T_LBRACE }, { "}", FPT_T_RBRACE }, { "(", FPT_T_LPAREN },
	{ ")", FPT_T_RPAREN }, { "[", FPT_T_LBRACKET }, { "]", FPT_T_RBRACKET },
	{ ",", FPT_T_COMMA }, { ";", FPT_T_SEMI }, { ":", FPT_T_COLON },
	{ "?", FPT_T_QUES }, { ".", FPT_T_DOT }, { "=", FPT_T_ASSIGN },
	{ "<", FPT_T_LT }, { ">", FPT_T_GT }, { "+", FPT_T_PLUS },
	{ "-", FPT_T_MINUS }, { "*", FPT_T_MUL }, { "/", FPT_T_DIV },
	{ "%", FPT_T_MOD }, { "&", FPT_T_BAND }, { "|", FPT_T_BOR },
	{ "^", FPT_T_BXOR }, { "!", FPT_T_LNOT }, { "~", FPT_T_BNOT },
};

static char peek(const struct lexer *lx, size_t ahead)
{
	size_t p = lx->pos + ahead;

	return p < lx->src->len ? lx->src->text[p] : 0;
}

static void advance(struct lexer *lx, size_t n)
{
	while (n-- && lx->pos < lx->src->len) {
		if (lx->src->text[lx->pos++] == '\n') {
			lx->line++;
			lx->col = 1;
		} else {
			lx->col++;
		}
	}
}

static struct fpt_loc here(const struct lexer *lx, int width)
{
	return (struct fpt_loc){ lx->line, lx->col, lx->line, lx->col + width };
}

static void lex_error(struct lexer *lx, struct fpt_loc l, const char *fmt,
		      const char *arg)
{
	fpt_error(lx->d, l, fmt, arg);
	lx->errors++;
}

static struct fpt_token *push(struct lexer *lx, enum fpt_tok_kind k,
			      struct fpt_loc l)
{
	struct fpt_tokens *t = lx->out;
	struct fpt_token *tok;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = realloc(t->v, t->cap * sizeof(*t->v));
		if (!t->v)
			abort();
	}
	tok = &t->v[t->n++];
	memset(tok, 0, sizeof(*tok));
	tok->kind = k;
	tok->loc = l;
	return tok;
}

/* A token whose text is the len source bytes at the current position. */
static void push_text(struct lexer *lx, enum fpt_tok_kind k, size_t len)
{
	struct fpt_token *tok = push(lx, k, here(lx, (int)len));

	tok->text = strndup(lx->src->text + lx->pos, len);
	tok->len = len;
	advance(lx, len);
}

/* Skip spaces and comments; false at the end of the text. */
static bool skip_space(struct lexer *lx)
{
	for (;;) {
		char c = peek(lx, 0);
		struct fpt_loc start = here(lx, 2);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			advance(lx, 1);
		} else if (c == '/' && peek(lx, 1) == '/') {
			while (peek(lx, 0) && peek(lx, 0) != '\n')
				advance(lx, 1);
		} else if (c == '/' && peek(lx, 1) == '*') {
			advance(lx, 2);
			while (peek(lx, 0) && !(peek(lx, 0) == '*' && peek(lx, 1) == '/'))
				advance(lx, 1);
			if (!peek(lx, 0)) {
				lex_error(lx, start, "%s", "end of file during comment");
				return false;
			}
			advance(lx, 2);
		} else {
			return c != 0;
		}
	}
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool is_spec_char(char c)
{
	return is_ident_char(c) || (c && strchr(":*?.+-[]", c));
}

static size_t run_length(const struct lexer *lx, size_t from, bool (*ok)(char))
{
	size_t n = from;

	while (peek(lx, n) && ok(peek(lx, n)))
		n++;
	return n;
}

static void lex_word(struct lexer *lx)
{
	size_t len = run_length(lx, 1, is_ident_char);
	const char *s = lx->src->text + lx->pos;

	if (len == 2 && !strncmp(s, "if", 2))
		push_text(lx, FPT_T_IF, len);
	else if (len == 4 && !strncmp(s, "else", 4))
		push_text(lx, FPT_T_ELSE, len);
	else
		push_text(lx, FPT_T_IDENT, len);
}

/* $name or @name/@; a lone $ is an invalid character. */
static void lex_sigil(struct lexer *lx, enum fpt_tok_kind k)
{
	size_t len = is_ident_start(peek(lx, 1)) ? run_length(lx, 1, is_ident_char) : 1;

	if (len == 1 && k == FPT_T_VAR) {
		lex_error(lx, here(lx, 1), "invalid character '%s'", "$");
		advance(lx, 1);
		return;
	}
	push_text(lx, k, len);
}

static void lex_int(struct lexer *lx)
{
	bool hex = peek(lx, 0) == '0' && (peek(lx, 1) == 'x' || peek(lx, 1) == 'X') &&
		   isxdigit((unsigned char)peek(lx, 2));
	size_t len = hex ? 2 : 0;
	uint64_t v = 0, base = hex ? 16 : 10;
	bool overflow = false;
	struct fpt_token *tok;
	char c;

	while ((c = peek(lx, len)) &&
	       (hex ? isxdigit((unsigned char)c) : isdigit((unsigned char)c))) {
		uint64_t digit = isdigit((unsigned char)c) ? (uint64_t)(c - '0') :
				 (uint64_t)(tolower((unsigned char)c) - 'a' + 10);

		if (v > (UINT64_MAX - digit) / base)
			overflow = true;
		v = v * base + digit;
		len++;
	}
	if (overflow) {
		char *s = strndup(lx->src->text + lx->pos, len);

		lex_error(lx, here(lx, (int)len), "integer literal out of range: %s", s);
		free(s);
		advance(lx, len);
		return;
	}
	tok = push(lx, FPT_T_INT, here(lx, (int)len));
	tok->num = v;
	advance(lx, len);
}

struct strbuf {
	char *s;
	size_t n, cap;
};

static void sb_add(struct strbuf *b, char c)
{
	if (b->n + 1 >= b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	b->s[b->n++] = c;
	b->s[b->n] = 0;
}

/* The value of a numeric escape at p (after the backslash); its length in n. */
static int numeric_escape(const struct lexer *lx, size_t p, size_t *n)
{
	int v = 0;

	*n = 0;
	if (peek(lx, p) == 'x') {
		while (*n < 2 && isxdigit((unsigned char)peek(lx, p + 1 + *n))) {
			char c = (char)tolower((unsigned char)peek(lx, p + 1 + *n));

			v = v * 16 + (isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10);
			(*n)++;
		}
		if (*n)
			(*n)++;	/* the x */
		return v;
	}
	while (*n < 3 && peek(lx, p + *n) >= '0' && peek(lx, p + *n) <= '7') {
		v = v * 8 + (peek(lx, p + *n) - '0');
		(*n)++;
	}
	return v;
}

/* One escape after a backslash at offset p; returns its length after '\'. */
static size_t lex_escape(struct lexer *lx, size_t p, struct strbuf *b)
{
	static const char from[] = "nt\"\\r", to[] = "\n\t\"\\\r";
	char c = peek(lx, p);
	const char *hit = c ? strchr(from, c) : NULL;
	size_t n;
	int v;

	if (hit) {
		sb_add(b, to[hit - from]);
		return 1;
	}
	v = numeric_escape(lx, p, &n);
	if (n && v < 256) {
		sb_add(b, (char)v);
		return n;
	}
	{
		char bad[3] = { '\\', c, 0 };
		struct fpt_loc l = here(lx, 0);

		l.col += (int)p - 1;
		l.end_col = l.col + 2;
		lex_error(lx, l, "invalid escape character '%s'", bad);
	}
	return 1;
}

static void lex_string(struct lexer *lx)
{
	struct strbuf b = { 0 };
	struct fpt_loc l = here(lx, 1);
	struct fpt_token *tok;
	size_t p = 1;
	char c;

	sb_add(&b, 0);
	b.n = 0;
	while ((c = peek(lx, p)) != '"') {
		if (!c || c == '\n') {
			l.end_col = l.col + (int)p;
			lex_error(lx, l, "%s", "unterminated string");
			free(b.s);
			advance(lx, p);
			return;
		}
		if (c == '\\' && peek(lx, p + 1))
			p += 1 + lex_escape(lx, p + 1, &b);
		else
			sb_add(&b, c), p++;
	}
	l.end_col = l.col + (int)p + 1;
	tok = push(lx, FPT_T_STRING, l);
	tok->text = b.s;
	tok->len = b.n;
	advance(lx, p + 1);
}

/* The '/' inside a predicate: ENDPRED if '{' follows, else division. */
static bool closes_pred(const struct lexer *lx)
{
	size_t p = 1;

	while (peek(lx, p) && strchr(" \t\r\n", peek(lx, p)))
		p++;
	return peek(lx, p) == '{';
}

static void lex_op(struct lexer *lx)
{
	const char *s = lx->src->text + lx->pos;
	size_t i, len;

	if (*s == '/' && lx->in_pred && lx->depth == 0 && closes_pred(lx)) {
		lx->in_pred = false;
		push_text(lx, FPT_T_ENDPRED, 1);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		len = strlen(ops[i].s);
		if (!strncmp(s, ops[i].s, len) && lx->pos + len <= lx->src->len) {
			if (ops[i].k == FPT_T_LBRACE)
				lx->depth++;
			if (ops[i].k == FPT_T_RBRACE && lx->depth > 0)
				lx->depth--;
			push_text(lx, ops[i].k, len);
			return;
		}
	}
	lex_error(lx, here(lx, 1), "invalid character '%s'", (char[2]) { *s, 0 });
	advance(lx, 1);
}

/* Outside blocks and predicates: specs, ',', '/' and '{'. */
static void lex_top(struct lexer *lx)
{
	char c = peek(lx, 0);

	if (is_spec_char(c)) {
		push_text(lx, FPT_T_SPEC, run_length(lx, 0, is_spec_char));
	} else if (c == '/') {
		lx->in_pred = true;
		push_text(lx, FPT_T_PRED_OPEN, 1);
	} else {
		lex_op(lx);
	}
}

static void lex_one(struct lexer *lx)
{
	char c = peek(lx, 0);

	if (lx->depth == 0 && !lx->in_pred)
		lex_top(lx);
	else if (is_ident_start(c))
		lex_word(lx);
	else if (isdigit((unsigned char)c))
		lex_int(lx);
	else if (c == '$')
		lex_sigil(lx, FPT_T_VAR);
	else if (c == '@')
		lex_sigil(lx, FPT_T_MAP);
	else if (c == '"')
		lex_string(lx);
	else
		lex_op(lx);
}

int fpt_lex(const struct fpt_source *src, struct fpt_diag *d, struct fpt_tokens *out)
{
	struct lexer lx = { .src = src, .d = d, .out = out, .line = 1, .col = 1 };

	memset(out, 0, sizeof(*out));
	while (skip_space(&lx))
		lex_one(&lx);
	push(&lx, FPT_T_EOF, here(&lx, 1));
	return lx.errors;
}

void fpt_tokens_free(struct fpt_tokens *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].text);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
