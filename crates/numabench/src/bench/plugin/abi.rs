//! The C ABI of `include/numabench_plugin.h`, version 1, mirrored.

use std::ffi::{c_char, c_int, c_void};

/// The version this numabench speaks.
pub const ABI_VERSION: u32 = 1;

/// The symbol a plugin exports.
pub const ENTRY_SYMBOL: &[u8] = b"numabench_plugin_v1\0";

#[repr(C)]
#[derive(Debug)]
pub struct RawParam {
    pub name: *const c_char,
    pub description: *const c_char,
    pub default_value: *const c_char,
}

#[repr(C)]
#[derive(Debug)]
pub struct RawThread {
    pub abi_version: u32,
    pub index: u32,
    pub threads: u32,
    pub cpu: u32,
    pub repetition: u32,
    pub buffer: *mut c_void,
    pub buffer_bytes: usize,
    pub param: extern "C" fn(*const RawThread, *const c_char) -> *const c_char,
    pub wait: extern "C" fn(*const RawThread),
    pub sample: extern "C" fn(*const RawThread, *const c_char, *const c_char, f64),
    pub numabench: *mut c_void,
}

#[repr(C)]
#[derive(Debug)]
pub struct RawPlugin {
    pub abi_version: u32,
    pub name: *const c_char,
    pub description: *const c_char,
    pub params: *const RawParam,
    pub param_count: usize,
    pub run: Option<extern "C" fn(*const RawThread) -> c_int>,
}

/// `const numabench_plugin *numabench_plugin_v1(void)`.
pub type EntryFunction = unsafe extern "C" fn() -> *const RawPlugin;
