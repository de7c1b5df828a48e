//! Which vector instructions the kernels use, detected at run time.

use serde::Serialize;

/// Vector instruction set of a kernel variant, widest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SimdLevel {
    Scalar,
    Sse2,
    Avx2,
    Avx512,
}

impl SimdLevel {
    /// The widest level this CPU supports.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return SimdLevel::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return SimdLevel::Avx2;
            }
            SimdLevel::Sse2
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            SimdLevel::Scalar
        }
    }

    /// Every level this CPU supports, widest first.
    pub fn supported() -> Vec<Self> {
        let best = Self::detect();
        [
            SimdLevel::Avx512,
            SimdLevel::Avx2,
            SimdLevel::Sse2,
            SimdLevel::Scalar,
        ]
        .into_iter()
        .filter(|level| *level <= best)
        .collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Sse2 => "sse2",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// Parses `avx512`, `avx2`, `sse2`, `scalar`.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            SimdLevel::Avx512,
            SimdLevel::Avx2,
            SimdLevel::Sse2,
            SimdLevel::Scalar,
        ]
        .into_iter()
        .find(|level| level.name() == name)
    }
}
