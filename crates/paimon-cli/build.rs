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
//!   them, and LLD (rustc's linker on x86-64 Linux from Rust 1.90 on, in rustup's builds)
//!   places them first: ~180 fewer faults, a `pk_l5` lookup 5-13% faster as a whole process
//!   (2-core VM). Only when a trial link of an empty program with the arguments succeeds
//!   (GNU ld does not know them); `PAIMON_NO_HOT_FUNCTIONS` leaves them out. Names the linker
//!   does not find are skipped: the names carry rustc's hashes, which change with the compiler
//!   and with a named crate's dependencies, so the list must be rewritten after such changes
//!   (the README says how).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    for arg in hot_function_args() {
        println!("cargo:rustc-link-arg-bins={arg}");
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

/// The link arguments that place the functions of `hot-functions.txt` first, when the linker
/// takes them (LLD); none when a trial link of an empty program with them fails (GNU ld, or
/// another linker configured), without the list, or with `PAIMON_NO_HOT_FUNCTIONS` set.
fn hot_function_args() -> Vec<String> {
    println!("cargo:rerun-if-env-changed=PAIMON_NO_HOT_FUNCTIONS");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let list = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("hot-functions.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    if std::env::var_os("PAIMON_NO_HOT_FUNCTIONS").is_some() || !list.is_file() {
        return Vec::new();
    }
    // `-Xlinker`: the path is passed whole (`-Wl,` would split it at commas).
    let args = vec![
        "-Xlinker".to_string(),
        format!("--symbol-ordering-file={}", list.display()),
        "-Xlinker".to_string(),
        "--no-warn-symbol-ordering".to_string(),
    ];
    if links_with(&args) {
        args
    } else {
        Vec::new()
    }
}

/// Whether an empty program links for the target with `args` added, as this crate's binary
/// is linked: the same compiler, target, rustflags and configured linker.
fn links_with(args: &[String]) -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let mut cmd = Command::new(rustc);
    cmd.arg("--crate-name=link_probe")
        .arg("--edition=2021")
        .arg("--target")
        .arg(std::env::var("TARGET").unwrap_or_default())
        .arg("-o")
        .arg(out.join("link_probe"))
        .arg(&source);
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        cmd.arg(format!("-Clinker={linker}"));
    }
    cmd.args(args.iter().map(|a| format!("-Clink-arg={a}")));
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
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
