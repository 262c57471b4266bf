//! Links the `paimon` binary for a fast start on Linux (glibc): a point lookup, its common use,
//! runs in a few milliseconds, of which process start-up is a measurable share.
//!
//! - **Position-dependent executable.** A position-independent executable is relocated by the
//!   dynamic loader at every start: here ~80,000 relative relocations written into ~1.7 MiB of
//!   read-only-after-relocation data, each page of it copied on first write. A
//!   position-dependent executable has no such relocations; its data pages are mapped from
//!   the file as they are read (measured on a 2-core VM, release build: `paimon --version`
//!   4.3 → 2.3 ms and 660 → 235 page faults). Shared libraries, heap and stack are still
//!   placed at random; only the executable's own image is at a fixed address, as with Go's
//!   default Linux builds.
//! - **The unwinder linked in statically.** Rust's standard library links GCC's unwinder
//!   from `libgcc_s.so.1`, a shared library the loader must find, map and relocate, and whose
//!   constructor queries the CPU (`__cpu_indicator_init`: `cpuid`, a trap to the hypervisor
//!   in a VM). The same unwinder is linked here from `libgcc_eh.a` (as `-static-libgcc`
//!   does for C programs), so `libgcc_s` is not loaded (`--as-needed`): 0.13 ms less per
//!   process on the 2-core VM (a Rust hello-world, 1.02 → 0.89 ms). Panics unwind as before.
//!   When the compiler cannot name the archive (or when cross-compiling), the binary links
//!   `libgcc_s` as usual.
//! - **The functions a point lookup runs, placed together.** A process maps the executable's
//!   code as it first runs it, 64 KiB around each page touched; a lookup runs ~2,300 functions
//!   spread over the ~100 MiB of code (DataFusion's included), so ~260 of its ~1,000 page
//!   faults were the code's. `hot-functions.txt` (written by `scripts/hot-functions.py`) lists
//!   them, and LLD, rustc's linker on x86-64 Linux from Rust 1.90 on, places them first, in
//!   that order: ~180 fewer faults, a `pk_l5` lookup 5-13% faster as a whole process (2-core
//!   VM). Only when that linker is in use (no linker or link flags set): another linker would
//!   not know the flag. Names the linker does not find (the list went stale with a compiler
//!   or dependency upgrade) are skipped.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if links_with_rust_lld() {
        let list = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
            .join("hot-functions.txt");
        println!("cargo:rerun-if-changed={}", list.display());
        if list.is_file() {
            println!(
                "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
                list.display()
            );
            println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        }
    }
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        if let Some(dir) = static_unwinder_dir() {
            // A GCC upgrade moves the archive: look again.
            println!(
                "cargo:rerun-if-changed={}",
                dir.join("libgcc_eh.a").display()
            );
            println!("cargo:rustc-link-search=native={}", dir.display());
            // Whole archive: the unwinder's symbols are defined before the standard
            // library's `-lgcc_s`, which `--as-needed` then leaves out.
            println!("cargo:rustc-link-lib=static:+whole-archive=gcc_eh");
        }
    }
}

/// Whether the binary is linked by rustc's own LLD: x86-64 Linux (glibc) from Rust 1.90 on,
/// with no linker configured (`RUSTC_LINKER`) and no flag naming one or the link
/// (`-C linker=…`, `-C link-arg=…`, `-C link-self-contained`, …) in the rustflags.
fn links_with_rust_lld() -> bool {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let target = std::env::var("TARGET").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if target != "x86_64-unknown-linux-gnu"
        || std::env::var_os("RUSTC_LINKER").is_some()
        || flags.contains("link")
    {
        return false;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return false;
    };
    // `rustc 1.95.0 (…)`
    let version = String::from_utf8_lossy(&out.stdout).to_string();
    let mut numbers = version
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split('.')
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let (major, minor) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}

/// The directory of the C compiler's `libgcc_eh.a`, when it has one; `None` when cross-
/// compiling (the host's compiler would name the host's archive).
fn static_unwinder_dir() -> Option<PathBuf> {
    if std::env::var("HOST").ok() != std::env::var("TARGET").ok() {
        return None;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // An unknown file is printed back as its bare name.
    if !out.status.success() || !path.is_absolute() || !path.is_file() {
        return None;
    }
    path.parent().map(PathBuf::from)
}
