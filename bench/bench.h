/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by fpm_bench and its BPF objects. */
#ifndef __FPM_BENCH_H
#define __FPM_BENCH_H

/* Calls of the target per run of the driver program. */
#define BENCH_BATCH	1000

#endif
