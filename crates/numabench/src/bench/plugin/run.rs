//! Running a plugin in a child process: the child places and verifies one
//! buffer per pinned thread, calls the plugin's `run` on every thread with a
//! start barrier, and sends the samples and the placement check back over a
//! pipe as JSON lines, ending with a `done` line. A plugin that crashes,
//! calls `exit()`, reports no sample or hangs past the timeout takes only
//! the child down: the parent reports it failed, naming the plugin and the
//! signal or exit status, and every record emitted before stays where it
//! was written. SIGINT and SIGTERM sent to numabench while a child runs are
//! forwarded to the child's process group ([`super::supervise`]).

use super::abi::{RawThread, ABI_VERSION};
use super::load::Plugin;
use super::supervise::{supervise, Ending};
use crate::bench::context::Context;
use crate::bench::placed::PlacedBuffer;
use crate::memory::{MemoryPlacement, PlacementCheck};
use crate::output::{OutputError, Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::run_pinned;
use numabench_schema::params::to_params;
use numabench_schema::{RequestedMemory, RequestedPlacement};
use serde_json::{json, Map, Value};
use std::ffi::{c_char, c_void, CStr, CString};
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::Duration;
use thiserror::Error;

/// How a plugin runs.
#[derive(Debug, Clone)]
pub struct PluginRunConfig {
    /// One thread per CPU, pinned.
    pub cpus: Vec<u32>,
    /// Bytes of each thread's buffer.
    pub size: usize,
    /// Bind every buffer to this node; `None`: first touch by its thread.
    pub mem_node: Option<u32>,
    /// `--param NAME=VALUE`, checked against the plugin's parameters.
    pub params: Vec<(String, String)>,
    /// The child is stopped (SIGTERM, then SIGKILL after
    /// [`super::supervise::GRACE`]) and the run failed after this long.
    pub timeout: Duration,
}

/// Why a plugin run failed.
///
/// Fault: the system's (the plugin's process crashed, stopped, timed out or
/// could not be isolated); the outputs' own for `Output`.
#[derive(Debug, Error)]
pub enum PluginRunError {
    #[error("plugin {name} crashed: signal {signal} ({signal_name}); its results are not recorded, earlier ones are kept")]
    Crashed {
        name: String,
        signal: i32,
        signal_name: String,
    },
    #[error("plugin {name} failed: its process exited with status {status} before numabench's runner finished (did it call exit()?); its results are not recorded, earlier ones are kept")]
    Exited { name: String, status: i32 },
    #[error("plugin {name} failed: its process exited with status 0 before numabench's runner finished (did it call exit(0)?); no results recorded, earlier ones are kept")]
    ExitedEarly { name: String },
    #[error("plugin {name} failed: it reported no sample (call sample() at least once); earlier results are kept")]
    NoSample { name: String },
    #[error("plugin {name} timed out after {seconds} s (--timeout) and was killed; its results are not recorded, earlier ones are kept")]
    TimedOut { name: String, seconds: f64 },
    #[error("plugin {name} interrupted by signal {signal}: forwarded to its process, which is stopped; earlier results are kept")]
    Interrupted { name: String, signal: i32 },
    #[error("plugin {name} failed: {message}")]
    Failed { name: String, message: String },
    #[error("cannot run plugin {name} in a child process: {reason}")]
    Isolation { name: String, reason: String },
    #[error(transparent)]
    Output(#[from] OutputError),
}

impl crate::error::Faulty for PluginRunError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            PluginRunError::Output(error) => error.fault(),
            _ => Fault::System,
        }
    }
}

/// What every thread of the child shares.
struct RunState {
    barrier: Barrier,
    lines: Mutex<Vec<String>>,
    params: Vec<(CString, CString)>,
    error: Mutex<Option<String>>,
}

/// One thread's own part, behind `RawThread::numabench`.
struct ThreadState<'a> {
    run: &'a RunState,
    waited: AtomicBool,
}

/// The state behind `thread`.
///
/// # Safety
/// `thread` is a RawThread numabench made, whose `numabench` points to a
/// live ThreadState.
unsafe fn state<'a>(thread: *const RawThread) -> &'a ThreadState<'a> {
    // SAFETY: the caller's contract.
    unsafe { &*((*thread).numabench as *const ThreadState<'a>) }
}

extern "C" fn param(thread: *const RawThread, name: *const c_char) -> *const c_char {
    if name.is_null() {
        return std::ptr::null();
    }
    // SAFETY: called by the plugin with the thread numabench gave it; name is a C string.
    let (state, name) = unsafe { (state(thread), CStr::from_ptr(name)) };
    state
        .run
        .params
        .iter()
        .find(|(key, _)| key.as_c_str() == name)
        .map_or(std::ptr::null(), |(_, value)| value.as_ptr())
}

extern "C" fn wait(thread: *const RawThread) {
    // SAFETY: called by the plugin with the thread numabench gave it.
    let state = unsafe { state(thread) };
    if !state.waited.swap(true, Ordering::SeqCst) {
        state.run.barrier.wait();
    }
}

extern "C" fn sample(
    thread: *const RawThread,
    metric: *const c_char,
    unit: *const c_char,
    value: f64,
) {
    // SAFETY: called by the plugin with the thread numabench gave it.
    let state = unsafe { state(thread) };
    if metric.is_null() || unit.is_null() {
        *state.run.error.lock().expect("not poisoned") =
            Some("sample() without a metric or unit".into());
        return;
    }
    // SAFETY: C strings from the plugin, valid during the call.
    let (metric, unit) = unsafe {
        (
            CStr::from_ptr(metric).to_string_lossy().into_owned(),
            CStr::from_ptr(unit).to_string_lossy().into_owned(),
        )
    };
    // SAFETY: as above; index is plain data.
    let index = unsafe { (*thread).index };
    let line = json!({"sample": {"metric": metric, "unit": unit, "value": value, "thread": index}});
    state
        .run
        .lines
        .lock()
        .expect("not poisoned")
        .push(line.to_string());
}

/// The child's work: buffers, verification, the repetitions. Returns the
/// JSON lines to send.
fn child(context: &Context, plugin: &Plugin, config: &PluginRunConfig) -> Vec<String> {
    let mut lines = Vec::new();
    let fail = |lines: &mut Vec<String>, message: String| {
        lines.push(json!({"error": message}).to_string());
    };
    let buffers: Vec<Mutex<PlacedBuffer>> = match config
        .cpus
        .iter()
        .map(|&cpu| {
            let placement = match config.mem_node {
                Some(node) => MemoryPlacement::bind(node),
                None => MemoryPlacement::FirstTouch {
                    nodes: context.topology.node_of_cpu(cpu).into_iter().collect(),
                },
            };
            PlacedBuffer::allocate(&context.topology, config.size, placement, context.hugepages)
                .map(Mutex::new)
        })
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(buffers) => buffers,
        Err(error) => {
            fail(&mut lines, error.to_string());
            return lines;
        }
    };
    // Each thread first-touches its own buffer from its CPU.
    if let Err(error) = run_pinned(&config.cpus, |worker| {
        buffers[worker.index]
            .lock()
            .expect("not poisoned")
            .buffer
            .touch_pages();
    }) {
        fail(&mut lines, error.to_string());
        return lines;
    }
    let mut checks = Vec::new();
    for buffer in &buffers {
        match buffer
            .lock()
            .expect("not poisoned")
            .verify(context.placement_threshold)
        {
            Ok(check) => checks.push(check),
            Err(error) => {
                fail(&mut lines, error.to_string());
                return lines;
            }
        }
    }
    let check = crate::bench::mlp::combined_check(&checks);
    lines.push(json!({"placement": check}).to_string());
    let params: Vec<(CString, CString)> = plugin
        .params
        .iter()
        .map(|declared| {
            let value = config
                .params
                .iter()
                .find(|(name, _)| *name == declared.name)
                .map_or(declared.default.clone(), |(_, value)| value.clone());
            (
                CString::new(declared.name.clone()).unwrap_or_default(),
                CString::new(value).unwrap_or_default(),
            )
        })
        .collect();
    // SAFETY: the descriptor was checked at load; the library is still loaded.
    let run_function = unsafe { (*plugin.descriptor).run }.expect("checked at load");
    for repetition in 0..context.repeat.max(1) {
        let state = RunState {
            barrier: Barrier::new(config.cpus.len()),
            lines: Mutex::new(Vec::new()),
            params: params.clone(),
            error: Mutex::new(None),
        };
        let outcome = run_pinned(&config.cpus, |worker| {
            let mut buffer = buffers[worker.index].lock().expect("not poisoned");
            let words = buffer.buffer.words_mut();
            let thread_state = ThreadState {
                run: &state,
                waited: AtomicBool::new(false),
            };
            let raw = RawThread {
                abi_version: ABI_VERSION,
                index: worker.index as u32,
                threads: config.cpus.len() as u32,
                cpu: worker.cpu,
                repetition: repetition as u32,
                buffer: words.as_mut_ptr().cast::<c_void>(),
                buffer_bytes: std::mem::size_of_val(words),
                param,
                wait,
                sample,
                numabench: (&thread_state as *const ThreadState<'_>).cast_mut().cast(),
            };
            let status = run_function(&raw);
            // A thread that returned without waiting must not hold the others at the barrier.
            wait(&raw);
            if status != 0 {
                *state.error.lock().expect("not poisoned") =
                    Some(format!("run returned {status} on thread {}", worker.index));
            }
        });
        if let Err(error) = outcome {
            fail(&mut lines, error.to_string());
            return lines;
        }
        lines.extend(state.lines.into_inner().expect("not poisoned"));
        if let Some(error) = state.error.into_inner().expect("not poisoned") {
            fail(&mut lines, error);
            return lines;
        }
    }
    lines.push(json!({"done": true}).to_string());
    lines
}

/// The number of threads of this process.
fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(1, |entries| entries.count())
}

/// Runs `plugin` in a child process and emits one record per metric it
/// reported (the median over threads and repetitions), with the placement
/// check of the buffers.
pub fn run_plugin(
    context: &Context,
    plugin: &Plugin,
    config: &PluginRunConfig,
    pipeline: &mut Pipeline,
) -> Result<(), PluginRunError> {
    let isolation = |reason: String| PluginRunError::Isolation {
        name: plugin.name.clone(),
        reason,
    };
    // fork() copies only the calling thread: with others alive, their locks could be held.
    if thread_count() != 1 {
        return Err(isolation(format!("{} threads are running", thread_count())));
    }
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(isolation(std::io::Error::last_os_error().to_string()));
    }
    // SAFETY: both descriptors were just created and are owned here only.
    let (read_end, write_end) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // The forwarding handlers are in place before the child exists: a signal
    // that comes between fork and their installation would be lost.
    let signals = super::supervise::SignalGuard::install();
    // SAFETY: this process has one thread (checked above), so the child starts consistent.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(isolation(std::io::Error::last_os_error().to_string()));
    }
    if pid == 0 {
        super::supervise::in_child();
        drop(read_end);
        let lines = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            child(context, plugin, config)
        }))
        .unwrap_or_else(|_| {
            vec![json!({"error": "numabench's plugin runner panicked"}).to_string()]
        });
        let mut out = std::fs::File::from(write_end);
        let mut text = lines.join("\n");
        text.push('\n');
        let written = out.write_all(text.as_bytes()).is_ok();
        // SAFETY: _exit ends the child without running the parent's atexit handlers or
        // flushing buffers the parent owns.
        unsafe { libc::_exit(if written { 0 } else { 1 }) };
    }
    super::supervise::own_group(pid);
    drop(write_end);
    let (text, ending) = supervise(pid, read_end, config.timeout);
    drop(signals);
    let mut samples: Vec<(String, String, Vec<f64>)> = Vec::new();
    let mut check: Option<PlacementCheck> = None;
    let mut error: Option<String> = None;
    let mut done = false;
    for line in text.lines() {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(sample) = value.get("sample") {
            let metric = sample["metric"].as_str().unwrap_or_default().to_string();
            let unit = sample["unit"].as_str().unwrap_or_default().to_string();
            let number = sample["value"].as_f64().unwrap_or(f64::NAN);
            match samples
                .iter_mut()
                .find(|(m, u, _)| *m == metric && *u == unit)
            {
                Some(entry) => entry.2.push(number),
                None => samples.push((metric, unit, vec![number])),
            }
        } else if let Some(placement) = value.get("placement") {
            check = serde_json::from_value(placement.clone()).ok();
        } else if let Some(message) = value.get("error") {
            error = Some(message.as_str().unwrap_or_default().to_string());
        } else if value.get("done").is_some() {
            done = true;
        }
    }
    let name = plugin.name.clone();
    let status = match ending {
        Ending::Status(status) => status,
        Ending::TimedOut => {
            return Err(PluginRunError::TimedOut {
                name,
                seconds: config.timeout.as_secs_f64(),
            })
        }
        Ending::Interrupted(signal) => return Err(PluginRunError::Interrupted { name, signal }),
    };
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: strsignal returns a static or thread-local string (or null).
        let signal_name = unsafe { libc::strsignal(signal) };
        let signal_name = if signal_name.is_null() {
            String::new()
        } else {
            // SAFETY: non-null, NUL-terminated.
            unsafe { CStr::from_ptr(signal_name) }
                .to_string_lossy()
                .into_owned()
        };
        return Err(PluginRunError::Crashed {
            name,
            signal,
            signal_name,
        });
    }
    if let Some(message) = error {
        return Err(PluginRunError::Failed { name, message });
    }
    let code = libc::WEXITSTATUS(status);
    if code != 0 {
        return Err(PluginRunError::Exited { name, status: code });
    }
    if !done {
        return Err(PluginRunError::ExitedEarly { name });
    }
    if samples.is_empty() {
        return Err(PluginRunError::NoSample { name });
    }
    emit(plugin, config, &samples, check, pipeline)
}

/// One record per (metric, unit) the plugin reported.
fn emit(
    plugin: &Plugin,
    config: &PluginRunConfig,
    samples: &[(String, String, Vec<f64>)],
    check: Option<PlacementCheck>,
    pipeline: &mut Pipeline,
) -> Result<(), PluginRunError> {
    let mut plugin_params = Map::new();
    for declared in &plugin.params {
        let value = config
            .params
            .iter()
            .find(|(name, _)| *name == declared.name)
            .map_or(declared.default.clone(), |(_, value)| value.clone());
        plugin_params.insert(declared.name.clone(), json!(value));
    }
    let requested = to_params(&RequestedPlacement {
        memory: Some(RequestedMemory::Label(match config.mem_node {
            Some(node) => format!("bind:{node}"),
            None => "first-touch".to_string(),
        })),
        ..RequestedPlacement::on_cpus(&config.cpus)
    });
    for (metric, unit, values) in samples {
        let unit: Unit =
            serde_json::from_value(json!(unit)).map_err(|_| PluginRunError::Failed {
                name: plugin.name.clone(),
                message: format!(
                "unit '{unit}' of {metric} is not one of ns, GB/s, s, cycles, Mop/s, ratio, count"
            ),
            })?;
        let Ok(sample) = Sample::new(values.iter().copied()) else {
            return Err(PluginRunError::Failed {
                name: plugin.name.clone(),
                message: format!("{metric}: a value that is not a finite number"),
            });
        };
        let summary = sample.summary();
        let mut params = Map::new();
        params.insert("plugin".into(), json!(plugin.name));
        params.insert(
            "plugin_file".into(),
            json!(plugin.file.display().to_string()),
        );
        params.insert("threads".into(), json!(config.cpus.len()));
        params.insert("size_bytes".into(), json!(config.size));
        params.insert("plugin_params".into(), Value::Object(plugin_params.clone()));
        pipeline.emit(&Record {
            benchmark: plugin.name.clone(),
            metric: metric.clone(),
            value: summary.median,
            unit,
            params,
            placement: Placement {
                requested: requested.clone(),
                verified: check.clone(),
            },
            stats: summary,
        })?;
    }
    Ok(())
}
