// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * print.c: map contents as bpftrace prints them, and the histogram bucket
 * rules.
 *
 * Takes a struct fpt_map_view (plain arrays of keys and values, already
 * reduced across CPUs; no BPF here) and gives the text or JSON that
 * bpftrace prints for that map at exit or on print(@m, top, div).
 *
 * The layout is bpftrace's src/output.cpp and the sort order its
 * BPFtrace::print_map() and print_map_hist() (src/bpftrace.cpp), as of the
 * releases that print "@: " before a histogram (0.17 to 0.21: Debian 12
 * ships 0.17; the output rewrite of 0.22 dropped that trailing space):
 *
 * - values: "@x: 5", "@m[vfs_read, 3]: 12"; keys joined by ", ".
 *   The entries of a map are joined by "\n" and end with "\n";
 * - stats: "@s: count 3, average 5, total 15"; avg prints the average;
 *   these end with "\n\n" (TextOutput::map_stats());
 * - hist and lhist: the line "@h: ", then one line a bucket from the first
 *   to the last non-empty one, "%-16s%8d |%-52s|" with a bar of '@' scaled
 *   so the largest bucket has 52; keyed histograms are separated by a blank
 *   line and the map ends with one more "\n";
 * - sort order: integers, count and sum by value; min and max by value
 *   compared as unsigned 64-bit (bpftrace's min_max_value<uint64_t>, so a
 *   negative min sorts last); avg and stats by the average; hist and lhist
 *   by the total count; strings by key. bpftrace uses std::sort, whose
 *   order of ties is unspecified; fptrace breaks ties by key (numbers
 *   numerically, strings by strcmp, first key first) so output is stable;
 * - top keeps the last top entries (for stats maps bpftrace ignores top:
 *   only avg, hist and plain maps honour it); div divides values, hist
 *   counts and averages, but not lhist counts nor the stats' count/total;
 * - JSON: {"type": "map"|"hist"|"stats", "data": {"@m": ...}} on one line,
 *   with keys joined by "," into one quoted string; an empty map prints
 *   nothing.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "fptrace.h"

/* ---- Bucket rules ------------------------------------------------------ */

int fpt_hist_nbuckets(int bits)
{
	/* index 0, 2^(k+1) single values, then 2^k a power up to 2^63 */
	return ((63 - bits) << bits) + (1 << bits) + 1;
}

int fpt_hist_index(int64_t v, int bits)
{
	int64_t n = (int64_t)1 << bits;
	int power, shift;

	if (v < 0)
		return 0;
	if (v < 2 * n)
		return (int)v + 1;
	power = 63 - __builtin_clzll((uint64_t)v);
	shift = power - bits;
	return ((shift + 1) << bits) + (int)((v >> shift) - n) + 1;
}

int64_t fpt_lhist_nbuckets(int64_t min, int64_t max, int64_t step)
{
	return (max - min) / step + 2;
}

int64_t fpt_lhist_index(int64_t v, int64_t min, int64_t max, int64_t step)
{
	if (v < min)
		return 0;
	if (v > max)
		return 1 + (max - min) / step;
	return 1 + (v - min) / step;
}

/* ---- Sorting ------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_keys(const struct fpt_map_view *m, const struct fpt_entry *a,
		    const struct fpt_entry *b)
{
	for (int i = 0; i < m->nkeys; i++) {
		const struct fpt_key *x = &a->keys[i], *y = &b->keys[i];
		int c = x->kind == FPT_K_STR ? strcmp(x->u.s, y->u.s) :
			x->kind == FPT_K_INT ? cmp_i64(x->u.i, y->u.i) :
			cmp_u64(x->u.u, y->u.u);

		if (c)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

static size_t nbuckets(const struct fpt_map_view *m)
{
	if (m->kind == FPT_V_HIST)
		return (size_t)fpt_hist_nbuckets(m->hist_bits);
	return (size_t)fpt_lhist_nbuckets(m->lmin, m->lmax, m->lstep);
}

static uint64_t hist_total(const struct fpt_map_view *m, const struct fpt_entry *e)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < nbuckets(m); i++)
		sum += e->v.buckets[i];
	return sum;
}

static int cmp_avg(const struct fpt_map_view *m, const struct fpt_entry *a,
		   const struct fpt_entry *b)
{
	int64_t ca = a->v.stats.count, cb = b->v.stats.count;
	int64_t ta = a->v.stats.total, tb = b->v.stats.total;

	if (m->is_signed)
		return cmp_i64(ca ? ta / ca : 0, cb ? tb / cb : 0);
	return cmp_u64(ca ? (uint64_t)ta / (uint64_t)ca : 0,
		       cb ? (uint64_t)tb / (uint64_t)cb : 0);
}

static int cmp_values(const struct fpt_map_view *m, const struct fpt_entry *a,
		      const struct fpt_entry *b)
{
	switch (m->kind) {
	case FPT_V_INT: case FPT_V_SUM:
		return m->is_signed ? cmp_i64(a->v.i, b->v.i) : cmp_u64(a->v.u, b->v.u);
	case FPT_V_COUNT: case FPT_V_MIN: case FPT_V_MAX:
		return cmp_u64(a->v.u, b->v.u);
	case FPT_V_AVG: case FPT_V_STATS:
		return cmp_avg(m, a, b);
	case FPT_V_HIST: case FPT_V_LHIST:
		return cmp_u64(hist_total(m, a), hist_total(m, b));
	case FPT_V_STR:
		break;
	}
	return 0;
}

static int cmp_entries(const void *pa, const void *pb, void *arg)
{
	const struct fpt_map_view *m = arg;
	int c = cmp_values(m, pa, pb);

	return c ? c : cmp_keys(m, pa, pb);
}

void fpt_sort_entries(struct fpt_map_view *m)
{
	if (m->n > 1)
		qsort_r(m->entries, m->n, sizeof(*m->entries), cmp_entries, m);
}

/* ---- Keys and values ------------------------------------------------------ */

void fpt_json_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c <= 0x1f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

static void key_part(char *buf, size_t len, const struct fpt_key *k)
{
	if (k->kind == FPT_K_INT)
		snprintf(buf, len, "%lld", (long long)k->u.i);
	else if (k->kind == FPT_K_UINT)
		snprintf(buf, len, "%llu", (unsigned long long)k->u.u);
	else
		snprintf(buf, len, "%s", k->u.s);
}

/* Text: "@m[a, b]"; JSON: "\"a,b\"" (nothing for a scalar). */
static void print_key(FILE *out, enum fpt_format fmt, const struct fpt_map_view *m,
		      const struct fpt_entry *e)
{
	char buf[4096];

	if (fmt == FPT_FMT_TEXT)
		fputs(m->name, out);
	if (!m->nkeys)
		return;
	fputs(fmt == FPT_FMT_TEXT ? "[" : "\"", out);
	for (int i = 0; i < m->nkeys; i++) {
		key_part(buf, sizeof(buf), &e->keys[i]);
		if (i)
			fputs(fmt == FPT_FMT_TEXT ? ", " : ",", out);
		if (fmt == FPT_FMT_TEXT)
			fputs(buf, out);
		else
			fpt_json_escape(out, buf);
	}
	fputs(fmt == FPT_FMT_TEXT ? "]" : "\"", out);
}

/* "KEY: " in text, "KEY: " or nothing (a scalar) in JSON. */
static void print_key_sep(FILE *out, enum fpt_format fmt, const struct fpt_map_view *m,
			  const struct fpt_entry *e)
{
	print_key(out, fmt, m, e);
	if (fmt == FPT_FMT_TEXT || m->nkeys)
		fputs(": ", out);
}

static void print_int(FILE *out, bool is_signed, uint64_t v, uint32_t div)
{
	if (is_signed)
		fprintf(out, "%lld", (long long)((int64_t)v / (int64_t)div));
	else
		fprintf(out, "%llu", (unsigned long long)(v / div));
}

static void print_scalar(FILE *out, enum fpt_format fmt, const struct fpt_map_view *m,
			 const struct fpt_entry *e, uint32_t div)
{
	if (m->kind != FPT_V_STR) {
		print_int(out, m->kind != FPT_V_COUNT && m->is_signed, e->v.u, div);
	} else if (fmt == FPT_FMT_JSON) {
		fputc('"', out);
		fpt_json_escape(out, e->v.s);
		fputc('"', out);
	} else {
		fputs(e->v.s, out);
	}
}

static void print_stats(FILE *out, enum fpt_format fmt, const struct fpt_map_view *m,
			const struct fpt_entry *e, uint32_t div)
{
	uint64_t count = (uint64_t)e->v.stats.count, total = (uint64_t)e->v.stats.total;
	uint64_t avg;

	if (m->is_signed)
		avg = count ? (uint64_t)((int64_t)total / (int64_t)count) : 0;
	else
		avg = count ? total / count : 0;
	if (m->kind == FPT_V_AVG) {
		print_int(out, m->is_signed, avg, div);
		return;
	}
	fputs(fmt == FPT_FMT_TEXT ? "count " : "{\"count\": ", out);
	print_int(out, m->is_signed, count, 1);
	fputs(fmt == FPT_FMT_TEXT ? ", average " : ", \"average\": ", out);
	print_int(out, m->is_signed, avg, div);
	fputs(fmt == FPT_FMT_TEXT ? ", total " : ", \"total\": ", out);
	print_int(out, m->is_signed, total, 1);
	if (fmt == FPT_FMT_JSON)
		fputc('}', out);
}

/* ---- Histograms ------------------------------------------------------------ */

#define BAR_WIDTH 52

/* The lower bound of hist bucket index (> 2^(k+1)): "2", "1K", "8E". */
static void hist_label(char *buf, size_t len, int index, int bits)
{
	uint32_t n = 1U << bits, interval = (uint32_t)index & (n - 1);
	uint32_t power = ((uint32_t)index >> bits) - 1, decade = power / 10;

	power -= 10 * decade;
	snprintf(buf, len, "%u%.*s", (1U << power) * (n + interval),
		 decade ? 1 : 0, &"\0KMGTPE"[decade]);
}

/* lhist bounds: K and M suffixes only when step is a multiple of 1024. */
static void lhist_label(char *buf, size_t len, int64_t v, int64_t step)
{
	if (step % 1024 || !v || (v % 1024))
		snprintf(buf, len, "%lld", (long long)v);
	else if (v % (1024 * 1024) == 0)
		snprintf(buf, len, "%lldM", (long long)(v / (1024 * 1024)));
	else
		snprintf(buf, len, "%lldK", (long long)(v / 1024));
}

static void hist_header(char *buf, size_t len, const struct fpt_map_view *m, int64_t i)
{
	char lo[32], hi[32];

	if (m->kind == FPT_V_HIST) {
		if (i == 0) {
			snprintf(buf, len, "(..., 0)");
		} else if (i <= (2 << m->hist_bits)) {
			snprintf(buf, len, "[%lld]", (long long)(i - 1));
		} else {
			hist_label(lo, sizeof(lo), (int)i - 1, m->hist_bits);
			hist_label(hi, sizeof(hi), (int)i, m->hist_bits);
			snprintf(buf, len, "[%s, %s)", lo, hi);
		}
		return;
	}
	if (i == 0) {
		lhist_label(lo, sizeof(lo), m->lmin, m->lstep);
		snprintf(buf, len, "(..., %s)", lo);
	} else if (i == fpt_lhist_nbuckets(m->lmin, m->lmax, m->lstep) - 1) {
		lhist_label(lo, sizeof(lo), m->lmax, m->lstep);
		snprintf(buf, len, "[%s, ...)", lo);
	} else {
		lhist_label(lo, sizeof(lo), (i - 1) * m->lstep + m->lmin, m->lstep);
		lhist_label(hi, sizeof(hi), i * m->lstep + m->lmin, m->lstep);
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

/* The JSON bounds of bucket i: "\"min\": 2, \"max\": 3, " and the like. */
static void hist_bounds_json(FILE *out, const struct fpt_map_view *m, int64_t i)
{
	int64_t nb = (int64_t)nbuckets(m), k = m->hist_bits, n = (int64_t)1 << k;

	if (m->kind == FPT_V_LHIST) {
		if (i == 0)
			fprintf(out, "\"max\": %lld, ", (long long)(m->lmin - 1));
		else if (i == nb - 1)
			fprintf(out, "\"min\": %lld, ", (long long)m->lmax);
		else
			fprintf(out, "\"min\": %lld, \"max\": %lld, ",
				(long long)((i - 1) * m->lstep + m->lmin),
				(long long)(i * m->lstep + m->lmin - 1));
	} else if (i == 0) {
		fputs("\"max\": -1, ", out);
	} else if (i <= (2 << k)) {
		fprintf(out, "\"min\": %lld, \"max\": %lld, ", (long long)(i - 1),
			(long long)(i - 1));
	} else {
		uint64_t lo = (1ULL << (((i - 1) >> k) - 1)) * (uint64_t)(n + ((i - 1) & (n - 1)));
		uint64_t hi = (1ULL << ((i >> k) - 1)) * (uint64_t)(n + (i & (n - 1))) - 1;

		fprintf(out, "\"min\": %lld, \"max\": %lld, ", (long long)lo, (long long)hi);
	}
}

/* The first and last non-empty buckets and the largest count; false if none. */
static bool hist_range(const struct fpt_map_view *m, const uint64_t *b,
		       size_t *first, size_t *last, uint64_t *max)
{
	bool any = false;

	*max = 0;
	for (size_t i = 0; i < nbuckets(m); i++) {
		if (!b[i])
			continue;
		if (!any)
			*first = i;
		*last = i;
		any = true;
		if (b[i] > *max)
			*max = b[i];
	}
	return any;
}

static void print_hist_text(FILE *out, const struct fpt_map_view *m,
			    const uint64_t *b, uint32_t div)
{
	size_t first, last;
	uint64_t max;
	char header[80];

	if (!hist_range(m, b, &first, &last, &max))
		return;
	if (m->kind == FPT_V_LHIST)
		div = 1;
	for (size_t i = first; i <= last; i++) {
		int bar = (int)((float)b[i] / (float)max * BAR_WIDTH);

		hist_header(header, sizeof(header), m, (int64_t)i);
		fprintf(out, "%-16s%8llu |%.*s%*s|\n", header,
			(unsigned long long)(b[i] / div), bar,
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
			BAR_WIDTH - bar, "");
	}
}

static void print_hist_json(FILE *out, const struct fpt_map_view *m,
			    const uint64_t *b, uint32_t div)
{
	size_t first, last;
	uint64_t max;

	if (m->kind == FPT_V_LHIST)
		div = 1;
	fputc('[', out);
	if (hist_range(m, b, &first, &last, &max)) {
		for (size_t i = first; i <= last; i++) {
			fputs(i > first ? ", {" : "{", out);
			hist_bounds_json(out, m, (int64_t)i);
			fprintf(out, "\"count\": %llu}", (unsigned long long)(b[i] / div));
		}
	}
	fputc(']', out);
}

/* ---- Whole maps ------------------------------------------------------------- */

static bool is_hist(const struct fpt_map_view *m)
{
	return m->kind == FPT_V_HIST || m->kind == FPT_V_LHIST;
}

static bool is_stats(const struct fpt_map_view *m)
{
	return m->kind == FPT_V_AVG || m->kind == FPT_V_STATS;
}

static void print_value(FILE *out, enum fpt_format fmt, const struct fpt_map_view *m,
			const struct fpt_entry *e, uint32_t div)
{
	if (is_hist(m) && fmt == FPT_FMT_TEXT)
		print_hist_text(out, m, e->v.buckets, div);
	else if (is_hist(m))
		print_hist_json(out, m, e->v.buckets, div);
	else if (is_stats(m))
		print_stats(out, fmt, m, e, div);
	else
		print_scalar(out, fmt, m, e, div);
}

/* The entries to print: all, or the last top after sorting. */
static size_t first_shown(const struct fpt_map_view *m, uint32_t top)
{
	if (!top || m->kind == FPT_V_STATS || m->n <= top)
		return 0;
	return m->n - top;
}

static void print_text(FILE *out, const struct fpt_map_view *m, uint32_t top, uint32_t div)
{
	for (size_t i = first_shown(m, top); i < m->n; i++) {
		if (i > first_shown(m, top))
			fputc('\n', out);
		print_key_sep(out, FPT_FMT_TEXT, m, &m->entries[i]);
		if (is_hist(m))
			fputc('\n', out);
		print_value(out, FPT_FMT_TEXT, m, &m->entries[i], div);
	}
	fputs(is_stats(m) ? "\n\n" : "\n", out);
}

static void print_json(FILE *out, const struct fpt_map_view *m, uint32_t top, uint32_t div)
{
	if (!m->n)
		return;
	fprintf(out, "{\"type\": \"%s\", \"data\": {\"",
		is_hist(m) ? "hist" : is_stats(m) ? "stats" : "map");
	fpt_json_escape(out, m->name);
	fputs(m->nkeys ? "\": {" : "\": ", out);
	for (size_t i = first_shown(m, top); i < m->n; i++) {
		if (i > first_shown(m, top))
			fputs(", ", out);
		print_key_sep(out, FPT_FMT_JSON, m, &m->entries[i]);
		print_value(out, FPT_FMT_JSON, m, &m->entries[i], div);
	}
	fputs(m->nkeys ? "}}}\n" : "}}\n", out);
}

static bool valid_view(const struct fpt_map_view *m)
{
	if (!m->name || (m->n && !m->entries) || m->nkeys < 0)
		return false;
	if (m->kind == FPT_V_HIST)
		return m->hist_bits >= 0 && m->hist_bits <= FPT_HIST_MAX_BITS;
	if (m->kind == FPT_V_LHIST)
		return m->lstep > 0 && m->lmin < m->lmax;
	return true;
}

int fpt_print_map(FILE *out, enum fpt_format fmt, struct fpt_map_view *m,
		  uint32_t top, uint32_t div)
{
	if (!valid_view(m))
		return -1;
	fpt_sort_entries(m);
	if (!div)
		div = 1;
	if (fmt == FPT_FMT_JSON)
		print_json(out, m, top, div);
	else
		print_text(out, m, top, div);
	return 0;
}
