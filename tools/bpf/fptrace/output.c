// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * output.c: what the runtime prints, from what the BPF side wrote.
 *
 * Takes ring buffer records of printf events and the fds of the maps (with
 * their struct fpt_map_info layouts, see fptrace.h); gives printf's text,
 * and map contents read, reduced across CPUs and turned into a struct
 * fpt_map_view for fpt_print_map(). Values that are kernel addresses (func,
 * ksym), probe ids and stack ids are named here from /proc/kallsyms and
 * the stack maps: func as "vfs_read", probe as "fprobe:vfs_read", a kstack
 * as bpftrace prints one (a line a frame: "sym+off" indented by 8, or
 * for kstack(perf) a tab, the address in hex, a space and "sym+off").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fptrace.h"

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

/* ---- Naming values ------------------------------------------------------------ */

/*
 * The kernel's symbols. The runtime reads them before attaching when the
 * program can print a named value (fptrace's own reads of /proc/kallsyms
 * must not go through its probes), and not at all otherwise: the file
 * takes a fifth of a second of instructions to read and parse. Read here
 * only if a value needs a name that the runtime did not foresee.
 */
static const struct fpt_ksyms *out_ksyms(struct fpt_out *o)
{
	if (!o->ksyms)
		o->ksyms = fpt_ksyms_load();
	return o->ksyms;
}

/* "vfs_read", or the address in hex when no symbol holds it. */
static char *ksym_str(struct fpt_out *o, uint64_t addr)
{
	uint64_t off;
	const char *n = fpt_ksym(out_ksyms(o), addr, &off);
	char *r;

	if (n ? asprintf(&r, "%s", n) < 0 : asprintf(&r, "0x%llx", (unsigned long long)addr) < 0)
		abort();
	return r;
}

/* "fprobe:vfs_read": the provider of the probe's first spec of that side. */
static char *probe_str(struct fpt_out *o, uint64_t v)
{
	int index = (int)(v >> 49), exit = (v >> 48) & 1;
	uint64_t addr = v | 0xffff000000000000ull;
	const char *prov = exit ? "fretprobe" : "fprobe";
	char *fn = ksym_str(o, addr), *r;

	if (index < o->prog->nprobes) {
		const struct fpt_probe *p = &o->prog->probes[index];

		for (int i = p->nspecs - 1; i >= 0; i--) {
			bool fret = p->specs[i].kind == FPT_P_FRETPROBE;

			if (fret == exit)
				prov = p->specs[i].provider;
		}
	}
	if (asprintf(&r, "%s:%s", prov, fn) < 0)
		abort();
	free(fn);
	return r;
}

/* The fd of the stack map of t's frame count (types.c made one a count). */
static int stack_fd(const struct fpt_out *o, const struct fpt_type *t)
{
	for (int i = 0; o->map_fds && i < o->s->nmaps; i++)
		if (o->s->maps[i].role == FPT_MAP_STACKS &&
		    o->s->maps[i].value_size == t->frames * 8)
			return o->map_fds[i];
	return -1;
}

/*
 * A kstack as bpftrace prints it: "\n", then a line a frame:
 * "        sym+off\n", or "\tADDR sym+off\n" for kstack(perf).
 */
static char *kstack_str(struct fpt_out *o, const struct fpt_type *t, int64_t id)
{
	uint64_t ips[FPT_STACK_DEPTH], off;
	int fd = stack_fd(o, t);
	char *r = NULL, sym[256];
	size_t len = 0;
	FILE *f = open_memstream(&r, &len);

	if (!f)
		abort();
	memset(ips, 0, sizeof(ips));
	fputc('\n', f);
	if (id >= 0 && fd >= 0 && !bpf_map_lookup_elem(fd, &(__u32){ id }, ips)) {
		for (unsigned int i = 0; i < t->frames && i < FPT_STACK_DEPTH && ips[i]; i++) {
			const char *n = fpt_ksym(out_ksyms(o), ips[i], &off);

			if (n)
				snprintf(sym, sizeof(sym), "%s+%llu", n, (unsigned long long)off);
			else
				snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)ips[i]);
			if (t->stack_mode == FPT_STACK_PERF)
				fprintf(f, "\t%llx %s\n", (unsigned long long)ips[i], sym);
			else
				fprintf(f, "        %s\n", sym);
		}
	}
	fclose(f);
	return r;
}

/* The text of a value of type t (ksym, probe, kstack); NULL for others. */
static char *named_value(struct fpt_out *o, const struct fpt_type *t, uint64_t v)
{
	switch (t->kind) {
	case FPT_TY_KSYM:
		return ksym_str(o, v);
	case FPT_TY_PROBE:
		return probe_str(o, v);
	case FPT_TY_KSTACK:
		return kstack_str(o, t, (int64_t)v);
	default:
		return NULL;
	}
}

static bool is_named(const struct fpt_type *t)
{
	return t->kind == FPT_TY_KSYM || t->kind == FPT_TY_PROBE || t->kind == FPT_TY_KSTACK;
}

/* ---- printf ----------------------------------------------------------------- */

/* One conversion: spec is "%-8" and the like, without length nor type. */
static void put_conv(FILE *f, struct fpt_out *o, char *spec, char conv,
		     const struct fpt_event_arg *a, const uint8_t *rec)
{
	const uint8_t *p = rec + a->off;
	char *s = NULL, buf[FPT_STR_LEN + 1];
	uint64_t v;

	if (a->type.kind == FPT_TY_STR) {
		size_t n = a->type.size < FPT_STR_LEN ? a->type.size : FPT_STR_LEN;

		memcpy(buf, p, n);
		buf[n] = 0;
		strcat(spec, "s");
		fprintf(f, spec, buf);
		return;
	}
	memcpy(&v, p, 8);
	s = named_value(o, &a->type, v);
	if (s || conv == 's') {
		strcat(spec, "s");
		fprintf(f, spec, s ? s : "");
	} else if (conv == 'c') {
		strcat(spec, "c");
		fprintf(f, spec, (int)v);
	} else if (conv == 'p') {
		strcat(spec, "p");
		fprintf(f, spec, (void *)(uintptr_t)v);
	} else {
		size_t n = strlen(spec);

		spec[n] = 'l';
		spec[n + 1] = 'l';
		spec[n + 2] = conv;
		spec[n + 3] = 0;
		fprintf(f, spec, (long long)v);
	}
	free(s);
}

/* The text of printf event ev (format and record) into f. */
static void format_printf(FILE *f, struct fpt_out *o, const struct fpt_event *ev,
			  const uint8_t *rec)
{
	const char *s = ev->fmt, *end = s + ev->fmt_len;
	int arg = 0;

	while (s < end) {
		char spec[48];
		size_t n;

		if (*s != '%' || s + 1 >= end) {
			fputc(*s++, f);
			continue;
		}
		if (s[1] == '%') {
			fputc('%', f);
			s += 2;
			continue;
		}
		n = 1 + strspn(s + 1, "-+ #0");
		n += strspn(s + n, "0123456789");
		if (s[n] == '.')
			n += 1 + strspn(s + n + 1, "0123456789");
		if (n > sizeof(spec) - 4)
			n = sizeof(spec) - 4;
		memcpy(spec, s, n);
		spec[n] = 0;
		s += n;
		s += strspn(s, "hlzjt");
		if (s < end && arg < ev->nargs)
			put_conv(f, o, spec, *s, &ev->args[arg++], rec);
		s++;
	}
}

/* time(FORMAT): the local wall-clock time, as strftime() prints it. */
static void format_time(FILE *f, const struct fpt_event *ev)
{
	char buf[512];
	struct tm tm;
	time_t now = time(NULL);

	if (localtime_r(&now, &tm) && strftime(buf, sizeof(buf), ev->fmt, &tm))
		fputs(buf, f);
}

void fpt_out_printf(struct fpt_out *o, const struct fpt_event *ev, const void *rec)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	if (ev->time)
		format_time(f, ev);
	else
		format_printf(f, o, ev, rec);
	fclose(f);
	if (o->fmt == FPT_FMT_JSON) {
		fprintf(o->f, "{\"type\": \"%s\", \"data\": \"", ev->time ? "time" : "printf");
		fpt_json_escape(o->f, text);
		fputs("\"}\n", o->f);
	} else {
		fwrite(text, 1, len, o->f);
	}
	free(text);
}

/* ---- Maps ------------------------------------------------------------------ */

/* A map being read: its keys and values, and what the view points to. */
struct reader {
	struct fpt_out *o;
	const struct fpt_map_info *m;
	int fd, ncpus;
	size_t vsize;			/* one CPU's value, rounded to 8 */
	uint8_t *val;
	struct fpt_map_view view;
	size_t cap;
	uint8_t **hkeys;		/* hist: each entry's keys, to group by */
	void **owned;			/* strings and buckets to free */
	size_t nowned, ocap;
};

static void *own(struct reader *r, void *p)
{
	if (r->nowned == r->ocap) {
		r->ocap = r->ocap ? 2 * r->ocap : 64;
		r->owned = realloc(r->owned, r->ocap * sizeof(*r->owned));
		if (!r->owned)
			abort();
	}
	r->owned[r->nowned++] = p;
	return p;
}

static bool is_percpu(const struct fpt_map_info *m)
{
	return m->bpf_type == BPF_MAP_TYPE_PERCPU_HASH ||
		m->bpf_type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

static struct fpt_entry *new_entry(struct reader *r)
{
	if (r->view.n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->view.entries = realloc(r->view.entries, r->cap * sizeof(struct fpt_entry));
		r->hkeys = realloc(r->hkeys, r->cap * sizeof(*r->hkeys));
		if (!r->view.entries || !r->hkeys)
			abort();
	}
	memset(&r->view.entries[r->view.n], 0, sizeof(struct fpt_entry));
	r->hkeys[r->view.n] = NULL;
	return &r->view.entries[r->view.n++];
}

/* The keys of key as the view holds them (named values as strings). */
static struct fpt_key *decode_keys(struct reader *r, const uint8_t *key)
{
	const struct fpt_map_info *m = r->m;
	struct fpt_key *k = own(r, xcalloc(m->nkeys, sizeof(*k)));

	for (int i = 0; i < m->nkeys; i++) {
		const struct fpt_type *t = &m->keys[i];
		const uint8_t *p = key + m->key_off[i];
		uint64_t v;
		char *s;

		if (t->kind == FPT_TY_STR) {
			k[i].kind = FPT_K_STR;
			k[i].u.s = own(r, strndup((const char *)p, t->size));
			continue;
		}
		memcpy(&v, p, 8);
		s = named_value(r->o, t, v);
		if (s) {
			k[i].kind = FPT_K_STR;
			k[i].u.s = own(r, s);
		} else {
			k[i].kind = t->is_signed ? FPT_K_INT : FPT_K_UINT;
			k[i].u.u = v;
		}
	}
	return k;
}

/* CPU c's copy of the value. */
static const uint8_t *cpu_val(const struct reader *r, int c)
{
	return r->val + (size_t)c * r->vsize;
}

static uint64_t u64_at(const uint8_t *p, int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/* min or max over the CPUs that set one; false if none did. */
static bool reduce_minmax(const struct reader *r, struct fpt_entry *e)
{
	bool min = r->m->kind == FPT_V_MIN, sign = r->view.is_signed, any = false;

	for (int c = 0; c < r->ncpus; c++) {
		int64_t v = (int64_t)u64_at(cpu_val(r, c), 0);

		if (!u64_at(cpu_val(r, c), 8))
			continue;
		if (!any || (sign ? (min ? v < e->v.i : v > e->v.i) :
			     (min ? (uint64_t)v < e->v.u : (uint64_t)v > e->v.u)))
			e->v.i = v;
		any = true;
	}
	return any;
}

/* e's value from r->val; false when it is an array's unset element. */
static bool reduce(struct reader *r, struct fpt_entry *e)
{
	uint64_t a = 0, b = 0;

	if (r->view.kind == FPT_V_STR && r->m->kind == FPT_V_INT) {	/* named */
		e->v.s = own(r, named_value(r->o, &r->m->val, u64_at(r->val, 0)));
		return true;
	}
	switch (r->m->kind) {
	case FPT_V_STR:
		e->v.s = own(r, strndup((const char *)r->val, r->m->value_size));
		return true;
	case FPT_V_MIN: case FPT_V_MAX:
		return reduce_minmax(r, e);
	default:
		break;
	}
	for (int c = 0; c < r->ncpus; c++) {
		a += u64_at(cpu_val(r, c), 0);
		if (r->m->kind == FPT_V_AVG || r->m->kind == FPT_V_STATS)
			b += u64_at(cpu_val(r, c), 8);
	}
	if (r->m->kind == FPT_V_AVG || r->m->kind == FPT_V_STATS) {
		e->v.stats.count = (int64_t)a;
		e->v.stats.total = (int64_t)b;
	} else {
		e->v.u = a;
	}
	/* a per-CPU array's element counts once an aggregation touched it */
	return a || b || r->m->bpf_type != BPF_MAP_TYPE_PERCPU_ARRAY;
}

static size_t view_buckets(const struct reader *r)
{
	if (r->m->kind == FPT_V_HIST)
		return fpt_hist_nbuckets(r->m->hist_bits);
	return (size_t)fpt_lhist_nbuckets(r->m->lmin, r->m->lmax, r->m->lstep);
}

/*
 * Add a hist or lhist element: its bucket under the entry of its keys.
 * Without keys the map is an array whose u32 key is the bucket; a bucket
 * that no event reached is left out there.
 */
static void add_bucket(struct reader *r, const uint8_t *key)
{
	bool array = r->m->bpf_type == BPF_MAP_TYPE_PERCPU_ARRAY;
	size_t klen = array ? 0 : r->m->key_size - 8, nb = view_buckets(r), i;
	uint64_t b, sum = 0;
	struct fpt_entry *e = NULL;
	uint32_t idx;

	if (array) {
		memcpy(&idx, key, sizeof(idx));
		b = idx;
	} else {
		b = u64_at(key, klen);
	}
	for (int c = 0; c < r->ncpus; c++)
		sum += u64_at(cpu_val(r, c), 0);
	if (array && !sum)
		return;
	for (i = 0; i < r->view.n; i++)
		if (!memcmp(r->hkeys[i], key, klen))
			e = &r->view.entries[i];
	if (!e) {
		e = new_entry(r);
		r->hkeys[r->view.n - 1] = own(r, xcalloc(1, klen));
		memcpy(r->hkeys[r->view.n - 1], key, klen);
		e->keys = decode_keys(r, key);
		e->v.buckets = own(r, xcalloc(nb, sizeof(uint64_t)));
	}
	if (b < nb)
		((uint64_t *)e->v.buckets)[b] += sum;
}

/* Read every element of the map into r->view. */
static int read_map(struct reader *r)
{
	const struct fpt_map_info *m = r->m;
	uint8_t *key = xcalloc(1, m->key_size), *next = xcalloc(1, m->key_size);
	bool hist = m->kind == FPT_V_HIST || m->kind == FPT_V_LHIST;
	int err = bpf_map_get_next_key(r->fd, NULL, next);

	for (; !err; err = bpf_map_get_next_key(r->fd, key, next)) {
		struct fpt_entry *e;

		memcpy(key, next, m->key_size);
		if (bpf_map_lookup_elem(r->fd, key, r->val))
			continue;	/* deleted meanwhile */
		if (hist) {
			add_bucket(r, key);
			continue;
		}
		e = new_entry(r);
		if (!reduce(r, e)) {
			r->view.n--;
			continue;
		}
		e->keys = decode_keys(r, key);
	}
	free(key);
	free(next);
	return err == -ENOENT ? 0 : -1;
}

int fpt_out_map(struct fpt_out *o, int mi, int fd, uint32_t top, uint32_t div)
{
	const struct fpt_map_info *m = &o->s->maps[mi];
	struct reader r = { .o = o, .m = m, .fd = fd };
	int err;

	r.ncpus = is_percpu(m) ? libbpf_num_possible_cpus() : 1;
	r.vsize = is_percpu(m) ? (m->value_size + 7) & ~7u : m->value_size;
	r.val = xcalloc(r.ncpus, r.vsize);
	r.view.name = m->name;
	/* ksym, probe and kstack values print as their names, as keys do */
	r.view.kind = m->kind == FPT_V_INT && is_named(&m->val) ? FPT_V_STR : m->kind;
	r.view.is_signed = m->val.kind == FPT_TY_INT && m->val.is_signed;
	r.view.nkeys = m->nkeys;
	r.view.hist_bits = m->hist_bits;
	r.view.lmin = m->lmin;
	r.view.lmax = m->lmax;
	r.view.lstep = m->lstep;
	err = read_map(&r);
	if (!err && r.view.n)		/* bpftrace prints nothing for an empty map */
		err = fpt_print_map(o->f, o->fmt, &r.view, top, div);
	for (size_t i = 0; i < r.nowned; i++)
		free(r.owned[i]);
	free(r.owned);
	free(r.hkeys);
	free(r.view.entries);
	free(r.val);
	return err;
}

void fpt_clear_map(const struct fpt_map_info *m, int fd)
{
	uint8_t *key = xcalloc(1, m->key_size), *next = xcalloc(1, m->key_size);
	size_t vsize = is_percpu(m) ? ((m->value_size + 7) & ~7u) *
		libbpf_num_possible_cpus() : m->value_size;
	void *zero = xcalloc(1, vsize);

	if (m->bpf_type == BPF_MAP_TYPE_ARRAY || m->bpf_type == BPF_MAP_TYPE_PERCPU_ARRAY) {
		for (__u32 i = 0; i < m->max_entries; i++)
			bpf_map_update_elem(fd, &i, zero, BPF_ANY);
	} else {
		while (!bpf_map_get_next_key(fd, NULL, next))
			if (bpf_map_delete_elem(fd, next))
				break;
	}
	free(zero);
	free(key);
	free(next);
}
