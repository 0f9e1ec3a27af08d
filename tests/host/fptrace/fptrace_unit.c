// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of fptrace's stage 1 (tools/bpf/fptrace): the lexer's
 * tokens and ranges, the parser's AST (bpftrace one-liners adapted to
 * fprobe), every error message of the lexer and the parser with its source
 * line and marker, the bucket rules, and map printing against the golden
 * files of golden/ (see golden/README for the bpftrace files each layout
 * was checked against).
 *
 * usage: fptrace_unit [GOLDEN_DIR]
 * Prints "ok NAME" / "not ok NAME" per case; exits 1 if any failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fptrace.h"

#ifndef FPT_GOLDEN_DIR
#define FPT_GOLDEN_DIR "tests/host/fptrace/golden"
#endif

static const char *golden_dir = FPT_GOLDEN_DIR;
static int failed;

static void report(const char *name, bool ok)
{
	printf("%s %s\n", ok ? "ok" : "not ok", name);
	failed |= !ok;
}

static bool same(const char *name, const char *what, const char *got, const char *want)
{
	if (!strcmp(got, want))
		return true;
	fprintf(stderr, "%s: %s differs\n--- want\n%s--- got\n%s---\n", name, what, want, got);
	return false;
}

/* Parse text as -e would; the dump or the messages in *out (caller frees). */
static int parse_to(const char *text, char **out)
{
	struct fpt_source src = { "stdin", text, strlen(text) };
	struct fpt_program prog;
	struct fpt_diag d;
	size_t len;
	FILE *f = open_memstream(out, &len);
	int errors;

	fpt_diag_init(&d, &src, f);
	errors = fpt_parse(&src, &d, &prog);
	if (!errors)
		fpt_ast_dump(f, &prog);
	fpt_program_free(&prog);
	fclose(f);
	return errors;
}

/* ---- Lexer ------------------------------------------------------------- */

struct tok_want {
	enum fpt_tok_kind kind;
	const char *text;	/* NULL: not checked */
	int line, col, end_col;
};

static bool check_tokens(const char *name, const char *text,
			 const struct tok_want *want, size_t n)
{
	struct fpt_source src = { "stdin", text, strlen(text) };
	struct fpt_tokens t;
	struct fpt_diag d;
	bool ok = true;

	fpt_diag_init(&d, &src, stderr);
	if (fpt_lex(&src, &d, &t) || t.n != n) {
		fprintf(stderr, "%s: %zu tokens, %d errors\n", name, t.n, d.errors);
		ok = false;
	}
	for (size_t i = 0; ok && i < n; i++) {
		const struct fpt_token *k = &t.v[i];

		if (k->kind != want[i].kind || k->loc.line != want[i].line ||
		    k->loc.col != want[i].col || k->loc.end_col != want[i].end_col ||
		    (want[i].text && strcmp(k->text, want[i].text))) {
			fprintf(stderr, "%s: token %zu is %s %d:%d-%d '%s'\n", name, i,
				fpt_tok_name(k->kind), k->loc.line, k->loc.col,
				k->loc.end_col, k->text ? k->text : "");
			ok = false;
		}
	}
	fpt_tokens_free(&t);
	return ok;
}

static void test_lexer(void)
{
	static const struct tok_want probe[] = {
		{ FPT_T_SPEC, "fprobe:vfs_*", 1, 1, 13 },
		{ FPT_T_COMMA, NULL, 1, 13, 14 },
		{ FPT_T_SPEC, "kretprobe:vfs_read", 1, 14, 32 },
		{ FPT_T_PRED_OPEN, NULL, 2, 1, 2 },
		{ FPT_T_IDENT, "retval", 2, 2, 8 },
		{ FPT_T_DIV, NULL, 2, 9, 10 },
		{ FPT_T_INT, NULL, 2, 11, 15 },
		{ FPT_T_GE, NULL, 2, 16, 18 },
		{ FPT_T_INT, NULL, 2, 19, 20 },
		{ FPT_T_ENDPRED, NULL, 2, 20, 21 },
		{ FPT_T_LBRACE, NULL, 2, 22, 23 },
		{ FPT_T_MAP, "@", 2, 24, 25 },
		{ FPT_T_LBRACKET, NULL, 2, 25, 26 },
		{ FPT_T_IDENT, "comm", 2, 26, 30 },
		{ FPT_T_RBRACKET, NULL, 2, 30, 31 },
		{ FPT_T_PLUS_ASSIGN, NULL, 2, 32, 34 },
		{ FPT_T_VAR, "$x", 2, 35, 37 },
		{ FPT_T_INC, NULL, 2, 37, 39 },
		{ FPT_T_RBRACE, NULL, 2, 40, 41 },
		{ FPT_T_SPEC, "interval:s:1", 3, 1, 13 },
		{ FPT_T_LBRACE, NULL, 3, 14, 15 },
		{ FPT_T_RBRACE, NULL, 3, 15, 16 },
		{ FPT_T_EOF, NULL, 3, 16, 17 },
	};
	static const struct tok_want ops[] = {
		{ FPT_T_SPEC, "BEGIN", 1, 1, 6 }, { FPT_T_LBRACE, NULL, 1, 6, 7 },
		{ FPT_T_SHL_ASSIGN, NULL, 1, 7, 10 }, { FPT_T_SHR, NULL, 1, 10, 12 },
		{ FPT_T_PTR, NULL, 1, 12, 14 }, { FPT_T_DEC, NULL, 1, 14, 16 },
		{ FPT_T_MINUS, NULL, 1, 16, 17 }, { FPT_T_NE, NULL, 1, 17, 19 },
		{ FPT_T_LNOT, NULL, 1, 19, 20 }, { FPT_T_LOR, NULL, 1, 20, 22 },
		{ FPT_T_BOR, NULL, 1, 22, 23 }, { FPT_T_BXOR_ASSIGN, NULL, 1, 23, 25 },
		{ FPT_T_IF, NULL, 1, 26, 28 }, { FPT_T_ELSE, NULL, 1, 29, 33 },
		{ FPT_T_IDENT, "elsex", 1, 34, 39 }, { FPT_T_RBRACE, NULL, 1, 39, 40 },
		{ FPT_T_EOF, NULL, 1, 40, 41 },
	};
	static const struct tok_want comments[] = {
		{ FPT_T_SPEC, "END", 2, 1, 4 }, { FPT_T_LBRACE, NULL, 2, 5, 6 },
		{ FPT_T_INT, NULL, 3, 3, 7 }, { FPT_T_RBRACE, NULL, 3, 16, 17 },
		{ FPT_T_EOF, NULL, 3, 17, 18 },
	};
	struct fpt_source src = {
		"stdin", "BEGIN { \"a\\tb\\\"\\x41\\101\\n\" 0x1F 18446744073709551615 }", 0
	};
	struct fpt_tokens t;
	struct fpt_diag d;
	bool ok;

	ok = check_tokens("lexer_probe_tokens",
			  "fprobe:vfs_*,kretprobe:vfs_read\n/retval / 1000 >= 1/ { @[comm] += $x++ }\n"
			  "interval:s:1 {}", probe, ARRAY_SIZE(probe));
	report("lexer_probe_tokens", ok);
	ok = check_tokens("lexer_operators", "BEGIN{<<=>>->---!=!|||^= if else elsex}",
			  ops, ARRAY_SIZE(ops));
	report("lexer_operators", ok);
	ok = check_tokens("lexer_comments", "// a comment\nEND {\n  1234 /* c\t*/ }",
			  comments, ARRAY_SIZE(comments));
	report("lexer_comments", ok);

	src.len = strlen(src.text);
	fpt_diag_init(&d, &src, stderr);
	ok = !fpt_lex(&src, &d, &t) && t.n == 7 && t.v[2].kind == FPT_T_STRING &&
	     t.v[2].len == 7 && !memcmp(t.v[2].text, "a\tb\"AA\n", 7) &&
	     t.v[2].loc.col == 9 && t.v[2].loc.end_col == 27 &&
	     t.v[3].num == 0x1f && t.v[4].num == UINT64_MAX;
	fpt_tokens_free(&t);
	report("lexer_string_escapes_and_integers", ok);
}

/* ---- Parser: AST dumps ---------------------------------------------------- */

static const struct { const char *name, *src, *dump; } parse_cases[] = {
	{ "parse_count_by_comm", "fprobe:vfs_read { @[comm] = count(); }",
	  "(probe (fprobe vfs_read) (block (= (@ comm) (count))))\n" },
	{ "parse_hist_retval_pred", "fretprobe:vfs_read /retval > 0/ { @bytes = hist(retval); }",
	  "(probe (fretprobe vfs_read) (pred (> retval 0)) (block (= @bytes (hist retval))))\n" },
	{
		"parse_printf_str_args",
		"fprobe:do_sys_openat2 { printf(\"%s %s\\n\", comm, str(args.filename)); }",
		"(probe (fprobe do_sys_openat2) (block (printf \"%s %s\\n\" comm (str (. args filename)))))\n",
	},
	{ "parse_hello_begin", "BEGIN { printf(\"hello world\\n\"); }",
	  "(probe (BEGIN) (block (printf \"hello world\\n\")))\n" },
	{ "parse_interval_and_end",
	  "fprobe:vfs_read { @ = count() } interval:s:1 { print(@); clear(@); } END { exit() }",
	  "(probe (fprobe vfs_read) (block (= @ (count))))\n"
	  "(probe (interval 1000000000ns) (block (print @) (clear @)))\n"
	  "(probe (END) (block (exit)))\n" },
	{ "parse_interval_ms", "interval:ms:100 { exit(); }",
	  "(probe (interval 100000000ns) (block (exit)))\n" },
	/* the units the man page lists: s, ms, us, and hz (times a second) */
	{ "parse_interval_us_hz", "interval:us:250 { exit(); } interval:hz:4 { exit() }",
	  "(probe (interval 250000ns) (block (exit)))\n"
	  "(probe (interval 250000000ns) (block (exit)))\n" },
	{ "parse_multiple_specs", "fprobe:vfs_read,fprobe:vfs_write { @[func] = count(); }",
	  "(probe (fprobe vfs_read) (fprobe vfs_write) (block (= (@ func) (count))))\n" },
	{ "parse_kprobe_aliases", "kprobe:vfs_read,kretprobe:vfs_read { @[probe] = count() }",
	  "(probe (fprobe vfs_read) (fretprobe vfs_read) (block (= (@ probe) (count))))\n" },
	{ "parse_wildcards", "fprobe:vfs_* { @[func] = count() } fprobe:*_read?x {}",
	  "(probe (fprobe vfs_*) (block (= (@ func) (count))))\n"
	  "(probe (fprobe *_read?x) (block))\n" },
	{ "parse_pid_filter", "fprobe:vfs_read /pid == 1234/ { @[kstack] = count(); }",
	  "(probe (fprobe vfs_read) (pred (== pid 1234)) (block (= (@ kstack) (count))))\n" },
	{ "parse_comm_filter_str", "fprobe:vfs_open /comm == \"bash\"/ { @[tid] = count() }",
	  "(probe (fprobe vfs_open) (pred (== comm \"bash\")) (block (= (@ tid) (count))))\n" },
	{ "parse_sum_and_two_keys", "fretprobe:vfs_read { @bytes[comm, pid] = sum(retval); }",
	  "(probe (fretprobe vfs_read) (block (= (@bytes comm pid) (sum retval))))\n" },
	{ "parse_lhist", "fretprobe:vfs_read { @ = lhist(retval, 0, 1000, 100) }",
	  "(probe (fretprobe vfs_read) (block (= @ (lhist retval 0 1000 100))))\n" },
	{
		"parse_aggregations",
		"fprobe:f { @a = avg(arg2); @b = min(arg2); @c = max(arg2); @d = stats(arg2) }",
		"(probe (fprobe f) (block (= @a (avg arg2)) (= @b (min arg2)) (= @c (max arg2)) (= @d (stats arg2))))\n",
	},
	{
		"parse_session_vars",
		"fprobe:vfs_read { $start = nsecs; } fretprobe:vfs_read { @ns = hist(nsecs - $start); @e = avg(elapsed) }",
		"(probe (fprobe vfs_read) (block (= $start nsecs)))\n"
		"(probe (fretprobe vfs_read) (block (= @ns (hist (- nsecs $start))) (= @e (avg elapsed))))\n",
	},
	{
		"parse_if_else_chain",
		"fretprobe:f { if (retval < 0) { @err = count() } else if (retval == 0) { @zero++ } else { @ok++; } }",
		"(probe (fretprobe f) (block (if (< retval 0) (block (= @err (count))) (block (if (== retval 0) (block (post++ @zero)) (block (post++ @ok)))))))\n",
	},
	{ "parse_if_without_else", "fprobe:f { if (pid > 1) { $x = 1 } @y = 2 }",
	  "(probe (fprobe f) (block (if (> pid 1) (block (= $x 1))) (= @y 2)))\n" },
	{ "parse_delete_and_ksym", "fprobe:f { delete(@m[tid]); @s[ksym(arg0)] = count() }",
	  "(probe (fprobe f) (block (delete (@m tid)) (= (@s (ksym arg0)) (count))))\n" },
	{ "parse_precedence_arith", "BEGIN { $x = 1 + 2 * 3 - 4 / 2 % 3; }",
	  "(probe (BEGIN) (block (= $x (- (+ 1 (* 2 3)) (% (/ 4 2) 3)))))\n" },
	{ "parse_precedence_bits",
	  "BEGIN { $x = 1 | 2 ^ 3 & 4 == 5 < 6 << 7; }",
	  "(probe (BEGIN) (block (= $x (| 1 (^ 2 (& 3 (== 4 (< 5 (<< 6 7)))))))))\n" },
	{ "parse_precedence_logical", "fprobe:f /pid == 1 || tid != 2 && !(uid >= 3)/ {}",
	  "(probe (fprobe f) (pred (|| (== pid 1) (&& (!= tid 2) (! (>= uid 3))))) (block))\n" },
	{ "parse_unary_and_ternary", "BEGIN { $a = -1; $b = ~$a; $c = $a > 0 ? $a : -$a; }",
	  "(probe (BEGIN) (block (= $a (- 1)) (= $b (~ $a)) (= $c (? (> $a 0) $a (- $a)))))\n" },
	{
		"parse_compound_assign",
		"BEGIN { $x += 1; $x -= 2; @m[1] *= 3; $x /= 4; $x %= 5; $x &= 6; $x |= 7; $x ^= 8; $x <<= 1; $x >>= 2 }",
		"(probe (BEGIN) (block (+= $x 1) (-= $x 2) (*= (@m 1) 3) (/= $x 4) (%= $x 5) (&= $x 6) (|= $x 7) (^= $x 8) (<<= $x 1) (>>= $x 2)))\n",
	},
	{ "parse_inc_dec", "BEGIN { $i++; ++$i; @c--; --@c[1] }",
	  "(probe (BEGIN) (block (post++ $i) (pre++ $i) (post-- @c) (pre-- (@c 1))))\n" },
	{ "parse_args_arrow", "fprobe:vfs_read { @[args->count] = count() }",
	  "(probe (fprobe vfs_read) (block (= (@ (-> args count)) (count))))\n" },
	{
		"parse_printf_widths",
		"fretprobe:vfs_read { printf(\"%-6d %16s %5u %x %p %c\\n\", pid, comm, retval, cpu, arg0, 65); }",
		"(probe (fretprobe vfs_read) (block (printf \"%-6d %16s %5u %x %p %c\\n\" pid comm retval cpu arg0 65)))\n",
	},
	{
		"parse_builtins",
		"fprobe:f { $a = uid + gid + cpu + cookie; @[arg0, arg5] = count() }",
		"(probe (fprobe f) (block (= $a (+ (+ (+ uid gid) cpu) cookie)) (= (@ arg0 arg5) (count))))\n",
	},
	{ "parse_hex_and_parens", "BEGIN { $m = (0xff & (1 + 2)) * 3 }",
	  "(probe (BEGIN) (block (= $m (* (& 255 (+ 1 2)) 3))))\n" },
	{ "parse_pred_division", "fprobe:f /arg0 / 2 > 1/ { }",
	  "(probe (fprobe f) (pred (> (/ arg0 2) 1)) (block))\n" },
	{
		"parse_multiline_script",
		"// vfs latency\n"
		"fprobe:vfs_read\n"
		"{\n"
		"\t@start[tid] = nsecs;\n"
		"}\n"
		"\n"
		"fretprobe:vfs_read\n"
		"/@start[tid]/\n"
		"{\n"
		"\t@ns = hist(nsecs - @start[tid]);\n"
		"\tdelete(@start[tid]);\n"
		"}\n",
		"(probe (fprobe vfs_read) (block (= (@start tid) nsecs)))\n"
		"(probe (fretprobe vfs_read) (pred (@start tid)) (block (= @ns (hist (- nsecs (@start tid)))) (delete (@start tid))))\n",
	},
	{ "parse_identifier_not_builtin", "BEGIN { $x = foo }",
	  "(probe (BEGIN) (block (= $x foo)))\n" },
	{ "parse_string_escapes", "BEGIN { printf(\"a\\tb\\\\c\\\"\\x01\") }",
	  "(probe (BEGIN) (block (printf \"a\\tb\\\\c\\\"\\x01\")))\n" },
};

static void test_parse_dumps(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(parse_cases); i++) {
		char *out;
		int errors = parse_to(parse_cases[i].src, &out);

		report(parse_cases[i].name, !errors &&
		       same(parse_cases[i].name, "dump", out, parse_cases[i].dump));
		free(out);
	}
}

/* ---- Every error message of the lexer and the parser -------------------- */

static const struct { const char *name, *src, *msg; } error_cases[] = {
	{ "err_invalid_character", "BEGIN { $x = 1 # }",
	  "stdin:1:16-17: ERROR: invalid character '#'\n"
	  "BEGIN { $x = 1 # }\n"
	  "               ^\n" },
	{ "err_invalid_character_tab", "BEGIN {\t$x = `1 }",
	  "stdin:1:14-15: ERROR: invalid character '`'\n"
	  "BEGIN {    $x = `1 }\n"
	  "                ^\n" },
	{ "err_lone_dollar", "BEGIN { $ = 1 }",
	  "stdin:1:9-10: ERROR: invalid character '$'\n"
	  "BEGIN { $ = 1 }\n"
	  "        ^\n" },
	{ "err_map_outside_block", "@x = 1",
	  "stdin:1:1-2: ERROR: invalid character '@'\n"
	  "@x = 1\n"
	  "^\n" },
	{ "err_unterminated_string_twice", "BEGIN { printf(\"abc\n\"); }",
	  "stdin:1:16-20: ERROR: unterminated string\n"
	  "BEGIN { printf(\"abc\n"
	  "               ^~~~\n"
	  "stdin:2:1-6: ERROR: unterminated string\n"
	  "\"); }\n"
	  "^~~~~\n" },
	{ "err_invalid_escape", "BEGIN { printf(\"a\\qb\") }",
	  "stdin:1:18-20: ERROR: invalid escape character '\\q'\n"
	  "BEGIN { printf(\"a\\qb\") }\n"
	  "                 ^~\n" },
	{ "err_comment_eof", "BEGIN { }\n/* no end",
	  "stdin:2:1-3: ERROR: end of file during comment\n"
	  "/* no end\n"
	  "^~\n" },
	{ "err_integer_range", "BEGIN { $x = 18446744073709551616 }",
	  "stdin:1:14-34: ERROR: integer literal out of range: 18446744073709551616\n"
	  "BEGIN { $x = 18446744073709551616 }\n"
	  "             ^~~~~~~~~~~~~~~~~~~~\n" },
	{ "err_expecting_semi_or_rbrace", "fprobe:f { @a = 1 @b = 2 }",
	  "stdin:1:19-21: ERROR: syntax error, unexpected map, expecting ; or }\n"
	  "fprobe:f { @a = 1 @b = 2 }\n"
	  "                  ^~\n" },
	{ "err_assign_to_rvalue", "fprobe:f { 1 = 2 }",
	  "stdin:1:14-15: ERROR: syntax error, unexpected =, expecting ; or }\n"
	  "fprobe:f { 1 = 2 }\n"
	  "             ^\n" },
	{ "err_missing_operand", "fprobe:f { $x = }",
	  "stdin:1:17-18: ERROR: syntax error, unexpected }\n"
	  "fprobe:f { $x = }\n"
	  "                ^\n" },
	{ "err_empty_statement", "fprobe:f { ; }",
	  "stdin:1:12-13: ERROR: syntax error, unexpected ;\n"
	  "fprobe:f { ; }\n"
	  "           ^\n" },
	{ "err_call_args", "fprobe:f { printf(\"%d\" pid) }",
	  "stdin:1:24-27: ERROR: syntax error, unexpected identifier, expecting , or )\n"
	  "fprobe:f { printf(\"%d\" pid) }\n"
	  "                       ^~~\n" },
	{ "err_map_keys", "fprobe:f { @[pid; }",
	  "stdin:1:17-18: ERROR: syntax error, unexpected ;, expecting , or ]\n"
	  "fprobe:f { @[pid; }\n"
	  "                ^\n" },
	{ "err_unclosed_paren", "fprobe:f { $x = (1 + 2; }",
	  "stdin:1:23-24: ERROR: syntax error, unexpected ;, expecting )\n"
	  "fprobe:f { $x = (1 + 2; }\n"
	  "                      ^\n" },
	{ "err_if_without_paren", "fprobe:f { if pid > 1 { } }",
	  "stdin:1:15-18: ERROR: syntax error, unexpected identifier, expecting (\n"
	  "fprobe:f { if pid > 1 { } }\n"
	  "              ^~~\n" },
	{ "err_if_without_block", "fprobe:f { if (pid) $x = 1 }",
	  "stdin:1:21-23: ERROR: syntax error, unexpected variable, expecting {\n"
	  "fprobe:f { if (pid) $x = 1 }\n"
	  "                    ^~\n" },
	{ "err_else_without_if", "fprobe:f { else { } }",
	  "stdin:1:12-16: ERROR: syntax error, unexpected else\n"
	  "fprobe:f { else { } }\n"
	  "           ^~~~\n" },
	{ "err_ternary_colon", "fprobe:f { $x = pid ? 1 2 }",
	  "stdin:1:25-26: ERROR: syntax error, unexpected integer, expecting :\n"
	  "fprobe:f { $x = pid ? 1 2 }\n"
	  "                        ^\n" },
	{ "err_field_name", "fprobe:f { $x = args.1 }",
	  "stdin:1:22-23: ERROR: syntax error, unexpected integer, expecting identifier\n"
	  "fprobe:f { $x = args.1 }\n"
	  "                     ^\n" },
	{ "err_increment_target", "fprobe:f { ++pid }",
	  "stdin:1:14-17: ERROR: syntax error, unexpected identifier, expecting variable or map\n"
	  "fprobe:f { ++pid }\n"
	  "             ^~~\n" },
	{ "err_unclosed_predicate", "fprobe:f /pid == 1 { }",
	  "stdin:1:20-21: ERROR: syntax error, unexpected {, expecting end predicate\n"
	  "fprobe:f /pid == 1 { }\n"
	  "                   ^\n" },
	{ "err_after_specs", "fprobe:f fprobe:g { }",
	  "stdin:1:10-18: ERROR: syntax error, unexpected attach point, expecting , or / or {\n"
	  "fprobe:f fprobe:g { }\n"
	  "         ^~~~~~~~\n" },
	{ "err_unclosed_block", "fprobe:f { @ = count()",
	  "stdin:1:23-24: ERROR: syntax error, unexpected end of file, expecting ; or }\n"
	  "fprobe:f { @ = count()\n"
	  "                      ^\n" },
	{ "err_stray_rbrace", "fprobe:f { } }",
	  "stdin:1:14-15: ERROR: syntax error, unexpected }, expecting attach point\n"
	  "fprobe:f { } }\n"
	  "             ^\n" },
	{ "err_empty_program", "",
	  "stdin:1:1-2: ERROR: syntax error, unexpected end of file, expecting attach point\n" },
	{ "err_spec_then_eof", "fprobe:vfs_read,fretprobe:vfs_read",
	  "stdin:1:1-35: ERROR: unexpected end of file, expected {\n"
	  "fprobe:vfs_read,fretprobe:vfs_read\n"
	  "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "err_unknown_probe_type", "tracepoint:syscalls:sys_enter_read { }",
	  "stdin:1:1-35: ERROR: tracepoint probes are not supported by fptrace: it attaches to kernel functions only\n"
	  "tracepoint:syscalls:sys_enter_read { }\n"
	  "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "err_unknown_probe_type_any", "zprobe:vfs_read { }",
	  "stdin:1:1-16: ERROR: unknown probe type 'zprobe'\n"
	  "zprobe:vfs_read { }\n"
	  "^~~~~~~~~~~~~~~\n" },
	{ "err_begin_argument", "BEGIN:x { }",
	  "stdin:1:1-8: ERROR: BEGIN takes no argument\n"
	  "BEGIN:x { }\n"
	  "^~~~~~~\n" },
	{ "err_fprobe_without_function", "fretprobe: { }",
	  "stdin:1:1-11: ERROR: fretprobe needs a function name or pattern: fretprobe:FUNCTION\n"
	  "fretprobe: { }\n"
	  "^~~~~~~~~~\n" },
	{ "err_bad_function_pattern", "fprobe:vfs_read+4 { }",
	  "stdin:1:1-18: ERROR: invalid function name or pattern 'vfs_read+4'\n"
	  "fprobe:vfs_read+4 { }\n"
	  "^~~~~~~~~~~~~~~~~\n" },
	{ "err_interval_without_unit", "interval:1 { }",
	  "stdin:1:1-11: ERROR: interval needs a unit and a count: interval:UNIT:N, UNIT s, ms, us or hz\n"
	  "interval:1 { }\n"
	  "^~~~~~~~~~\n" },
	{ "err_interval_unit", "interval:m:1 { }",
	  "stdin:1:1-13: ERROR: invalid interval unit 'm': s, ms, us or hz\n"
	  "interval:m:1 { }\n"
	  "^~~~~~~~~~~~\n" },
	{ "err_interval_count", "interval:s:0 { }",
	  "stdin:1:1-13: ERROR: invalid interval count '0'\n"
	  "interval:s:0 { }\n"
	  "^~~~~~~~~~~~\n" },
	{ "err_integer_suffix", "BEGIN { $x = 1K }",
	  "stdin:1:15-16: ERROR: syntax error, unexpected identifier, expecting ; or }\n"
	  "BEGIN { $x = 1K }\n"
	  "              ^\n" },
	{ "err_second_line", "BEGIN { }\nfprobe:f {\n  @x = count(;\n}",
	  "stdin:3:14-15: ERROR: syntax error, unexpected ;\n"
	  "  @x = count(;\n"
	  "             ^\n" },
};

static void test_parse_errors(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(error_cases); i++) {
		char *out;
		int errors = parse_to(error_cases[i].src, &out);

		report(error_cases[i].name, errors > 0 &&
		       same(error_cases[i].name, "messages", out, error_cases[i].msg));
		free(out);
	}
}

/* "BEGIN { $x = " open n times, "1", close n times, " }": text to free. */
static char *nested(int n, const char *open, const char *close)
{
	size_t lo = strlen(open), lc = strlen(close);
	char *s = malloc(32 + n * (lo + lc)), *q = s;

	if (!s)
		abort();
	q += sprintf(q, "BEGIN { $x = ");
	for (int i = 0; i < n; i++, q += lo)
		memcpy(q, open, lo);
	*q++ = '1';
	for (int i = 0; i < n; i++, q += lc)
		memcpy(q, close, lc);
	memcpy(q, " }", sizeof(" }"));
	return s;
}

/* The first line of the messages for text begins with want. */
static void check_deep(const char *name, char *text, const char *want)
{
	char *out;
	int errors = parse_to(text, &out);
	bool ok = errors == 1 && !strncmp(out, want, strlen(want)) &&
		  strstr(out, "ERROR: nesting too deep: more than 128 levels\n");

	report(name, ok);
	if (!ok)
		fprintf(stderr, "%s: want \"%s...\", got \"%.200s\"\n", name, want, out);
	free(out);
	free(text);
}

/* Deep nesting is an error at the token past the limit, not a crash. */
static void test_nesting(void)
{
	char *ok = nested(100, "(", ")"), *out;

	report("nest_100_parens_parse", !parse_to(ok, &out));
	free(out);
	free(ok);
	/* the 129th level: "BEGIN { $x = " is 13 columns, then 127 "(" */
	check_deep("nest_parens_129", nested(129, "(", ")"),
		   "stdin:1:141-142: ERROR: nesting too deep: more than 128 levels\n");
	check_deep("nest_parens_100000", nested(100000, "(", ")"),
		   "stdin:1:141-142: ERROR: nesting too deep: more than 128 levels\n");
	check_deep("nest_unary_100000", nested(100000, "~", ""),
		   "stdin:1:");
	check_deep("nest_chain_100000", nested(100000, "1+", ""),
		   "stdin:1:");
	check_deep("nest_ifs_10000", nested(10000, "1; if (1) { $y = ", "}"),
		   "stdin:1:");
}

/* The diag layouts the parser has no case for: several lines, no place. */
static void test_diag(void)
{
	struct fpt_source src = { "script.bt", "BEGIN {\n\t@x = 1;\n}\n", 0 };
	struct fpt_diag d;
	char *out;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	src.len = strlen(src.text);
	fpt_diag_init(&d, &src, f);
	fpt_error(&d, (struct fpt_loc){ 1, 1, 3, 2 }, "a block of %d lines", 3);
	fpt_warning(&d, (struct fpt_loc){ 2, 2, 2, 4 }, "unused map %s", "@x");
	fpt_error_noloc(&d, "no probes matched %s", "vfs_nothing*");
	fclose(f);
	report("diag_multiline_warning_noloc", d.errors == 2 && d.warnings == 1 &&
	       same("diag_multiline_warning_noloc", "messages", out,
		    "script.bt:1-3: ERROR: a block of 3 lines\n"
		    "script.bt:2:2-4: WARNING: unused map @x\n"
		    "    @x = 1;\n"
		    "    ^~\n"
		    "ERROR: no probes matched vfs_nothing*\n"));
	free(out);
}

/* ---- Bucket rules ------------------------------------------------------------ */

static void test_buckets(void)
{
	static const struct { int64_t v; int bits, index; } hist[] = {
		{ -5, 0, 0 }, { -1, 0, 0 }, { 0, 0, 1 }, { 1, 0, 2 }, { 2, 0, 3 },
		{ 3, 0, 3 }, { 4, 0, 4 }, { 7, 0, 4 }, { 8, 0, 5 }, { 1023, 0, 11 },
		{ 1024, 0, 12 }, { INT64_MAX, 0, 64 },
		{ 0, 2, 1 }, { 7, 2, 8 }, { 8, 2, 9 }, { 9, 2, 9 }, { 10, 2, 10 },
		{ 15, 2, 12 }, { 16, 2, 13 }, { 224, 2, 28 }, { INT64_MAX, 2, 248 },
	};
	static const struct { int64_t v, min, max, step, index; } lhist[] = {
		{ -1, 0, 100, 10, 0 }, { 0, 0, 100, 10, 1 }, { 9, 0, 100, 10, 1 },
		{ 10, 0, 100, 10, 2 }, { 99, 0, 100, 10, 10 }, { 100, 0, 100, 10, 11 },
		{ 5000, 0, 100, 10, 11 }, { -20, -10, 10, 5, 0 }, { -10, -10, 10, 5, 1 },
		{ -6, -10, 10, 5, 1 }, { -5, -10, 10, 5, 2 }, { 9, -10, 10, 5, 4 },
	};
	bool ok = fpt_hist_nbuckets(0) == 65 && fpt_hist_nbuckets(2) == 249 &&
		  fpt_hist_nbuckets(5) == 1889 && fpt_lhist_nbuckets(0, 100, 10) == 12;

	for (size_t i = 0; i < ARRAY_SIZE(hist); i++) {
		int got = fpt_hist_index(hist[i].v, hist[i].bits);

		if (got != hist[i].index) {
			fprintf(stderr, "hist_index(%lld, %d) = %d, want %d\n",
				(long long)hist[i].v, hist[i].bits, got, hist[i].index);
			ok = false;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(lhist); i++) {
		int64_t got = fpt_lhist_index(lhist[i].v, lhist[i].min, lhist[i].max,
					      lhist[i].step);

		if (got != lhist[i].index) {
			fprintf(stderr, "lhist_index(%lld) = %lld, want %lld\n",
				(long long)lhist[i].v, (long long)got, (long long)lhist[i].index);
			ok = false;
		}
	}
	report("bucket_index_rules", ok);
}

/* ---- Kernel symbols ----------------------------------------------------------- */

static struct fpt_ksyms *ksyms_of(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct fpt_ksyms *k = fpt_ksyms_read(f);

	fclose(f);
	return k;
}

/* kallsyms with and without the addresses that kptr_restrict hides. */
static void test_ksyms(void)
{
	struct fpt_ksyms *k = ksyms_of("ffffffff81000000 T _stext\n"
				       "ffffffff81000100 t vfs_read\n"
				       "ffffffff81000200 D some_data\n"
				       "ffffffff81000300 T vfs_write [mod]\n");
	uint64_t off = 0;
	const char *n = fpt_ksym(k, 0xffffffff81000110ull, &off);

	report("ksyms_resolve", !fpt_ksyms_hidden(k) && n && !strcmp(n, "vfs_read") &&
	       off == 0x10 && !fpt_ksym(k, 0xffffffff80000000ull, &off));
	fpt_ksyms_free(k);
	k = ksyms_of("0000000000000000 T _stext\n"
		     "0000000000000000 t vfs_read\n"
		     "0000000000000000 T vfs_write\n");
	report("ksyms_hidden_by_kptr_restrict", fpt_ksyms_hidden(k) &&
	       !fpt_ksym(k, 0xffffffff81000110ull, &off) && !fpt_ksym(k, 1, &off));
	fpt_ksyms_free(k);
}

/* ---- Printing against the goldens ----------------------------------------- */

static char *read_golden(const char *file)
{
	char path[512], *buf = NULL;
	size_t len = 0;
	FILE *f, *out;
	int c;

	snprintf(path, sizeof(path), "%s/%s", golden_dir, file);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return strdup("<missing golden>");
	}
	out = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(f);
	fclose(out);
	return buf;
}

static void check_print(const char *name, const char *golden, struct fpt_map_view *m,
			enum fpt_format fmt, uint32_t top, uint32_t div)
{
	char *out, *want = read_golden(golden);
	size_t len;
	FILE *f = open_memstream(&out, &len);
	int err = fpt_print_map(f, fmt, m, top, div);

	fclose(f);
	report(name, !err && same(name, golden, out, want));
	free(out);
	free(want);
}

/* Add the values to the buckets of a hist or lhist. */
static void fill(const struct fpt_map_view *m, uint64_t *b, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[m->kind == FPT_V_HIST ? fpt_hist_index(v[i], m->hist_bits) :
		  fpt_lhist_index(v[i], m->lmin, m->lmax, m->lstep)]++;
}

static void test_print_hists(void)
{
	static const int64_t hv[] = { -1, 2, 3, 4, 16 }, hv2[] = { 2, 16 };
	static const int64_t lv[] = { -1, 2, 3, 6, 10 }, hj[] = { 2, 1024 };
	static const int64_t lj[] = { 0, 50, 100 };
	uint64_t b[2][2000] = { { 0 } };
	struct fpt_entry e = { .v.buckets = b[0] };
	struct fpt_map_view h = { .name = "@", .kind = FPT_V_HIST, .entries = &e, .n = 1 };
	struct fpt_map_view l = { .name = "@", .kind = FPT_V_LHIST, .entries = &e, .n = 1,
				  .lmin = 0, .lmax = 10, .lstep = 2 };

	fill(&h, b[0], hv, ARRAY_SIZE(hv));
	check_print("print_hist", "hist.txt", &h, FPT_FMT_TEXT, 0, 0);
	memset(b, 0, sizeof(b));
	fill(&h, b[0], hv2, ARRAY_SIZE(hv2));
	check_print("print_hist_two_values", "hist_2_values.txt", &h, FPT_FMT_TEXT, 0, 0);
	memset(b, 0, sizeof(b));
	fill(&l, b[0], lv, ARRAY_SIZE(lv));
	check_print("print_lhist", "lhist.txt", &l, FPT_FMT_TEXT, 0, 0);
	memset(b, 0, sizeof(b));
	h.name = "@hist";
	fill(&h, b[0], hj, ARRAY_SIZE(hj));
	check_print("print_hist_json", "hist.json", &h, FPT_FMT_JSON, 0, 0);
	memset(b, 0, sizeof(b));
	l.name = "@h";
	l.lmax = 100;
	l.lstep = 10;
	fill(&l, b[0], lj, ARRAY_SIZE(lj));
	check_print("print_lhist_json", "lhist.json", &l, FPT_FMT_JSON, 0, 0);
}

static void test_print_keyed_hist(void)
{
	static const int64_t rd[] = { 1024, 1500, 2000, 2047, 2048, 4000 }, wr[] = { 0 };
	static uint64_t b[2][65];
	struct fpt_key k[2] = { { FPT_K_STR, .u.s = "vfs_read" },
				{ FPT_K_STR, .u.s = "vfs_write" } };
	struct fpt_entry e[2] = { { &k[0], .v.buckets = b[0] }, { &k[1], .v.buckets = b[1] } };
	struct fpt_map_view m = { .name = "@lat", .kind = FPT_V_HIST, .nkeys = 1, .entries = e,
				  .n = 2 };

	fill(&m, b[0], rd, ARRAY_SIZE(rd));
	fill(&m, b[1], wr, ARRAY_SIZE(wr));
	check_print("print_hist_keyed_sorted", "hist_keyed.txt", &m, FPT_FMT_TEXT, 0, 0);
}

static void test_print_values(void)
{
	struct fpt_key k[4][2] = {
		{ { FPT_K_STR, .u.s = "bash" }, { FPT_K_INT, .u.i = 3 } },
		{ { FPT_K_STR, .u.s = "sshd" }, { FPT_K_INT, .u.i = 1 } },
		{ { FPT_K_STR, .u.s = "init" }, { FPT_K_INT, .u.i = 9 } },
		{ { FPT_K_STR, .u.s = "bash" }, { FPT_K_INT, .u.i = 1 } },
	};
	struct fpt_entry e[4] = {
		{ k[0], .v.u = 5 }, { k[1], .v.u = 2 }, { k[2], .v.u = 12 }, { k[3], .v.u = 5 },
	};
	struct fpt_map_view m = { .name = "@", .kind = FPT_V_COUNT, .nkeys = 2, .entries = e,
				  .n = 4 };
	struct fpt_key jk[2] = { { FPT_K_STR, .u.s = "key2" }, { FPT_K_STR, .u.s = "key1" } };
	struct fpt_entry je[2] = { { &jk[0], .v.i = 3 }, { &jk[1], .v.i = 2 } };
	struct fpt_map_view jm = { .name = "@map", .kind = FPT_V_INT, .is_signed = true, .nkeys = 1,
				   .entries = je, .n = 2 };
	struct fpt_entry se = { .v.stats = { 3, 15 } };
	struct fpt_map_view sm = { .name = "@s", .kind = FPT_V_STATS, .is_signed = true, .nkeys = 0,
				   .entries = &se, .n = 1 };
	struct fpt_entry je2 = { .v.stats = { 2, 12 } };
	struct fpt_map_view jsm = { .name = "@stats", .kind = FPT_V_STATS, .is_signed = true,
				    .nkeys = 0, .entries = &je2, .n = 1 };
	struct fpt_key ak[4] = { { FPT_K_STR, .u.s = "d" }, { FPT_K_STR, .u.s = "a" },
				 { FPT_K_STR, .u.s = "c" }, { FPT_K_STR, .u.s = "b" } };
	struct fpt_entry ae[4] = {
		{ &ak[0], .v.stats = { 2, 8 } }, { &ak[1], .v.stats = { 1, 1 } },
		{ &ak[2], .v.stats = { 3, 9 } }, { &ak[3], .v.stats = { 1, 2 } },
	};
	struct fpt_map_view am = { .name = "@", .kind = FPT_V_AVG, .is_signed = true, .nkeys = 1,
				   .entries = ae, .n = 4 };

	check_print("print_keyed_count_sorted", "keyed_count.txt", &m, FPT_FMT_TEXT, 0, 0);
	check_print("print_map_json", "map.json", &jm, FPT_FMT_JSON, 0, 0);
	check_print("print_stats", "stats.txt", &sm, FPT_FMT_TEXT, 0, 0);
	check_print("print_stats_json", "stats.json", &jsm, FPT_FMT_JSON, 0, 0);
	check_print("print_avg_top", "avg_top.txt", &am, FPT_FMT_TEXT, 2, 0);
}

/* Print m to a string (caller frees). */
static char *print_str(struct fpt_map_view *m, enum fpt_format fmt, uint32_t top, uint32_t div)
{
	char *out;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (fpt_print_map(f, fmt, m, top, div))
		fputs("<error>", f);
	fclose(f);
	return out;
}

static void check_str(const char *name, struct fpt_map_view *m, enum fpt_format fmt,
		      uint32_t top, uint32_t div, const char *want)
{
	char *got = print_str(m, fmt, top, div);

	report(name, same(name, "output", got, want));
	free(got);
}

static void test_print_details(void)
{
	struct fpt_key k[3] = { { FPT_K_INT, .u.i = -2 }, { FPT_K_INT, .u.i = 7 },
				{ FPT_K_INT, .u.i = 1 } };
	struct fpt_entry e[3] = { { &k[0], .v.i = -5 }, { &k[1], .v.i = 10 }, { &k[2], .v.i = 0 } };
	struct fpt_map_view sum = { .name = "@sum", .kind = FPT_V_SUM, .is_signed = true,
				    .nkeys = 1, .entries = e, .n = 3 };
	struct fpt_map_view min = { .name = "@min", .kind = FPT_V_MIN, .is_signed = true,
				    .nkeys = 1, .entries = e, .n = 3 };
	struct fpt_key sk[3] = { { FPT_K_UINT, .u.u = 2 }, { FPT_K_UINT, .u.u = 10 },
				 { FPT_K_UINT, .u.u = 1 } };
	struct fpt_entry se[3] = { { &sk[0], .v.s = "b\"q" }, { &sk[1], .v.s = "a" },
				   { &sk[2], .v.s = "c\n" } };
	struct fpt_map_view str = { .name = "@name", .kind = FPT_V_STR, .is_signed = false,
				    .nkeys = 1, .entries = se, .n = 3 };
	struct fpt_entry one = { .v.u = 1234 };
	struct fpt_map_view scalar = { .name = "@x", .kind = FPT_V_COUNT, .is_signed = false,
				       .nkeys = 0, .entries = &one, .n = 1 };
	struct fpt_map_view empty = { .name = "@none", .kind = FPT_V_COUNT, .is_signed = false,
				      .nkeys = 1, .entries = NULL, .n = 0 };
	struct fpt_map_view bad = { .name = "@l", .kind = FPT_V_LHIST, .lmin = 5, .lmax = 5,
				    .lstep = 1 };

	check_str("print_sum_signed_sorted", &sum, FPT_FMT_TEXT, 0, 0,
		  "@sum[-2]: -5\n@sum[1]: 0\n@sum[7]: 10\n");
	check_str("print_sum_top_div", &sum, FPT_FMT_TEXT, 2, 3,
		  "@sum[1]: 0\n@sum[7]: 3\n");
	check_str("print_min_sorts_unsigned", &min, FPT_FMT_TEXT, 0, 0,
		  "@min[1]: 0\n@min[7]: 10\n@min[-2]: -5\n");
	check_str("print_strings_by_key", &str, FPT_FMT_TEXT, 0, 0,
		  "@name[1]: c\n\n@name[2]: b\"q\n@name[10]: a\n");
	check_str("print_strings_json_escaped", &str, FPT_FMT_JSON, 0, 0,
		  "{\"type\": \"map\", \"data\": {\"@name\": {\"1\": \"c\\n\", \"2\": \"b\\\"q\", \"10\": \"a\"}}}\n");
	check_str("print_scalar", &scalar, FPT_FMT_TEXT, 0, 0, "@x: 1234\n");
	check_str("print_scalar_json", &scalar, FPT_FMT_JSON, 0, 0,
		  "{\"type\": \"map\", \"data\": {\"@x\": 1234}}\n");
	check_str("print_empty_map", &empty, FPT_FMT_TEXT, 0, 0, "\n");
	check_str("print_empty_map_json", &empty, FPT_FMT_JSON, 0, 0, "");
	check_str("print_invalid_view", &bad, FPT_FMT_TEXT, 0, 0, "<error>");
}

static void test_print_hist_labels(void)
{
	static uint64_t b[2000];
	struct fpt_entry e = { .v.buckets = b };
	struct fpt_map_view h = { .name = "@k", .kind = FPT_V_HIST, .entries = &e, .n = 1,
				  .hist_bits = 1 };
	struct fpt_map_view l = { .name = "@kb", .kind = FPT_V_LHIST, .entries = &e, .n = 1,
				  .lmin = 0, .lmax = 4096, .lstep = 1024 };

	b[fpt_hist_index(3, 1)] = 3;
	b[fpt_hist_index(6, 1)] = 1;
	b[fpt_hist_index(40, 1)] = 2;
	/* "@k:\x20\n": bpftrace ends a histogram's header line with a space */
	check_str("print_hist_bits_labels", &h, FPT_FMT_TEXT, 0, 2,
		  "@k:\x20\n"
		  "[3]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		  "[4, 6)                 0 |                                                    |\n"
		  "[6, 8)                 0 |@@@@@@@@@@@@@@@@@                                   |\n"
		  "[8, 12)                0 |                                                    |\n"
		  "[12, 16)               0 |                                                    |\n"
		  "[16, 24)               0 |                                                    |\n"
		  "[24, 32)               0 |                                                    |\n"
		  "[32, 48)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |\n\n");
	memset(b, 0, sizeof(b));
	/* bpftrace picks the suffix by the power of two, not by the value */
	b[fpt_hist_index(1 << 20, 1)] = 2;
	b[fpt_hist_index(3 << 19, 1)] = 1;
	check_str("print_hist_bits_json_and_suffix", &h, FPT_FMT_JSON, 0, 0,
		  "{\"type\": \"hist\", \"data\": {\"@k\": [{\"min\": 1048576, \"max\": 1572863, \"count\": 2}, {\"min\": 1572864, \"max\": 2097151, \"count\": 1}]}}\n");
	check_str("print_hist_bits_suffix", &h, FPT_FMT_TEXT, 0, 0,
		  "@k:\x20\n"
		  "[1024K, 1536K)         2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		  "[1536K, 2M)            1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n\n");
	memset(b, 0, sizeof(b));
	b[fpt_lhist_index(1000, 0, 4096, 1024)] = 1;
	b[fpt_lhist_index(3000, 0, 4096, 1024)] = 4;
	b[fpt_lhist_index(9000, 0, 4096, 1024)] = 2;
	check_str("print_lhist_kilo_labels", &l, FPT_FMT_TEXT, 0, 0,
		  "@kb:\x20\n"
		  "[0, 1K)                1 |@@@@@@@@@@@@@                                       |\n"
		  "[1K, 2K)               0 |                                                    |\n"
		  "[2K, 3K)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		  "[3K, 4K)               0 |                                                    |\n"
		  "[4K, ...)              2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n\n");
}

/* ---- Every bucket's label --------------------------------------------------- */

#define BAR52	"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"

/*
 * The label of bucket i of m, printed alone with a count of 1, into label:
 * the text before the count in "LABEL    1 |@@...@@|". False when the
 * output is not the header and that one row.
 */
static bool bucket_label(struct fpt_map_view *m, uint64_t *b, int64_t i, char *label,
			 size_t len)
{
	char *out, *row, *end;
	bool ok;

	b[i] = 1;
	out = print_str(m, FPT_FMT_TEXT, 0, 0);
	b[i] = 0;
	row = strchr(out, '\n');
	end = row ? strstr(row, " |") : NULL;
	ok = end && !strcmp(end, " |" BAR52 "|\n\n") && end[-1] == '1';
	if (ok) {
		/* labels end with ')' or ']': drop the count, then the padding */
		for (end--; end > row + 1 && end[-1] == ' '; end--)
			;
		snprintf(label, len, "%.*s", (int)(end - row - 1), row + 1);
	}
	free(out);
	return ok;
}

static bool check_label(struct fpt_map_view *m, uint64_t *b, int64_t i, const char *what,
			const char *want)
{
	char got[64] = "";

	if (bucket_label(m, b, i, got, sizeof(got)) && !strcmp(got, want))
		return true;
	fprintf(stderr, "%s: bucket %lld is '%s', want '%s'\n", what, (long long)i, got, want);
	return false;
}

/*
 * hist(v): a row for v < 0, one for 0 and one for 1, then one for each
 * power of two [2^p, 2^(p+1)) up to p = 62; a bound that is 2^p prints as
 * 2^(p mod 10) with the suffix of 1024^(p / 10): K, M, G, T, P, E.
 */
static const char *const hist_rows[] = {
	"(..., 0)", "[0]", "[1]", "[2, 4)", "[4, 8)", "[8, 16)", "[16, 32)", "[32, 64)",
	"[64, 128)", "[128, 256)", "[256, 512)", "[512, 1K)", "[1K, 2K)", "[2K, 4K)",
	"[4K, 8K)", "[8K, 16K)", "[16K, 32K)", "[32K, 64K)", "[64K, 128K)", "[128K, 256K)",
	"[256K, 512K)", "[512K, 1M)", "[1M, 2M)", "[2M, 4M)", "[4M, 8M)", "[8M, 16M)",
	"[16M, 32M)", "[32M, 64M)", "[64M, 128M)", "[128M, 256M)", "[256M, 512M)",
	"[512M, 1G)", "[1G, 2G)", "[2G, 4G)", "[4G, 8G)", "[8G, 16G)", "[16G, 32G)",
	"[32G, 64G)", "[64G, 128G)", "[128G, 256G)", "[256G, 512G)", "[512G, 1T)",
	"[1T, 2T)", "[2T, 4T)", "[4T, 8T)", "[8T, 16T)", "[16T, 32T)", "[32T, 64T)",
	"[64T, 128T)", "[128T, 256T)", "[256T, 512T)", "[512T, 1P)", "[1P, 2P)", "[2P, 4P)",
	"[4P, 8P)", "[8P, 16P)", "[16P, 32P)", "[32P, 64P)", "[64P, 128P)", "[128P, 256P)",
	"[256P, 512P)", "[512P, 1E)", "[1E, 2E)", "[2E, 4E)", "[4E, 8E)",
};

/*
 * hist(v, k), n = 2^k: single values up to 2n - 1, then each power of two
 * split into n buckets of width w = 2^p / n. A bound prints in the largest
 * unit of 1024^d not above the width of the bucket it starts (the last
 * bucket's end starts the next power's first bucket): with k = 2, 1024
 * (width 256) prints in full, 4096 (width 1024) as 4K.
 */
static const struct { int bits; int64_t v; const char *label; } hist_bits_rows[] = {
	{ 1, -3, "(..., 0)" }, { 1, 3, "[3]" }, { 1, 4, "[4, 6)" }, { 1, 7, "[6, 8)" },
	{ 1, 1023, "[768, 1024)" }, { 1, 1024, "[1024, 1536)" }, { 1, 1536, "[1536, 2K)" },
	{ 1, 2048, "[2K, 3K)" }, { 1, 1 << 20, "[1024K, 1536K)" },
	{ 1, 3 << 19, "[1536K, 2M)" }, { 1, 1LL << 62, "[4E, 6E)" },
	{ 1, INT64_MAX, "[6E, 8E)" },
	{ 2, -1, "(..., 0)" }, { 2, 0, "[0]" }, { 2, 7, "[7]" }, { 2, 8, "[8, 10)" },
	{ 2, 9, "[8, 10)" }, { 2, 15, "[14, 16)" }, { 2, 16, "[16, 20)" },
	{ 2, 1023, "[896, 1024)" }, { 2, 1024, "[1024, 1280)" },
	{ 2, 2047, "[1792, 2048)" }, { 2, 2048, "[2048, 2560)" },
	{ 2, 4095, "[3584, 4K)" }, { 2, 4096, "[4K, 5K)" }, { 2, 5120, "[5K, 6K)" },
	{ 2, (1 << 20) - 1, "[896K, 1024K)" }, { 2, 1 << 20, "[1024K, 1280K)" },
	{ 2, 1 << 21, "[2048K, 2560K)" }, { 2, (1 << 22) - 1, "[3584K, 4M)" },
	{ 2, 1 << 22, "[4M, 5M)" }, { 2, (1LL << 32) - 1, "[3584M, 4G)" },
	{ 2, 1LL << 32, "[4G, 5G)" }, { 2, (1LL << 42) - 1, "[3584G, 4T)" },
	{ 2, 1LL << 42, "[4T, 5T)" }, { 2, (1LL << 52) - 1, "[3584T, 4P)" },
	{ 2, 1LL << 52, "[4P, 5P)" }, { 2, (1LL << 62) - 1, "[3584P, 4E)" },
	{ 2, 1LL << 62, "[4E, 5E)" }, { 2, 5LL << 60, "[5E, 6E)" },
	{ 2, 6LL << 60, "[6E, 7E)" }, { 2, INT64_MAX, "[7E, 8E)" },
	{ 5, 63, "[63]" }, { 5, 64, "[64, 66)" }, { 5, INT64_MAX, "[8064P, 8192P)" },
};

/*
 * lhist(v, min, max, step): "(..., min)", then [min + i * step, min + (i +
 * 1) * step), then "[max, ...)". With a step that is a multiple of 1024, a
 * non-zero bound that is a multiple of 1024 prints in M when it is a
 * multiple of 1024 * 1024, else in K; any other bound prints in full.
 */
static const struct { int64_t min, max, step, v; const char *label; } lhist_rows[] = {
	{ 0, 4096, 1024, -1, "(..., 0)" }, { 0, 4096, 1024, 0, "[0, 1K)" },
	{ 0, 4096, 1024, 1023, "[0, 1K)" }, { 0, 4096, 1024, 1024, "[1K, 2K)" },
	{ 0, 4096, 1024, 3071, "[2K, 3K)" }, { 0, 4096, 1024, 4095, "[3K, 4K)" },
	{ 0, 4096, 1024, 4096, "[4K, ...)" }, { 0, 4096, 1024, 10000, "[4K, ...)" },
	{ 0, 3 << 20, 1 << 20, -5, "(..., 0)" }, { 0, 3 << 20, 1 << 20, 0, "[0, 1M)" },
	{ 0, 3 << 20, 1 << 20, 1 << 20, "[1M, 2M)" },
	{ 0, 3 << 20, 1 << 20, (2 << 20) + 5, "[2M, 3M)" },
	{ 0, 3 << 20, 1 << 20, 3 << 20, "[3M, ...)" },
	{ 0, 2 << 20, 512 << 10, 512 << 10, "[512K, 1M)" },
	{ 0, 2 << 20, 512 << 10, (1 << 20) + 1, "[1M, 1536K)" },
	{ 0, 2 << 20, 512 << 10, 1536 << 10, "[1536K, 2M)" },
	{ 0, 2 << 20, 512 << 10, 2 << 20, "[2M, ...)" },
	{ 0, 3LL << 30, 1 << 30, 0, "[0, 1024M)" },
	{ 0, 3LL << 30, 1 << 30, 1 << 30, "[1024M, 2048M)" },
	{ 0, 3LL << 30, 1 << 30, 3LL << 30, "[3072M, ...)" },
	{ -4096, 4096, 2048, -5000, "(..., -4K)" }, { -4096, 4096, 2048, -4096, "[-4K, -2K)" },
	{ -4096, 4096, 2048, -1, "[-2K, 0)" }, { -4096, 4096, 2048, 0, "[0, 2K)" },
	{ -4096, 4096, 2048, 2048, "[2K, 4K)" }, { -4096, 4096, 2048, 4096, "[4K, ...)" },
	{ 512, 3584, 1024, 0, "(..., 512)" }, { 512, 3584, 1024, 512, "[512, 1536)" },
	{ 512, 3584, 1024, 2600, "[2560, 3584)" }, { 512, 3584, 1024, 3584, "[3584, ...)" },
	{ 0, 4608, 1536, 0, "[0, 1536)" }, { 0, 4608, 1536, 1536, "[1536, 3072)" },
	{ 0, 4608, 1536, 3072, "[3072, 4608)" }, { 0, 4608, 1536, 4608, "[4608, ...)" },
	{ 0, 2048, 512, 512, "[512, 1024)" }, { 0, 2048, 512, 1024, "[1024, 1536)" },
	{ 0, 2048, 512, 2048, "[2048, ...)" },
	{ 0, 100, 10, -1, "(..., 0)" }, { 0, 100, 10, 99, "[90, 100)" },
	{ 0, 100, 10, 100, "[100, ...)" },
};

static void test_hist_labels(void)
{
	static uint64_t b[2000];
	struct fpt_entry e = { .v.buckets = b };
	struct fpt_map_view h = { .name = "@h", .kind = FPT_V_HIST, .entries = &e, .n = 1 };
	bool ok = fpt_hist_nbuckets(0) == (int)ARRAY_SIZE(hist_rows);

	for (size_t i = 0; i < ARRAY_SIZE(hist_rows); i++)
		ok &= check_label(&h, b, (int64_t)i, "hist", hist_rows[i]);
	report("hist_label_of_every_bucket", ok);
	ok = true;
	for (size_t i = 0; i < ARRAY_SIZE(hist_bits_rows); i++) {
		h.hist_bits = hist_bits_rows[i].bits;
		ok &= check_label(&h, b, fpt_hist_index(hist_bits_rows[i].v, h.hist_bits),
				  "hist bits", hist_bits_rows[i].label);
	}
	report("hist_bits_labels", ok);
}

static void test_lhist_labels(void)
{
	static uint64_t b[64];
	struct fpt_entry e = { .v.buckets = b };
	struct fpt_map_view l = { .name = "@l", .kind = FPT_V_LHIST, .entries = &e, .n = 1 };
	bool ok = true;

	for (size_t i = 0; i < ARRAY_SIZE(lhist_rows); i++) {
		l.lmin = lhist_rows[i].min;
		l.lmax = lhist_rows[i].max;
		l.lstep = lhist_rows[i].step;
		ok &= check_label(&l, b, fpt_lhist_index(lhist_rows[i].v, l.lmin, l.lmax, l.lstep),
				  "lhist", lhist_rows[i].label);
	}
	report("lhist_labels_and_out_of_range_rows", ok);
}

/* JSON gives a bucket's bounds as numbers: a middle one and the last one. */
static void test_hist_json_bounds(void)
{
	static uint64_t b[2000];
	struct fpt_entry e = { .v.buckets = b };
	struct fpt_map_view h = { .name = "@h", .kind = FPT_V_HIST, .entries = &e, .n = 1,
				  .hist_bits = 2 };

	b[fpt_hist_index(1300, 2)] = 1;
	check_str("hist_json_bounds", &h, FPT_FMT_JSON, 0, 0,
		  "{\"type\": \"hist\", \"data\": {\"@h\": [{"
		  "\"min\": 1280, \"max\": 1535, \"count\": 1}]}}\n");
	memset(b, 0, sizeof(b));
	b[fpt_hist_index(INT64_MAX, 2)] = 1;
	check_str("hist_json_bounds_of_the_last_bucket", &h, FPT_FMT_JSON, 0, 0,
		  "{\"type\": \"hist\", \"data\": {\"@h\": [{"
		  "\"min\": 8070450532247928832, \"max\": 9223372036854775807, \"count\": 1}]}}\n");
}

/* ---- Command line ------------------------------------------------------------ */

/* fpt_cli_parse() of argv (NULL-terminated); its messages in *msg. */
static int cli_of(char **argv, struct fpt_cli *o, char **msg)
{
	size_t len;
	FILE *f = open_memstream(msg, &len);
	int argc = 0, res;

	while (argv[argc])
		argc++;
	memset(o, 0, sizeof(*o));
	res = fpt_cli_parse(argc, argv, o, f);
	fclose(f);
	return res;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Command lines that parse: what they give. */
static void test_cli_ok(void)
{
	static const struct {
		const char *name;
		char *argv[8];
		struct fpt_cli want;
	} cases[] = {
		{ "cli_file_then_options", { "fptrace", "s.bt", "-c", "dd if=/dev/zero count=1",
					     "-v", NULL },
		  { .file = "s.bt", .cmd = "dd if=/dev/zero count=1", .verbose = true } },
		{ "cli_options_then_file", { "fptrace", "-d", "--trace-self", "s.bt", NULL },
		  { .file = "s.bt", .dump = true, .trace_self = true } },
		{ "cli_stdin", { "fptrace", "-f", "json", "-", NULL },
		  { .file = "-", .fmt = FPT_FMT_JSON } },
		{ "cli_expr", { "fptrace", "-e", "BEGIN { exit(); }", "-f", "text", NULL },
		  { .expr = "BEGIN { exit(); }" } },
		{ "cli_list_all", { "fptrace", "-l", NULL }, { .list = "*" } },
		{ "cli_list_verbose_spec", { "fptrace", "-lv", "fprobe:vfs_rea*", NULL },
		  { .list = "fprobe:vfs_rea*", .verbose = true } },
		{ "cli_list_spec_first", { "fptrace", "kretprobe:vfs_read", "-l", NULL },
		  { .list = "kretprobe:vfs_read" } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[8], *msg;
		struct fpt_cli o;
		const struct fpt_cli *w = &cases[i].want;
		int res;

		memcpy(argv, cases[i].argv, sizeof(argv));
		res = cli_of(argv, &o, &msg);
		report(cases[i].name, !res && !*msg && same_str(o.expr, w->expr) &&
		       same_str(o.file, w->file) && same_str(o.list, w->list) &&
		       same_str(o.cmd, w->cmd) && o.pid == w->pid && o.dump == w->dump &&
		       o.verbose == w->verbose && o.trace_self == w->trace_self && o.fmt == w->fmt);
		free(msg);
	}
}

/* Command lines that do not: the one line each prints. */
static void test_cli_errors(void)
{
	static const struct { const char *name; char *argv[8]; const char *msg; } cases[] = {
		{ "cli_err_two_e", { "fptrace", "-e", "BEGIN {}", "-e", "END {}", NULL },
		  "ERROR: -e given twice: fptrace runs one program\n" },
		{ "cli_err_e_and_file", { "fptrace", "-e", "BEGIN {}", "s.bt", NULL },
		  "ERROR: -e PROGRAM and FILE 's.bt' both given: give one program\n" },
		{ "cli_err_two_files", { "fptrace", "s.bt", "-v", "t.bt", NULL },
		  "ERROR: unexpected argument 't.bt' after FILE 's.bt'\n" },
		{ "cli_err_unquoted_command",
		  { "fptrace", "s.bt", "-c", "dd", "if=/dev/zero", NULL },
		  "ERROR: unexpected argument 'if=/dev/zero' after FILE 's.bt'\n" },
		{ "cli_err_no_program", { "fptrace", "-v", NULL },
		  "ERROR: give one of -e PROGRAM, FILE or -l\n" },
		{ "cli_err_list_two_specs", { "fptrace", "-l", "vfs_read", "vfs_write", NULL },
		  "ERROR: -l takes one SPEC: unexpected 'vfs_write'\n" },
		{ "cli_err_format", { "fptrace", "-f", "xml", "-e", "BEGIN {}", NULL },
		  "ERROR: unknown output format 'xml'\n" },
		{ "cli_err_pid_and_command", { "fptrace", "-p", "1", "-c", "true", "s.bt", NULL },
		  "ERROR: -p and -c cannot be used together\n" },
		{ "cli_err_pid", { "fptrace", "-p", "12x", "s.bt", NULL },
		  "ERROR: -p 12x: not a process id\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[8], *msg;
		struct fpt_cli o;
		int res;

		memcpy(argv, cases[i].argv, sizeof(argv));
		res = cli_of(argv, &o, &msg);
		report(cases[i].name,
		       res == -1 && same(cases[i].name, "message", msg, cases[i].msg));
		free(msg);
	}
}

static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

/* -l's SPEC: its provider and glob. */
static void test_cli_list_spec(void)
{
	static const struct { const char *spec, *prov, *glob; } cases[] = {
		{ "fprobe:vfs_rea*", "fprobe", "vfs_rea*" },
		{ "fretprobe:vfs_read", "fretprobe", "vfs_read" },
		{ "kprobe:ksys_*", "kprobe", "ksys_*" },
		{ "kretprobe:*", "kretprobe", "*" },
		{ "vfs_rea*", "fprobe", "vfs_rea*" },
		{ "fprobe:", "fprobe", "" },
		{ "tracepoint:syscalls:*", NULL, "syscalls:*" },
		{ "fprobes:vfs_read", NULL, "vfs_read" },
		{ "kfunc:vfs_read", NULL, "vfs_read" },
	};
	bool ok = true;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *glob = NULL, *prov = fpt_list_provider(cases[i].spec, &glob);

		if (!same_str(prov, cases[i].prov) || !same_str(glob, cases[i].glob)) {
			fprintf(stderr, "list spec '%s': '%s' '%s'\n", cases[i].spec,
				or_null(prov), or_null(glob));
			ok = false;
		}
	}
	report("cli_list_spec", ok);
}

/* fpt_read_program() of text given as stdin ("-"); its messages in *msg. */
static char *program_of(const char *file, const char *text, char **msg)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r"), *f;
	size_t len, mlen;
	char *prog;

	f = open_memstream(msg, &mlen);
	prog = fpt_read_program(file, in, &len, f);
	fclose(f);
	fclose(in);
	if (prog && len != strlen(prog))
		prog[0] = '?';	/* the length must be the text's */
	return prog;
}

/* "-" reads stdin; a "#!" first line is blanked, and only that one. */
static void test_cli_program_text(void)
{
	char *msg, *text, *out, want[128];

	text = program_of("-", "fprobe:ksys_read { @ = count(); }\n", &msg);
	report("cli_stdin_program", text && !*msg &&
	       !strcmp(text, "fprobe:ksys_read { @ = count(); }\n"));
	free(text);
	free(msg);
	text = program_of("-", "#!/usr/bin/env fptrace\nfprobe:ksys_read {\n  @ = count(;\n}\n",
			  &msg);
	/* "#!/usr/bin/env fptrace" is 22 characters */
	snprintf(want, sizeof(want), "%22s\nfprobe:ksys_read {\n  @ = count(;\n}\n", "");
	report("cli_shebang_blanked", text && !*msg && !strcmp(text, want));
	free(msg);
	/* the lines keep their numbers: the error is on line 3 */
	parse_to(text ? text : "", &out);
	report("cli_shebang_line_numbers", same("cli_shebang_line_numbers", "messages", out,
						"stdin:3:13-14: ERROR: syntax error, unexpected ;\n"
						"  @ = count(;\n"
						"            ^\n"));
	free(out);
	free(text);
	text = program_of("-", "fprobe:ksys_read { }\n#!/bin/fptrace\n", &msg);
	report("cli_shebang_only_first_line", text && !*msg &&
	       !strcmp(text, "fprobe:ksys_read { }\n#!/bin/fptrace\n"));
	free(text);
	free(msg);
	text = program_of("/nonexistent/s.bt", "", &msg);
	report("cli_err_no_file",
	       !text && same("cli_err_no_file", "message", msg,
			     "ERROR: cannot open /nonexistent/s.bt: No such file or directory\n"));
	free(msg);
	/* a directory opens, but reading it fails: no empty program */
	text = program_of("/", "", &msg);
	report("cli_err_read_dir",
	       !text && same("cli_err_read_dir", "message", msg,
			     "ERROR: cannot read /: Is a directory\n"));
	free(text);
	free(msg);
}

/* -c's command looked up in PATH, as exec would. */
static void test_cli_find_command(void)
{
	char dir[] = "/tmp/fpt_unit_XXXXXX", file[64], path[256], env[300];
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	bool ok;
	FILE *f;

	if (!mkdtemp(dir)) {
		report("cli_find_command", false);
		return;
	}
	snprintf(file, sizeof(file), "%s/fpt_cmd", dir);
	f = fopen(file, "w");
	fclose(f);
	chmod(file, 0755);
	snprintf(file, sizeof(file), "%s/fpt_noexec", dir);
	f = fopen(file, "w");
	fclose(f);
	chmod(file, 0644);
	snprintf(env, sizeof(env), "/nonexistent:%s", dir);
	setenv("PATH", env, 1);
	snprintf(file, sizeof(file), "%s/fpt_cmd", dir);
	ok = !fpt_find_command("fpt_cmd", path, sizeof(path)) && !strcmp(path, file);
	/* as root, access() allows any file with an execute bit only */
	ok &= fpt_find_command("fpt_noexec", path, sizeof(path)) == -EACCES;
	ok &= fpt_find_command("no_such_cmd", path, sizeof(path)) == -ENOENT;
	ok &= fpt_find_command("/nonexistent/fpt_cmd", path, sizeof(path)) == -ENOENT;
	ok &= !fpt_find_command(file, path, sizeof(path)) && !strcmp(path, file);
	report("cli_find_command", ok);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	snprintf(file, sizeof(file), "%s/fpt_cmd", dir);
	unlink(file);
	snprintf(file, sizeof(file), "%s/fpt_noexec", dir);
	unlink(file);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		golden_dir = argv[1];
	test_lexer();
	test_parse_dumps();
	test_parse_errors();
	test_nesting();
	test_diag();
	test_buckets();
	test_ksyms();
	test_print_hists();
	test_print_keyed_hist();
	test_print_values();
	test_print_details();
	test_print_hist_labels();
	test_hist_labels();
	test_lhist_labels();
	test_hist_json_bounds();
	test_cli_ok();
	test_cli_errors();
	test_cli_list_spec();
	test_cli_program_text();
	test_cli_find_command();
	return failed;
}
