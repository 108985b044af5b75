# Chapter 07 links NCCL, the baseline (CUDA's lib64 holds it where the toolkit came with it).
allreduce_LIBS := -lnccl
