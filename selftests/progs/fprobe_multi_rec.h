/* SPDX-License-Identifier: GPL-2.0 */
/* What progs/fprobe_multi.bpf.c records for each function and side. */
#ifndef __FPROBE_MULTI_REC_H
#define __FPROBE_MULTI_REC_H

#include "fentry_test_values.h"

#define FPROBE_REC_ARGS		7	/* one past the register arguments */
#define FPROBE_SESSION_MAX	64	/* BPF_FPROBE_MULTI_SESSION_MAX */

struct fprobe_side {
	__u64 runs;
	__u64 is_return;
	__u64 func_ip;		/* bpf_fprobe_func_ip() */
	__u64 helper_ip;	/* bpf_get_func_ip() */
	__u64 cookie;		/* bpf_get_attach_cookie() */
	__u64 args[FPROBE_REC_ARGS];
	__s64 arg_err[FPROBE_REC_ARGS];
	__u64 ret;
	__s64 ret_err;
	/* bpf_fprobe_session_data() of 8, 64, 65 and 0 bytes was not NULL */
	__u64 data8, data64, data65, data0;
	/* session data as this side found it */
	__u64 data_words[FPROBE_SESSION_MAX / 8];
};

struct fprobe_rec {
	struct fprobe_side entry;
	struct fprobe_side exit;
};

#endif
