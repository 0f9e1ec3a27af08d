// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * types.c: the type pass.
 *
 * Takes the AST of parser.c, the kernel's BTF and the names of the
 * functions that can be traced (available_filter_functions); gives a
 * struct fpt_sema and an AST whose every expression has its type:
 *
 * - each fprobe/fretprobe spec is matched (fnmatch globs) against the
 *   names; a probe's entry specs make its entry part, its exit specs its
 *   exit part, and parts on the same set of functions share one link
 *   (a session when it has both, or when an exit part reads latency);
 * - args.NAME, argN and retval are typed from the functions' BTF (integer
 *   size and signedness, pointers as 8-byte values that str() reads, and
 *   that -> reads the fields of); args.NAME gets its argument number
 *   (u.field.argno), a member (p->NAME, s.NAME) its offset in the struct
 *   of its base (u.field.off, through anonymous members too) and its type:
 *   integers keep their size and signedness, pointers stay pointers, char
 *   arrays are strings, and an embedded struct (RECORD) is only the base
 *   of a '.': bitfields, other arrays and whole structs are refused;
 * - $variables are scoped to a part (a probe's body on one link, as
 *   bpftrace scopes them to a probe), but for the session carry-over: a
 *   $variable that an exit part reads before setting it, and that an entry
 *   part of its link sets, is carried in the link's session data
 *   (fpt_link.svars; the entry timestamp of latency after them, 64 bytes
 *   at most). The entry parts that set it must agree on its type;
 * - a probe with both fprobe and fretprobe specs is typed once a side;
 *   its expressions must get the same types on both;
 * - maps get their keys and value from their first use; later uses must
 *   agree (fpt_map_info), and the internal maps (ring buffer, stack
 *   traces) are added when a probe needs them.
 *
 * Parts are typed in source order, but an exit part comes after the entry
 * parts of its link, so that it sees their variables. Messages follow
 * bpftrace's wording where bpftrace has one.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>
#include <linux/btf.h>
#include <bpf/btf.h>

#include "fptrace.h"

#define TYPE_NAME_MAX	64	/* "struct bpf_fentry_test_t *" and the like */

struct var {
	char *name;
	struct fpt_type type;
	bool conflict;		/* lvars: entry parts set it with other types */
};

struct vars {
	struct var *v;
	int n, cap;
};

/* The types of a probe's expressions in walk order, from its entry part. */
struct snap {
	struct fpt_type *v;
	int n, pos;
	bool check;		/* the exit part: compare with v */
};

/* The state of the pass; link-wide entry variables are in lvars[link]. */
struct tctx {
	struct fpt_diag *d;
	const struct btf *btf;
	struct fpt_sema *s;
	struct vars *lvars;
	bool *session_reported;
	/* the part being typed */
	const struct fpt_probe *probe;
	enum fpt_probe_kind kind;
	int link;		/* -1 for BEGIN, END, interval */
	struct vars scope;
	bool events;
	bool stacks[FPT_STACK_DEPTH + 1];	/* kstack(N) for each N in use */
	bool learning;		/* the silent passes of learn_maps() */
	struct snap *snaps;	/* by probe: a mixed probe's entry types */
	struct pending *pend;	/* map reads to check at the end */
	int npend;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static char *xstrdup(const char *s)
{
	char *r = strdup(s);

	if (!r)
		abort();
	return r;
}

static struct fpt_type ty_int(unsigned int size, bool is_signed)
{
	return (struct fpt_type){ .kind = FPT_TY_INT, .size = size, .is_signed = is_signed };
}

static struct fpt_type ty_of(enum fpt_type_kind k, unsigned int size)
{
	return (struct fpt_type){ .kind = k, .size = size };
}

static bool is_scalar(const struct fpt_type *t)
{
	return t->kind == FPT_TY_INT || t->kind == FPT_TY_PTR;
}

/* A value that fits a variable, a map key or value, or a printf argument. */
static bool is_value(const struct fpt_type *t)
{
	return t->kind != FPT_TY_NONE && t->kind != FPT_TY_VOID && t->kind != FPT_TY_AGG;
}

static const char *const agg_names[] = {
	"none", "count", "sum", "avg", "min", "max", "stats", "hist", "lhist",
};

/* The BTF of the last fpt_types(): the one that types' btf_id refer to. */
static const struct btf *names_btf;

/* The type behind typedefs and modifiers. */
static const struct btf_type *btf_skip(const struct btf *btf, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/* bpftrace's name of BTF type id: "struct file", "uint32", "void", "int8 *". */
static void btf_name(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *t = btf && id ? btf_skip(btf, &id) : NULL;
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	size_t used;

	if (!t || !id) {
		snprintf(buf, len, "void");
	} else if (btf_is_ptr(t)) {
		btf_name(btf, t->type, buf, len);
		used = strlen(buf);
		snprintf(buf + used, len - used, used && buf[used - 1] == '*' ? "*" : " *");
	} else if (btf_is_composite(t)) {
		snprintf(buf, len, "%s %s", btf_is_union(t) ? "union" : "struct",
			 n && *n ? n : "(anonymous)");
	} else if (btf_is_int(t) || btf_is_any_enum(t)) {
		snprintf(buf, len, "%sint%u", (btf_is_int(t) ?
			 btf_int_encoding(t) & BTF_INT_SIGNED : btf_kflag(t)) ? "" : "u",
			 t->size * 8);
	} else {
		snprintf(buf, len, "%s", n && *n ? n : "?");
	}
}

const char *fpt_type_name(const struct fpt_type *t, char *buf, size_t len)
{
	switch (t->kind) {
	case FPT_TY_INT:
		snprintf(buf, len, "%sint%u", t->is_signed ? "" : "u", t->size * 8);
		break;
	case FPT_TY_STR:
		snprintf(buf, len, "string[%u]", t->size);
		break;
	case FPT_TY_AGG:
		snprintf(buf, len, "%s_t", agg_names[t->agg]);
		break;
	case FPT_TY_PTR:
		if (t->btf_id < 0) {
			snprintf(buf, len, "pointer");
			break;
		}
		btf_name(names_btf, t->btf_id, buf, len);
		strncat(buf, buf[0] && buf[strlen(buf) - 1] == '*' ? "*" : " *",
			len - strlen(buf) - 1);
		break;
	case FPT_TY_RECORD:
		btf_name(names_btf, t->btf_id, buf, len);
		break;
	case FPT_TY_KSTACK:
		snprintf(buf, len, "kstack_%s_%u",
			 t->stack_mode == FPT_STACK_PERF ? "perf" : "bpftrace", t->frames);
		break;
	default:
		snprintf(buf, len, "%s", t->kind == FPT_TY_KSYM ? "ksym" :
			 t->kind == FPT_TY_PROBE ? "probe" : "none");
	}
	return buf;
}

/* The struct or union a pointer type points to (after typedefs), or 0. */
static __u32 ptr_target(const struct btf *btf, const struct fpt_type *t)
{
	__u32 id = t->btf_id > 0 ? t->btf_id : 0;

	return id && btf_skip(btf, &id) ? id : 0;
}

/*
 * Pointers to the same type (one whose functions disagree, btf_id -1, is
 * no other), the same struct or union: the fields read through them agree.
 */
static bool same_target(const struct fpt_type *a, const struct fpt_type *b)
{
	if (a->kind == FPT_TY_RECORD)
		return a->btf_id == b->btf_id;
	if (a->kind != FPT_TY_PTR)
		return true;
	if (a->btf_id < 0 || b->btf_id < 0)
		return a->btf_id == b->btf_id;
	return ptr_target(names_btf, a) == ptr_target(names_btf, b);
}

/* Same type for a variable, a map key or value: integers of any size agree. */
static bool same_type(const struct fpt_type *a, const struct fpt_type *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == FPT_TY_PTR || a->kind == FPT_TY_RECORD)
		return same_target(a, b);
	if (a->kind == FPT_TY_STR)
		return a->size == b->size;
	if (a->kind == FPT_TY_AGG)
		return a->agg == b->agg;
	/* as in bpftrace, kstack(5) and kstack(perf) are types of their own */
	if (a->kind == FPT_TY_KSTACK)
		return a->stack_mode == b->stack_mode && a->frames == b->frames;
	return true;
}

/* ---- BTF ------------------------------------------------------------------ */

/* The fptrace type of BTF type id (an argument or a return value). */
static struct fpt_type btf_to_type(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf_skip(btf, &id);
	struct fpt_type r = ty_int(8, false);

	if (!t || !id)
		return r;
	if (btf_is_int(t) && t->size <= 8 && !(t->size & (t->size - 1))) {
		r = ty_int(t->size, btf_int_encoding(t) & BTF_INT_SIGNED);
	} else if (btf_is_any_enum(t) && t->size <= 8) {
		r = ty_int(t->size, btf_kflag(t));
	} else if (btf_is_ptr(t)) {
		r = ty_of(FPT_TY_PTR, 8);
		r.btf_id = t->type;
	}
	return r;
}

/*
 * u, of the next function, agrees with t in size and signedness: a
 * pointer of both keeps its target if they point to the same type.
 */
static struct fpt_type agree(const struct btf *btf, const struct fpt_type *t,
			     struct fpt_type u)
{
	if (t->kind == FPT_TY_PTR &&
	    (t->btf_id < 0 || ptr_target(btf, t) != ptr_target(btf, &u)))
		u.btf_id = -1;
	return u;
}

/* The FUNC_PROTO of function name, or NULL when BTF does not know it. */
static const struct btf_type *func_proto(const struct btf *btf, const char *name)
{
	__s32 id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
	const struct btf_type *t;

	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

/* ---- Functions and links ----------------------------------------------- */

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_name(char ***v, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(name);
}

/*
 * Add the functions that spec names to v; false (reported) if none. A
 * name without a glob is looked up by bisection in funcs, which is sorted:
 * a script may list a thousand names, and comparing each with every
 * traceable function took most of fptrace's start-up. The scan below
 * still finds a name that bisection missed.
 */
static bool match_spec(struct tctx *c, const struct fpt_spec *sp,
		       const char *const *funcs, size_t nfuncs, char ***v, int *n)
{
	bool glob = has_glob(sp->target), found = false;
	const char *const *hit;

	if (!glob) {
		hit = bsearch(&sp->target, funcs, nfuncs, sizeof(*funcs), cmp_str);
		if (hit) {
			add_name(v, n, *hit);
			return true;
		}
	}
	for (size_t i = 0; i < nfuncs; i++) {
		if (glob ? fnmatch(sp->target, funcs[i], 0) : strcmp(sp->target, funcs[i]))
			continue;
		add_name(v, n, funcs[i]);
		found = true;
	}
	if (!found && glob)
		fpt_error(c->d, sp->loc, "pattern '%s' matches no traceable function", sp->target);
	else if (!found)
		fpt_error(c->d, sp->loc, "function '%s' is not traceable", sp->target);
	return found;
}

static bool same_funcs(const struct fpt_link *l, char **v, int n)
{
	if (l->nfuncs != n)
		return false;
	for (int i = 0; i < n; i++)
		if (strcmp(l->funcs[i], v[i]))
			return false;
	return true;
}

/* The link of function set v (taken over), made if new. */
static int link_for(struct fpt_sema *s, char **v, int n)
{
	struct fpt_link *l;

	qsort(v, n, sizeof(*v), cmp_str);
	for (int i = 0; i < s->nlinks; i++) {
		if (!same_funcs(&s->links[i], v, n))
			continue;
		for (int j = 0; j < n; j++)
			free(v[j]);
		free(v);
		return i;
	}
	s->links = xrealloc(s->links, (s->nlinks + 1) * sizeof(*l));
	l = &s->links[s->nlinks];
	memset(l, 0, sizeof(*l));
	l->funcs = v;
	l->nfuncs = n;
	return s->nlinks++;
}

static void add_index(int **v, int *n, int x)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = x;
}

/* Match every spec of probe p and put its parts on their links. */
static void probe_links(struct tctx *c, const struct fpt_probe *p,
			const char *const *funcs, size_t nfuncs)
{
	char **v[2] = { NULL, NULL };
	int n[2] = { 0, 0 };

	for (int i = 0; i < p->nspecs; i++) {
		const struct fpt_spec *sp = &p->specs[i];
		int x = sp->kind == FPT_P_FRETPROBE;

		if (sp->kind == FPT_P_FPROBE || sp->kind == FPT_P_FRETPROBE)
			match_spec(c, sp, funcs, nfuncs, &v[x], &n[x]);
	}
	for (int x = 0; x < 2; x++) {
		struct fpt_link *l;
		int li;

		if (!n[x]) {
			free(v[x]);
			continue;
		}
		li = link_for(c->s, v[x], n[x]);
		l = &c->s->links[li];
		if (x)
			add_index(&l->exit, &l->nexit, p->index);
		else
			add_index(&l->entry, &l->nentry, p->index);
	}
}

/* ---- Variables ------------------------------------------------------------ */

static struct var *var_find(struct vars *vs, const char *name)
{
	for (int i = 0; i < vs->n; i++)
		if (!strcmp(vs->v[i].name, name))
			return &vs->v[i];
	return NULL;
}

static struct var *var_add(struct vars *vs, const char *name, struct fpt_type t)
{
	if (vs->n == vs->cap) {
		vs->cap = vs->cap ? 2 * vs->cap : 8;
		vs->v = xrealloc(vs->v, vs->cap * sizeof(*vs->v));
	}
	vs->v[vs->n] = (struct var){ xstrdup(name), t, false };
	return &vs->v[vs->n++];
}

static void vars_free(struct vars *vs)
{
	for (int i = 0; i < vs->n; i++)
		free(vs->v[i].name);
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}

static struct fpt_svar *svar_find(struct fpt_link *l, const char *name)
{
	for (int i = 0; i < l->nsvars; i++)
		if (!strcmp(l->svars[i].name, name))
			return &l->svars[i];
	return NULL;
}

static unsigned int round8(unsigned int n)
{
	return (n + 7) & ~7u;
}

/* Bytes of session data link l needs; reports once when over 64. */
static void session_check(struct tctx *c, struct fpt_loc loc)
{
	struct fpt_link *l = &c->s->links[c->link];
	unsigned int n = l->nsvars ? l->svars[l->nsvars - 1].off +
		round8(l->svars[l->nsvars - 1].type.size) : 0;

	n += l->latency ? 8 : 0;
	if (n <= FPT_SESSION_MAX || c->session_reported[c->link])
		return;
	c->session_reported[c->link] = true;
	fpt_error(c->d, loc,
		  "session variables and latency need %u bytes, more than the %d bytes of fprobe.multi session data",
		  n, FPT_SESSION_MAX);
}

static void svar_add(struct tctx *c, const char *name, struct fpt_type t,
		     struct fpt_loc loc)
{
	struct fpt_link *l = &c->s->links[c->link];
	unsigned int off = l->nsvars ? l->svars[l->nsvars - 1].off +
		round8(l->svars[l->nsvars - 1].type.size) : 0;

	l->svars = xrealloc(l->svars, (l->nsvars + 1) * sizeof(*l->svars));
	l->svars[l->nsvars++] = (struct fpt_svar){ xstrdup(name), t, off };
	session_check(c, loc);
}

#define MIXED_HINT " (this probe has fprobe specs too: give them a probe of their own)"

static bool in_exit(const struct tctx *c)
{
	return c->kind == FPT_P_FRETPROBE;
}

static bool has_kind(const struct fpt_probe *p, enum fpt_probe_kind k)
{
	for (int i = 0; i < p->nspecs; i++)
		if (p->specs[i].kind == k)
			return true;
	return false;
}

/*
 * In an exit part, $name set by an entry part of the link is the session
 * variable (made on first use); false if there is none.
 */
static bool session_var(struct tctx *c, const char *name, struct fpt_loc loc,
			struct fpt_type *t)
{
	struct fpt_svar *sv;
	struct var *v;

	if (c->link < 0 || !in_exit(c))
		return false;
	sv = svar_find(&c->s->links[c->link], name);
	if (sv) {
		*t = sv->type;
		return true;
	}
	v = var_find(&c->lvars[c->link], name);
	if (!v)
		return false;
	if (v->conflict)
		fpt_error(c->d, loc,
			  "%s is set with different types by the entry probes of this function set: the exit probes cannot read it",
			  name);
	svar_add(c, name, v->type, loc);
	*t = v->type;
	return true;
}

/* The type of $name read at loc, or NONE (reported). */
static struct fpt_type var_read(struct tctx *c, const char *name, struct fpt_loc loc)
{
	struct var *v = var_find(&c->scope, name);
	struct fpt_type t;

	if (v)
		return v->type;
	if (session_var(c, name, loc, &t)) {
		var_add(&c->scope, name, t);
		return t;
	}
	fpt_error(c->d, loc, "Undefined or undeclared variable: %s", name);
	return ty_of(FPT_TY_NONE, 0);
}

static void type_mismatch(struct tctx *c, struct fpt_loc loc, const char *what,
			  const char *name, const struct fpt_type *got,
			  const struct fpt_type *have)
{
	char a[TYPE_NAME_MAX], b[TYPE_NAME_MAX];

	fpt_error(c->d, loc,
		  "Type mismatch for %s: trying to assign value of type '%s' when %s already contains a value of type '%s'",
		  name, fpt_type_name(got, a, sizeof(a)), what, fpt_type_name(have, b, sizeof(b)));
}

/*
 * $name = value of type t. A variable the part did not have yet is its
 * own (at exit too: only a read reaches the session variable); an entry
 * part's variables are noted for the exit parts of its link.
 */
static void var_write(struct tctx *c, const char *name, struct fpt_type t,
		      struct fpt_loc loc)
{
	struct var *v = var_find(&c->scope, name);

	if (v && !same_type(&t, &v->type)) {
		type_mismatch(c, loc, "variable", name, &t, &v->type);
		return;
	}
	if (!v)
		var_add(&c->scope, name, t);
	if (c->link < 0 || in_exit(c))
		return;
	v = var_find(&c->lvars[c->link], name);
	if (!v)
		var_add(&c->lvars[c->link], name, t);
	else if (!same_type(&t, &v->type))
		v->conflict = true;
}

/* ---- Maps ---------------------------------------------------------------- */

/* A read of a map whose value was not known yet, checked at the end. */
struct pending {
	int map;
	struct fpt_expr *e;	/* NULL: print(), clear(), delete() */
	struct fpt_loc loc;
};

static void pending_add(struct tctx *c, int map, struct fpt_expr *e, struct fpt_loc loc)
{
	c->pend = xrealloc(c->pend, (c->npend + 1) * sizeof(*c->pend));
	c->pend[c->npend++] = (struct pending){ map, e, loc };
}

static int map_add(struct fpt_sema *s, const char *name, enum fpt_map_role role,
		   struct fpt_loc loc)
{
	struct fpt_map_info *m;

	s->maps = xrealloc(s->maps, (s->nmaps + 1) * sizeof(*m));
	m = &s->maps[s->nmaps];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->role = role;
	m->loc = loc;
	m->nkeys = -1;
	return s->nmaps++;
}

static int map_get(struct tctx *c, const struct fpt_expr *e)
{
	for (int i = 0; i < c->s->nmaps; i++)
		if (!strcmp(c->s->maps[i].name, e->u.map.name))
			return i;
	return map_add(c->s, e->u.map.name, FPT_MAP_USER, e->loc);
}

static struct fpt_type type_expr(struct tctx *c, struct fpt_expr *e, bool stmt);

static void types_list(char *buf, size_t len, const struct fpt_type *t, int n)
{
	size_t off = snprintf(buf, len, "[");
	char name[TYPE_NAME_MAX];

	for (int i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				fpt_type_name(&t[i], name, sizeof(name)));
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

/* Type the keys of map expression e; false (reported) if they do not fit. */
static bool map_keys(struct tctx *c, struct fpt_expr *e, int *mi)
{
	struct fpt_type k[FPT_KEYS_MAX];
	const struct fpt_expr_list *l = &e->u.map.keys;
	struct fpt_map_info *m;
	char a[256], b[256];
	bool ok = true;

	if (l->n > FPT_KEYS_MAX) {
		fpt_error(c->d, e->loc, "%s: more than %d keys", e->u.map.name, FPT_KEYS_MAX);
		return false;
	}
	for (int i = 0; i < l->n; i++) {
		k[i] = type_expr(c, l->v[i], false);
		if (!is_value(&k[i]))
			ok = false;
	}
	*mi = map_get(c, e);
	m = &c->s->maps[*mi];
	if (!ok)
		return false;
	if (m->nkeys < 0) {
		m->nkeys = l->n;
		memcpy(m->keys, k, l->n * sizeof(*k));
		return true;
	}
	for (int i = 0; i < l->n && m->nkeys == l->n; i++)
		if (!same_type(&k[i], &m->keys[i]))
			ok = false;
	if (ok && m->nkeys == l->n)
		return true;
	types_list(a, sizeof(a), k, l->n);
	types_list(b, sizeof(b), m->keys, m->nkeys);
	fpt_error(c->d, e->loc,
		  "Argument mismatch for %s: trying to access with arguments: %s when map expects arguments: %s",
		  m->name, a, b);
	return false;
}

static const enum fpt_val_kind agg_vals[] = {
	[FPT_AGG_COUNT] = FPT_V_COUNT, [FPT_AGG_SUM] = FPT_V_SUM,
	[FPT_AGG_AVG] = FPT_V_AVG, [FPT_AGG_MIN] = FPT_V_MIN,
	[FPT_AGG_MAX] = FPT_V_MAX, [FPT_AGG_STATS] = FPT_V_STATS,
	[FPT_AGG_HIST] = FPT_V_HIST, [FPT_AGG_LHIST] = FPT_V_LHIST,
};

/* What the map holds, as a type (AGG for aggregations) for messages. */
static struct fpt_type map_type(const struct fpt_map_info *m)
{
	struct fpt_type t = ty_of(FPT_TY_AGG, 8);

	if (m->kind == FPT_V_INT || m->kind == FPT_V_STR)
		return m->val;
	for (size_t i = 0; i < ARRAY_SIZE(agg_vals); i++)
		if (agg_vals[i] == m->kind && i != FPT_AGG_NONE)
			t.agg = i;
	return t;
}

/* The map now holds values of type t (AGG: an aggregation); checks its uses. */
static bool map_set(struct tctx *c, int mi, const struct fpt_type *t, struct fpt_loc loc)
{
	struct fpt_map_info *m = &c->s->maps[mi];
	struct fpt_type have = map_type(m);

	if (!m->typed) {
		m->typed = true;
		m->kind = t->kind == FPT_TY_AGG ? agg_vals[t->agg] :
			t->kind == FPT_TY_STR ? FPT_V_STR : FPT_V_INT;
		if (t->kind != FPT_TY_AGG)
			m->val = *t;
		return true;
	}
	if (same_type(t, &have))
		return true;
	type_mismatch(c, loc, "map", m->name, t, &have);
	return false;
}

/* @m[k] read in an expression. */
static struct fpt_type map_read(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_map_info *m;
	char name[TYPE_NAME_MAX];
	int mi;

	if (!map_keys(c, e, &mi))
		return ty_of(FPT_TY_NONE, 0);
	m = &c->s->maps[mi];
	if (!m->typed) {
		pending_add(c, mi, e, e->loc);
		/* while learning, what depends on an unknown map stays unknown */
		return c->learning ? ty_of(FPT_TY_NONE, 0) : ty_int(8, true);
	}
	if (m->kind == FPT_V_INT || m->kind == FPT_V_STR)
		return m->val;
	fpt_error(c->d, e->loc, "%s holds an aggregation (%s) and cannot be read in an expression",
		  m->name,
		  fpt_type_name(&(struct fpt_type){ .kind = FPT_TY_AGG, .agg = map_type(m).agg },
				name, sizeof(name)));
	return ty_of(FPT_TY_NONE, 0);
}

/*
 * The value of integer literal e (or -literal); false if it is none or out
 * of int64's range. The magnitude is kept unsigned: negating INT64_MIN, or
 * a literal above INT64_MAX read as negative, would be undefined or wrong.
 */
static bool const_int(const struct fpt_expr *e, int64_t *v)
{
	bool neg = e->kind == FPT_E_UNARY && e->u.unary.op == FPT_T_MINUS;
	const struct fpt_expr *n = neg ? e->u.unary.e : e;
	uint64_t u;

	if (n->kind != FPT_E_INT)
		return false;
	u = n->u.num;
	if (u > (uint64_t)INT64_MAX + neg)
		return false;
	if (!neg)
		*v = (int64_t)u;
	else
		*v = u > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)u;
	return true;
}

/* ---- Builtins and arguments -------------------------------------------- */

static const char *probe_kind_name(enum fpt_probe_kind k)
{
	return k == FPT_P_BEGIN ? "BEGIN" : k == FPT_P_END ? "END" : "interval";
}

/* Builtin name needs a function (and at_exit: the exit run); reports. */
static bool need_link(struct tctx *c, const char *name, struct fpt_loc loc, bool at_exit)
{
	if (c->link < 0) {
		fpt_error(c->d, loc, "The %s builtin can not be used in %s probes",
			  name, probe_kind_name(c->kind));
		return false;
	}
	if (at_exit && !in_exit(c)) {
		fpt_error(c->d, loc,
			  "The %s builtin can only be used with fretprobe and kretprobe probes%s",
			  name, has_kind(c->probe, FPT_P_FRETPROBE) ? MIXED_HINT : "");
		return false;
	}
	return true;
}

static bool same_int(const struct fpt_type *a, const struct fpt_type *b)
{
	return a->kind == b->kind && a->size == b->size && a->is_signed == b->is_signed;
}

static void use_arg(struct tctx *c, unsigned int n)
{
	struct fpt_link *l = &c->s->links[c->link];

	if (in_exit(c) && l->saved_args < n + 1)
		l->saved_args = n + 1;
}

/* argN: the parameter's type if all functions agree, else a raw u64. */
static struct fpt_type arg_type(struct tctx *c, unsigned int n)
{
	const struct fpt_link *l = &c->s->links[c->link];
	struct fpt_type t = ty_int(8, false), u;

	/* whatever its type, an exit run reads it as saved at entry */
	use_arg(c, n);
	for (int i = 0; i < l->nfuncs; i++) {
		const struct btf_type *p = func_proto(c->btf, l->funcs[i]);

		if (!p)			/* no BTF: a raw register */
			return ty_int(8, false);
		if (btf_vlen(p) <= n)
			return ty_int(8, false);
		u = btf_to_type(c->btf, btf_params(p)[n].type);
		if (i && !same_int(&t, &u))
			return ty_int(8, false);
		t = i ? agree(c->btf, &t, u) : u;
	}
	return t;
}

/* Which argument of function f (BTF proto p) is NAME; -1 (reported) if none. */
static int param_index(struct tctx *c, struct fpt_expr *e, const char *f,
		       const struct btf_type *p)
{
	const char *name = e->u.field.name;

	if (!p) {
		fpt_error(c->d, e->loc, "Can't find function parameter '%s': '%s' has no BTF",
			  name, f);
		return -1;
	}
	for (int i = 0; i < (int)btf_vlen(p); i++) {
		if (strcmp(btf__name_by_offset(c->btf, btf_params(p)[i].name_off), name))
			continue;
		if (i < FPT_ARGS_MAX)
			return i;
		fpt_error(c->d, e->loc,
			  "args.%s is argument %d of '%s': fprobe.multi reads only the first %d arguments",
			  name, i + 1, f, FPT_ARGS_MAX);
		return -1;
	}
	fpt_error(c->d, e->loc, "Can't find function parameter '%s' of '%s'", name, f);
	return -1;
}

/* args.NAME, the same argument of the same type in every function. */
static struct fpt_type field_type(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_type t = ty_of(FPT_TY_NONE, 0), u;
	char x[TYPE_NAME_MAX], y[TYPE_NAME_MAX];
	const struct fpt_link *l;
	int n = -1;

	if (!need_link(c, "args", e->loc, false))
		return t;
	l = &c->s->links[c->link];
	for (int i = 0; i < l->nfuncs; i++) {
		const struct btf_type *p = func_proto(c->btf, l->funcs[i]);
		int k = param_index(c, e, l->funcs[i], p);

		if (k < 0)
			return ty_of(FPT_TY_NONE, 0);
		u = btf_to_type(c->btf, btf_params(p)[k].type);
		if (i && k != n) {
			fpt_error(c->d, e->loc,
				  "args.%s is argument %d of '%s' but argument %d of '%s'",
				  e->u.field.name, n + 1, l->funcs[0], k + 1, l->funcs[i]);
			return ty_of(FPT_TY_NONE, 0);
		}
		if (i && !same_int(&t, &u)) {
			fpt_error(c->d, e->loc,
				  "args.%s has different types in '%s' (%s) and '%s' (%s)",
				  e->u.field.name, l->funcs[0], fpt_type_name(&t, x, sizeof(x)),
				  l->funcs[i], fpt_type_name(&u, y, sizeof(y)));
			return ty_of(FPT_TY_NONE, 0);
		}
		t = i ? agree(c->btf, &t, u) : u;
		n = k;
	}
	e->u.field.argno = n;
	use_arg(c, n);
	return t;
}

/* ---- Struct and union members ------------------------------------------ */

/*
 * Member i of t is a bitfield: one of kflag BTF has its size; without
 * kflag, its int type has fewer bits than bytes or it starts mid-byte.
 */
static bool is_bitfield(const struct btf *btf, const struct btf_type *t, int i)
{
	__u32 id = btf_members(t)[i].type;
	const struct btf_type *mt = btf_skip(btf, &id);

	if (btf_member_bitfield_size(t, i) || btf_member_bit_offset(t, i) % 8)
		return true;
	return mt && btf_is_int(mt) &&
		(btf_int_bits(mt) != mt->size * 8 || btf_int_offset(mt));
}

/*
 * Member name of the struct or union id (after typedefs), looked for in
 * its anonymous members too; *off gets its byte offset in id and *bits
 * 1 if it is a bitfield.
 */
static const struct btf_member *find_member(const struct btf *btf, __u32 id, const char *name,
					    unsigned int *off, unsigned int *bits)
{
	const struct btf_type *t = btf_skip(btf, &id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t))
		return NULL;
	m = btf_members(t);
	for (int i = 0; i < (int)btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		unsigned int sub = *off + btf_member_bit_offset(t, i) / 8;
		const struct btf_member *r;

		if (mn && *mn && strcmp(mn, name))
			continue;
		r = mn && *mn ? m : find_member(btf, m->type, name, &sub, bits);
		if (!r)
			continue;
		if (r == m)
			*bits = is_bitfield(btf, t, i);
		*off = sub;
		return r;
	}
	return NULL;
}

/* A char array of n bytes: a string of at most FPT_STR_LEN bytes, 8-aligned. */
static struct fpt_type array_type(struct fpt_expr *e, const struct btf_type *elem,
				  unsigned int n)
{
	unsigned int len = n < FPT_STR_LEN ? n : FPT_STR_LEN;

	if (!elem || !btf_is_int(elem) || elem->size != 1)
		return ty_of(FPT_TY_NONE, 0);
	e->u.field.len = len;
	return ty_of(FPT_TY_STR, round8(len));
}

/* The type of member e of BTF type id; NONE if fptrace cannot read it. */
static struct fpt_type member_type(const struct btf *btf, struct fpt_expr *e, __u32 id)
{
	const struct btf_type *t = btf_skip(btf, &id);
	struct fpt_type r = ty_of(FPT_TY_NONE, 0);
	__u32 elem;

	if (!t)
		return r;
	if (btf_is_int(t) && t->size <= 8 && !(t->size & (t->size - 1)))
		return ty_int(t->size, btf_int_encoding(t) & BTF_INT_SIGNED);
	if (btf_is_any_enum(t) && t->size <= 8)
		return ty_int(t->size, btf_kflag(t));
	if (btf_is_ptr(t)) {
		r = ty_of(FPT_TY_PTR, 8);
		r.btf_id = t->type;
	} else if (btf_is_composite(t)) {
		r = ty_of(FPT_TY_RECORD, t->size);
		r.btf_id = id;
	} else if (btf_is_array(t)) {
		elem = btf_array(t)->type;
		r = array_type(e, btf_skip(btf, &elem), btf_array(t)->nelems);
	}
	return r;
}

/* The struct that -> (a pointer) or . (a struct) at e reads from; 0 (reported) if none. */
static __u32 member_owner(struct tctx *c, struct fpt_expr *e, const struct fpt_type *bt)
{
	const char *op = e->u.field.arrow ? "->" : ".", *name = e->u.field.name;
	__u32 id = bt->kind == FPT_TY_PTR ? ptr_target(c->btf, bt) : 0;
	const struct btf_type *t = id ? btf__type_by_id(c->btf, id) : NULL;
	char a[TYPE_NAME_MAX];

	fpt_type_name(bt, a, sizeof(a));
	if (bt->kind == FPT_TY_PTR && bt->btf_id < 0)
		fpt_error(c->d, e->loc,
			  "Can not access field '%s': the traced functions give this pointer different types (probe them apart)",
			  name);
	else if (e->u.field.arrow && bt->kind == FPT_TY_RECORD)
		fpt_error(c->d, e->loc,
			  "Can not access field '%s' with '->' on a %s, which is no pointer: use '.'",
			  name, a);
	else if (!e->u.field.arrow && bt->kind == FPT_TY_PTR)
		fpt_error(c->d, e->loc,
			  "Can not access field '%s' with '.' on a pointer (%s): use '->'",
			  name, a);
	else if (e->u.field.arrow && bt->kind == FPT_TY_PTR && (!t || !btf_is_composite(t)))
		fpt_error(c->d, e->loc,
			  "Can not access field '%s' of '%s', which points to no struct or union%s",
			  name, a, id ? "" : " (cast it: ((struct NAME *)p)->FIELD)");
	else if (bt->kind != FPT_TY_PTR && bt->kind != FPT_TY_RECORD)
		fpt_error(c->d, e->loc,
			  "Can not access field '%s' with '%s' on an expression of type '%s'",
			  name, op, a);
	else
		return bt->kind == FPT_TY_PTR ? id : (__u32)bt->btf_id;
	return 0;
}

/* p->NAME, s.NAME: the member's type (RECORD for an embedded struct); sets its offset. */
static struct fpt_type member_of(struct tctx *c, struct fpt_expr *e, const struct fpt_type *bt)
{
	__u32 owner = member_owner(c, e, bt);
	const struct btf_member *m;
	unsigned int off = 0, bits = 0;
	char a[TYPE_NAME_MAX];
	struct fpt_type t;

	if (!owner)
		return ty_of(FPT_TY_NONE, 0);
	btf_name(c->btf, owner, a, sizeof(a));
	m = find_member(c->btf, owner, e->u.field.name, &off, &bits);
	if (!m) {
		fpt_error(c->d, e->loc, "%s has no field '%s'", a, e->u.field.name);
		return ty_of(FPT_TY_NONE, 0);
	}
	if (bits) {
		fpt_error(c->d, e->loc, "%s field '%s' is a bitfield, which fptrace does not read",
			  a, e->u.field.name);
		return ty_of(FPT_TY_NONE, 0);
	}
	t = member_type(c->btf, e, m->type);
	if (t.kind == FPT_TY_NONE)
		fpt_error(c->d, e->loc,
			  "%s field '%s' has a type fptrace does not read (arrays are read only of chars, as strings)",
			  a, e->u.field.name);
	e->u.field.off = off;
	return t;
}

static bool is_args_field(const struct fpt_expr *e)
{
	const struct fpt_expr *b = e->u.field.base;

	return b->kind == FPT_E_BUILTIN && !strcmp(b->u.name, "args");
}

/* A field expression, an embedded struct (RECORD) included: the base of a '.'. */
static struct fpt_type field_ref(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_expr *b = e->u.field.base;

	if (is_args_field(e))
		return field_type(c, e);
	b->type = b->kind == FPT_E_FIELD ? field_ref(c, b) : type_expr(c, b, false);
	if (b->type.kind == FPT_TY_NONE)
		return b->type;
	return member_of(c, e, &b->type);
}

/* A field read as a value: a whole struct is not one. */
static struct fpt_type field_value(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_type t = field_ref(c, e);
	char a[TYPE_NAME_MAX];

	if (t.kind != FPT_TY_RECORD)
		return t;
	fpt_error(c->d, e->loc, "%s is a whole %s: read one of its fields", e->u.field.name,
		  fpt_type_name(&t, a, sizeof(a)));
	return ty_of(FPT_TY_NONE, 0);
}

/* (struct NAME *)e: e an integer or a pointer. */
static struct fpt_type cast_type(struct tctx *c, struct fpt_expr *e)
{
	const char *n = e->u.cast.name, *tag_end = strchr(n, ' ');
	bool is_union = !strncmp(n, "union", 5);
	struct fpt_type t = type_expr(c, e->u.cast.e, false), r = ty_of(FPT_TY_PTR, 8);
	__s32 id = c->btf ? btf__find_by_name_kind(c->btf, tag_end + 1, is_union ?
						  BTF_KIND_UNION : BTF_KIND_STRUCT) : -1;
	char a[TYPE_NAME_MAX];

	if (t.kind == FPT_TY_NONE)
		return t;
	if (!is_scalar(&t)) {
		fpt_error(c->d, e->loc, "Cannot cast from '%s' to '%s *'",
			  fpt_type_name(&t, a, sizeof(a)), n);
		return ty_of(FPT_TY_NONE, 0);
	}
	if (id <= 0) {
		fpt_error(c->d, e->loc, "Unknown struct/union: '%s' (not in the kernel's BTF)", n);
		return ty_of(FPT_TY_NONE, 0);
	}
	r.btf_id = id;
	return r;
}

/* retval: the return type if all functions agree, else int64. */
static struct fpt_type retval_type(struct tctx *c)
{
	const struct fpt_link *l = &c->s->links[c->link];
	struct fpt_type t = ty_int(8, true), u;

	for (int i = 0; i < l->nfuncs; i++) {
		const struct btf_type *p = func_proto(c->btf, l->funcs[i]);

		if (!p)
			return ty_int(8, true);
		u = btf_to_type(c->btf, p->type);
		if (i && !same_int(&t, &u))
			return ty_int(8, true);
		t = i ? agree(c->btf, &t, u) : u;
	}
	return t;
}

/* A stack of at most the given number of frames, printed as mode: its map is needed. */
static struct fpt_type stack_type(struct tctx *c, enum fpt_stack_mode mode,
				  unsigned int frames)
{
	struct fpt_type t = ty_of(FPT_TY_KSTACK, 8);

	t.stack_mode = mode;
	t.frames = frames;
	c->stacks[frames] = true;
	return t;
}

static struct fpt_type builtin_type(struct tctx *c, struct fpt_expr *e)
{
	const char *n = e->u.name;
	struct fpt_type none = ty_of(FPT_TY_NONE, 0);

	if (!strcmp(n, "pid") || !strcmp(n, "tid") || !strcmp(n, "uid") ||
	    !strcmp(n, "gid") || !strcmp(n, "cpu"))
		return ty_int(4, false);
	if (!strcmp(n, "nsecs"))
		return ty_int(8, false);
	if (!strcmp(n, "comm"))
		return ty_of(FPT_TY_STR, FPT_COMM_LEN);
	if (!strcmp(n, "elapsed"))	/* since the run's start, in any probe */
		return ty_int(8, false);
	if (!strcmp(n, "retval") || !strcmp(n, "latency")) {
		if (!need_link(c, n, e->loc, true))
			return none;
		if (*n == 'r')
			return retval_type(c);
		c->s->links[c->link].latency = true;
		session_check(c, e->loc);
		return ty_int(8, false);
	}
	if (!need_link(c, n, e->loc, false))
		return none;
	if (!strncmp(n, "arg", 3) && n[3] >= '0' && n[3] <= '5' && !n[4])
		return arg_type(c, n[3] - '0');
	if (!strcmp(n, "args")) {
		fpt_error(c->d, e->loc, "The args builtin can only be used as args.NAME");
		return none;
	}
	if (!strcmp(n, "kstack"))
		return stack_type(c, FPT_STACK_BPFTRACE, FPT_STACK_DEPTH);
	return !strcmp(n, "func") ? ty_of(FPT_TY_KSYM, 8) :
		!strcmp(n, "probe") ? ty_of(FPT_TY_PROBE, 8) : ty_int(8, false);
}

/* ---- Calls ------------------------------------------------------------- */

static bool nargs_ok(struct tctx *c, const struct fpt_expr *e, int min, int max)
{
	int n = e->u.call.args.n;

	if (n >= min && n <= max)
		return true;
	if (min == max)
		fpt_error(c->d, e->loc, "%s() requires %d argument%s (%d provided)",
			  e->u.call.name, min, min == 1 ? "" : "s", n);
	else
		fpt_error(c->d, e->loc, "%s() requires %d to %d arguments (%d provided)",
			  e->u.call.name, min, max, n);
	return false;
}

static enum fpt_agg_kind agg_kind(const char *name)
{
	for (size_t i = FPT_AGG_COUNT; i < ARRAY_SIZE(agg_names); i++)
		if (!strcmp(name, agg_names[i]))
			return i;
	return FPT_AGG_NONE;
}

/* Argument i of call e, an integer literal in [min, max]; reports. */
static bool lit_arg(struct tctx *c, const struct fpt_expr *e, int i, int64_t min,
		    int64_t max, int64_t *v)
{
	const struct fpt_expr *a = e->u.call.args.v[i];

	if (const_int(a, v) && *v >= min && *v <= max)
		return true;
	fpt_error(c->d, a->loc, "%s() argument %d must be an integer literal from %lld to %lld",
		  e->u.call.name, i + 1, (long long)min, (long long)max);
	return false;
}

/* Argument i of call e, typed; it must be an integer or a pointer. */
static bool int_arg(struct tctx *c, const struct fpt_expr *e, int i)
{
	struct fpt_expr *a = e->u.call.args.v[i];
	struct fpt_type t = type_expr(c, a, false);
	char name[TYPE_NAME_MAX];

	if (is_scalar(&t))
		return true;
	if (t.kind != FPT_TY_NONE)
		fpt_error(c->d, a->loc, "%s() expects an integer argument (%s provided)",
			  e->u.call.name, fpt_type_name(&t, name, sizeof(name)));
	return false;
}

/* The lhist arguments: min, max and step, literals with max > min. */
static bool lhist_args(struct tctx *c, const struct fpt_expr *e, int64_t *p)
{
	if (!lit_arg(c, e, 1, INT32_MIN, INT32_MAX, &p[0]) ||
	    !lit_arg(c, e, 2, INT32_MIN, INT32_MAX, &p[1]) ||
	    !lit_arg(c, e, 3, 1, INT32_MAX, &p[2]))
		return false;
	if (p[1] > p[0] && (p[1] - p[0]) / p[2] <= 1000)
		return true;
	fpt_error(c->d, e->loc, "lhist() max must be greater than min, with at most 1000 buckets");
	return false;
}

/* @m[k] = agg(...): type the call and the map. */
static void type_agg(struct tctx *c, struct fpt_expr *e, int mi)
{
	enum fpt_agg_kind k = agg_kind(e->u.call.name);
	struct fpt_type t = { .kind = FPT_TY_AGG, .agg = k, .size = 8 };
	struct fpt_map_info *m;
	int64_t p[3] = { 0, 0, 0 };
	bool ok;

	if (k == FPT_AGG_COUNT)
		ok = nargs_ok(c, e, 0, 0);
	else if (k == FPT_AGG_HIST)
		ok = nargs_ok(c, e, 1, 2) && int_arg(c, e, 0) &&
			(e->u.call.args.n < 2 || lit_arg(c, e, 1, 0, FPT_HIST_MAX_BITS, &p[0]));
	else if (k == FPT_AGG_LHIST)
		ok = nargs_ok(c, e, 4, 4) && int_arg(c, e, 0) && lhist_args(c, e, p);
	else
		ok = nargs_ok(c, e, 1, 1) && int_arg(c, e, 0);
	e->type = t;
	if (!ok || !map_set(c, mi, &t, e->loc))
		return;
	m = &c->s->maps[mi];
	if (k != FPT_AGG_COUNT)
		t = e->u.call.args.v[0]->type;
	if (m->val.kind == FPT_TY_NONE) {
		m->val = t;
		m->hist_bits = p[0];
		m->lmin = p[0], m->lmax = p[1], m->lstep = p[2];
	} else if ((k == FPT_AGG_HIST && m->hist_bits != p[0]) ||
		   (k == FPT_AGG_LHIST && (m->lmin != p[0] || m->lmax != p[1] ||
					   m->lstep != p[2]))) {
		fpt_error(c->d, e->loc, "%s() of %s takes other arguments where %s is first used",
			  e->u.call.name, m->name, m->name);
	}
}

/* A printf field width or precision at s (digits); false (reported) if too large. */
static bool format_number(struct tctx *c, const struct fpt_expr *f, const char **s,
			  const char *what)
{
	size_t n = strspn(*s, "0123456789");
	unsigned long v = 0;

	for (size_t i = 0; i < n && v <= FPT_PRINTF_WIDTH_MAX; i++)
		v = v * 10 + (*s)[i] - '0';
	*s += n;
	if (v <= FPT_PRINTF_WIDTH_MAX)
		return true;
	fpt_error(c->d, f->loc, "printf: the %s %.*s is too large (at most %d)", what,
		  (int)n, *s - n, FPT_PRINTF_WIDTH_MAX);
	return false;
}

/* The conversions of a printf format, in order: "dsx" for "%d %s %x". */
static bool format_convs(struct tctx *c, const struct fpt_expr *f, char *conv, int max, int *n)
{
	const char *s = f->u.str.s, *end = s + f->u.str.len;

	for (*n = 0; s < end; s++) {
		if (*s != '%')
			continue;
		if (*++s == '%')
			continue;
		s += strspn(s, "-+ #0");
		if (!format_number(c, f, &s, "field width"))
			return false;
		if (*s == '.') {
			s++;
			if (!format_number(c, f, &s, "precision"))
				return false;
		}
		s += strspn(s, "hlzjt");
		if (s >= end || !strchr("diuxXocsp", *s)) {
			fpt_error(c->d, f->loc, "printf: Unknown format string token: %%%c",
				  s < end ? *s : ' ');
			return false;
		}
		if (*n < max)
			conv[*n] = *s;
		++*n;
	}
	return true;
}

static bool printf_args(struct tctx *c, struct fpt_expr *e)
{
	const struct fpt_expr_list *l = &e->u.call.args;
	char conv[64], name[TYPE_NAME_MAX];
	int n;

	if (!l->n || l->v[0]->kind != FPT_E_STR) {
		fpt_error(c->d, e->loc, "printf() expects a string literal as first argument");
		return false;
	}
	if (!format_convs(c, l->v[0], conv, sizeof(conv), &n))
		return false;
	if (n != l->n - 1 || n > (int)sizeof(conv)) {
		fpt_error(c->d, e->loc,
			  "printf: %s arguments for format string (%d supplied, %d expected)",
			  n < l->n - 1 ? "Too many" : "Not enough", l->n - 1, n);
		return false;
	}
	for (int i = 1; i < l->n; i++) {
		struct fpt_type t = type_expr(c, l->v[i], false);
		bool str = t.kind == FPT_TY_STR || t.kind == FPT_TY_KSYM ||
			t.kind == FPT_TY_PROBE || t.kind == FPT_TY_KSTACK;

		if (!is_value(&t) || (conv[i - 1] == 's') == str || conv[i - 1] == 'p')
			continue;
		fpt_error(c->d, l->v[i]->loc,
			  "printf: %%%c specifier expects a value of type %s (%s supplied)",
			  conv[i - 1], str ? "integer" : "string",
			  fpt_type_name(&t, name, sizeof(name)));
		return false;
	}
	c->events = true;
	return true;
}

/* print(@m [, top [, div]]), clear(@m): a whole map that must be set. */
static bool whole_map(struct tctx *c, struct fpt_expr *e, int max)
{
	struct fpt_expr *a;
	int64_t v;

	if (!nargs_ok(c, e, 1, max))
		return false;
	a = e->u.call.args.v[0];
	if (a->kind != FPT_E_MAP || a->u.map.keys.n) {
		fpt_error(c->d, a->loc, "%s() expects a map without keys", e->u.call.name);
		return false;
	}
	a->type = ty_of(FPT_TY_VOID, 0);
	pending_add(c, map_get(c, a), NULL, a->loc);
	for (int i = 1; i < e->u.call.args.n; i++)
		if (!lit_arg(c, e, i, 0, UINT32_MAX, &v))
			return false;
	c->events = true;
	return true;
}

static struct fpt_type str_call(struct tctx *c, struct fpt_expr *e)
{
	int64_t n;

	if (nargs_ok(c, e, 1, 2) && int_arg(c, e, 0) &&
	    (e->u.call.args.n < 2 || lit_arg(c, e, 1, 1, FPT_STR_LEN, &n)))
		return ty_of(FPT_TY_STR, FPT_STR_LEN);
	return ty_of(FPT_TY_NONE, 0);
}

/*
 * An aggregation without keys whose value tells whether it was ever set
 * (a count, min/max's set flag, avg and stats' count, a bucket's count)
 * is a per-CPU array: an event then costs no hashing. sum() is not one
 * (sum(0) is set), and stays a one-element hash like every other map.
 */
static bool keyless_array(const struct fpt_map_info *m)
{
	return !m->nkeys && m->kind != FPT_V_INT && m->kind != FPT_V_STR &&
		m->kind != FPT_V_SUM;
}

static bool delete_call(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_expr *a;
	int mi;

	if (!nargs_ok(c, e, 1, 1))
		return false;
	a = e->u.call.args.v[0];
	if (a->kind != FPT_E_MAP) {
		fpt_error(c->d, a->loc, "delete() expects a map element");
		return false;
	}
	a->type = ty_of(FPT_TY_VOID, 0);
	if (!map_keys(c, a, &mi))
		return false;
	pending_add(c, mi, NULL, a->loc);
	/* an array without keys is cleared by the runtime, as clear() is */
	if (!a->u.map.keys.n && (!c->s->maps[mi].typed || keyless_array(&c->s->maps[mi])))
		c->events = true;
	return true;
}

/* time([FORMAT]): the wall-clock time, printed with strftime(). */
static bool time_call(struct tctx *c, struct fpt_expr *e)
{
	if (!nargs_ok(c, e, 0, 1))
		return false;
	if (e->u.call.args.n && e->u.call.args.v[0]->kind != FPT_E_STR) {
		fpt_error(c->d, e->u.call.args.v[0]->loc,
			  "time() expects a string literal as format");
		return false;
	}
	c->events = true;
	return true;
}

/* kstack(mode), kstack(N), kstack(mode, N): mode bpftrace or perf. */
static struct fpt_type kstack_call(struct tctx *c, struct fpt_expr *e)
{
	const struct fpt_expr_list *l = &e->u.call.args;
	enum fpt_stack_mode mode = FPT_STACK_BPFTRACE;
	struct fpt_type none = ty_of(FPT_TY_NONE, 0);
	int64_t n = FPT_STACK_DEPTH;
	const char *m;

	if (l->n > 2) {
		fpt_error(c->d, e->loc, "kstack takes at most 2 arguments (%d provided)", l->n);
		return none;
	}
	if (l->n && l->v[0]->kind == FPT_E_IDENT) {
		m = l->v[0]->u.name;
		if (strcmp(m, "bpftrace") && strcmp(m, "perf")) {
			fpt_error(c->d, l->v[0]->loc,
				  "kstack: unknown stack mode '%s' (bpftrace, perf)", m);
			return none;
		}
		mode = !strcmp(m, "perf") ? FPT_STACK_PERF : FPT_STACK_BPFTRACE;
	} else if (l->n == 2) {
		fpt_error(c->d, l->v[0]->loc,
			  "kstack: the first of two arguments is the stack mode (bpftrace, perf)");
		return none;
	}
	if (l->n && (l->n == 2 || l->v[0]->kind != FPT_E_IDENT) &&
	    !lit_arg(c, e, l->n - 1, 1, FPT_STACK_DEPTH, &n))
		return none;
	if (!need_link(c, "kstack", e->loc, false))
		return none;
	return stack_type(c, mode, (unsigned int)n);
}

/* bpftrace's builtins and functions that fptrace leaves out, and why. */
static const struct { const char *name, *why; } left_out[] = {
	{ "ustack", "ustack is not supported: fptrace traces the kernel only" },
	{ "usym", "usym() is not supported: fptrace traces the kernel only" },
	{ "uaddr", "uaddr() is not supported: fptrace traces the kernel only" },
	{ "uptr", "uptr() is not supported: fptrace traces the kernel only" },
	{ "signal",
	  "signal() is not supported by fptrace: it observes tasks and does not act on them" },
	{ "override",
	  "override() is not supported by fptrace: it observes and does not change functions" },
	{ "system", "system() is not supported by fptrace: a probe runs no commands" },
	{ "strftime",
	  "strftime() is not supported by fptrace: time(FORMAT) prints the wall-clock time" },
};

/* True (reported) if name is a builtin or function that fptrace leaves out. */
static bool left_out_name(struct tctx *c, const char *name, struct fpt_loc loc)
{
	for (size_t i = 0; i < ARRAY_SIZE(left_out); i++) {
		if (strcmp(left_out[i].name, name))
			continue;
		fpt_error(c->d, loc, "%s", left_out[i].why);
		return true;
	}
	return false;
}

/* The statement-only calls: printf, print, clear, delete, exit, time. */
static bool void_call(struct tctx *c, struct fpt_expr *e, bool *ok)
{
	const char *n = e->u.call.name;

	if (!strcmp(n, "printf"))
		*ok = printf_args(c, e);
	else if (!strcmp(n, "print"))
		*ok = whole_map(c, e, 3);
	else if (!strcmp(n, "clear"))
		*ok = whole_map(c, e, 1);
	else if (!strcmp(n, "delete"))
		*ok = delete_call(c, e);
	else if (!strcmp(n, "exit"))
		*ok = nargs_ok(c, e, 0, 0) && (c->events = true);
	else if (!strcmp(n, "time"))
		*ok = time_call(c, e);
	else
		return false;
	return true;
}

static struct fpt_type type_call(struct tctx *c, struct fpt_expr *e, bool stmt)
{
	const char *n = e->u.call.name;
	bool ok;

	if (void_call(c, e, &ok)) {
		if (!stmt)
			fpt_error(c->d, e->loc, "%s() should not be used in an expression", n);
		return ty_of(ok && stmt ? FPT_TY_VOID : FPT_TY_NONE, 0);
	}
	if (agg_kind(n) != FPT_AGG_NONE) {
		fpt_error(c->d, e->loc, "%s() should be directly assigned to a map", n);
		return ty_of(FPT_TY_NONE, 0);
	}
	if (!strcmp(n, "str"))
		return str_call(c, e);
	if (!strcmp(n, "ksym"))
		return nargs_ok(c, e, 1, 1) && int_arg(c, e, 0) ?
			ty_of(FPT_TY_KSYM, 8) : ty_of(FPT_TY_NONE, 0);
	if (!strcmp(n, "kstack"))
		return kstack_call(c, e);
	if (!left_out_name(c, n, e->u.call.name_loc))
		fpt_error(c->d, e->u.call.name_loc, "Unknown function: '%s'", n);
	return ty_of(FPT_TY_NONE, 0);
}

/* ---- Operators and expressions ----------------------------------------- */

static bool is_equality(enum fpt_tok_kind op)
{
	return op == FPT_T_EQ || op == FPT_T_NE;
}

static bool is_relation(enum fpt_tok_kind op)
{
	return op == FPT_T_LT || op == FPT_T_LE || op == FPT_T_GT || op == FPT_T_GE ||
		op == FPT_T_LAND || op == FPT_T_LOR || is_equality(op);
}

static struct fpt_type binary_type(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_type l = type_expr(c, e->u.binary.l, false);
	struct fpt_type r = type_expr(c, e->u.binary.r, false);
	enum fpt_tok_kind op = e->u.binary.op;
	char a[TYPE_NAME_MAX], b[TYPE_NAME_MAX];

	if (l.kind == FPT_TY_NONE || r.kind == FPT_TY_NONE)
		return ty_of(FPT_TY_NONE, 0);
	if (is_equality(op) && l.kind == FPT_TY_STR && r.kind == FPT_TY_STR)
		return ty_int(8, false);
	if (is_scalar(&l) && is_scalar(&r)) {
		if (is_relation(op))
			return ty_int(8, false);
		return ty_int(8, l.kind == FPT_TY_INT && r.kind == FPT_TY_INT &&
			      l.is_signed && r.is_signed);
	}
	fpt_error(c->d, e->loc, "The %s operator can not be used on expressions of types %s, %s",
		  fpt_tok_name(op), fpt_type_name(&l, a, sizeof(a)),
		  fpt_type_name(&r, b, sizeof(b)));
	return ty_of(FPT_TY_NONE, 0);
}

static struct fpt_type unary_type(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_type t = type_expr(c, e->u.unary.e, false);
	char a[TYPE_NAME_MAX];

	if (t.kind == FPT_TY_NONE)
		return t;
	if (!is_scalar(&t)) {
		fpt_error(c->d, e->loc, "The %s operator can not be used on expressions of type %s",
			  fpt_tok_name(e->u.unary.op), fpt_type_name(&t, a, sizeof(a)));
		return ty_of(FPT_TY_NONE, 0);
	}
	if (e->u.unary.op == FPT_T_LNOT)
		return ty_int(8, false);
	return ty_int(8, e->u.unary.op == FPT_T_MINUS || (t.kind == FPT_TY_INT && t.is_signed));
}

static struct fpt_type ternary_type(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_type k = type_expr(c, e->u.ternary.cond, false);
	struct fpt_type a = type_expr(c, e->u.ternary.then, false);
	struct fpt_type b = type_expr(c, e->u.ternary.els, false);
	char x[TYPE_NAME_MAX], y[TYPE_NAME_MAX];

	if (k.kind == FPT_TY_NONE || a.kind == FPT_TY_NONE || b.kind == FPT_TY_NONE)
		return ty_of(FPT_TY_NONE, 0);
	if (is_scalar(&k) && is_scalar(&a) && is_scalar(&b))
		return ty_int(8, a.is_signed && b.is_signed);
	fpt_error(c->d, e->loc, "Ternary operator must return integers: have '%s' and '%s'",
		  fpt_type_name(&a, x, sizeof(x)), fpt_type_name(&b, y, sizeof(y)));
	return ty_of(FPT_TY_NONE, 0);
}

/* ++$x, @m[k]--: the target must hold an integer. */
static struct fpt_type incdec_type(struct tctx *c, struct fpt_expr *e)
{
	struct fpt_expr *t = e->u.incdec.target;
	struct fpt_type i = ty_int(8, true), have;
	int mi;

	if (t->kind == FPT_E_VAR) {
		have = var_read(c, t->u.name, t->loc);
		if (have.kind == FPT_TY_NONE)
			return have;
		t->type = have;
		if (is_scalar(&have))
			return have;
		type_mismatch(c, t->loc, "variable", t->u.name, &i, &have);
		return ty_of(FPT_TY_NONE, 0);
	}
	if (!map_keys(c, t, &mi) || !map_set(c, mi, &i, t->loc))
		return ty_of(FPT_TY_NONE, 0);
	t->type = c->s->maps[mi].val;
	return t->type;
}

static struct fpt_type expr_type(struct tctx *c, struct fpt_expr *e, bool stmt)
{
	switch (e->kind) {
	case FPT_E_INT:
		return ty_int(8, e->u.num <= INT64_MAX);
	case FPT_E_STR:
		return ty_of(FPT_TY_STR, FPT_STR_LEN);
	case FPT_E_BUILTIN:
		return builtin_type(c, e);
	case FPT_E_IDENT:
		if (!left_out_name(c, e->u.name, e->loc))
			fpt_error(c->d, e->loc, "Unknown identifier: '%s'", e->u.name);
		return ty_of(FPT_TY_NONE, 0);
	case FPT_E_VAR:
		return var_read(c, e->u.name, e->loc);
	case FPT_E_MAP:
		return map_read(c, e);
	case FPT_E_CALL:
		return type_call(c, e, stmt);
	case FPT_E_FIELD:
		return field_value(c, e);
	case FPT_E_CAST:
		return cast_type(c, e);
	case FPT_E_UNARY:
		return unary_type(c, e);
	case FPT_E_BINARY:
		return binary_type(c, e);
	case FPT_E_TERNARY:
		return ternary_type(c, e);
	case FPT_E_INCDEC:
		return incdec_type(c, e);
	}
	return ty_of(FPT_TY_NONE, 0);
}

static struct fpt_type type_expr(struct tctx *c, struct fpt_expr *e, bool stmt)
{
	e->type = expr_type(c, e, stmt);
	return e->type;
}

/* ---- Statements and parts ---------------------------------------------- */

static void type_block(struct tctx *c, const struct fpt_block *b);

/* $x = v, $x op= v. */
static void assign_var(struct tctx *c, struct fpt_stmt *s)
{
	struct fpt_expr *t = s->u.assign.target, *v = s->u.assign.value;
	struct fpt_type vt = type_expr(c, v, false);
	char a[TYPE_NAME_MAX], b[TYPE_NAME_MAX];

	if (vt.kind == FPT_TY_NONE)
		return;
	if (s->u.assign.op == FPT_T_ASSIGN) {
		var_write(c, t->u.name, vt, t->loc);
		t->type = vt;
		return;
	}
	t->type = var_read(c, t->u.name, t->loc);
	if (t->type.kind == FPT_TY_NONE || (is_scalar(&t->type) && is_scalar(&vt)))
		return;
	fpt_error(c->d, s->loc, "The %s operator can not be used on expressions of types %s, %s",
		  fpt_tok_name(s->u.assign.op), fpt_type_name(&t->type, a, sizeof(a)),
		  fpt_type_name(&vt, b, sizeof(b)));
}

/* @m[k] = v, @m[k] op= v, @m[k] = agg(...). */
static void assign_map(struct tctx *c, struct fpt_stmt *s)
{
	struct fpt_expr *t = s->u.assign.target, *v = s->u.assign.value;
	struct fpt_type vt;
	int mi;

	if (!map_keys(c, t, &mi))
		return;
	if (v->kind == FPT_E_CALL && agg_kind(v->u.call.name) != FPT_AGG_NONE &&
	    s->u.assign.op == FPT_T_ASSIGN) {
		type_agg(c, v, mi);
		t->type = v->type;
		return;
	}
	vt = type_expr(c, v, false);
	if (vt.kind == FPT_TY_NONE)
		return;
	if (s->u.assign.op != FPT_T_ASSIGN && !is_scalar(&vt)) {
		fpt_error(c->d, s->loc,
			  "The %s operator can not be used on a map with a value that is no integer",
			  fpt_tok_name(s->u.assign.op));
		return;
	}
	if (s->u.assign.op != FPT_T_ASSIGN)
		vt = ty_int(8, true);
	if (map_set(c, mi, &vt, v->loc))
		t->type = c->s->maps[mi].val;
}

static void type_stmt(struct tctx *c, struct fpt_stmt *s)
{
	struct fpt_type t;
	char a[TYPE_NAME_MAX];

	switch (s->kind) {
	case FPT_S_EXPR:
		type_expr(c, s->u.expr, true);
		break;
	case FPT_S_ASSIGN:
		if (s->u.assign.target->kind == FPT_E_VAR)
			assign_var(c, s);
		else
			assign_map(c, s);
		break;
	case FPT_S_IF:
		t = type_expr(c, s->u.if_.cond, false);
		if (t.kind != FPT_TY_NONE && !is_scalar(&t))
			fpt_error(c->d, s->u.if_.cond->loc, "Invalid condition in if(): %s",
				  fpt_type_name(&t, a, sizeof(a)));
		type_block(c, &s->u.if_.then);
		if (s->u.if_.els)
			type_block(c, s->u.if_.els);
		break;
	}
}

static void type_block(struct tctx *c, const struct fpt_block *b)
{
	for (int i = 0; i < b->n; i++)
		type_stmt(c, b->v[i]);
}

/* ---- Probes with entry and exit specs ------------------------------- */

static bool same_exact(const struct fpt_type *a, const struct fpt_type *b)
{
	return a->kind == b->kind && a->size == b->size && a->is_signed == b->is_signed &&
		a->agg == b->agg && same_target(a, b);
}

/* Record e's type (entry part), or compare it with the entry's (exit part). */
static bool snap_one(struct tctx *c, struct snap *sn, const struct fpt_expr *e)
{
	const struct fpt_type *t;
	char a[TYPE_NAME_MAX], b[TYPE_NAME_MAX];

	if (!sn->check) {
		sn->v = xrealloc(sn->v, (sn->n + 1) * sizeof(*sn->v));
		sn->v[sn->n++] = e->type;
		return true;
	}
	t = sn->pos < sn->n ? &sn->v[sn->pos++] : NULL;
	if (!t || same_exact(t, &e->type) || !t->kind || !e->type.kind)
		return true;
	fpt_error(c->d, e->loc,
		  "This expression is %s at the probe's fprobe specs but %s at its fretprobe specs: write them as two probes",
		  fpt_type_name(t, a, sizeof(a)), fpt_type_name(&e->type, b, sizeof(b)));
	return false;
}

static bool snap_expr(struct tctx *c, struct snap *sn, const struct fpt_expr *e)
{
	const struct fpt_expr_list *l = e->kind == FPT_E_MAP ? &e->u.map.keys :
		e->kind == FPT_E_CALL ? &e->u.call.args : NULL;
	const struct fpt_expr *sub[3] = { NULL, NULL, NULL };

	if (e->kind == FPT_E_UNARY)
		sub[0] = e->u.unary.e;
	else if (e->kind == FPT_E_CAST)
		sub[0] = e->u.cast.e;
	else if (e->kind == FPT_E_FIELD && e->u.field.base->kind != FPT_E_BUILTIN)
		sub[0] = e->u.field.base;
	else if (e->kind == FPT_E_INCDEC)
		sub[0] = e->u.incdec.target;
	else if (e->kind == FPT_E_BINARY)
		sub[0] = e->u.binary.l, sub[1] = e->u.binary.r;
	else if (e->kind == FPT_E_TERNARY)
		sub[0] = e->u.ternary.cond, sub[1] = e->u.ternary.then,
		sub[2] = e->u.ternary.els;
	for (int i = 0; l && i < l->n; i++)
		if (!snap_expr(c, sn, l->v[i]))
			return false;
	for (int i = 0; i < 3 && sub[i]; i++)
		if (!snap_expr(c, sn, sub[i]))
			return false;
	return snap_one(c, sn, e);
}

static bool snap_block(struct tctx *c, struct snap *sn, const struct fpt_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct fpt_stmt *s = b->v[i];
		bool ok;

		if (s->kind == FPT_S_EXPR)
			ok = snap_expr(c, sn, s->u.expr);
		else if (s->kind == FPT_S_ASSIGN)
			ok = snap_expr(c, sn, s->u.assign.target) &&
				snap_expr(c, sn, s->u.assign.value);
		else
			ok = snap_expr(c, sn, s->u.if_.cond) &&
				snap_block(c, sn, &s->u.if_.then) &&
				(!s->u.if_.els || snap_block(c, sn, s->u.if_.els));
		if (!ok)
			return false;
	}
	return true;
}

/*
 * A probe with fprobe and fretprobe specs is typed once a side, but its
 * AST holds one type an expression: the exit side must agree with the
 * entry side (typed first), or the code of one of them would be wrong.
 */
static void check_mixed(struct tctx *c, const struct fpt_probe *p)
{
	struct snap *sn = &c->snaps[p->index];

	if (!has_kind(p, FPT_P_FPROBE) || !has_kind(p, FPT_P_FRETPROBE))
		return;
	sn->check = in_exit(c);
	sn->pos = 0;
	if (!p->pred || snap_expr(c, sn, p->pred))
		snap_block(c, sn, &p->body);
}

/* Type one part: probe p on link (or -1) in the run of kind. */
static void type_part(struct tctx *c, const struct fpt_probe *p, int link,
		      enum fpt_probe_kind kind)
{
	struct fpt_type t;
	char a[TYPE_NAME_MAX];

	c->probe = p;
	c->link = link;
	c->kind = kind;
	if (p->pred) {
		t = type_expr(c, p->pred, false);
		if (t.kind != FPT_TY_NONE && !is_scalar(&t))
			fpt_error(c->d, p->pred->loc, "Invalid type for predicate: %s",
				  fpt_type_name(&t, a, sizeof(a)));
	}
	type_block(c, &p->body);
	vars_free(&c->scope);
	if (link >= 0)
		check_mixed(c, p);
}

/* ---- Ordering, the end checks, and the tables ------------------------ */

struct part {
	int probe, link, key;
	enum fpt_probe_kind kind;
};

static int cmp_part(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	return x->key != y->key ? x->key - y->key : x->probe - y->probe;
}

static void add_part(struct part **v, int *n, struct part p)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = p;
}

/*
 * The parts in typing order: source order, but each exit part after the
 * last entry part of its link.
 */
static int list_parts(const struct fpt_program *prog, const struct fpt_sema *s,
		      struct part **v)
{
	int n = 0;

	*v = NULL;
	for (int i = 0; i < prog->nprobes; i++)
		for (int j = 0; j < prog->probes[i].nspecs; j++) {
			enum fpt_probe_kind k = prog->probes[i].specs[j].kind;

			if (k != FPT_P_FPROBE && k != FPT_P_FRETPROBE)
				add_part(v, &n, (struct part){ i, -1, 2 * i, k });
		}
	for (int i = 0; i < s->nlinks; i++) {
		const struct fpt_link *l = &s->links[i];
		int last = l->nentry ? l->entry[l->nentry - 1] : 0;

		for (int j = 0; j < l->nentry; j++) {
			int key = 2 * l->entry[j];

			add_part(v, &n, (struct part){ l->entry[j], i, key, FPT_P_FPROBE });
		}
		for (int j = 0; j < l->nexit; j++) {
			int key = 2 * (l->exit[j] > last ? l->exit[j] : last) + 1;

			add_part(v, &n, (struct part){ l->exit[j], i, key, FPT_P_FRETPROBE });
		}
	}
	qsort(*v, n, sizeof(**v), cmp_part);
	return n;
}

static void check_pending(struct tctx *c)
{
	for (int i = 0; i < c->npend; i++) {
		const struct pending *p = &c->pend[i];
		const struct fpt_map_info *m = &c->s->maps[p->map];

		if (!m->typed)
			fpt_error(c->d, p->loc, "Undefined map: %s", m->name);
		else if (p->e && m->kind != FPT_V_INT && m->kind != FPT_V_STR)
			fpt_error(c->d, p->loc,
				  "%s holds an aggregation and cannot be read in an expression",
				  m->name);
		else if (p->e)
			p->e->type = m->val;
	}
	free(c->pend);
}

static void finish_link(struct fpt_link *l)
{
	unsigned int n = l->nsvars ? l->svars[l->nsvars - 1].off +
		round8(l->svars[l->nsvars - 1].type.size) : 0;

	if (l->nentry && l->nexit)
		l->mode = FPT_LINK_SESSION;
	else if (l->nexit)
		l->mode = l->latency ? FPT_LINK_SESSION : FPT_LINK_EXIT;
	else
		l->mode = FPT_LINK_ENTRY;
	if (l->latency) {
		l->ts_off = n;
		n += 8;
	}
	if (l->mode == FPT_LINK_SESSION)
		l->session_size = n;
}

static unsigned int value_size(const struct fpt_map_info *m)
{
	switch (m->kind) {
	case FPT_V_STR:
		return m->val.size;
	case FPT_V_MIN: case FPT_V_MAX: case FPT_V_AVG: case FPT_V_STATS:
		return 16;
	default:
		return 8;
	}
}

static void finish_map(struct fpt_map_info *m)
{
	bool agg = m->kind != FPT_V_INT && m->kind != FPT_V_STR;
	bool hist = m->kind == FPT_V_HIST || m->kind == FPT_V_LHIST;

	if (m->nkeys < 0)
		m->nkeys = 0;
	for (int i = 0; i < m->nkeys; i++) {
		m->key_off[i] = m->key_size;
		m->key_size += m->keys[i].kind == FPT_TY_STR ? m->keys[i].size : 8;
	}
	m->key_size += hist ? 8 : 0;
	m->value_size = value_size(m);
	if (keyless_array(m)) {	/* a histogram's is indexed by the bucket */
		m->bpf_type = BPF_MAP_TYPE_PERCPU_ARRAY;
		m->key_size = 4;
		m->max_entries = m->kind == FPT_V_HIST ? (uint32_t)fpt_hist_nbuckets(m->hist_bits) :
			m->kind == FPT_V_LHIST ?
			(uint32_t)fpt_lhist_nbuckets(m->lmin, m->lmax, m->lstep) : 1;
		return;
	}
	/* no keys: a hash of one element, so that delete() and "never set" work */
	m->bpf_type = agg ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_HASH;
	m->max_entries = m->key_size ? FPT_MAP_ENTRIES : 1;
	if (!m->key_size)
		m->key_size = 4;
}

static void internal_maps(struct tctx *c)
{
	struct fpt_loc none = { 0, 0, 0, 0 };
	struct fpt_map_info *m;
	int i;

	if (c->events) {
		i = map_add(c->s, ".events", FPT_MAP_EVENTS, none);
		m = &c->s->maps[i];
		m->bpf_type = BPF_MAP_TYPE_RINGBUF;
		m->max_entries = FPT_RINGBUF_SIZE;
		m->nkeys = 0;
		i = map_add(c->s, ".lost", FPT_MAP_LOST, none);
		m = &c->s->maps[i];
		m->bpf_type = BPF_MAP_TYPE_PERCPU_ARRAY;
		m->key_size = 4;
		m->value_size = 8;
		m->max_entries = 1;
		m->nkeys = 0;
	}
	/* a stack map a frame count: one holds as many frames as its values */
	for (unsigned int n = 1; n <= FPT_STACK_DEPTH; n++) {
		char name[16];

		if (!c->stacks[n])
			continue;
		snprintf(name, sizeof(name), n == FPT_STACK_DEPTH ? ".stacks" : ".stacks%u", n);
		i = map_add(c->s, name, FPT_MAP_STACKS, none);
		m = &c->s->maps[i];
		m->bpf_type = BPF_MAP_TYPE_STACK_TRACE;
		m->key_size = 4;
		m->value_size = n * 8;
		m->max_entries = FPT_MAP_ENTRIES;
		m->nkeys = 0;
	}
}

static void type_parts(struct tctx *c, const struct fpt_program *prog)
{
	struct part *v;
	int n = list_parts(prog, c->s, &v);

	c->lvars = calloc(c->s->nlinks + 1, sizeof(*c->lvars));
	c->session_reported = calloc(c->s->nlinks + 1, sizeof(bool));
	c->snaps = calloc(prog->nprobes + 1, sizeof(*c->snaps));
	if (!c->lvars || !c->session_reported || !c->snaps)
		abort();
	for (int i = 0; i < n; i++)
		type_part(c, &prog->probes[v[i].probe], v[i].link, v[i].kind);
	for (int i = 0; i < c->s->nlinks; i++)
		vars_free(&c->lvars[i]);
	for (int i = 0; i < prog->nprobes; i++)
		free(c->snaps[i].v);
	free(c->snaps);
	free(c->lvars);
	free(c->session_reported);
	free(v);
}

/* Forget what a pass learnt, but for the maps' values. */
static void reset_pass(struct tctx *c)
{
	for (int i = 0; i < c->s->nlinks; i++) {
		struct fpt_link *l = &c->s->links[i];

		for (int j = 0; j < l->nsvars; j++)
			free(l->svars[j].name);
		free(l->svars);
		l->svars = NULL;
		l->nsvars = 0;
		l->latency = false;
		l->saved_args = 0;
	}
	for (int i = 0; i < c->s->nmaps; i++)
		c->s->maps[i].nkeys = -1;
	free(c->pend);
	c->pend = NULL;
	c->npend = 0;
	c->events = false;
	memset(c->stacks, 0, sizeof(c->stacks));
}

static int typed_maps(const struct fpt_sema *s)
{
	int n = 0;

	for (int i = 0; i < s->nmaps; i++)
		n += s->maps[i].typed;
	return n;
}

/*
 * Silent passes give each map the type of its first assignment, whatever
 * comes first in the source: a read before the assignment (in an earlier
 * probe, or a BEGIN that prints it) then has that type when the last pass
 * checks it. An assignment whose value reads a map not typed yet types
 * nothing; the next pass may, so passes run until one types no new map.
 */
static void learn_maps(struct tctx *c, const struct fpt_program *prog)
{
	struct fpt_diag quiet, *d = c->d;
	int before = -1;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	fpt_diag_init(&quiet, d->src, f);
	c->d = &quiet;
	c->learning = true;
	while (typed_maps(c->s) != before) {
		before = typed_maps(c->s);
		type_parts(c, prog);
		reset_pass(c);
		rewind(f);
	}
	c->learning = false;
	c->d = d;
	fclose(f);
	free(buf);
}

int fpt_types(struct fpt_program *prog, const struct btf *btf,
	      const char *const *funcs, size_t nfuncs, struct fpt_diag *d,
	      struct fpt_sema *out)
{
	struct tctx c = { .d = d, .btf = btf, .s = out };
	int errors = d->errors;

	names_btf = btf;
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < prog->nprobes; i++)
		probe_links(&c, &prog->probes[i], funcs, nfuncs);
	if (d->errors > errors)
		return d->errors - errors;
	learn_maps(&c, prog);
	type_parts(&c, prog);
	check_pending(&c);
	for (int i = 0; i < out->nlinks; i++)
		finish_link(&out->links[i]);
	for (int i = 0; i < out->nmaps; i++)
		finish_map(&out->maps[i]);
	internal_maps(&c);
	return d->errors - errors;
}

void fpt_sema_free(struct fpt_sema *s)
{
	for (int i = 0; i < s->nmaps; i++)
		free(s->maps[i].name);
	for (int i = 0; i < s->nlinks; i++) {
		struct fpt_link *l = &s->links[i];

		for (int j = 0; j < l->nfuncs; j++)
			free(l->funcs[j]);
		for (int j = 0; j < l->nsvars; j++)
			free(l->svars[j].name);
		free(l->funcs);
		free(l->entry);
		free(l->exit);
		free(l->svars);
	}
	free(s->maps);
	free(s->links);
	memset(s, 0, sizeof(*s));
}
