//! The bandwidth kernels' loops, one variant per SIMD level. Loads use
//! four independent accumulators/streams per iteration so the core keeps
//! many cache-line requests in flight; `-nt` variants use streaming stores
//! (aligned to the vector width, with scalar head and tail).

use super::simd::SimdLevel;
use super::spec::KernelSpec;

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
    assert!(
        level <= SimdLevel::detect(),
        "{} is not supported by this CPU",
        level.name()
    );
    if spec.reads >= 1 && spec.writes >= 1 {
        assert_eq!(a.len(), b.len(), "arrays must have one length");
    }
    if spec.reads >= 2 {
        assert_eq!(a.len(), c.len(), "arrays must have one length");
    }
    let kind = match (spec.reads, spec.writes) {
        (1, 0) => Kind::Read,
        (0, 1) => Kind::Write,
        (1, 1) => Kind::Copy,
        _ => Kind::Triad,
    };
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the level was checked against the CPU above; slice lengths were checked.
        unsafe {
            match level {
                SimdLevel::Avx512 => {
                    return x86::avx512::run(kind, spec.nontemporal, a, b, c, scalar)
                }
                SimdLevel::Avx2 => return x86::avx2::run(kind, spec.nontemporal, a, b, c, scalar),
                SimdLevel::Sse2 => return x86::sse2::run(kind, spec.nontemporal, a, b, c, scalar),
                SimdLevel::Scalar => {}
            }
        }
    }
    scalar_kernel(kind, a, b, c, scalar)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Copy,
    Triad,
}

fn scalar_kernel(kind: Kind, a: &mut [f64], b: &[f64], c: &[f64], scalar: f64) -> f64 {
    match kind {
        Kind::Read => a.iter().sum(),
        Kind::Write => {
            a.iter_mut().for_each(|value| *value = scalar);
            0.0
        }
        Kind::Copy => {
            // An element loop, not copy_from_slice: memcpy would skip the write-allocate read.
            for (out, value) in a.iter_mut().zip(b) {
                *out = std::hint::black_box(*value);
            }
            0.0
        }
        Kind::Triad => {
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
                use super::super::{scalar_kernel, Kind};
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

                #[target_feature(enable = $feature)]
                unsafe fn read(a: &[f64]) -> f64 {
                    let blocks = a.len() / (4 * WIDTH);
                    let pointer = a.as_ptr();
                    let (mut s0, mut s1, mut s2, mut s3): ($vector, $vector, $vector, $vector) =
                        ($setzero(), $setzero(), $setzero(), $setzero());
                    for block in 0..blocks {
                        // SAFETY: block * 4 * WIDTH + 4 * WIDTH <= a.len().
                        unsafe {
                            let q = pointer.add(block * 4 * WIDTH);
                            s0 = $add(s0, $loadu(q));
                            s1 = $add(s1, $loadu(q.add(WIDTH)));
                            s2 = $add(s2, $loadu(q.add(2 * WIDTH)));
                            s3 = $add(s3, $loadu(q.add(3 * WIDTH)));
                        }
                    }
                    let total = $add($add(s0, s1), $add(s2, s3));
                    let mut lanes = [0.0f64; WIDTH];
                    // SAFETY: lanes holds exactly one vector.
                    unsafe { $storeu(lanes.as_mut_ptr(), total) };
                    lanes.iter().sum::<f64>() + a[blocks * 4 * WIDTH..].iter().sum::<f64>()
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
                    kind: Kind,
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
                            Kind::Read => read(a),
                            Kind::Write => {
                                store_all(a, nontemporal, |_| scalar, |_| splat);
                                0.0
                            }
                            Kind::Copy => {
                                let source = b.as_ptr();
                                store_all(a, nontemporal, |i| b[i], |i| $loadu(source.add(i)));
                                0.0
                            }
                            Kind::Triad => {
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
                fn fallback(kind: Kind, a: &mut [f64], b: &[f64], c: &[f64], scalar: f64) -> f64 {
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

    #[test]
    fn bytes_are_counted_without_write_allocate() {
        let copy = crate::kernels::kernel_by_name("copy").unwrap();
        assert_eq!(copy.bytes_per_element(), 16);
        let triad = crate::kernels::kernel_by_name("triad-nt").unwrap();
        assert_eq!(triad.bytes_per_element(), 24);
    }
}
