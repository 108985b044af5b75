# Chapter 06 links cuBLAS (the baseline), and builds for sm_90a where the others build for sm_90:
# its Hopper versions (wgmma, TMA, setmaxnreg) exist only in that arch-specific target.
tensor-cores_LIBS  := -lcublas
tensor-cores_SM90A := 1
