/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __FPM_KSYMS_H
#define __FPM_KSYMS_H

struct ksyms;

/* Load /proc/kallsyms; NULL with errno set on failure. */
struct ksyms *ksyms__load(void);
/* Name of the symbol at exactly addr, or NULL. */
const char *ksyms__name(const struct ksyms *ks, unsigned long addr);
void ksyms__free(struct ksyms *ks);

#endif
