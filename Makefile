# Kernel Ladder: the one build file. `make help` lists the targets.

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(shell command -v nvcc 2>/dev/null || echo $(CUDA_HOME)/bin/nvcc)
CC        := gcc

# The GPU's own architecture when one is visible; otherwise a list that includes Hopper.
# `make ARCH=sm_80` (or ARCH="sm_80 sm_90") overrides.
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_GPU),1)
ARCH ?= native
else
ARCH ?= sm_80 sm_90
endif
comma := ,
GPU_CC := $(if $(HAVE_GPU),$(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1))
# -gencode flags for the architectures in $(1). For a chapter whose chapter.mk sets
# <topic>_SM90A (Hopper's wgmma and TMA exist only in the arch-specific target), sm_90 becomes
# sm_90a; with ARCH=native, so does a Hopper GPU's own architecture.
sm90a_for = $(if $(and $($(2)_SM90A),$(filter sm_90,$(1))),a)
gencode_list = $(foreach a,$(1),-gencode arch=compute_$(a:sm_%=%)$(call sm90a_for,$(a),$(2))$(comma)code=$(a)$(call sm90a_for,$(a),$(2)))
native_gencode = $(if $(and $($(1)_SM90A),$(filter 9.0,$(GPU_CC))),-gencode arch=compute_90a$(comma)code=sm_90a,-arch=native)
gencode_for = $(if $(filter native,$(1)),$(call native_gencode,$(2)),$(call gencode_list,$(1),$(2)))

# Register spills. ptxas names every kernel that spills (-warn-spills). Building for sm_90 alone
# (an H100 or H200, where the chapters are measured and their register counts taught, and
# ARCH=native on one), a spill is an error: a change that spills there changes the lesson. On
# every other generation it is a warning and the build goes on: the kernel is still right, only
# slower than the README's H100/H200 numbers, and its tiles were not chosen for that GPU.
# docs/setup.md says so. A build for several architectures at once (sm_80 and sm_90, the default
# without a GPU) warns; `make archs` builds each one alone, as a student's GPU would.
REF_ARCH := sm_90
spills_fatal = $(if $(filter native,$(1)),$(filter 9.0,$(GPU_CC)),$(if $(filter-out $(REF_ARCH),$(1)),,$(1)))
ptxas_for = -Xptxas -warn-spills$(if $(call spills_fatal,$(1)),$(comma)--warning-as-error)
# What a build for the architectures $(1) adds to the common flags, for program $(2).
arch_flags = $(call gencode_for,$(1),$(2)) $(call ptxas_for,$(1))
GENCODE := $(call gencode_for,$(ARCH))
gencode_of = $(call arch_flags,$(ARCH),$(1))

# -O3 and line info for the profiler; every warning is an error: the host compiler's and the
# CUDA front end's (-Xcudafe reaches cudafe++ and cicc: what -Werror all-warnings asks of them), and
# ptxas' as ptxas_for says. No fast-math: the results we check must be the arithmetic we wrote.
# EXTRA_NVFLAGS adds to them for an experiment: make EXTRA_NVFLAGS="-Xptxas -v".
NVWARN  := -Xcompiler -Wall,-Wextra,-Werror -Xcudafe --promote_warnings
NVFLAGS_BASE := -O3 -lineinfo -std=c++17 $(NVWARN) -Icommon -Ibuild $(EXTRA_NVFLAGS)
NVFLAGS := $(call arch_flags,$(ARCH)) $(NVFLAGS_BASE)
CFLAGS  := -std=c11 -O2 -Wall -Wextra -Werror -pedantic -Icommon
LDLIBS  := -lpthread  # common/rng.c fills large inputs with several threads

# Chapters, in reading order: chapters/NN-topic/topic.cu builds to build/topic, or, where the
# chapter has a `programs` file, its first program does (chapters/07-multi-gpu/allreduce.cu).
CHAPTER_DIRS := $(sort $(wildcard chapters/[0-9][0-9]-*))
topic = $(shell f=chapters/$(notdir $(1))/programs; [ -f $$f ] && sed -n '/^[a-z0-9]/{p;q;}' $$f || \
          echo $(notdir $(1)) | cut -c4-)
TOPICS := $(foreach d,$(CHAPTER_DIRS),$(call topic,$(d)))
# What the tools need built: with CH=NN-topic, that chapter's programs (all the lines of its
# `programs` file) and gpuinfo, so `make bench CH=01-transpose` compiles one chapter, not ten.
ch_programs = $(addprefix build/,$(shell f=chapters/$(1)/programs; [ -f $$f ] && \
                grep -v '^\s*\(\#\|$$\)' $$f || echo $(1) | cut -c4-)) build/gpuinfo
TOOL_DEPS = $(if $(CH),$(call ch_programs,$(notdir $(patsubst %/,%,$(CH)))),all)
PROGRAMS := $(TOPICS:%=build/%)

COMMON_C    := $(wildcard common/*.c)
COMMON_OBJS := $(COMMON_C:common/%.c=build/common/%.o) build/common/gpu.o
COMMON_HDRS := $(wildcard common/*.h common/*.cuh)

# Every GPU generation from Turing on that this toolkit knows. `make archs` compiles every
# program for each of them alone, with the very flags `make ARCH=sm_XX` uses (arch_flags and
# NVFLAGS_BASE above: a spill is an error for sm_90 and a warning elsewhere), so it fails where a
# student's build would. make test runs it, so CI does.
ARCHS_ALL   := sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120
ARCHS_KNOWN := $(filter $(ARCHS_ALL),$(subst compute_,sm_,$(shell $(NVCC) --list-gpu-arch 2>/dev/null)))

print-archs:
	@echo $(ARCHS_KNOWN)

# archs_check NAME, SOURCE, PROGRAM, FLAGS: build/archs/<arch>/NAME.ok for every architecture,
# SOURCE compiled as `make` compiles PROGRAM's code for that architecture alone, plus FLAGS.
define archs_check
archs: $(ARCHS_KNOWN:%=build/archs/%/$(1).ok)
$(ARCHS_KNOWN:%=build/archs/%/$(1).ok): build/archs/%/$(1).ok: $(2) $(wildcard $(dir $(2))*.h $(dir $(2))*.cuh) $(COMMON_HDRS) build/kl_build.h
	@mkdir -p $$(@D) && rm -f $$@
	$$(NVCC) $$(call arch_flags,$$*,$(3)) $$(NVFLAGS_BASE) $$($(3)_FLAGS) $(4) -c -o /dev/null $(2) && touch $$@
endef

# A chapter may add flags or libraries in chapters/NN-topic/chapter.mk, e.g. matmul_LIBS, and
# rules of its own; whichever comes first, plain `make` means `make all`.
.DEFAULT_GOAL := all
-include $(CHAPTER_DIRS:%=%/chapter.mk)

.PHONY: all run test bench plots sanitize profile sass clean help setup archs print-archs \
        evidence evidence-ptxas evidence-check ncu power timeline ladder diff FORCE \
        exercises starter grade grade-all grade-sample autograder
all: $(PROGRAMS) build/gpuinfo

build build/common:
	@mkdir -p $@

# The compile flags and commit, recorded in every results file; rewritten only on change, through
# a temporary file of this shell's own, so that several makes at once (one `make sanitize CH=`
# per chapter) do not trip over each other.
# A copy of the tree without .git can be told its commit: make COMMIT=abc1234.
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell \
            git diff --quiet HEAD -- chapters common 2>/dev/null || echo -dirty)
build/kl_build.h: FORCE | build
	@printf '#define KL_FLAGS "%s"\n#define KL_COMMIT "%s"\n' '$(strip $(NVFLAGS))' '$(COMMIT)' \
	  > $@.$$$$; cmp -s $@.$$$$ $@ && rm $@.$$$$ || mv $@.$$$$ $@

build/common/%.o: common/%.c $(COMMON_HDRS) | build/common
	$(CC) $(CFLAGS) -c -o $@ $<

build/common/gpu.o: common/gpu.cu $(COMMON_HDRS) build/kl_build.h | build/common
	$(NVCC) $(NVFLAGS) -include kl_build.h -c -o $@ $<

build/gpuinfo: common/gpuinfo.cu $(COMMON_OBJS) | build
	$(NVCC) $(NVFLAGS) -o $@ $< $(COMMON_OBJS) $(LDLIBS)

# The compiler's report for the reference GPU's architecture (sm_90: the H100 and H200): every
# kernel's registers, spills, stack and shared memory, and from the same compile's machine code
# the count of the instructions the READMEs argue with. `make evidence` keeps both under
# plots/evidence/sm_90/ (no GPU needed), where the numbers the READMEs quote can be checked.
EVIDENCE_ARCH  := sm_90
EVIDENCE_FLAGS  = -O3 -lineinfo -std=c++17 -Icommon -Ibuild $(EXTRA_NVFLAGS) -Xptxas -v
evidence: evidence-ptxas
	@python3 plots/evidence.py registers --nvcc "$(NVCC)" --arch $(EVIDENCE_ARCH) \
	    --out plots/evidence/$(EVIDENCE_ARCH) build/evidence/*.ptxas

# make test: the committed evidence is what this compiler reports (when it is the same nvcc).
evidence-check: evidence-ptxas
	@python3 plots/evidence.py stale --nvcc "$(NVCC)" --arch $(EVIDENCE_ARCH) build/evidence/*.ptxas

define CHAPTER_RULES
build/$(2): $(1)/$(2).cu $(wildcard $(1)/*.h $(1)/*.cuh) $(COMMON_OBJS) $(COMMON_HDRS) | build
	$$(NVCC) $$(call gencode_of,$(2)) $$(NVFLAGS_BASE) $$($(2)_FLAGS) -o $$@ $(1)/$(2).cu $$(COMMON_OBJS) \
	    $$($(2)_LIBS) $$(LDLIBS) \
	    -DKL_CHAPTER_FLAGS='"$$(strip $$(call gencode_of,$(2)) $$(NVFLAGS_BASE) $$($(2)_FLAGS))"'
$(call archs_check,$(2),$(1)/$(2).cu,$(2))
evidence-ptxas: build/evidence/$(2).ptxas
build/evidence/$(2).ptxas: $(1)/$(2).cu $(wildcard $(1)/*.h $(1)/*.cuh) $(COMMON_HDRS)
	@mkdir -p build/evidence
	$$(NVCC) $$(EVIDENCE_FLAGS) $$(call gencode_list,$$(EVIDENCE_ARCH),$(2)) $$($(2)_FLAGS) -cubin \
	    -o build/evidence/$(2).cubin $(1)/$(2).cu 2>$$@.tmp && mv $$@.tmp $$@
endef
$(foreach d,$(CHAPTER_DIRS),$(eval $(call CHAPTER_RULES,$(d),$(call topic,$(d)))))

# ---- the main job: every chapter at its default size ---------------------------------------
# Asks for the GPU first (gpuinfo builds in seconds), so a machine without one hears so at once
# rather than after compiling every chapter.
run: build/gpuinfo
	@bash tests/run-all.sh --gpu-only
	@$(MAKE) --no-print-directory all
	@bash tests/run-all.sh

# ---- tests: unit, CPU reference, bad input, plots, and the GPU sweep where a GPU is present ---
build/test_common: tests/test_common.c $(COMMON_C) $(COMMON_HDRS) | build
	$(CC) $(CFLAGS) -o $@ tests/test_common.c $(COMMON_C) -lm -lpthread

test: all build/test_common setup
	+@bash tests/run.sh

# Installs what the plots need (matplotlib in .venv, gnuplot through apt where allowed).
setup:
	@bash plots/setup.sh

# ---- results and figures --------------------------------------------------------------------
# make bench [CH=01-transpose]: the chapter's sweep (chapters/CH/bench.args) into
# plots/results/<gpu>/CH.csv, then the figures.
bench: $(TOOL_DEPS) setup
	@bash tests/bench.sh $(CH)
	@$(MAKE) --no-print-directory plots

plots: setup
	@bash plots/plot.sh

# ---- tools ----------------------------------------------------------------------------------
# compute-sanitizer's four tools over every version at the sizes in chapters/*/sanitize.args.
sanitize: $(TOOL_DEPS)
	@bash tests/sanitize.sh $(CH)

# make profile CH=01-transpose V=v2: Nsight Compute with the metrics that chapter is about.
profile: $(TOOL_DEPS)
	@bash tests/profile.sh "$(CH)" "$(V)"

# make ncu CH=06-tensor-cores: the counters of chapters/CH/profile.metrics for the kernels that
# chapters/CH/ncu.args names, into plots/results/<gpu>/ncu/CH.csv (README evidence); a second
# program's kernels (03's matmul-f64) from ncu-f64.args into CH-f64.csv. V=v12,v12-halves
# profiles only those versions' lines, their rows merged into the CSVs already there.
ncu: $(TOOL_DEPS)
	@bash tests/ncu.sh "$(CH)" "$(V)"

# make power CH=06-tensor-cores: the GPU's clock and power while each line of chapters/CH/power.args
# runs for seconds on end, into plots/results/<gpu>/power/CH.csv (a power-limited GPU lowers its
# clock; tests/power.sh, plots/power.py).
power: $(TOOL_DEPS)
	@bash tests/power.sh "$(CH)"

# make timeline CH=06-tensor-cores: the experiment v16-timeline's notes of when each block began
# and ended each part of its work (chapters/CH/timeline.args), into
# plots/results/<gpu>/timeline/CH-units.csv and its table CH.csv; make plots draws the figures
# (tests/timeline.sh, plots/timeline.py).
timeline: $(TOOL_DEPS)
	@bash tests/timeline.sh "$(CH)"

# make ladder CH=03-matmul: the chapter's steps, one file each, and how many lines each changes;
# make diff CH=03-matmul B=v6 (A=v5): one step as a unified diff of the two versions' files.
ladder:
	@bash tests/ladder.sh ladder "$(CH)"

diff:
	@bash tests/ladder.sh diff "$(CH)" "$(A)" "$(B)"

# make sass CH=01-transpose: the chapter's machine code, one file per build, in build/.
sass: $(TOOL_DEPS)
	@bash tests/sass.sh "$(CH)"

# ---- classroom: exercises, starter kits and the grader (docs/instructors.md) ------------------
# make starter CH=01-transpose EX=tiled DEST=kit; make grade CH=... EX=... SUB=file-or-kit OUT=dir;
# make grade-all CH=... EX=... SUBS=dir-of-student-folders OUT=dir [ROSTER=roster.csv]
# [DEADLINE=2025-03-01T23:59:00+01:00] [GPUS=all or N: a submission a GPU, as many at once; read
# from make's command line only, not from a GPUS the shell may hold]. The chapter's own flags and
# libraries (chapter.mk) go with every build.
GRADER      := python3 classroom/grade.py
GRADE_CH     = $(notdir $(patsubst %/,%,$(CH)))
GRADE_TOPIC  = $(call topic,$(GRADE_CH))
# What grading exercise $(2) of chapter $(1) needs built: the chapter's program (it checks every
# output), build/gpuinfo and the objects of common/ that every submission links; nothing for an
# exercise that does not exist, so that the grader refuses a mistyped CH= or EX= at once, in one
# line, before any compile (and a chapter that links a library this machine lacks, 07's NCCL,
# matters only when it is graded).
grade_deps = $(if $(wildcard chapters/$(1)/exercises/$(2)/rubric.toml),build/$(call topic,$(1)) \
               build/gpuinfo $(COMMON_OBJS))
GRADE_BUILD  = --nvcc="$(NVCC)" --gencode="$(call gencode_for,$(ARCH),$(GRADE_TOPIC))" \
               --cflags="$($(GRADE_TOPIC)_FLAGS)" --sm90a="$($(GRADE_TOPIC)_SM90A)" \
               --libs="$($(GRADE_TOPIC)_LIBS)" $(if $(TIME_LIMIT),--time-limit=$(TIME_LIMIT)) \
               $(if $(PUBLIC_SECRET),--public-secret)
GRADE_BOOK   = $(if $(ROSTER),--roster="$(ROSTER)") $(if $(DEADLINE),--deadline="$(DEADLINE)")
exercises:
	@$(GRADER) list

starter:
	@$(GRADER) starter "$(CH)" "$(EX)" "$(DEST)" $(GRADE_BUILD)

grade: $(call grade_deps,$(GRADE_CH),$(EX))
	@$(GRADER) grade "$(CH)" "$(EX)" "$(SUB)" "$(OUT)" $(GRADE_BUILD) $(GRADE_BOOK)

grade-all: $(call grade_deps,$(GRADE_CH),$(EX))
	@$(GRADER) grade-all "$(CH)" "$(EX)" "$(SUBS)" "$(OUT)" $(GRADE_BUILD) $(GRADE_BOOK) \
	    $(if $(filter command line,$(origin GPUS)),--gpus="$(GPUS)")

# make autograder CH=... EX=... DEST=dir: dir/autograder-CH-EX.zip for Gradescope (setup.sh,
# run_autograder, what `make grade` needs of this repository, the secret). Needs GRADE_SECRET or
# GRADE_SECRET_FILE, as grade-all does; PUBLIC_SECRET=1 makes one without.
autograder:
	@python3 classroom/autograder.py build "$(CH)" "$(EX)" "$(DEST)" $(if $(PUBLIC_SECRET),--public-secret)

# A small class graded on this GPU (the reference, the untouched kit, the exercise's planted
# submissions) into plots/results/<gpu>/grading.txt (01-transpose/tiled, the default: the sample
# and timings docs/instructors.md quotes) or grading-CH-EX.txt (CH=06-tensor-cores EX=grouped).
grade-sample: $(call grade_deps,$(or $(GRADE_CH),01-transpose),$(or $(EX),tiled))
	@$(GRADER) sample "$(CH)" "$(EX)" $(GRADE_BUILD)

clean:
	rm -rf build

help:
	@echo "make            build every chapter into build/<topic>"
	@echo "make run        run every chapter at its default size and print its table (needs a GPU)"
	@echo "make test       unit, reference, bad-input and plot tests; the GPU size sweep where a GPU is"
	@echo "make bench      [CH=NN-topic] benchmark sweep into plots/results/<gpu>/, then the figures"
	@echo "make plots      redraw every figure from the committed CSVs (no GPU needed)"
	@echo "make sanitize   [CH=NN-topic] compute-sanitizer memcheck, racecheck, initcheck, synccheck"
	@echo "make profile    CH=NN-topic V=vN  Nsight Compute with the chapter's metrics"
	@echo "make ncu        CH=NN-topic  the chapter's counters (ncu.args) into plots/results/<gpu>/ncu/"
	@echo "                (V=v1,v2: only those versions, merged into the CSVs there)"
	@echo "make power      CH=NN-topic  clock and power while each power.args line runs, into plots/results/<gpu>/power/"
	@echo "make timeline   CH=06-tensor-cores  when each block did what (v16-timeline), into plots/results/<gpu>/timeline/"
	@echo "make sass       CH=NN-topic  dump the chapter's SASS to build/<topic>.sass"
	@echo "make ladder     CH=NN-topic  the chapter's steps, a file each, and the lines each changes"
	@echo "make diff       CH=NN-topic B=vN [A=vM]  one step as a diff (A: the step before B)"
	@echo "make archs      compile every chapter for every GPU generation ($(ARCHS_KNOWN))"
	@echo "make evidence   every kernel's registers and spills for $(EVIDENCE_ARCH) into plots/evidence/"
	@echo "make exercises  list the classroom exercises"
	@echo "make starter    CH=NN-topic EX=name DEST=dir  write a student's starter kit"
	@echo "make grade      CH=NN-topic EX=name SUB=file-or-kit OUT=dir  grade one submission"
	@echo "make grade-all  CH=NN-topic EX=name SUBS=dir OUT=dir [ROSTER=csv] [DEADLINE=iso] [GPUS=all]  grade a class, write gradebook.csv"
	@echo "make grade-sample  grade a small class on this GPU into plots/results/<gpu>/grading*.txt"
	@echo "make autograder CH=NN-topic EX=name DEST=dir  a Gradescope autograder zip for the exercise"
	@echo "make setup      install what the plots need (run by test, bench and plots)"
	@echo "make clean      remove build/"
	@echo "Variables: ARCH (now: $(ARCH)), NVCC, CUDA_HOME."
