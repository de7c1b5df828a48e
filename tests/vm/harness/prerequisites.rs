//! What the host needs for a VM run, and the host files a guest carries.

use super::*;

/// Host tools and files a VM run needs.
#[derive(Debug, Clone)]
pub struct Prerequisites {
    /// `qemu-system-x86_64`.
    pub qemu: PathBuf,
    /// Static busybox.
    pub busybox: PathBuf,
    /// `cpio`.
    pub cpio: PathBuf,
    /// Kernel image.
    pub kernel: PathBuf,
}

/// The repository root (the ancestor of this crate holding `scripts/`).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|p| p.join("Cargo.lock").exists() && p.join("crates").is_dir())
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The VM cache directory (`$NUMABENCH_VM_DIR` or `<repo>/.vm-cache`).
pub fn vm_dir() -> PathBuf {
    match std::env::var_os("NUMABENCH_VM_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo_root().join(".vm-cache"),
    }
}

pub(super) fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// Finds everything a VM run needs, or says what is missing and what to run.
pub fn prerequisites(choice: VmKernel) -> Result<Prerequisites, String> {
    let mut missing = Vec::new();
    let qemu = which("qemu-system-x86_64");
    if qemu.is_none() {
        missing
            .push("qemu-system-x86_64 is not in PATH (Debian package qemu-system-x86)".to_string());
    }
    let busybox = PathBuf::from("/bin/busybox");
    match elf_interpreter(&busybox) {
        Ok(None) => {}
        Ok(Some(_)) => missing.push(
            "/bin/busybox is dynamically linked; the VM needs the static one (Debian package busybox-static)".into(),
        ),
        Err(e) => missing.push(format!("/bin/busybox: {e} (Debian package busybox-static)")),
    }
    let cpio = which("cpio");
    if cpio.is_none() {
        missing.push("cpio is not in PATH (Debian package cpio)".into());
    }
    let kernel = vm_dir().join(choice.file_name());
    if !kernel.is_file() {
        let script = match choice {
            VmKernel::Default => "scripts/vm-kernel",
            VmKernel::Backports => "VM_KERNEL=backports scripts/vm-kernel",
        };
        missing.push(format!(
            "no VM kernel at {} (made by {script})",
            kernel.display()
        ));
    }
    if !missing.is_empty() {
        let root = repo_root();
        return Err(format!(
            "VM test prerequisites are missing:\n  - {}\nRun `{}` (installs qemu-system-x86, busybox-static and cpio, \
             then runs scripts/vm-kernel to fetch the kernel), then re-run the tests.",
            missing.join("\n  - "),
            root.join("scripts/setup").display()
        ));
    }
    Ok(Prerequisites {
        qemu: qemu.unwrap(),
        busybox,
        cpio: cpio.unwrap(),
        kernel,
    })
}

/// The `PT_INTERP` of an ELF64 little-endian file (`None` = static).
pub(super) fn elf_interpreter(path: &Path) -> Result<Option<String>, String> {
    let data = fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let bad = || "not an ELF64 little-endian file".to_string();
    if data.len() < 64 || &data[..4] != b"\x7fELF" || data[4] != 2 || data[5] != 1 {
        return Err(bad());
    }
    let u16_at = |o: usize| u16::from_le_bytes([data[o], data[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap()) as usize;
    let (phoff, phentsize, phnum) = (u64_at(0x20), u16_at(0x36), u16_at(0x38));
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if ph + 56 > data.len() {
            return Err(bad());
        }
        if u32::from_le_bytes(data[ph..ph + 4].try_into().unwrap()) == 3 {
            let (off, size) = (u64_at(ph + 8), u64_at(ph + 32));
            let raw = data.get(off..off + size).ok_or_else(bad)?;
            let s = String::from_utf8_lossy(raw)
                .trim_end_matches('\0')
                .to_string();
            return Ok(Some(s));
        }
    }
    Ok(None)
}

// ---------------------------------------------------------------------------
// Initramfs
// ---------------------------------------------------------------------------

/// Shared libraries (and the dynamic loader) a host binary needs, as absolute
/// paths, according to `ldd` plus the ELF interpreter.
pub fn shared_libraries(binary: &Path) -> Result<Vec<PathBuf>, String> {
    let mut libs = BTreeSet::new();
    if let Some(interp) =
        elf_interpreter(binary).map_err(|e| format!("{}: {e}", binary.display()))?
    {
        libs.insert(PathBuf::from(interp));
    } else {
        return Ok(Vec::new());
    }
    libs.extend(ldd_libraries(binary)?);
    Ok(libs.into_iter().collect())
}

/// Shared libraries `ldd` lists for a dynamically linked executable or a
/// shared object (absolute paths); fails naming a library it cannot find.
pub fn ldd_libraries(binary: &Path) -> Result<Vec<PathBuf>, String> {
    let mut libs = BTreeSet::new();
    let out = Command::new("ldd")
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run ldd {}: {e}", binary.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "ldd {} failed: {text}{}",
            binary.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    for line in text.lines() {
        let line = line.trim();
        if line.contains("not found") {
            return Err(format!("ldd {}: {line}", binary.display()));
        }
        // "libx.so => /path/libx.so (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)";
        // "linux-vdso.so.1 (0x...)" has no file.
        let path = match line.split_once("=>") {
            Some((_, rhs)) => rhs.trim(),
            None => line,
        };
        let path = path.split(" (").next().unwrap_or("").trim();
        if path.starts_with('/') {
            libs.insert(PathBuf::from(path));
        }
    }
    Ok(libs.into_iter().collect())
}

/// Copies host file `src` (following symlinks) to `root` + `dest`.
pub(crate) fn install_file(root: &Path, src: &Path, dest: &Path, mode: u32) -> Result<(), String> {
    let rel = dest.strip_prefix("/").unwrap_or(dest);
    let to = root.join(rel);
    if to.exists() {
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("mkdir {}: {e}", parent.display()))?;
    }
    fs::copy(src, &to).map_err(|e| format!("copy {} -> {}: {e}", src.display(), to.display()))?;
    fs::set_permissions(&to, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("chmod {}: {e}", to.display()))?;
    Ok(())
}

pub(crate) fn write_file(path: &Path, content: &str, mode: u32) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("mkdir {}: {e}", parent.display()))?;
    }
    fs::write(path, content).map_err(|e| format!("write {}: {e}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("chmod {}: {e}", path.display()))
}
