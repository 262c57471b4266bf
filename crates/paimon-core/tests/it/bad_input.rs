//! Bad input gives a typed error naming the file, never a panic or a wrong answer.

use std::path::Path;

use paimon_core::{Error, ErrorKind};

use crate::common::{java_table_copy, open_java, try_count_rows};

/// A private copy of `parquet/append_09`.
fn scratch() -> (tempfile::TempDir, std::path::PathBuf) {
    java_table_copy("parquet/append_09")
}

async fn read_all(path: &Path) -> Result<usize, Error> {
    try_count_rows(path.to_str().unwrap()).await
}

fn first_file(dir: &Path, prefix: &str) -> std::path::PathBuf {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .collect();
    v.sort();
    v.remove(0)
}

#[tokio::test]
async fn truncated_snapshot_names_the_file() {
    let (_d, t) = scratch();
    let s = t.join("snapshot/snapshot-5");
    let bytes = std::fs::read(&s).unwrap();
    std::fs::write(&s, &bytes[..bytes.len() / 2]).unwrap();
    let e = read_all(&t).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid);
    assert!(e.to_string().contains("snapshot-5"), "{e}");
}

#[tokio::test]
async fn corrupt_schema_and_unknown_type_are_errors() {
    let (_d, t) = scratch();
    let s = t.join("schema/schema-0");
    let text = std::fs::read_to_string(&s).unwrap();
    std::fs::write(&s, text.replace("\"DOUBLE\"", "\"HYPERDOUBLE\"")).unwrap();
    let e = read_all(&t).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid);
    assert!(
        e.to_string().contains("HYPERDOUBLE") && e.to_string().contains("schema-0"),
        "{e}"
    );
    std::fs::write(&s, &text[..10]).unwrap();
    let e = read_all(&t).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid);
}

#[tokio::test]
async fn truncated_manifest_names_the_file() {
    let (_d, t) = scratch();
    for dir_entry in std::fs::read_dir(t.join("manifest")).unwrap() {
        let p = dir_entry.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() * 2 / 3]).unwrap();
    }
    let e = read_all(&t).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid, "{e}");
    assert!(e.to_string().contains("manifest"), "{e}");
}

#[tokio::test]
async fn missing_and_corrupt_data_files() {
    let (_d, t) = scratch();
    let bucket = t.join("f1=20/bucket-0");
    let f = first_file(&bucket, "data-");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[bytes.len() / 2..]).unwrap();
    let e = read_all(&t).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid, "{e}");
    assert!(
        e.to_string()
            .contains(f.file_name().unwrap().to_str().unwrap()),
        "{e}"
    );
    std::fs::remove_file(&f).unwrap();
    let e = read_all(&t).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(
        e.to_string()
            .contains(f.file_name().unwrap().to_str().unwrap()),
        "{e}"
    );
}

#[tokio::test]
async fn unknown_option_override_is_rejected() {
    let table = open_java("parquet/append_09").await;
    let e = table
        .scan()
        .with_option("scan.snapshot-idd", "1")
        .build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("scan.snapshot-idd"), "{e}");
    // A known option works like Java's dynamic options.
    let ctx = table
        .scan()
        .with_option("scan.snapshot-id", "1")
        .build()
        .unwrap();
    let plan = ctx.plan().await.unwrap();
    assert_eq!(plan.snapshot_id, Some(1));
}

fn first_data_file(dir: &Path) -> Option<std::path::PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    entries.into_iter().find_map(|p| {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if p.is_dir() && !["manifest", "snapshot", "schema", "index"].contains(&name.as_str()) {
            first_data_file(&p)
        } else {
            (p.is_file() && name.starts_with("data-")).then_some(p)
        }
    })
}

/// ORC and Avro data files are read by range with the size from the manifest: a file shorter
/// than that, or with a garbled tail, is invalid data naming it.
#[tokio::test]
async fn truncated_and_garbled_orc_and_avro_data_files() {
    for rel in [
        "orc/append_09",
        "avro/append_with_multiple_ts_precision_and_timezone",
    ] {
        let (_dir, t) = java_table_copy(rel);
        assert!(read_all(&t).await.unwrap() > 0, "{rel}");
        let f = first_data_file(&t).unwrap();
        let file_name = f.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&f).unwrap();
        std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
        let e = read_all(&t).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{rel}: {e}");
        assert!(e.to_string().contains(&file_name), "{e}");
        let mut garbled = bytes.clone();
        let n = garbled.len();
        garbled[n - 40..].iter_mut().for_each(|b| *b = !*b);
        garbled[4..40].iter_mut().for_each(|b| *b = !*b);
        std::fs::write(&f, &garbled).unwrap();
        let e = read_all(&t).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid, "{rel}: {e}");
        assert!(e.to_string().contains(&file_name), "{e}");
    }
}
