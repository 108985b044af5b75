# A starter kit of Kernel Ladder: chapter @CHAPTER@, exercise "@EXERCISE@" (@VERSION@).
# README.md says what to write; `make help` lists the targets. Written by `make starter`.

NVCC ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
CC   := gcc

# The GPU's own architecture when one is visible; `make ARCH=sm_75` (or "sm_80 sm_90") overrides.
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_GPU),1)
ARCH ?= native
else
ARCH ?= sm_80 sm_90
endif
# A chapter whose Hopper versions exist only in the arch-specific target (06's wgmma and TMA)
# builds sm_90a where others build sm_90, and on a Hopper GPU ARCH=native means sm_90a.
SM90A  := @SM90A@
comma  := ,
GPU_CC := $(if $(and $(SM90A),$(HAVE_GPU)),$(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1))
sm90a_for = $(if $(and $(SM90A),$(filter sm_90,$(1))),a)
ifeq ($(ARCH),native)
GENCODE := $(if $(filter 9.0,$(GPU_CC)),-gencode arch=compute_90a$(comma)code=sm_90a,-arch=native)
else
GENCODE := $(foreach a,$(ARCH),-gencode arch=compute_$(a:sm_%=%)$(call sm90a_for,$(a)),code=$(a)$(call sm90a_for,$(a)))
endif

# The chapter's flags; warnings are shown but do not stop the build.
NVFLAGS := -O3 -lineinfo -std=c++17 $(GENCODE) -Xcompiler -Wall,-Wextra -Xptxas -warn-spills \
           -Icommon @CFLAGS@
CFLAGS  := -std=c11 -O2 -Wall -Wextra -Icommon
LIBS    := @LIBS@ -lpthread

PROGRAM := build/@TOPIC@
VERSION := @VERSION@
COMMON_OBJS := $(patsubst common/%.c,build/common/%.o,$(wildcard common/*.c)) build/common/gpu.o

.PHONY: all run check sanitize clean help
all: $(PROGRAM)

build/common:
	@mkdir -p $@

build/common/%.o: common/%.c $(wildcard common/*.h) | build/common
	$(CC) $(CFLAGS) -c -o $@ $<

build/common/gpu.o: common/gpu.cu $(wildcard common/*.h) | build/common
	$(NVCC) $(NVFLAGS) -c -o $@ $<

# the program includes its version files (*.cuh): a change to any of them rebuilds it
$(PROGRAM): @TOPIC@.cu $(wildcard *.cuh) $(COMMON_OBJS) $(wildcard common/*.h common/*.cuh)
	$(NVCC) $(NVFLAGS) -o $@ @TOPIC@.cu $(COMMON_OBJS) $(LIBS)

# Every version in the kit at the chapter's default size, timed against the baseline.
run: $(PROGRAM)
	$(PROGRAM)

# Your version at every size in check.args: each checked against the CPU reference.
check: $(PROGRAM)
	@pass=0; fail=0; \
	while read -r args; do \
	    case "$$args" in ''|'#'*) continue ;; esac; \
	    $(PROGRAM) $$args -v $(VERSION) --check-only >build/check.log 2>&1; rc=$$?; \
	    if grep -q '^ *$(VERSION): skipped: ' build/check.log; then \
	        sed -n 's/^ *$(VERSION): skipped: /make check: $(VERSION) cannot run here: /p' \
	            build/check.log; exit 1; \
	    elif [ $$rc -eq 0 ]; then pass=$$((pass + 1)); echo "PASS $(VERSION) $$args"; \
	    elif [ $$rc -eq 3 ]; then cat build/check.log; echo "make check: stopped (exit 3 is no GPU, \
	a CUDA error or a size too big for the GPU, not a wrong result)"; exit 1; \
	    else \
	        fail=$$((fail + 1)); echo "FAIL $(VERSION) $$args"; \
	        grep -E 'mismatch|wrong|error|exercise' build/check.log | head -n 5 | sed 's/^/    /'; \
	    fi; \
	done < check.args; \
	echo "$$pass passed, $$fail failed"; [ $$fail -eq 0 ]

# compute-sanitizer's tools on your version at the size in sanitize.args.
CS ?= $(shell command -v compute-sanitizer 2>/dev/null || echo /usr/local/cuda/bin/compute-sanitizer)
sanitize: $(PROGRAM)
	@[ -x "$(CS)" ] || { echo "make sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)"; exit 1; }
	@args=$$(grep -v '^#' sanitize.args | head -n 1); status=0; \
	for tool in @TOOLS@; do \
	    if $(CS) --tool $$tool --error-exitcode 99 $(PROGRAM) $$args -v $(VERSION) --check-only \
	        --warmup 0 >build/sanitize.log 2>&1; then echo "PASS $$tool: clean"; \
	    else rc=$$?; status=1; echo "FAIL $$tool (exit $$rc):"; \
	        grep -E 'Invalid|Race|Hazard|Uninitialized|Barrier|SUMMARY|mismatch|error' \
	            build/sanitize.log | head -n 8 | sed 's/^/    /'; fi; \
	done; exit $$status

clean:
	rm -rf build

help:
	@echo "make           build $(PROGRAM)"
	@echo "make check     $(VERSION) at every size in check.args, against the CPU reference"
	@echo "make sanitize  compute-sanitizer (@TOOLS@) at the size in sanitize.args"
	@echo "make run       every version in the kit at the default size, timed"
	@echo "make clean     remove build/"
	@echo "Variables: ARCH (now: $(ARCH)), NVCC."
