// How a REDUCE call reads its input: which kernel set (register width) runs it, and whether the
// row kernels prefetch in software.
#pragma once

#include <cstdint>

#include "dmlcert/dtype.h"
#include "dmlcert/reduce_function.h"

namespace dmlcert::optimized {

// True when the 16-byte (baseline) kernels should run instead: a row SUM, MAX or MIN of FLOAT32 or
// of integers of 4 bytes or fewer whose input does not fit the last-level cache, so that it streams
// from memory.
//
// Why: on a 2-core AMD EPYC (Zen 4) the 16-byte kernels read such inputs faster. Each ratio below
// is a kernel's rate over the bench's read_hw loop in the same run, so that the machine's swings
// cancel. One binary, run with and without its 32-byte kernels in alternation: the 16-byte ratio
// was higher in 9 to 11 of 12 rounds on each 128 MiB workload (FLOAT32 row SUM and MAX, INT32 row
// SUM, SUM of all elements) and in 7 of 8 on the 64 MiB FLOAT32 row SUM. Medians: 0.81-0.93 of
// read_hw with 32-byte kernels, 0.91-1.02 with 16-byte ones. Then this choice against the old one,
// 6 rounds in alternating order: row MAX higher in 6 of 6 (1.06-1.28 times), 128 MiB row SUM in 5,
// SUM of all and INT32 row SUM in 4, the 64 MiB row SUM in 3 (0.93-1.13, a tie). The L2 norm (whose
// 16-byte kernel has more to compute per element) and the columns engine gained nothing
// (0.65-1.19). FLOAT16 needs F16C, which only the 32-byte kernels use. All of these keep the wide
// kernels. Inputs that fit the cache keep them too: from cache, a reduction is bound by its
// arithmetic, not by its loads.
// Those figures were taken while the rows engine read four rows side by side. Rechecked once it
// read one row per core (reduce_engine.h, rows), on a quiet host, opt/torch in two alternated runs
// of 5 rounds, this choice / 32-byte kernels throughout: 64 MiB row SUM 1.07-1.11 / 0.95-0.97, row
// MAX 1.05-1.07 / 0.89-0.91, 128 MiB row SUM 1.08-1.12 / 1.03-1.04, row MAX 0.96-1.09 / 0.90-0.98.
// The AVX-512 kernels did no better (row SUM 1.01, row MAX 0.89, INT32 row SUM 0.77, one run).
bool narrow_kernels_stream_faster(DataType input, ReduceFunction f, bool columns, uint64_t input_bytes,
                                  uint64_t last_level_cache_bytes);

// The kernel sets, each a copy of kernels.inc compiled for one instruction set (kernels.h).
enum class KernelSet { Baseline, Avx2, Avx512 };

// What the CPU offers the choice below (cpu.h).
struct KernelCpu {
  bool avx2 = false;    // cpu_has_avx2_f16c
  bool avx512 = false;  // cpu_has_avx512_kernels
  // cpu_avx512_full_width: 512-bit operations at full width, not split into two 256-bit halves.
  bool avx512_full_width = false;
};

// The kernel set that runs a REDUCE call. Every set gives the same bits (the lanes are fixed,
// reduce_engine.h), so the choice can only cost or gain speed:
// - LOG_SUM_EXP of float data, and ARGMAX / ARGMIN of 4-byte data, take AVX-512 wherever the CPU
//   has it: there the kernels compute more than they stream (reduce_float_avx512.cpp).
// - Every other call takes AVX-512 where the CPU runs it at full width. On two cores of an Intel
//   Xeon (Sapphire Rapids generation), opt/roofline with the AVX2 or 16-byte kernels / with the
//   AVX-512 ones, medians of two alternated runs of dmlcert_bench (of 2 rounds from memory, of 3
//   from the L3): SUM over columns 0.83 / 0.96 from memory and 0.81 / 0.90 from the L3, SUM over
//   all elements 1.00 / 1.00 and 0.97 / 1.01, INT32 row SUM 0.98 / 1.01 and 0.96 / 1.00, row MAX
//   0.98 / 1.08 and 0.93 / 0.97, FLOAT32 row SUM 1.02 / 1.01 and 0.88 / 0.89. On AMD Zen 4, which
//   splits each 512-bit operation in two, they did no better than the narrower kernels (above).
// - Elsewhere AVX2, or the 16-byte kernels where narrow_kernels_stream_faster says so or the CPU
//   has no AVX2.
KernelSet reduce_kernel_set(const KernelCpu& cpu, DataType input, ReduceFunction f, bool columns,
                            uint64_t input_bytes, uint64_t last_level_cache_bytes);

// True when the kernels that read one stream should prefetch ahead of it in software: on a CPU
// whose hardware prefetchers leave them short (cpu.h: software_prefetch), for an input that does
// not fit the last-level cache. From the cache they read as fast or faster without (kernels.inc
// has the figures of both).
bool stream_prefetch_pays(bool cpu_wants_software_prefetch, uint64_t input_bytes,
                          uint64_t last_level_cache_bytes);

}  // namespace dmlcert::optimized
