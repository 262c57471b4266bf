//! Linker arguments of a Python extension module (on macOS: resolve the C API at import time),
//! so that a plain `cargo build` of the crate, as scripts/test-python.sh does, gives an
//! importable library; maturin passes the same arguments itself.

fn main() {
    pyo3_build_config::add_extension_module_link_args();
}
