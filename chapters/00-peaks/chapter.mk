# Chapter 00 links a second object into build/peaks: fastmath.cu, the sinf and expf rows' kernels
# compiled with --use_fast_math (the sinf-fm and expf-fm rows), so that one run measures both
# builds of the same source. Nothing else in the project is built with that flag.
peaks_LIBS := build/peaks-fastmath.o
PEAKS_FASTMATH_DEPS := chapters/00-peaks/fastmath.cu chapters/00-peaks/sfu.cuh $(COMMON_HDRS)

build/peaks: build/peaks-fastmath.o
build/peaks-fastmath.o: $(PEAKS_FASTMATH_DEPS) | build
	$(NVCC) $(call gencode_of,peaks) $(NVFLAGS_BASE) --use_fast_math -c -o $@ $<

$(eval $(call archs_check,peaks-fastmath,chapters/00-peaks/fastmath.cu,peaks,--use_fast_math))

# make evidence: its registers and SASS counts in plots/evidence/sm_90/00-peaks-fastmath-*.csv,
# beside those of peaks.cu's own kernels in 00-peaks-*.csv.
evidence-ptxas: build/evidence/peaks-fastmath.ptxas
build/evidence/peaks-fastmath.ptxas: $(PEAKS_FASTMATH_DEPS)
	@mkdir -p build/evidence
	$(NVCC) $(EVIDENCE_FLAGS) $(call gencode_list,$(EVIDENCE_ARCH)) --use_fast_math -cubin \
	    -o build/evidence/peaks-fastmath.cubin $< 2>$@.tmp && mv $@.tmp $@
