//! Fixture tests of the manifest decoders against Java-written tables (0.9 to 1.x writers).

use std::path::{Path, PathBuf};

use super::*;
use crate::spec::snapshot::Snapshot;
use crate::test_util::java_fixtures;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every file inside a directory named `manifest`.
fn manifest_files() -> Vec<PathBuf> {
    let mut all = Vec::new();
    walk(&java_fixtures(), &mut all);
    all.retain(|p| p.parent().unwrap().file_name().unwrap() == "manifest");
    all.sort();
    all
}

enum Kind {
    List,
    Manifest,
    Index,
}

fn kind_of(p: &Path) -> Kind {
    let name = p.file_name().unwrap().to_str().unwrap();
    if name.starts_with("index-manifest") {
        Kind::Index
    } else if name.contains("manifest-list") || name.contains("manifest_list") {
        Kind::List
    } else {
        Kind::Manifest
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

fn name(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn dump() {
    for p in manifest_files() {
        let b = read(&p);
        let r = match kind_of(&p) {
            Kind::List => decode_manifest_list(&b, &name(&p)).map(|v| format!("{v:?}")),
            Kind::Manifest => decode_manifest(&b, &name(&p)).map(|v| format!("{v:?}")),
            Kind::Index => decode_index_manifest(&b, &name(&p)).map(|v| format!("{v:?}")),
        };
        match r {
            Ok(s) => println!("OK {}: {}", name(&p), &s[..s.len().min(600)]),
            Err(e) => println!("ERR {e}"),
        }
    }
}
