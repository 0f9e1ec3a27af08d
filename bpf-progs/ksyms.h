/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __FPM_KSYMS_H
#define __FPM_KSYMS_H

struct ksyms;

/* Load /proc/kallsyms; NULL with errno set on failure. */
struct ksyms *ksyms__load(void);
/* Name of the symbol at exactly addr, or NULL. */
const char *ksyms__name(const struct ksyms *ks, unsigned long addr);
void ksyms__free(struct ksyms *ks);

struct btf;
/*
 * A 64-bit return register narrowed to the width of @fn's BTF return type,
 * sign-extended when that type is signed; @ret as is without BTF or @fn.
 */
long long ksyms__ret_value(const struct btf *btf, const char *fn, long long ret);

#endif
