# Chapter 03 links cuBLAS (the baseline) and also builds a double-precision program from the
# same source (matmul.cu and the version files it includes): build/matmul-f64, with -DMATMUL_FP64.
matmul_LIBS := -lcublas

all: build/matmul-f64

build/matmul-f64: chapters/03-matmul/matmul.cu $(wildcard chapters/03-matmul/*.cuh) $(COMMON_OBJS) \
                  $(COMMON_HDRS) | build
	$(NVCC) $(NVFLAGS) $(matmul_FLAGS) -DMATMUL_FP64 -o $@ $< $(COMMON_OBJS) $(matmul_LIBS) $(LDLIBS)

$(eval $(call archs_check,matmul-f64,chapters/03-matmul/matmul.cu,matmul,-DMATMUL_FP64))

evidence-ptxas: build/evidence/matmul-f64.ptxas
build/evidence/matmul-f64.ptxas: chapters/03-matmul/matmul.cu $(wildcard chapters/03-matmul/*.cuh) \
                                  $(COMMON_HDRS)
	@mkdir -p build/evidence
	$(NVCC) $(EVIDENCE_FLAGS) $(call gencode_list,$(EVIDENCE_ARCH)) $(matmul_FLAGS) -DMATMUL_FP64 -c -o /dev/null $< 2>$@.tmp && mv $@.tmp $@
