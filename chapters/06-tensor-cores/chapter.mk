# Chapter 06 links cuBLAS (the baseline), and builds for sm_90a where the others build for sm_90:
# its Hopper versions (wgmma, TMA, setmaxnreg) exist only in that arch-specific target.
tensor-cores_LIBS  := -lcublas
tensor-cores_SM90A := 1

# It also builds an FP8 program from the same source (tensor-cores.cu and the files it includes):
# build/tensor-cores-fp8, with -DTC_FP8, linking cuBLASLt (its baseline), sm_90a as the BF16 one.
tensor-cores-fp8_LIBS  := -lcublasLt
tensor-cores-fp8_SM90A := 1

all: build/tensor-cores-fp8

build/tensor-cores-fp8: chapters/06-tensor-cores/tensor-cores.cu $(wildcard chapters/06-tensor-cores/*.cuh) \
                        $(COMMON_OBJS) $(COMMON_HDRS) | build
	$(NVCC) $(call gencode_of,tensor-cores-fp8) $(NVFLAGS_BASE) $(tensor-cores_FLAGS) -DTC_FP8 -o $@ $< \
	    $(COMMON_OBJS) $(tensor-cores-fp8_LIBS) $(LDLIBS) \
	    -DKL_CHAPTER_FLAGS='"$(strip $(call gencode_of,tensor-cores-fp8) $(NVFLAGS_BASE) $(tensor-cores_FLAGS) -DTC_FP8)"'

$(eval $(call archs_check,tensor-cores-fp8,chapters/06-tensor-cores/tensor-cores.cu,tensor-cores-fp8,-DTC_FP8))

evidence-ptxas: build/evidence/tensor-cores-fp8.ptxas
build/evidence/tensor-cores-fp8.ptxas: chapters/06-tensor-cores/tensor-cores.cu \
                                       $(wildcard chapters/06-tensor-cores/*.cuh) $(COMMON_HDRS)
	@mkdir -p build/evidence
	$(NVCC) $(EVIDENCE_FLAGS) $(call gencode_list,$(EVIDENCE_ARCH),tensor-cores-fp8) $(tensor-cores_FLAGS) \
	    -DTC_FP8 -c -o /dev/null $< 2>$@.tmp && mv $@.tmp $@
