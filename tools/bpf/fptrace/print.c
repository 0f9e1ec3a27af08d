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

/*
 * The buckets of hist(v, k), with n = 2^k buckets a power of two (k = 0
 * for hist(v)), and the row label each prints with:
 *
 *   bucket 0              v < 0                          "(..., 0)"
 *   buckets 1 .. 2n       the single value v = i - 1      "[v]"
 *   then, for each power of two p from k + 1 to 62, the values
 *   [2^p, 2^(p+1)) cut into n buckets of one width w = 2^(p - k):
 *                         [2^p + j * w, 2^p + (j + 1) * w), j = 0 .. n - 1
 *
 * so 1 + 2n + (62 - k) * n buckets, the last one ending at 2^63.
 *
 * A bound b of a bucket of the third kind is printed in the largest unit
 * 1024^d (1, K, M, G, T, P, E) that is not above the width of the bucket
 * starting at b, which always divides b: as "b / 1024^d" followed by the
 * unit's letter. That width is 2^(floor(log2 b) - k), the end of a power's
 * last bucket starting the next power's first one. With hist(v) every
 * bound is a power of two, so 512 prints as "512" and 2048 as "2K"; with
 * hist(v, 1), 2^20 starts a bucket of width 2^19 and prints as "1024K".
 */
static const char *const unit_letter[] = { "", "K", "M", "G", "T", "P", "E" };

static int log2_floor(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

int fpt_hist_nbuckets(int bits)
{
	int n = 1 << bits;

	return 1 + 2 * n + (62 - bits) * n;
}

int fpt_hist_index(int64_t v, int bits)
{
	int64_t n = (int64_t)1 << bits, lo;
	int p;

	if (v < 0)
		return 0;
	if (v < 2 * n)
		return (int)v + 1;
	p = log2_floor((uint64_t)v);
	lo = (int64_t)1 << p;
	return (int)(1 + 2 * n + (p - bits - 1) * n + (v - lo) / (lo >> bits));
}

/* The values [*lo, *end) of hist bucket i, a bucket of the third kind. */
static void hist_bucket(int64_t i, int bits, uint64_t *lo, uint64_t *end)
{
	int64_t n = (int64_t)1 << bits, r = i - 1 - 2 * n;
	int p = bits + 1 + (int)(r / n);
	uint64_t w = 1ULL << (p - bits);

	*lo = (1ULL << p) + (uint64_t)(r % n) * w;
	*end = *lo + w;
}

/* A bound of a hist bucket of the third kind: "768", "1K", "1536K", "8E". */
static void hist_bound(char *buf, size_t len, uint64_t b, int bits)
{
	int d = (log2_floor(b) - bits) / 10;	/* 1024^d = 2^(10 d) */

	snprintf(buf, len, "%llu%s", (unsigned long long)(b >> (10 * d)), unit_letter[d]);
}

/*
 * lhist(v, min, max, step): bucket 0 holds v < min ("(..., min)"); bucket
 * i from 1 holds [min + (i - 1) * step, min + i * step); the last one,
 * 1 + (max - min) / step, holds v >= max ("[max, ...)"). A step that is a
 * multiple of 1024 prints each non-zero bound b in the largest of the
 * units K (1024) and M (1024 * 1024) that divides b exactly, if one does;
 * other bounds print in full.
 */
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

static void lhist_bound(char *buf, size_t len, int64_t b, int64_t step)
{
	int d = b && !(step % 1024) ? 2 : 0;	/* the largest unit tried: M */

	while (d && b % (1LL << (10 * d)))
		d--;
	snprintf(buf, len, "%lld%s", (long long)(b / (1LL << (10 * d))), unit_letter[d]);
}

/* The lower bound of lhist bucket i, 1 <= i < the last one. */
static int64_t lhist_lo(const struct fpt_map_view *m, int64_t i)
{
	return m->lmin + (i - 1) * m->lstep;
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

/* The row label of bucket i of a hist: "(..., 0)", "[3]", "[2K, 4K)". */
static void hist_header(char *buf, size_t len, int64_t i, int bits)
{
	char lo[32], end[32];
	uint64_t l, e;

	if (i == 0) {
		snprintf(buf, len, "(..., 0)");
	} else if (i <= (2 << bits)) {
		snprintf(buf, len, "[%lld]", (long long)(i - 1));
	} else {
		hist_bucket(i, bits, &l, &e);
		hist_bound(lo, sizeof(lo), l, bits);
		hist_bound(end, sizeof(end), e, bits);
		snprintf(buf, len, "[%s, %s)", lo, end);
	}
}

/* The row label of bucket i of an lhist: "(..., 0)", "[1K, 2K)", "[4K, ...)". */
static void lhist_header(char *buf, size_t len, const struct fpt_map_view *m, int64_t i)
{
	char lo[32], end[32];

	if (i == 0) {
		lhist_bound(lo, sizeof(lo), m->lmin, m->lstep);
		snprintf(buf, len, "(..., %s)", lo);
	} else if (i == fpt_lhist_nbuckets(m->lmin, m->lmax, m->lstep) - 1) {
		lhist_bound(lo, sizeof(lo), m->lmax, m->lstep);
		snprintf(buf, len, "[%s, ...)", lo);
	} else {
		lhist_bound(lo, sizeof(lo), lhist_lo(m, i), m->lstep);
		lhist_bound(end, sizeof(end), lhist_lo(m, i + 1), m->lstep);
		snprintf(buf, len, "[%s, %s)", lo, end);
	}
}

/* The JSON bounds of bucket i, the last value included: "\"min\": 2, \"max\": 3, ". */
static void hist_bounds_json(FILE *out, const struct fpt_map_view *m, int64_t i)
{
	int64_t last = (int64_t)nbuckets(m) - 1, lo, max;
	uint64_t l, e;

	if (m->kind == FPT_V_LHIST) {
		if (i == 0) {
			fprintf(out, "\"max\": %lld, ", (long long)(m->lmin - 1));
			return;
		}
		if (i == last) {
			fprintf(out, "\"min\": %lld, ", (long long)m->lmax);
			return;
		}
		lo = lhist_lo(m, i);
		max = lhist_lo(m, i + 1) - 1;
	} else if (i == 0) {
		fputs("\"max\": -1, ", out);
		return;
	} else if (i <= (2 << m->hist_bits)) {
		lo = i - 1;
		max = i - 1;
	} else {
		hist_bucket(i, m->hist_bits, &l, &e);
		lo = (int64_t)l;
		max = (int64_t)(e - 1);
	}
	fprintf(out, "\"min\": %lld, \"max\": %lld, ", (long long)lo, (long long)max);
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

		if (m->kind == FPT_V_HIST)
			hist_header(header, sizeof(header), (int64_t)i, m->hist_bits);
		else
			lhist_header(header, sizeof(header), m, (int64_t)i);
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
