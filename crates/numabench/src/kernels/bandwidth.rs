//! The bandwidth kernels' loops, one variant per SIMD level. `read` sums
//! into [`READ_ACCUMULATORS`] independent vector accumulators so in-cache
//! reads run at the core's load throughput, not its add latency; the
//! storing loops load four vectors before storing any, so the core keeps
//! many cache-line requests in flight; `-nt` variants use streaming stores
//! (aligned to the vector width, with scalar head and tail).

use super::loops::KernelLoop;
use super::simd::SimdLevel;
use super::spec::KernelSpec;

/// Independent accumulators of the `read` loop (vectors, or scalars for the
/// scalar variant). Each add waits for the previous add into the same
/// accumulator (3-4 cycles of FP add latency), and a core issues 2-3 loads
/// a cycle, so at least 8 sums must be in flight for L1 and L2 reads to be
/// limited by loads; 12 leave slack and still fit the 16 vector registers
/// of AVX2 and SSE2 together with the loaded values.
pub const READ_ACCUMULATORS: usize = 12;

/// Runs `spec` once over the given arrays: `a` is the written array (or
/// the read one for `read`), `b` and `c` the read ones. Returns the sum for
/// `read` (so the loads cannot be optimised away), 0 otherwise.
///
/// Panics if the arrays the kernel uses differ in length, or if `level` is
/// wider than the CPU supports.
pub fn run_kernel(
    spec: &KernelSpec,
    level: SimdLevel,
    a: &mut [f64],
    b: &[f64],
    c: &[f64],
    scalar: f64,
) -> f64 {
    run_loop(spec.kernel_loop(), level, spec.nontemporal, a, b, c, scalar)
}

/// Runs one loop once with ordinary (`nontemporal` false) or streaming
/// stores: `a` is written (read by `Read`), `b` and `c` are read as the
/// loop needs them (see [`KernelLoop`]). Returns the sum for `Read`, 0
/// otherwise.
///
/// Panics if the arrays the loop uses differ in length, or if `level` is
/// wider than the CPU supports.
pub fn run_loop(
    kind: KernelLoop,
    level: SimdLevel,
    nontemporal: bool,
    a: &mut [f64],
    b: &[f64],
    c: &[f64],
    scalar: f64,
) -> f64 {
    assert!(
        level <= SimdLevel::detect(),
        "{} is not supported by this CPU",
        level.name()
    );
    if kind.sources() >= 1 {
        assert_eq!(a.len(), b.len(), "arrays must have one length");
    }
    if kind.sources() >= 2 {
        assert_eq!(a.len(), c.len(), "arrays must have one length");
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the level was checked against the CPU above; slice lengths were checked.
        unsafe {
            match level {
                SimdLevel::Avx512 => return x86::avx512::run(kind, nontemporal, a, b, c, scalar),
                SimdLevel::Avx2 => return x86::avx2::run(kind, nontemporal, a, b, c, scalar),
                SimdLevel::Sse2 => return x86::sse2::run(kind, nontemporal, a, b, c, scalar),
                SimdLevel::Scalar => {}
            }
        }
    }
    scalar_kernel(kind, a, b, c, scalar)
}

/// The loops without vector instructions (ordinary stores only).
fn scalar_kernel(kind: KernelLoop, a: &mut [f64], b: &[f64], c: &[f64], scalar: f64) -> f64 {
    match kind {
        KernelLoop::Read => {
            let mut sums = [0.0f64; READ_ACCUMULATORS];
            let mut blocks = a.chunks_exact(READ_ACCUMULATORS);
            for block in &mut blocks {
                for (sum, value) in sums.iter_mut().zip(block) {
                    *sum += value;
                }
            }
            sums.iter().sum::<f64>() + blocks.remainder().iter().sum::<f64>()
        }
        KernelLoop::Write => {
            a.iter_mut().for_each(|value| *value = scalar);
            0.0
        }
        KernelLoop::Copy => {
            // An element loop, not copy_from_slice: memcpy would skip the write-allocate read.
            for (out, value) in a.iter_mut().zip(b) {
                *out = std::hint::black_box(*value);
            }
            0.0
        }
        KernelLoop::Scale => {
            for (out, value) in a.iter_mut().zip(b) {
                *out = scalar * value;
            }
            0.0
        }
        KernelLoop::Add => {
            for ((out, left), right) in a.iter_mut().zip(b).zip(c) {
                *out = left + right;
            }
            0.0
        }
        KernelLoop::Triad => {
            for ((out, left), right) in a.iter_mut().zip(b).zip(c) {
                *out = left + scalar * right;
            }
            0.0
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    /// Generates one module of kernels for a vector width.
    macro_rules! simd_kernels {
        ($module:ident, $feature:literal, $width:literal, $vector:ty, $register:ident,
         $setzero:ident, $set1:ident, $loadu:ident, $storeu:ident, $stream:ident, $add:ident, $mul:ident) => {
            pub mod $module {
                use super::super::{scalar_kernel, KernelLoop, READ_ACCUMULATORS};
                use std::arch::x86_64::*;

                const WIDTH: usize = $width;

                /// An optimisation barrier on a value in a vector register: stops LLVM from
                /// recognising a load/store loop as memcpy (glibc's memcpy avoids the
                /// write-allocate read, so `copy` would no longer measure what it says).
                #[inline]
                #[target_feature(enable = $feature)]
                fn opaque(mut value: $vector) -> $vector {
                    // SAFETY: an empty instruction template; the register is only "modified" in name.
                    unsafe { std::arch::asm!("/* {0} */", inout($register) value, options(pure, nomem, nostack, preserves_flags)) };
                    value
                }
                const ALIGN: usize = WIDTH * 8;

                /// Scalar elements before `a` reaches vector alignment.
                fn head(a: &[f64]) -> usize {
                    let misalignment = a.as_ptr() as usize % ALIGN;
                    let head = if misalignment == 0 {
                        0
                    } else {
                        (ALIGN - misalignment) / 8
                    };
                    head.min(a.len())
                }

                /// Sums `a` into READ_ACCUMULATORS independent vector sums, then whole
                /// vectors into the first, then the scalar tail.
                #[target_feature(enable = $feature)]
                unsafe fn read(a: &[f64]) -> f64 {
                    const BLOCK: usize = READ_ACCUMULATORS * WIDTH;
                    let blocks = a.len() / BLOCK;
                    let pointer = a.as_ptr();
                    let mut sums: [$vector; READ_ACCUMULATORS] = [$setzero(); READ_ACCUMULATORS];
                    for block in 0..blocks {
                        // SAFETY: block * BLOCK + BLOCK <= a.len().
                        unsafe {
                            let q = pointer.add(block * BLOCK);
                            for (k, sum) in sums.iter_mut().enumerate() {
                                *sum = $add(*sum, $loadu(q.add(k * WIDTH)));
                            }
                        }
                    }
                    let mut index = blocks * BLOCK;
                    while index + WIDTH <= a.len() {
                        // SAFETY: index + WIDTH <= a.len().
                        sums[0] = $add(sums[0], unsafe { $loadu(pointer.add(index)) });
                        index += WIDTH;
                    }
                    let mut total = $setzero();
                    for sum in sums {
                        total = $add(total, sum);
                    }
                    let mut lanes = [0.0f64; WIDTH];
                    // SAFETY: lanes holds exactly one vector.
                    unsafe { $storeu(lanes.as_mut_ptr(), total) };
                    lanes.iter().sum::<f64>() + a[index..].iter().sum::<f64>()
                }

                /// Stores `value(i)` for every vector position i of `a`.
                #[target_feature(enable = $feature)]
                unsafe fn store_all(
                    a: &mut [f64],
                    nontemporal: bool,
                    scalar_at: impl Fn(usize) -> f64,
                    vector_at: impl Fn(usize) -> $vector,
                ) {
                    let head = if nontemporal { head(a) } else { 0 };
                    for index in 0..head {
                        a[index] = scalar_at(index);
                    }
                    let body = (a.len() - head) / WIDTH * WIDTH;
                    let pointer = a.as_mut_ptr();
                    let store = |index: usize, value: $vector| {
                        // SAFETY: callers keep index + WIDTH <= head + body <= a.len(); aligned
                        // when nontemporal (head).
                        unsafe {
                            if nontemporal {
                                $stream(pointer.add(index), value);
                            } else {
                                $storeu(pointer.add(index), value);
                            }
                        }
                    };
                    let mut index = head;
                    // Four vectors per iteration, all loaded before any is stored: the loads of
                    // a whole 4-vector block are in flight together, as in likwid-bench's kernels.
                    while index + 4 * WIDTH <= head + body {
                        let v0 = opaque(vector_at(index));
                        let v1 = opaque(vector_at(index + WIDTH));
                        let v2 = opaque(vector_at(index + 2 * WIDTH));
                        let v3 = opaque(vector_at(index + 3 * WIDTH));
                        store(index, v0);
                        store(index + WIDTH, v1);
                        store(index + 2 * WIDTH, v2);
                        store(index + 3 * WIDTH, v3);
                        index += 4 * WIDTH;
                    }
                    while index < head + body {
                        store(index, opaque(vector_at(index)));
                        index += WIDTH;
                    }
                    for index in head + body..a.len() {
                        a[index] = scalar_at(index);
                    }
                    if nontemporal {
                        // Streaming stores are weakly ordered: fence before anyone reads.
                        _mm_sfence();
                    }
                }

                /// # Safety
                /// The CPU must support this module's instructions; slices as `run_kernel` checks.
                #[target_feature(enable = $feature)]
                pub unsafe fn run(
                    kind: KernelLoop,
                    nontemporal: bool,
                    a: &mut [f64],
                    b: &[f64],
                    c: &[f64],
                    scalar: f64,
                ) -> f64 {
                    let splat = $set1(scalar);
                    // SAFETY: the feature is enabled (caller's contract); indices stay in bounds (store_all).
                    unsafe {
                        match kind {
                            KernelLoop::Read => read(a),
                            KernelLoop::Write => {
                                store_all(a, nontemporal, |_| scalar, |_| splat);
                                0.0
                            }
                            KernelLoop::Copy => {
                                let source = b.as_ptr();
                                store_all(a, nontemporal, |i| b[i], |i| $loadu(source.add(i)));
                                0.0
                            }
                            KernelLoop::Scale => {
                                let source = b.as_ptr();
                                store_all(
                                    a,
                                    nontemporal,
                                    |i| scalar * b[i],
                                    |i| $mul(splat, $loadu(source.add(i))),
                                );
                                0.0
                            }
                            KernelLoop::Add => {
                                let (left, right) = (b.as_ptr(), c.as_ptr());
                                store_all(
                                    a,
                                    nontemporal,
                                    |i| b[i] + c[i],
                                    |i| $add($loadu(left.add(i)), $loadu(right.add(i))),
                                );
                                0.0
                            }
                            KernelLoop::Triad => {
                                let (left, right) = (b.as_ptr(), c.as_ptr());
                                store_all(
                                    a,
                                    nontemporal,
                                    |i| b[i] + scalar * c[i],
                                    |i| {
                                        $add($loadu(left.add(i)), $mul(splat, $loadu(right.add(i))))
                                    },
                                );
                                0.0
                            }
                        }
                    }
                }

                #[allow(dead_code)]
                fn fallback(kind: KernelLoop, a: &mut [f64], b: &[f64], c: &[f64], scalar: f64) -> f64 {
                    scalar_kernel(kind, a, b, c, scalar)
                }
            }
        };
    }

    simd_kernels!(
        avx512,
        "avx512f",
        8,
        __m512d,
        zmm_reg,
        _mm512_setzero_pd,
        _mm512_set1_pd,
        _mm512_loadu_pd,
        _mm512_storeu_pd,
        _mm512_stream_pd,
        _mm512_add_pd,
        _mm512_mul_pd
    );
    simd_kernels!(
        avx2,
        "avx2",
        4,
        __m256d,
        ymm_reg,
        _mm256_setzero_pd,
        _mm256_set1_pd,
        _mm256_loadu_pd,
        _mm256_storeu_pd,
        _mm256_stream_pd,
        _mm256_add_pd,
        _mm256_mul_pd
    );
    simd_kernels!(
        sse2,
        "sse2",
        2,
        __m128d,
        xmm_reg,
        _mm_setzero_pd,
        _mm_set1_pd,
        _mm_loadu_pd,
        _mm_storeu_pd,
        _mm_stream_pd,
        _mm_add_pd,
        _mm_mul_pd
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::spec::KERNELS;

    /// Every kernel at every supported level computes exactly what its
    /// formula says, on odd lengths and offsets that exercise head and tail.
    #[test]
    fn kernels_are_numerically_right() {
        for level in SimdLevel::supported() {
            for &(length, offset) in &[(1usize, 0usize), (7, 1), (1000, 3), (4099, 5)] {
                for spec in KERNELS {
                    let b: Vec<f64> = (0..length).map(|i| i as f64 * 0.5).collect();
                    let c: Vec<f64> = (0..length).map(|i| (i % 17) as f64).collect();
                    let mut storage = vec![-1.0f64; length + offset];
                    let a = &mut storage[offset..];
                    let scalar = 3.0;
                    let result = run_kernel(spec, level, a, &b, &c, scalar);
                    let context = format!("{} {} n={length}", spec.name, level.name());
                    match spec.name {
                        "read" => {
                            assert_eq!(result, -(length as f64), "{context}");
                        }
                        "write" | "write-nt" => {
                            assert!(a.iter().all(|&v| v == scalar), "{context}")
                        }
                        "copy" | "copy-nt" => assert_eq!(a, &b[..], "{context}"),
                        _ => {
                            for i in 0..length {
                                assert_eq!(a[i], b[i] + scalar * c[i], "{context} at {i}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// STREAM's scale and add, at every level, ordinary and streaming
    /// stores, on lengths and offsets that exercise head and tail.
    #[test]
    fn scale_and_add_are_numerically_right() {
        for level in SimdLevel::supported() {
            for &(length, offset) in &[(1usize, 0usize), (7, 1), (1000, 3), (4099, 5)] {
                for nontemporal in [false, true] {
                    let b: Vec<f64> = (0..length).map(|i| i as f64 * 0.5).collect();
                    let c: Vec<f64> = (0..length).map(|i| (i % 17) as f64).collect();
                    let mut storage = vec![-1.0f64; length + offset];
                    let a = &mut storage[offset..];
                    let context = format!("{} n={length} nt={nontemporal}", level.name());
                    run_loop(KernelLoop::Scale, level, nontemporal, a, &b, &c, 3.0);
                    for i in 0..length {
                        assert_eq!(a[i], 3.0 * b[i], "scale {context} at {i}");
                    }
                    run_loop(KernelLoop::Add, level, nontemporal, a, &b, &c, 3.0);
                    for i in 0..length {
                        assert_eq!(a[i], b[i] + c[i], "add {context} at {i}");
                    }
                }
            }
        }
    }

    /// Enough independent sums to cover 2-3 loads a cycle times the FP add
    /// latency of current cores.
    #[test]
    fn read_keeps_at_least_eight_sums_in_flight() {
        const { assert!(READ_ACCUMULATORS >= 8) };
    }

    /// Vector lanes of one `read` accumulator at `level`.
    fn lanes(level: SimdLevel) -> usize {
        match level {
            SimdLevel::Scalar => 1,
            SimdLevel::Sse2 => 2,
            SimdLevel::Avx2 => 4,
            SimdLevel::Avx512 => 8,
        }
    }

    /// Proves, by rounding, that `read` adds into READ_ACCUMULATORS
    /// separate sums: 2^53 sits in lane 0 of the first accumulator, where
    /// each further +1.0 rounds away (ties to even), and 1.0s sit in lane 0
    /// of every other accumulator, where they add up exactly. With fewer
    /// accumulators some of those 1.0s would share the first one and vanish.
    #[test]
    fn read_sums_into_independent_accumulators() {
        const BIG: f64 = 9_007_199_254_740_992.0; // 2^53
        const BLOCKS: usize = 4; // an even count of 1.0s per sum: exact next to 2^53
        for level in SimdLevel::supported() {
            let width = lanes(level);
            let block = READ_ACCUMULATORS * width;
            let mut a = vec![0.0f64; BLOCKS * block];
            a[0] = BIG;
            for start in (0..BLOCKS).map(|index| index * block) {
                for accumulator in 1..READ_ACCUMULATORS {
                    a[start + accumulator * width] = 1.0;
                }
            }
            let expected = BIG + (BLOCKS * (READ_ACCUMULATORS - 1)) as f64;
            let read = crate::kernels::kernel_by_name("read").unwrap();
            let sum = run_kernel(read, level, &mut a, &[], &[], 0.0);
            assert_eq!(sum, expected, "{}", level.name());
        }
    }

    /// `read`'s sum is exact on every length around the block boundaries
    /// (whole blocks, whole vectors after them, a scalar tail).
    #[test]
    fn read_sums_every_length_exactly() {
        let read = crate::kernels::kernel_by_name("read").unwrap();
        for level in SimdLevel::supported() {
            let block = READ_ACCUMULATORS * lanes(level);
            for length in (0..3 * block + 9).chain([10_007]) {
                let mut storage: Vec<f64> = (0..length + 1).map(|i| (i % 13) as f64).collect();
                let a = &mut storage[1..];
                let expected: f64 = a.iter().sum();
                let sum = run_kernel(read, level, a, &[], &[], 0.0);
                assert_eq!(sum, expected, "{} n={length}", level.name());
            }
        }
    }

    #[test]
    fn bytes_are_counted_without_write_allocate() {
        let copy = crate::kernels::kernel_by_name("copy").unwrap();
        assert_eq!(copy.bytes_per_element(), 16);
        let triad = crate::kernels::kernel_by_name("triad-nt").unwrap();
        assert_eq!(triad.bytes_per_element(), 24);
    }
}
