//! The variants one of STREAM's loops can run as: the bandwidth kernels'
//! loop at a SIMD level with ordinary stores, the same loop with streaming
//! stores, or (copy only) the C library's `memcpy`.
//!
//! Why copy has three: gcc -O3 compiles STREAM's copy (`c[j] = a[j]`) into
//! a call to glibc's `memcpy`, and above glibc's non-temporal threshold
//! (`glibc.cpu.x86_non_temporal_threshold`, by default about 3/4 of the
//! last-level cache a thread shares; `ld.so --list-tunables` shows it) that
//! copy streams with non-temporal stores and software prefetch, so it skips
//! the write-allocate read an ordinary store loop pays (1.5x less traffic).
//! On an AMD EPYC (Zen 1) at 640 MB per array a loop with ordinary stores
//! read 0.65 of STREAM's copy, streaming stores 0.97-1.0, memcpy itself 1.0.
//! STREAM users compare copy with STREAM's copy, so a calibration weighs all
//! three and the record names the one that ran. Scale, add and triad stay
//! loops with ordinary stores, as gcc compiles STREAM's.

use super::bandwidth::run_loop;
use super::choice::Variant;
use super::loops::KernelLoop;
use super::simd::SimdLevel;

/// How one loop of STREAM runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopVariant {
    /// The kernel loop at this level, ordinary (temporal) stores.
    Loop(SimdLevel),
    /// The kernel loop at this level with streaming (non-temporal) stores.
    Streaming(SimdLevel),
    /// The C library's `memcpy` (copy only): whatever path it picks for
    /// the size on this CPU.
    Memcpy,
}

impl LoopVariant {
    /// The variants a calibration of `kind` weighs on this CPU: the loop at
    /// every supported level, and for copy the streaming loop at every
    /// vector level and `memcpy`.
    pub fn candidates(kind: KernelLoop) -> Vec<Self> {
        let levels = SimdLevel::supported();
        let mut variants: Vec<Self> = levels.iter().copied().map(LoopVariant::Loop).collect();
        if kind == KernelLoop::Copy {
            variants.extend(
                levels
                    .iter()
                    .copied()
                    .filter(|level| *level != SimdLevel::Scalar)
                    .map(LoopVariant::Streaming),
            );
            variants.push(LoopVariant::Memcpy);
        }
        variants
    }

    /// The SIMD level's name, `libc` for `memcpy` (the C library picks its
    /// own instructions).
    pub fn simd_name(self) -> &'static str {
        match self {
            LoopVariant::Loop(level) | LoopVariant::Streaming(level) => level.name(),
            LoopVariant::Memcpy => "libc",
        }
    }

    /// Runs `kind` once over the arrays as [`run_loop`] does (`a` written,
    /// `b` and `c` read as the loop needs them).
    ///
    /// Panics as `run_loop` does, and for `Memcpy` with a loop other than
    /// copy.
    pub fn run(self, kind: KernelLoop, a: &mut [f64], b: &[f64], c: &[f64], scalar: f64) -> f64 {
        match self {
            LoopVariant::Loop(level) => run_loop(kind, level, false, a, b, c, scalar),
            LoopVariant::Streaming(level) => run_loop(kind, level, true, a, b, c, scalar),
            LoopVariant::Memcpy => {
                assert_eq!(kind, KernelLoop::Copy, "memcpy only copies");
                a.copy_from_slice(b);
                0.0
            }
        }
    }
}

impl Variant for LoopVariant {
    /// The level (`avx2`) for a loop, the level and `-nt` (`avx2-nt`) for
    /// streaming stores, `memcpy`.
    fn name(self) -> &'static str {
        match self {
            LoopVariant::Loop(level) => level.name(),
            LoopVariant::Streaming(SimdLevel::Avx512) => "avx512-nt",
            LoopVariant::Streaming(SimdLevel::Avx2) => "avx2-nt",
            LoopVariant::Streaming(SimdLevel::Sse2) => "sse2-nt",
            // The scalar loop has no streaming stores (run_loop stores plainly).
            LoopVariant::Streaming(SimdLevel::Scalar) => "scalar",
            LoopVariant::Memcpy => "memcpy",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_weighs_streaming_stores_and_memcpy_the_others_only_loops() {
        let copy = LoopVariant::candidates(KernelLoop::Copy);
        assert!(copy.contains(&LoopVariant::Memcpy));
        assert!(copy.contains(&LoopVariant::Loop(SimdLevel::Scalar)));
        if SimdLevel::detect() > SimdLevel::Scalar {
            assert!(copy.iter().any(|v| matches!(v, LoopVariant::Streaming(_))));
        }
        for kind in [KernelLoop::Scale, KernelLoop::Add, KernelLoop::Triad] {
            let variants = LoopVariant::candidates(kind);
            assert!(
                variants.iter().all(|v| matches!(v, LoopVariant::Loop(_))),
                "{kind:?}"
            );
            assert_eq!(variants.len(), SimdLevel::supported().len());
        }
        let names: Vec<&str> = copy.iter().map(|v| v.name()).collect();
        let unique: std::collections::HashSet<&str> = names.iter().copied().collect();
        assert_eq!(
            unique.len(),
            names.len(),
            "every copy variant has its own name: {names:?}"
        );
    }

    #[test]
    fn every_copy_variant_copies() {
        let source: Vec<f64> = (0..10_007).map(f64::from).collect();
        for variant in LoopVariant::candidates(KernelLoop::Copy) {
            // An odd offset: streaming stores need their aligned head and tail.
            let mut out = vec![0.0; source.len() + 1];
            variant.run(KernelLoop::Copy, &mut out[1..], &source, &[], 0.0);
            assert_eq!(&out[1..], &source[..], "{}", variant.name());
        }
    }
}
