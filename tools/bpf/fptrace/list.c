// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * list.c: fptrace -l, the probes a script could use.
 *
 * Takes a probe spec, "fprobe:GLOB", "fretprobe:GLOB", "kprobe:GLOB",
 * "kretprobe:GLOB" or a bare GLOB (taken as fprobe:GLOB), and the kernel's
 * traceable functions with their modules; prints one line a matching
 * function, "fprobe:vfs_read", with the provider as written (kprobe: and
 * kretprobe: name the same fprobe attachments in scripts). With -v, the
 * function's parameters from BTF follow, one a line indented by four
 * spaces as "TYPE NAME", and for an exit probe "RETTYPE retval" after
 * them, as bpftrace's -lv prints them:
 *
 *	fretprobe:vfs_read
 *	    struct file * file
 *	    char * buf
 *	    size_t count
 *	    loff_t * pos
 *	    ssize_t retval
 *
 * A module's function takes its types from the module's split BTF. A spec
 * that matches nothing is an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>
#include <bpf/btf.h>

#include "fptrace.h"

/* ---- C type names ------------------------------------------------------------ */

static void type_name(const struct btf *btf, __u32 id, char *buf, size_t len);

/* "struct file", "enum pid_type", "struct (anon)" */
static void tagged_name(const struct btf *btf, const struct btf_type *t, char *buf, size_t len)
{
	const char *name = btf__name_by_offset(btf, t->name_off);
	const char *tag = btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ? "union" :
		btf_is_enum(t) || btf_is_enum64(t) ? "enum" : "struct";

	snprintf(buf, len, "%s %s", tag, name && *name ? name : "(anon)");
}

/* "int (*)(struct file *, int)": a pointer to the function type t. */
static void func_ptr_name(const struct btf *btf, const struct btf_type *t, char *buf,
			  size_t len)
{
	const struct btf_param *p = btf_params(t);
	char part[256];
	size_t n;

	type_name(btf, t->type, part, sizeof(part));
	n = snprintf(buf, len, "%s (*)(", part);
	for (int i = 0; i < (int)btf_vlen(t) && n < len; i++) {
		if (p[i].type)
			type_name(btf, p[i].type, part, sizeof(part));
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "", p[i].type ? part : "...");
	}
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

/* "T *", or "T **" when T is a pointer already. */
static void ptr_name(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *to = btf__type_by_id(btf, id);
	char inner[256];

	if (to && btf_is_func_proto(to)) {
		func_ptr_name(btf, to, buf, len);
		return;
	}
	type_name(btf, id, inner, sizeof(inner));
	snprintf(buf, len, "%s%s*", inner, inner[strlen(inner) - 1] == '*' ? "" : " ");
}

/* A parameter's or a return value's type as C spells it: "const char *". */
static void type_name(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	const char *name;
	char inner[256];

	if (!t) {
		snprintf(buf, len, "void");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	if (btf_is_ptr(t)) {
		ptr_name(btf, t->type, buf, len);
	} else if (btf_is_const(t) || btf_is_volatile(t)) {
		type_name(btf, t->type, inner, sizeof(inner));
		if (inner[strlen(inner) - 1] == '*')
			snprintf(buf, len, "%s %s", inner, btf_is_const(t) ? "const" : "volatile");
		else
			snprintf(buf, len, "%s %s", btf_is_const(t) ? "const" : "volatile", inner);
	} else if (btf_is_mod(t) || btf_is_decl_tag(t) || btf_is_type_tag(t)) {
		type_name(btf, t->type, buf, len);	/* restrict, tags: as the type */
	} else if (btf_is_array(t)) {
		type_name(btf, btf_array(t)->type, inner, sizeof(inner));
		snprintf(buf, len, "%s[%u]", inner, btf_array(t)->nelems);
	} else if (btf_is_composite(t) || btf_is_fwd(t) || btf_is_any_enum(t)) {
		tagged_name(btf, t, buf, len);
	} else {
		snprintf(buf, len, "%s", name && *name ? name : "void");
	}
}

/* ---- The listing ---------------------------------------------------------------- */

/* The parameters of name, and its return value for an exit probe (-v). */
static void list_params(const struct btf *btf, const char *name, bool exit)
{
	__s32 id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
	const struct btf_type *t = id > 0 ?
		btf__type_by_id(btf, btf__type_by_id(btf, id)->type) : NULL;
	char type[512];

	if (!t || !btf_is_func_proto(t))
		return;
	for (int i = 0; i < (int)btf_vlen(t); i++) {
		const struct btf_param *p = &btf_params(t)[i];
		const char *pn = btf__name_by_offset(btf, p->name_off);

		if (!p->type)
			break;		/* "...": nothing a probe can name */
		type_name(btf, p->type, type, sizeof(type));
		printf("    %s %s\n", type, pn && *pn ? pn : "");
	}
	if (exit && t->type) {
		type_name(btf, t->type, type, sizeof(type));
		printf("    %s retval\n", type);
	}
}

/* The BTF for module mod's functions, parsed when the module changes. */
static const struct btf *module_btf(struct btf *base, const char *mod, struct btf **mbtf,
				    const char **cur)
{
	char path[256];

	if (!mod)
		return base;
	if (!*cur || strcmp(*cur, mod)) {
		btf__free(*mbtf);
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
		*mbtf = btf__parse_split(path, base);
		*cur = mod;
	}
	return *mbtf ? *mbtf : base;
}

/* -l's refusal of a spec whose provider fptrace does not list. */
static int bad_provider(const char *spec)
{
	int len = (int)strcspn(spec, ":");
	const char *why = fpt_left_out_reason(spec, len);

	if (why)
		fprintf(stderr, "ERROR: -l: %.*s probes are not supported by fptrace: %s\n",
			len, spec, why);
	else
		fprintf(stderr, "ERROR: -l: unknown probe type '%.*s'\n", len, spec);
	return 1;
}

int fpt_list(const char *spec, bool verbose, char *const *names, char *const *mods, size_t n)
{
	const char *glob, *prov = fpt_list_provider(spec, &glob), *cur = NULL;
	struct btf *base = NULL, *mbtf = NULL;
	size_t found = 0;

	if (!prov)
		return bad_provider(spec);
	if (verbose) {
		base = btf__parse("/sys/kernel/btf/vmlinux", NULL);
		if (!base) {
			fprintf(stderr, "ERROR: -lv: cannot read /sys/kernel/btf/vmlinux: %s\n",
				strerror(errno));
			return 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (fnmatch(*glob ? glob : "*", names[i], 0))
			continue;
		printf("%s:%s\n", prov, names[i]);
		if (base)
			list_params(module_btf(base, mods[i], &mbtf, &cur), names[i],
				    !strcmp(prov, "fretprobe") || !strcmp(prov, "kretprobe"));
		found++;
	}
	btf__free(mbtf);
	btf__free(base);
	if (!found)
		fprintf(stderr, "ERROR: -l: pattern '%s' matches no traceable function\n", spec);
	return found ? 0 : 1;
}
