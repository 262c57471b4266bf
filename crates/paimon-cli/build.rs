//! Links the `paimon` binary as a position-dependent executable on Linux.
//!
//! A position-independent executable is relocated by the dynamic loader at every start: here
//! ~80,000 relative relocations written into ~1.7 MiB of read-only-after-relocation data, each
//! page of it copied on first write. For a tool whose common use is one short command (a point
//! lookup reads one row in milliseconds), that start-up is a measurable share of the run. A
//! position-dependent executable has no such relocations; its data pages are mapped from the
//! file as they are read (measured on a 2-core VM, release build: `paimon --version` 4.3 →
//! 2.3 ms and 660 → 235 page faults; a point lookup of the 3M-row benchmark table ~3 ms
//! less, of ~25 ms). Shared
//! libraries, heap and stack are still placed at random; only the executable's own image is
//! at a fixed address, as with Go's default Linux builds.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
