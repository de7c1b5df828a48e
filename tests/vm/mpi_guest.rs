//! OpenMPI inside the emulated-NUMA VM (`VmOptions { mpi: true }`).
//!
//! An MPI program (its own libraries come with it, from `ldd`) also needs
//! OpenMPI's runtime at run time, at the paths it was built with: Debian's
//! OpenMPI 4.1 starts `orted` even for a singleton (a program run directly,
//! one rank), loads its components from `openmpi3/` and PMIx's from
//! `pmix2/lib/pmix/`, and reads help texts and configuration from
//! `/usr/share/openmpi` and `/etc/openmpi`. All of that is copied to the
//! same paths in the guest, with the libraries of every executable and
//! component (a component whose libraries are not installed on the host is
//! left out, as OpenMPI would skip it there too).
//!
//! The guest is root: OpenMPI refuses root unless told, so [`init_lines`]
//! sets `OMPI_ALLOW_RUN_AS_ROOT=1` and `OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`
//! (what `mpirun --allow-run-as-root` sets), and `OMPI_MCA_plm=isolated`:
//! the default launcher insists on finding `ssh` or `rsh` even when every
//! rank is local, and the guest is one host. It also brings `lo` up (the
//! runtime's TCP wire-up needs an interface), gives the guest a hostname and
//! mounts a tmpfs on `/dev/shm` (shared-memory transport).

use crate::harness::{install_file, ldd_libraries, write_file};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Directory trees copied whole (following symlinks).
pub const TREES: [&str; 4] = [
    "/usr/lib/x86_64-linux-gnu/openmpi",
    "/usr/lib/x86_64-linux-gnu/pmix2",
    "/usr/share/openmpi",
    "/etc/openmpi",
];

/// Executables: (host file, guest path). `mpirun` and `mpiexec` are
/// `orterun` (alternatives symlinks on the host).
pub const PROGRAMS: [(&str, &str); 4] = [
    ("/usr/bin/orted", "/usr/bin/orted"),
    ("/usr/bin/orterun", "/usr/bin/orterun"),
    ("/usr/bin/orterun", "/usr/bin/mpirun"),
    ("/usr/bin/orterun", "/usr/bin/mpiexec"),
];

/// The guest's hostname when MPI is on.
pub const GUEST_HOSTNAME: &str = "numabench-vm";

/// Copies OpenMPI's runtime into the initramfs tree `root` and returns the
/// host libraries it needs (for the caller to install at the same paths).
/// Fails naming what is missing when OpenMPI is not installed.
pub fn install(root: &Path) -> Result<Vec<PathBuf>, String> {
    let missing: Vec<&str> = TREES
        .iter()
        .copied()
        .chain(PROGRAMS.iter().map(|p| p.0))
        .filter(|p| !Path::new(p).exists())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "MPI in the VM needs OpenMPI on the host (Debian packages openmpi-bin, libopenmpi-dev; \
             scripts/setup installs them): missing {}",
            missing.join(", ")
        ));
    }
    let mut objects = Vec::new();
    for tree in TREES {
        copy_tree(root, Path::new(tree), &mut objects)?;
    }
    for (src, dest) in PROGRAMS {
        install_file(root, Path::new(src), Path::new(dest), 0o755)?;
        objects.push(PathBuf::from(src));
    }
    let mut libs = BTreeSet::new();
    for object in objects {
        match ldd_libraries(&object) {
            Ok(l) => libs.extend(l),
            // A component needing a library this host lacks: OpenMPI skips
            // it on the host too, so the guest does without it.
            Err(_) if is_component(&object) => {
                let rel = object.strip_prefix("/").unwrap_or(&object);
                let _ = fs::remove_file(root.join(rel));
            }
            Err(e) => return Err(e),
        }
    }
    for (path, content) in [
        ("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"),
        ("etc/group", "root:x:0:\n"),
        (
            "etc/hosts",
            &format!("127.0.0.1 localhost {GUEST_HOSTNAME}\n") as &str,
        ),
    ] {
        write_file(&root.join(path), content, 0o644)?;
    }
    Ok(libs.into_iter().collect())
}

/// Lines for `/init`, before the commands run.
pub fn init_lines() -> String {
    format!(
        "# MPI (tests/vm/mpi_guest.rs)\n\
         export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n\
         export OMPI_MCA_plm=isolated\n\
         hostname {GUEST_HOSTNAME}\n\
         ip link set lo up\n\
         mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm\n"
    )
}

/// A loadable component (`mca_*.so`, `pmix_mca_*.so`), as opposed to a
/// library the runtime cannot do without.
fn is_component(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("mca_") || n.starts_with("pmix_mca_"))
}

/// Copies the regular files under host directory `dir` (following
/// symlinks) to the same paths under `root`, but not headers (`include/`)
/// or static libraries; collects the ELF files.
fn copy_tree(root: &Path, dir: &Path, elf: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("read {}: {e}", dir.display()))?
            .path();
        // Following symlinks; a dangling one is skipped.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if meta.is_dir() {
            // Headers and Fortran modules are for building, not running.
            if name != "include" {
                copy_tree(root, &path, elf)?;
            }
        } else if meta.is_file() && !name.ends_with(".a") {
            install_file(root, &path, &path, 0o755)?;
            let mut magic = [0u8; 4];
            let is_elf = fs::File::open(&path)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
                .is_ok()
                && &magic == b"\x7fELF";
            if is_elf {
                elf.push(path);
            }
        }
    }
    Ok(())
}
