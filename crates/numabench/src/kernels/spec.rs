//! Bandwidth kernels as data: what each moves per element, so reports
//! derive bandwidth and adding a kernel is a line here plus its loop.

use serde::Serialize;

/// What a kernel does per element of its arrays (f64, 8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KernelSpec {
    pub name: &'static str,
    /// Arrays read per element.
    pub reads: u32,
    /// Arrays written per element.
    pub writes: u32,
    /// Floating-point operations per element.
    pub flops: u32,
    /// Stores bypass the caches (no write-allocate read).
    pub nontemporal: bool,
    pub formula: &'static str,
}

impl KernelSpec {
    /// Bytes counted per element: 8 per array read or written. Like STREAM
    /// and likwid-bench, the write-allocate read that normal (temporal)
    /// stores cause is NOT counted, so `copy` moves 24 bytes per element on
    /// the bus but is credited 16; the `-nt` variants avoid that read.
    pub fn bytes_per_element(&self) -> u64 {
        8 * u64::from(self.reads + self.writes)
    }

    /// Number of arrays the kernel uses.
    pub fn arrays(&self) -> usize {
        (self.reads + self.writes) as usize
    }
}

/// Every bandwidth kernel.
pub const KERNELS: &[KernelSpec] = &[
    KernelSpec {
        name: "read",
        reads: 1,
        writes: 0,
        flops: 1,
        nontemporal: false,
        formula: "s += a[i]",
    },
    KernelSpec {
        name: "write",
        reads: 0,
        writes: 1,
        flops: 0,
        nontemporal: false,
        formula: "a[i] = s",
    },
    KernelSpec {
        name: "copy",
        reads: 1,
        writes: 1,
        flops: 0,
        nontemporal: false,
        formula: "a[i] = b[i]",
    },
    KernelSpec {
        name: "triad",
        reads: 2,
        writes: 1,
        flops: 2,
        nontemporal: false,
        formula: "a[i] = b[i] + s*c[i]",
    },
    KernelSpec {
        name: "write-nt",
        reads: 0,
        writes: 1,
        flops: 0,
        nontemporal: true,
        formula: "a[i] = s (streaming stores)",
    },
    KernelSpec {
        name: "copy-nt",
        reads: 1,
        writes: 1,
        flops: 0,
        nontemporal: true,
        formula: "a[i] = b[i] (streaming stores)",
    },
    KernelSpec {
        name: "triad-nt",
        reads: 2,
        writes: 1,
        flops: 2,
        nontemporal: true,
        formula: "a[i] = b[i] + s*c[i] (streaming stores)",
    },
];

/// Looks a kernel up by name.
pub fn kernel_by_name(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().find(|kernel| kernel.name == name)
}
