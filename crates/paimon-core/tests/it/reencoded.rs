//! Our metadata encoders against real tables: every manifest, manifest list and snapshot of the
//! pypaimon fixture tables is decoded and written again by paimon-rs (sizes recorded by the
//! parents updated), and the rewritten tables read exactly as the originals. The copies stay
//! in `target/reencoded` with a `tables.json`, and `scripts/test.sh` then reads them with
//! pypaimon (`scripts/check-reencoded.py`), so a Java-compatible reader checks our bytes too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use paimon_core::spec::manifest::{
    decode_manifest, decode_manifest_list, encode_manifest, encode_manifest_list,
};
use paimon_core::spec::snapshot::Snapshot;
use serde_json::json;

use crate::common::{copy_dir, read_rows, Query};
use crate::pypaimon::pypaimon_fixtures;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
        Err(_) => vec![],
    };
    v.sort();
    v
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_str().unwrap().to_string()
}

/// Rewrites the table's manifests, then its manifest lists, then its snapshots with our
/// encoders; returns how many files were rewritten.
fn reencode_table(table: &Path) -> usize {
    let manifest_dir = table.join("manifest");
    let mut sizes: HashMap<String, i64> = HashMap::new();
    let mut n = 0;
    let all = files(&manifest_dir);
    let is_avro = |p: &Path| std::fs::read(p).unwrap().starts_with(b"Obj\x01");
    for p in all.iter().filter(|p| name(p).starts_with("manifest-")) {
        if name(p).starts_with("manifest-list-") || !is_avro(p) {
            continue;
        }
        let entries = decode_manifest(&std::fs::read(p).unwrap(), &name(p)).unwrap();
        let bytes = encode_manifest(&entries).unwrap();
        sizes.insert(name(p), bytes.len() as i64);
        std::fs::write(p, bytes).unwrap();
        n += 1;
    }
    for p in all.iter().filter(|p| name(p).starts_with("manifest-list-")) {
        let mut metas = decode_manifest_list(&std::fs::read(p).unwrap(), &name(p)).unwrap();
        for m in &mut metas {
            m.file_size = sizes[&m.file_name];
        }
        let bytes = encode_manifest_list(&metas).unwrap();
        sizes.insert(name(p), bytes.len() as i64);
        std::fs::write(p, bytes).unwrap();
        n += 1;
    }
    for p in files(&table.join("snapshot")) {
        if !name(&p).starts_with("snapshot-") {
            continue;
        }
        let mut s = Snapshot::from_json_bytes(&std::fs::read(&p).unwrap()).unwrap();
        s.base_manifest_list_size = Some(sizes[&s.base_manifest_list]);
        s.delta_manifest_list_size = Some(sizes[&s.delta_manifest_list]);
        std::fs::write(&p, s.to_json().unwrap()).unwrap();
        n += 1;
    }
    n
}

#[tokio::test]
async fn reencoded_pypaimon_tables_read_as_the_originals() {
    let Some(root) = pypaimon_fixtures() else {
        return;
    };
    let db = root.join("warehouse/fixtures.db");
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/reencoded");
    let _ = std::fs::remove_dir_all(&out);
    let mut tables = Vec::new();
    for original in files(&db) {
        let table = name(&original);
        let copy = out.join("warehouse/fixtures.db").join(&table);
        copy_dir(&original, &copy);
        assert!(reencode_table(&copy) > 2, "{table}: nothing rewritten");
        let q = || Query::default();
        let want = read_rows(original.to_str().unwrap(), q()).await;
        let got = read_rows(copy.to_str().unwrap(), q()).await;
        assert!(!want.is_empty(), "{table}");
        assert_eq!(got, want, "{table}");
        tables.push(json!({
            "table": format!("fixtures.{table}"),
            "original": root.join("warehouse").to_str().unwrap(),
            "rewritten": out.join("warehouse").to_str().unwrap(),
        }));
    }
    assert!(tables.len() >= 10, "{} tables", tables.len());
    let index = json!({ "tables": tables });
    std::fs::write(out.join("tables.json"), index.to_string()).unwrap();
}
