use super::*;
use crate::test_util::hex;
use crate::ErrorKind;

/// paimon-cpp `primary_key_index_source_meta_test.cpp` `SerializeMatchesGoldenBytes`.
fn golden() -> Vec<u8> {
    let mut b = hex("00000001 00000003 00000002 0009");
    b.extend_from_slice(b"a.parquet");
    b.extend(hex("0000000000000064 0009"));
    b.extend_from_slice(b"b.parquet");
    b.extend(hex("00000000000000C8"));
    b
}

fn two_files() -> SourceMeta {
    SourceMeta::new(
        3,
        vec![
            SourceFile::new("a.parquet", 100),
            SourceFile::new("b.parquet", 200),
        ],
    )
    .unwrap()
}

fn rejects(bytes: &[u8], needle: &str) {
    let e = SourceMeta::decode(bytes, "index-x").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DataInvalid, "{e}");
    let text = e.to_string();
    assert!(text.contains(needle), "{text} lacks {needle}");
    assert!(text.contains("(file: index-x)"), "{text}");
}

#[test]
fn golden_bytes_both_ways() {
    let g = golden();
    assert_eq!(g.len(), 50);
    assert_eq!(two_files().encode().unwrap(), g);
    let m = SourceMeta::decode(&g, "f").unwrap();
    assert_eq!(m, two_files());
    assert_eq!(m.data_level(), 3);
    assert_eq!(m.total_row_count(), Some(300));
}

#[test]
fn single_file_layout() {
    let m = SourceMeta::new(5, vec![SourceFile::new("a.parquet", 7)]).unwrap();
    let b = m.encode().unwrap();
    assert_eq!(b.len(), 31);
    assert_eq!(&b[0..4], &[0, 0, 0, 1]);
    assert_eq!(&b[4..8], &[0, 0, 0, 5]);
    assert_eq!(&b[8..12], &[0, 0, 0, 1]);
    assert_eq!(&b[12..14], &[0, 9]);
    assert_eq!(&b[14..23], b"a.parquet");
    assert_eq!(&b[23..31], &7i64.to_be_bytes());
}

#[test]
fn round_trip_non_ascii_names_and_large_counts() {
    let m = SourceMeta::new(
        1,
        vec![
            SourceFile::new("data-中文-文件.parquet", (1 << 40) + 7),
            SourceFile::new("nul\0and😀.orc", 0),
            SourceFile::new("", i64::MAX),
        ],
    )
    .unwrap();
    let b = m.encode().unwrap();
    // The emoji is a surrogate pair written as two 3-byte sequences; NUL is C0 80.
    let emoji = [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80];
    assert!(b.windows(6).any(|w| w == emoji));
    assert!(b.windows(2).any(|w| w == [0xC0, 0x80]));
    assert_eq!(SourceMeta::decode(&b, "f").unwrap(), m);
    assert_eq!(m.total_row_count(), None);
}

#[test]
fn rejects_bad_headers() {
    let mut b = golden();
    b[3] = 2;
    rejects(&b, "unsupported version");
    b[3] = 0;
    rejects(&b, "unsupported version");
    let mut b = golden();
    b[7] = 0;
    rejects(&b, "data level must be positive");
    b[4..8].copy_from_slice(&(-1i32).to_be_bytes());
    rejects(&b, "data level must be positive");
    let mut b = golden();
    b[8..12].copy_from_slice(&0i32.to_be_bytes());
    rejects(&b, "count must be positive");
    b[8..12].copy_from_slice(&(-1i32).to_be_bytes());
    rejects(&b, "count must be positive");
    // 1000 files cannot fit in 38 bytes: rejected before any allocation.
    b[8..12].copy_from_slice(&1000i32.to_be_bytes());
    rejects(&b, "exceeds the 3 the remaining 38 bytes");
    b[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    rejects(&b, "exceeds");
}

#[test]
fn rejects_bad_payloads() {
    let g = golden();
    let mut b = g.clone();
    b.push(0);
    rejects(&b, "trailing bytes");
    // Every proper prefix is rejected, never a panic.
    for n in 0..g.len() {
        let e = SourceMeta::decode(&g[..n], "f").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DataInvalid);
    }
    rejects(&g[..33], "truncated");
    rejects(&g[..45], "truncated");
    let mut b = g.clone();
    b[23..31].copy_from_slice(&(-5i64).to_be_bytes());
    rejects(&b, "negative row count of source file a.parquet");
    let mut b = g;
    b[14] = 0xFF;
    rejects(&b, "malformed modified UTF-8");
}

#[test]
fn constructor_rejects_invalid_arguments() {
    let files = vec![SourceFile::new("a", 1)];
    for level in [0, -1] {
        let e = SourceMeta::new(level, files.clone()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    }
    assert!(SourceMeta::new(1, vec![]).is_err());
    assert!(SourceMeta::new(1, vec![SourceFile::new("a", -1)]).is_err());
    let long = SourceMeta::new(1, vec![SourceFile::new("x".repeat(65_536), 1)]).unwrap();
    assert_eq!(
        long.encode().unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
}
