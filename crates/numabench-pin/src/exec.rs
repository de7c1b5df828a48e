//! `execve`, interposed: an MPI rank starts on its whole block of CPUs.
//!
//! A launcher (`mpirun --bind-to none`) forks each rank; the shim pins the forked
//! child, like any forked process, to one CPU. Exec'ing the rank with that mask would
//! make an OpenMP runtime in it size a one-thread team (or sleep instead of spinning),
//! since runtimes read the mask they start with. So when a process still on the
//! shim's own one-CPU pin execs a program that its environment names an MPI rank, the
//! shim gives the program the rank's block first (see [`crate::shim`]'s `exec_cpus`);
//! the rank then pins its threads within it. Exec'ing with every CPU of the list
//! instead would let the team spin on a block smaller than itself.
//!
//! glibc's `execv`/`execvp`/`posix_spawn` do not call `execve` through the PLT, so only
//! direct `execve` calls (OpenMPI's and Slurm's launchers, shells) pass here.

use crate::{affinity, diag, shim};
use libc::{c_char, c_int};
use std::ffi::CStr;
use std::sync::OnceLock;

/// libc's `execve`.
type ExecveFn =
    unsafe extern "C" fn(*const c_char, *const *const c_char, *const *const c_char) -> c_int;

/// libc's `execve`, looked up once (at load: a forked child then needs no lookup).
pub(crate) fn real_execve() -> Option<ExecveFn> {
    static REAL: OnceLock<Option<ExecveFn>> = OnceLock::new();
    *REAL.get_or_init(|| {
        // SAFETY: a NUL-terminated name; RTLD_NEXT looks in the objects loaded after
        // this one.
        let symbol = unsafe { libc::dlsym(libc::RTLD_NEXT, c"execve".as_ptr()) };
        if symbol.is_null() {
            return None;
        }
        // SAFETY: libc's `execve` has exactly this signature.
        Some(unsafe { std::mem::transmute::<*mut libc::c_void, ExecveFn>(symbol) })
    })
}

/// The variables of `envp` that name ranks and the pin plan.
///
/// # Safety
///
/// `envp` is null or a null-terminated array of NUL-terminated strings.
unsafe fn variables(envp: *const *const c_char) -> Vec<(String, String)> {
    const PREFIXES: [&str; 4] = [
        "NUMABENCH_PIN_",
        "OMPI_COMM_WORLD_LOCAL_",
        "SLURM_",
        "MPI_LOCAL",
    ];
    let mut found = Vec::new();
    if envp.is_null() {
        return found;
    }
    for offset in 0.. {
        // SAFETY: within the array, whose end is the null entry (the caller's contract).
        let entry = unsafe { *envp.add(offset) };
        if entry.is_null() {
            break;
        }
        // SAFETY: a NUL-terminated string (the caller's contract).
        let text = unsafe { CStr::from_ptr(entry) }.to_string_lossy();
        if let Some((name, value)) = text.split_once('=') {
            if PREFIXES.iter().any(|prefix| name.starts_with(prefix)) {
                found.push((name.to_string(), value.to_string()));
            }
        }
    }
    found
}

/// `execve`, interposed: widens the mask of a rank about to be exec'd to its block.
///
/// # Safety
///
/// Same contract as libc's `execve`.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn execve(
    path: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    let Some(real) = real_execve() else {
        // SAFETY: errno is this thread's.
        unsafe { *libc::__errno_location() = libc::ENOSYS };
        return -1;
    };
    // SAFETY: the caller's envp, under execve's contract.
    let variables = unsafe { variables(envp) };
    let read = |name: &str| {
        variables
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let widened = shim::exec_cpus(&read).filter(|cpus| match affinity::set_self(cpus) {
        Ok(()) => true,
        Err(error) => {
            diag::warn(&format!(
                "cannot give an exec'd rank its CPUs {cpus:?}: {error}"
            ));
            false
        }
    });
    drop(variables);
    // SAFETY: forwarding the caller's arguments unchanged.
    let result = unsafe { real(path, argv, envp) };
    // Only reached when the exec failed: the process goes on, on its own pin.
    if let (Some(_), Some(cpu)) = (widened, shim::own_pin()) {
        // SAFETY: errno is this thread's; kept across the restoring call.
        let errno = unsafe { *libc::__errno_location() };
        let _ = affinity::set_self(&[cpu]);
        // SAFETY: as above.
        unsafe { *libc::__errno_location() = errno };
    }
    result
}

#[cfg(test)]
mod tests {
    use super::variables;
    use std::ffi::CString;

    #[test]
    fn keeps_the_rank_and_plan_variables_of_envp() {
        let entries: Vec<CString> = [
            "PATH=/bin",
            "OMPI_COMM_WORLD_LOCAL_RANK=1",
            "OMPI_COMM_WORLD_LOCAL_SIZE=2",
            "NUMABENCH_PIN_CPUS=0-3",
            "NOEQUALS",
        ]
        .iter()
        .map(|text| CString::new(*text).unwrap())
        .collect();
        let mut envp: Vec<*const libc::c_char> = entries.iter().map(|e| e.as_ptr()).collect();
        envp.push(std::ptr::null());
        // SAFETY: a null-terminated array of NUL-terminated strings that outlive the call.
        let found = unsafe { variables(envp.as_ptr()) };
        let names: Vec<&str> = found.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "OMPI_COMM_WORLD_LOCAL_RANK",
                "OMPI_COMM_WORLD_LOCAL_SIZE",
                "NUMABENCH_PIN_CPUS"
            ]
        );
        assert_eq!(found[2].1, "0-3");
        // SAFETY: a null envp is allowed.
        assert!(unsafe { variables(std::ptr::null()) }.is_empty());
    }
}
