# SPDX-License-Identifier: GPL-2.0
#
# User space, built from the applied tree in $(B)/linux: libbpf, bpftool,
# vmlinux.h, the BPF objects and skeletons of selftests/ and bpf-progs/,
# the selftest runner, the example tools, and the guest initramfs.
# Called by the top-level Makefile with KB= the kernel build directory
# and BUILD= the base's build directory (build, or build/VERSION for
# BASE=VERSION); without BUILD, build.

TOP := $(CURDIR)
B := $(or $(BUILD),$(TOP)/build)
L := $(B)/linux
KB ?= $(B)/kbuild
FLAVOUR ?= default
# Per flavour, so that both can build at once.
U := $(B)/user-$(FLAVOUR)

CLANG := clang-19
LLVM_STRIP := llvm-strip-19
CC := gcc
BPFTOOL := $(U)/bpftool/bpftool
FPTRACE := $(U)/fptrace/fptrace
LIBBPF_A := $(U)/libbpf/libbpf.a
USR := $(U)/usr
VMLINUX_H := $(U)/include/vmlinux.h
STATIC_LIBS := $(LIBBPF_A) -lelf -lz -lzstd

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(U)/include -I$(USR)/include -I$(TOP)/bpf-progs/include \
	-I$(TOP)/selftests/progs -I$(TOP)/bpf-progs
# A kernel that embeds tagged structs anonymously (CONFIG_CC_MS_EXTENSIONS:
# 7.3 does, 6.12 does not) has "struct NAME;" members in vmlinux.h, which
# clang takes only as the kernel itself does: with Microsoft's extensions.
ifneq ($(shell grep -s CC_MS_EXTENSIONS $(L)/Makefile),)
BPF_CFLAGS += -fms-extensions -Wno-microsoft-anon-tag
endif
# Since 7.0 the session kfuncs take the program's context (fpm_kfuncs.h).
ifneq ($(shell grep -s 'bpf_session_is_return(void \*ctx)' $(L)/kernel/trace/bpf_trace.c),)
BPF_CFLAGS += -DFPM_SESSION_KFUNCS_TAKE_CTX
endif
USER_CFLAGS := -g -O2 -Wall -Werror -I$(USR)/include \
	-I$(L)/tools/include/uapi -I$(L)/tools/include

.PHONY: tools progs initramfs bench-initramfs
.DELETE_ON_ERROR:
# Keep BPF objects and skeletons: they are products, not scratch files.
.SECONDARY:

# libbpf and bpftool need only the applied tree, so they can build while
# the kernel does; vmlinux.h comes with the BPF objects that include it.
tools: $(LIBBPF_A) $(BPFTOOL) $(FPTRACE)

# libbpf: its own make is incremental, so always ask it.
# The tools stage always asks their own makefiles; later stages do not.
FORCE_TOOLS ?= FORCE
.PHONY: FORCE
$(LIBBPF_A): $(FORCE_TOOLS)
	@mkdir -p $(U)/libbpf $(USR)
	$(MAKE) -C $(L)/tools/lib/bpf OUTPUT=$(U)/libbpf/ BUILD_STATIC_ONLY=1 \
		DESTDIR=$(USR) prefix= libdir_relative=lib CC=$(CC) \
		$(U)/libbpf/libbpf.a install_headers
	@mkdir -p $(USR)/include/linux
	cp -u $(L)/tools/include/uapi/linux/bpf.h $(L)/tools/include/uapi/linux/btf.h \
		$(USR)/include/linux/

# bpftool, static so that the guest runs the same binary.
$(BPFTOOL): $(FORCE_TOOLS) | $(LIBBPF_A)
	@mkdir -p $(U)/bpftool
	$(MAKE) -C $(L)/tools/bpf/bpftool OUTPUT=$(U)/bpftool/ \
		CLANG=$(CLANG) LLVM_STRIP=$(LLVM_STRIP) EXTRA_LDFLAGS=-static \
		feature-llvm=0 feature-libbfd=0 feature-libbfd-liberty=0 \
		feature-libbfd-liberty-z=0

# fptrace, static like bpftool, from the applied tree, on our libbpf.
$(FPTRACE): $(FORCE_TOOLS) | $(LIBBPF_A)
	@mkdir -p $(U)/fptrace
	$(MAKE) -C $(L)/tools/bpf/fptrace OUTPUT=$(U)/fptrace/ LIBBPF_A=$(LIBBPF_A) \
		LIBBPF_INC=$(USR)/include UAPI_INC=$(L)/tools/include/uapi $@

# Rewritten only when the BTF's C view changes, so BPF objects rebuild
# only then.
$(VMLINUX_H): $(KB)/vmlinux $(BPFTOOL)
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(KB)/vmlinux format c >$@.tmp
	if cmp -s $@.tmp $@; then rm $@.tmp; touch $@; else mv $@.tmp $@; fi

# BPF objects and skeletons
ST_PROGS := $(wildcard selftests/progs/*.bpf.c)
EX_PROGS := $(wildcard bpf-progs/*.bpf.c)
ST_OBJS := $(patsubst selftests/progs/%.bpf.c,$(U)/selftests/%.bpf.o,$(ST_PROGS))
EX_OBJS := $(patsubst bpf-progs/%.bpf.c,$(U)/bpf-progs/%.bpf.o,$(EX_PROGS))
# The BPF examples of Documentation/ (".. example: NAME"), compiled as
# they are shown: doc_examples loads and runs them. A base with a text of
# its own (bases/VERSION/Documentation) has its examples taken from there.
DOC_RST := $(firstword $(if $(FPM_SRC),$(wildcard $(FPM_SRC)/Documentation/bpf/fprobe_multi.rst)) \
	Documentation/bpf/fprobe_multi.rst)
DOC_PROGS := read_latency
ST_SKELS := $(ST_OBJS:.bpf.o=.skel.h) $(patsubst %,$(U)/doc/%.skel.h,$(DOC_PROGS))
EX_SKELS := $(EX_OBJS:.bpf.o=.skel.h)

$(U)/selftests/%.bpf.o: selftests/progs/%.bpf.c $(VMLINUX_H) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -MMD -c $< -o $@

$(U)/doc/%.bpf.c: $(DOC_RST) scripts/doc-examples.py
	@mkdir -p $(@D)
	python3 scripts/doc-examples.py --source $* $(DOC_RST) >$@

$(U)/doc/%.bpf.o: $(U)/doc/%.bpf.c $(VMLINUX_H) $(LIBBPF_A)
	$(CLANG) $(BPF_CFLAGS) -MMD -c $< -o $@

$(U)/bpf-progs/%.bpf.o: bpf-progs/%.bpf.c $(VMLINUX_H) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -MMD -c $< -o $@

%.skel.h: %.bpf.o $(BPFTOOL)
	$(BPFTOOL) gen skeleton $< >$@

# Selftest runner: tests.h lists every prog_tests/*.c; it is rewritten
# only when that list changes. A base the series is moving to names in
# bases/VERSION/selftests the tests and subtests (TEST/SUBTEST) that run
# there for now (the others need what the series has not brought there
# yet); the runner is built with those tests only.
ST_LIST := $(if $(FPM_SRC),$(wildcard $(FPM_SRC)/selftests))
ifeq ($(ST_LIST),)
TESTS := $(sort $(basename $(notdir $(wildcard selftests/prog_tests/*.c))))
else
TESTS := $(sort $(foreach e,$(shell sed 's/\#.*//' $(ST_LIST)),$(firstword $(subst /, ,$(e)))))
endif
RUNNER_SRCS := selftests/runner.c selftests/helpers.c $(TESTS:%=selftests/prog_tests/%.c)
# What such a base lacks, for the tests that check it where it exists
ifeq ($(shell grep -s bpf_fprobe_multi_opts $(L)/tools/lib/bpf/libbpf.h),)
ST_CFLAGS += -DFPM_NO_FPROBE_MULTI
endif
# kprobe.multi's link_info with missed calls by cause (fprobe.multi's has
# them from the start)
KMULTI_BY_CAUSE := $(shell awk '/^struct bpf_link_info {/ { li = 1 } !li { next } \
	/struct {/ { f = 0 } /missed_recursion/ { f = 1 } \
	/} kprobe_multi;/ { if (f) print "y"; exit }' $(L)/tools/include/uapi/linux/bpf.h 2>/dev/null)
ifeq ($(KMULTI_BY_CAUSE),)
ST_CFLAGS += -DFPM_NO_MISSED_BY_CAUSE
endif
# fprobe with one block for all the fprobes of a call (mainline's)
ifeq ($(shell grep -s fgraph_init_owner_ops $(L)/include/linux/ftrace.h),)
ST_CFLAGS += -DFPM_SHARED_FPROBE_BLOCK
endif
RUNNER_OBJS := $(patsubst selftests/%.c,$(U)/selftests/obj/%.o,$(RUNNER_SRCS))
RUNNER := $(U)/selftests/runner

$(U)/selftests/tests.h: FORCE
	@mkdir -p $(@D)
	@{ printf 'void test_%s(void);\n' $(TESTS); \
	   printf '#define FPM_TESTS \\\n'; \
	   printf '\t{ "%s", test_%s },\\\n' $(foreach t,$(TESTS),$(t) $(t)); \
	   echo; } >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

# The shell examples README.md marks, for the test that runs them.
DOC_EXAMPLE_FILES := README.md tools/bpf/fptrace/Documentation/fptrace.rst

$(U)/selftests/doc_examples.h: $(DOC_EXAMPLE_FILES) scripts/doc-examples.py
	@mkdir -p $(@D)
	python3 scripts/doc-examples.py $(DOC_EXAMPLE_FILES) >$@

$(U)/selftests/obj/%.o: selftests/%.c $(U)/selftests/tests.h $(U)/selftests/doc_examples.h \
		$(ST_SKELS) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(ST_CFLAGS) -I$(TOP)/selftests -I$(TOP)/selftests/progs \
		-I$(U)/selftests -I$(U)/doc -MMD -c $< -o $@

$(RUNNER): $(RUNNER_OBJS) $(LIBBPF_A)
	$(CC) -static -o $@ $(RUNNER_OBJS) $(STATIC_LIBS)

# Example tools: bpf-progs/NAME.c with bpf-progs/NAME.bpf.c, plus ksyms.c.
EX_TOOLS := $(patsubst bpf-progs/%.bpf.c,$(U)/bin/%,$(EX_PROGS))

$(U)/bpf-progs/obj/%.o: bpf-progs/%.c $(EX_SKELS) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(TOP)/bpf-progs -I$(U)/bpf-progs -MMD -c $< -o $@

$(U)/bin/%: $(U)/bpf-progs/obj/%.o $(U)/bpf-progs/obj/ksyms.o $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $< $(U)/bpf-progs/obj/ksyms.o $(STATIC_LIBS)

# The test module, built out of tree against the kernel in $(KB). Its
# sources are copied so that kbuild's outputs stay under build/.
KMOD := $(U)/kmod/fpm_test.ko

$(KMOD): $(wildcard selftests/kmod/*) $(KB)/vmlinux
	rm -rf $(@D)
	mkdir -p $(@D)
	cp selftests/kmod/* $(@D)/
	$(MAKE) -C $(L) O=$(KB) M=$(@D) modules

# Host unit tests of libbpf (no kernel needed): scripts/host-tests.sh runs
# them with the BPF object of section names.
HOST_TESTS := $(U)/host/libbpf_fprobe $(U)/host/fprobe_sections.bpf.o \
	$(U)/host/fptrace_unit $(U)/host/fptrace_codegen

$(U)/host/%.bpf.o: tests/host/progs/%.bpf.c $(VMLINUX_H) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -MMD -c $< -o $@

$(U)/host/libbpf_fprobe: tests/host/libbpf_fprobe.c $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -MMD -o $@ $< $(STATIC_LIBS)

# fptrace's stage-1 unit test: the front end and the printing, no libbpf.
FPT_DIR := tools/bpf/fptrace
FPT_SRCS := $(addprefix $(FPT_DIR)/,lexer.c parser.c diag.c print.c ksyms.c cli.c)
FPT_CG_SRCS := $(FPT_SRCS) $(addprefix $(FPT_DIR)/,types.c codegen.c insn.c)

$(U)/host/fptrace_unit: tests/host/fptrace/fptrace_unit.c $(FPT_SRCS) $(FPT_DIR)/fptrace.h
	@mkdir -p $(@D)
	$(CC) -g -O2 -Wall -Wextra -Werror -std=gnu11 -I$(FPT_DIR) \
		-DFPT_GOLDEN_DIR='"$(TOP)/tests/host/fptrace/golden"' \
		-o $@ $(filter %.c,$^)

# Its stage-2 unit test: the type pass and the code generator, against a
# BTF made with libbpf.
$(U)/host/fptrace_codegen: tests/host/fptrace/fptrace_codegen.c $(FPT_CG_SRCS) \
		$(FPT_DIR)/fptrace.h $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) -g -O2 -Wall -Wextra -Werror -std=gnu11 -I$(FPT_DIR) -I$(USR)/include \
		-I$(L)/tools/include/uapi \
		-DFPT_GOLDEN_DIR='"$(TOP)/tests/host/fptrace/golden"' \
		-o $@ $(filter %.c,$^) $(STATIC_LIBS)

# The benchmark runner: bench/fpm_bench.c with bench/progs/*.bpf.c.
BENCH_PROGS := $(wildcard bench/progs/*.bpf.c)
BENCH_SKELS := $(patsubst bench/progs/%.bpf.c,$(U)/bench/%.skel.h,$(BENCH_PROGS))
BENCH := $(U)/bin/fpm_bench

$(U)/bench/%.bpf.o: bench/progs/%.bpf.c $(VMLINUX_H) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -I$(TOP)/bench -MMD -c $< -o $@

$(U)/bench/obj/fpm_bench.o: bench/fpm_bench.c $(BENCH_SKELS) $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(TOP)/bench -I$(TOP)/selftests -I$(U)/bench -MMD -c $< -o $@

$(BENCH): $(U)/bench/obj/fpm_bench.o $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $< $(STATIC_LIBS)

progs: $(RUNNER) $(EX_TOOLS) $(KMOD) $(HOST_TESTS) $(BENCH)

# Guest initramfs: busybox, /init, the runner, bpftool, fptrace, the example tools,
# the benchmark runner.
INITRAMFS := $(B)/initramfs-$(FLAVOUR).cpio.gz
FTRACE_TESTS := $(L)/tools/testing/selftests/ftrace
GUEST_FILES := /bin/busybox /bin/bash-static scripts/init.sh scripts/demo.sh $(RUNNER) \
	$(BPFTOOL) $(FPTRACE) $(EX_TOOLS) $(BENCH) $(KMOD) $(FTRACE_TESTS)/ftracetest

$(INITRAMFS): $(GUEST_FILES)
	rm -rf $(U)/root
	mkdir -p $(U)/root/bin $(U)/root/lib $(U)/root/proc $(U)/root/sys $(U)/root/dev \
		$(U)/root/tmp
	cp /bin/busybox $(RUNNER) $(BPFTOOL) $(FPTRACE) $(EX_TOOLS) $(BENCH) $(U)/root/bin/
	cp $(KMOD) $(U)/root/lib/
	cp /bin/bash-static $(U)/root/bin/bash
	cp -r $(FTRACE_TESTS) $(U)/root/ftrace
	cp scripts/demo.sh $(U)/root/bin/demo.sh
	cp scripts/init.sh $(U)/root/init
	chmod +x $(U)/root/init $(U)/root/bin/*
	(cd $(U)/root && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >$@

initramfs: $(INITRAMFS)

# The guest of "make BASE=VERSION bench": busybox, /init, the benchmark
# runner and, where the base's series has it, fptrace (fpm_bench measures
# it against hand-written programs).
BENCH_INITRAMFS := $(B)/initramfs-bench-$(FLAVOUR).cpio.gz
BENCH_FPTRACE := $(if $(wildcard $(L)/tools/bpf/fptrace/Makefile),$(FPTRACE))

$(BENCH_INITRAMFS): /bin/busybox scripts/init.sh $(BENCH) $(BENCH_FPTRACE) mk/user.mk
	rm -rf $(U)/bench-root
	mkdir -p $(U)/bench-root/bin $(U)/bench-root/proc $(U)/bench-root/sys \
		$(U)/bench-root/dev $(U)/bench-root/tmp
	cp /bin/busybox $(BENCH) $(BENCH_FPTRACE) $(U)/bench-root/bin/
	cp scripts/init.sh $(U)/bench-root/init
	chmod +x $(U)/bench-root/init $(U)/bench-root/bin/*
	(cd $(U)/bench-root && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | \
		gzip -1 >$@

bench-initramfs: $(BENCH_INITRAMFS)

-include $(wildcard $(U)/selftests/*.d $(U)/bpf-progs/*.d $(U)/selftests/obj/*.d $(U)/host/*.d \
	$(U)/selftests/obj/*/*.d $(U)/bpf-progs/obj/*.d $(U)/bench/*.d $(U)/bench/obj/*.d)
