# SPDX-License-Identifier: GPL-2.0
#
# fprobe-multi: build the patched kernel, the tools and the BPF programs,
# then boot them in a QEMU guest.
#
#   make             build everything (stages: deps apply config kernel
#                    tools progs initramfs)
#   make demo        build, boot, run the example tracer in the guest
#   make test        build, then run every test: the VM selftests (T=GLOB
#                    filters them) and, meanwhile, checkpatch, the host
#                    unit tests and the exported series' per-patch builds
#   make shell       a root shell in the guest, this directory shared into it
#                    read-write (scripts/vmtest.sh -x CMD runs one command)
#   make check       checkpatch.pl --strict over patches and overlay C files,
#                    clang-19 W=1 over the kernel files the series changes,
#                    and the series' code built for seven architectures
#   make bench       build the base kernel too, then measure probe costs,
#                    attach times and memory on both (results in build/bench;
#                    FLAVOUR=debug: per-call costs only, in build/bench-debug)
#   make refresh-patches   export commits made in build/linux back to
#                    patches/ and the overlay
#   make export      the series as a proposal: git format-patch and a
#                    cover letter in build/export (make test applies it to
#                    the pristine base and builds every patch)
#   make FLAVOUR=debug ...  the same with KASAN, lockdep and kmemleak
#   make BASE=7.3 kernel|test|bench   the base the series is moving to:
#                    its kernel in build/7.3, the tests of tests/base/
#                    (make test runs them too), and make bench against
#                    mainline with the fixes its BASE file names
#
# Every stage prints its name and duration; see README.md.

TOP := $(CURDIR)
# BASE=VERSION: a base kernel the series is moving to, pinned by
# bases/VERSION/BASE with its own series there; it builds in build/VERSION
# and "make BASE=VERSION test" runs that base's tests (README, "Bases").
BASE ?=
ifeq ($(BASE),)
B := $(TOP)/build
else
ifeq ($(wildcard $(TOP)/bases/$(BASE)/BASE),)
$(error BASE=$(BASE): there is no bases/$(BASE)/BASE)
endif
B := $(TOP)/build/$(BASE)
export FPM_SRC := $(TOP)/bases/$(BASE)
endif
FLAVOUR ?= default
T ?=
VM_TIMEOUT ?= 1800

ifeq ($(FLAVOUR),debug)
KB := $(B)/kbuild-debug
FRAGMENTS := configs/fprobe-multi.config configs/debug.config
else ifeq ($(FLAVOUR),default)
KB := $(B)/kbuild
FRAGMENTS := configs/fprobe-multi.config
else
$(error FLAVOUR must be default or debug)
endif

STAGE := $(TOP)/scripts/stage.sh
export BUILD := $(B)

.PHONY: all deps apply config kernel tools progs initramfs demo test shell check bench \
	refresh-patches export clean distclean

# The kernel and the tools (libbpf, bpftool) build at once: the tools need
# only the applied tree, and they use the CPU that the kernel's link steps,
# which run on one CPU, leave idle.
all:
	@$(MAKE) --no-print-directory -j2 initramfs

deps:
	@$(STAGE) deps -- scripts/deps.sh

apply: deps
	@$(STAGE) apply -- scripts/tree.sh apply

config: apply
	@$(STAGE) config -- scripts/kernel.sh config $(KB) $(FRAGMENTS)

kernel: config
	@$(STAGE) kernel -- scripts/kernel.sh build $(KB)

tools: apply
	@$(STAGE) tools -q $(B)/logs/tools.log -- $(MAKE) -f mk/user.mk KB=$(KB) FLAVOUR=$(FLAVOUR) tools

progs: kernel tools
	@$(STAGE) progs -q $(B)/logs/progs.log -- $(MAKE) -f mk/user.mk KB=$(KB) FLAVOUR=$(FLAVOUR) FORCE_TOOLS= progs

initramfs: progs
	@$(STAGE) initramfs -- $(MAKE) -s -f mk/user.mk KB=$(KB) FLAVOUR=$(FLAVOUR) FORCE_TOOLS= initramfs

demo: all
	@$(STAGE) boot -- scripts/vmtest.sh -m demo -k $(KB) \
		-i $(B)/initramfs-$(FLAVOUR).cpio.gz -T 600

ifeq ($(BASE),)
test:
	@scripts/run-tests.sh $(FLAVOUR) '$(T)' $(VM_TIMEOUT)
else
test:
	@scripts/base-tests.sh $(BASE) '$(T)'
endif

# A root shell in the guest, with this directory shared read-write. make
# exits 2 whenever a recipe fails, so the guest's own status (of piped
# input ending in "exit 3", say) is printed; scripts/vmtest.sh -m shell
# exits with it.
shell: all
	@scripts/vmtest.sh -m shell -k $(KB) -i $(B)/initramfs-$(FLAVOUR).cpio.gz || \
		{ rc=$$?; echo "make shell: the guest exited with status $$rc" \
			"(make exits 2; scripts/vmtest.sh -m shell exits $$rc)" >&2; exit $$rc; }

# The default flavour measures everything; FLAVOUR=debug (lockdep, KASAN)
# the per-call rows only, against the base kernel built the same way.
ifeq ($(BASE),)
bench:
	@$(MAKE) --no-print-directory FLAVOUR=$(FLAVOUR) all
	@scripts/bench.sh -f $(FLAVOUR)
else
# Another base: its kernel and a guest with the benchmark runner alone
# (its series has no fprobe.multi API yet); the comparison kernel is that
# base with the leading patches its BASE file names (BENCH_BASE_PATCHES).
bench: kernel
	@$(STAGE) bench-tools -q $(B)/logs/bench-tools.log -- $(MAKE) -f mk/user.mk \
		KB=$(KB) FLAVOUR=$(FLAVOUR) bench-initramfs
	@BENCH_INITRD=$(B)/initramfs-bench-$(FLAVOUR).cpio.gz scripts/bench.sh -f $(FLAVOUR)
endif

check: apply
	@$(STAGE) check -- scripts/check.sh

refresh-patches:
	@scripts/tree.sh refresh

export: apply
	@$(STAGE) export -- scripts/export.sh format

clean:
	rm -rf $(B)/kbuild $(B)/kbuild-debug $(B)/user-* $(B)/logs $(B)/*.cpio.gz

distclean:
	rm -rf $(B)
