// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * diag.c: error and warning messages in bpftrace's layout.
 *
 * Takes a source (struct fpt_source), a location and a message; gives, on
 * the diag's stream, what bpftrace's Log::log_with_location() prints:
 *
 *   stdin:1:12-18: ERROR: syntax error, unexpected identifier
 *   fprobe:f { foo bar }
 *                  ^~~
 *
 * - "FILE:LINE:COL-ENDCOL: " with ENDCOL one past the range; for -e the file
 *   is "stdin".
 * - A range over several lines prints only "FILE:LINE-ENDLINE: ERROR: msg".
 * - The source line follows with each tab shown as four spaces, then the
 *   marker line. bpftrace marks the range with '~' only; fptrace puts a
 *   caret '^' under the first character and '~' under the rest, as the
 *   issue asks. An empty range, or one at the end of the line (the end of
 *   file), gets the caret alone, one column past the text.
 */
#include <stdarg.h>
#include <string.h>

#include "fptrace.h"

void fpt_diag_init(struct fpt_diag *d, const struct fpt_source *src, FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	d->out = out;
}

struct fpt_loc fpt_loc_join(struct fpt_loc a, struct fpt_loc b)
{
	struct fpt_loc r = a;

	if (b.line < r.line || (b.line == r.line && b.col < r.col)) {
		r.line = b.line;
		r.col = b.col;
	}
	if (b.end_line > r.end_line ||
	    (b.end_line == r.end_line && b.end_col > r.end_col)) {
		r.end_line = b.end_line;
		r.end_col = b.end_col;
	}
	return r;
}

/* Line n (1-based) of the source: its start and length, or NULL. */
static const char *source_line(const struct fpt_source *src, int n, size_t *len)
{
	const char *p = src->text, *end = src->text + src->len, *nl;

	for (int i = 1; i < n; i++) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	nl = memchr(p, '\n', end - p);
	*len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	return p;
}

static void put_marker(FILE *out, char c, char src_c)
{
	fputs(src_c == '\t' ? (c == ' ' ? "    " : c == '^' ? "^~~~" : "~~~~") :
	      (c == ' ' ? " " : c == '^' ? "^" : "~"), out);
}

static void print_context(struct fpt_diag *d, struct fpt_loc l)
{
	size_t len, x;
	const char *line = source_line(d->src, l.line, &len);

	if (!line || !len)
		return;
	for (x = 0; x < len; x++)
		fputs(line[x] == '\t' ? "    " : (char[2]) { line[x], 0 }, d->out);
	fputc('\n', d->out);
	for (x = 0; x < len && x + 1 < (size_t)l.col; x++)
		put_marker(d->out, ' ', line[x]);
	put_marker(d->out, '^', x < len ? line[x] : ' ');
	for (x++; x < len && x + 1 < (size_t)l.end_col; x++)
		put_marker(d->out, '~', line[x]);
	fputc('\n', d->out);
}

static void vreport(struct fpt_diag *d, const char *kind, struct fpt_loc l,
		    const char *fmt, va_list ap)
{
	fprintf(d->out, "%s:", d->src->name);
	if (l.end_line > l.line) {
		fprintf(d->out, "%d-%d: %s: ", l.line, l.end_line, kind);
		vfprintf(d->out, fmt, ap);
		fputc('\n', d->out);
		return;
	}
	fprintf(d->out, "%d:%d-%d: %s: ", l.line, l.col, l.end_col, kind);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	print_context(d, l);
}

void fpt_error(struct fpt_diag *d, struct fpt_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(d, "ERROR", loc, fmt, ap);
	va_end(ap);
	d->errors++;
}

void fpt_warning(struct fpt_diag *d, struct fpt_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(d, "WARNING", loc, fmt, ap);
	va_end(ap);
	d->warnings++;
}

void fpt_error_noloc(struct fpt_diag *d, const char *fmt, ...)
{
	va_list ap;

	fputs("ERROR: ", d->out);
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
	fputc('\n', d->out);
	d->errors++;
}
