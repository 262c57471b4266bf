//! Snapshots, tags and the `LATEST`/`EARLIEST` hint files.
//!
//! Mirrors Java `org.apache.paimon.Snapshot` (JSON, `version` 3, unknown keys ignored),
//! `org.apache.paimon.tag.Tag` (a snapshot plus `tagCreateTime`/`tagTimeRetained`) and
//! `org.apache.paimon.utils.HintFileUtils` (Paimon 2.0). Optional keys may be absent or JSON
//! `null`; both read as `None`. Legacy `logOffsets` is ignored.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{NaiveDate, NaiveDateTime};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Error, Result};

/// What kind of commit produced a snapshot (Java `Snapshot.CommitKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommitKind {
    /// New data appended.
    Append,
    /// Files compacted.
    Compact,
    /// Partitions or the table overwritten.
    Overwrite,
    /// Statistics collected.
    Analyze,
    /// A kind this reader does not know (newer writer).
    #[serde(other)]
    Unknown,
}

/// One snapshot of a table (`snapshot/snapshot-<id>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Format version (3).
    pub version: i32,
    /// Snapshot UUID (written by Java 2.0; serialised second, as Java 2.0 orders its keys).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Snapshot id.
    pub id: i64,
    /// Schema of this commit.
    pub schema_id: i64,
    /// Manifest list of all live files as of the previous snapshot.
    pub base_manifest_list: String,
    /// Size of the base manifest list in bytes (absent ≤ 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_manifest_list_size: Option<i64>,
    /// Manifest list of this commit's changes.
    pub delta_manifest_list: String,
    /// Size of the delta manifest list in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_manifest_list_size: Option<i64>,
    /// Manifest list of changelog files of this commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list: Option<String>,
    /// Size of the changelog manifest list in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list_size: Option<i64>,
    /// Index manifest holding the complete index state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_manifest: Option<String>,
    /// Committing user.
    pub commit_user: String,
    /// Commit identifier (`i64::MAX` for compactions and batch jobs).
    pub commit_identifier: i64,
    /// Commit kind.
    pub commit_kind: CommitKind,
    /// Commit time, epoch millis.
    pub time_millis: i64,
    /// Unmerged row count of all live files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_record_count: Option<i64>,
    /// Net change of `total_record_count` in this commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_record_count: Option<i64>,
    /// Changelog rows of this commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_record_count: Option<i64>,
    /// Watermark (old writers used `i64::MIN` for none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermark: Option<i64>,
    /// Statistics file name in `statistics/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<String>,
    /// Free-form properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<BTreeMap<String, String>>,
    /// Row tracking: next unassigned `_ROW_ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_row_id: Option<i64>,
    /// SQL-level operation (`WRITE`, `OVERWRITE`, `DELETE`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

impl Snapshot {
    /// Parses snapshot JSON.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Snapshot> {
        serde_json::from_slice(bytes)
            .map_err(|e| Error::data_invalid(format!("invalid snapshot JSON: {e}")).with_source(e))
    }

    /// The snapshot file's JSON as Java 2.0 writes it (`Snapshot#toJson`: Jackson pretty
    /// printing, keys in Java's order, absent values omitted). A snapshot of an unknown commit
    /// kind cannot be written.
    pub fn to_json(&self) -> Result<String> {
        if self.commit_kind == CommitKind::Unknown {
            return Err(Error::invalid_argument(
                "cannot write a snapshot of an unknown commit kind",
            ));
        }
        let value = serde_json::to_value(self)
            .map_err(|e| Error::internal(format!("snapshot to JSON: {e}")))?;
        Ok(crate::spec::json_pretty::to_jackson_pretty(&value))
    }
}

/// A tag (`tag/tag-<name>`): a snapshot plus tag metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    /// The tagged snapshot.
    #[serde(flatten)]
    pub snapshot: Snapshot,
    /// Creation time, local wall clock (Jackson `LocalDateTime`: `[y,M,d,h,m(,s(,nanos))]`).
    #[serde(
        default,
        deserialize_with = "de_local_date_time",
        serialize_with = "ser_local_date_time",
        skip_serializing_if = "Option::is_none"
    )]
    pub tag_create_time: Option<NaiveDateTime>,
    /// Retention (Jackson `Duration`: decimal seconds).
    #[serde(
        default,
        deserialize_with = "de_duration",
        serialize_with = "ser_duration",
        skip_serializing_if = "Option::is_none"
    )]
    pub tag_time_retained: Option<Duration>,
}

impl Tag {
    /// Parses tag JSON.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Tag> {
        serde_json::from_slice(bytes)
            .map_err(|e| Error::data_invalid(format!("invalid tag JSON: {e}")).with_source(e))
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum JsonTime {
    Parts(Vec<i64>),
    Text(String),
}

fn de_local_date_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NaiveDateTime>, D::Error> {
    use serde::de::Error as _;
    let Some(raw) = Option::<JsonTime>::deserialize(d)? else {
        return Ok(None);
    };
    let parsed = match raw {
        JsonTime::Text(s) => s.parse::<NaiveDateTime>().ok(),
        JsonTime::Parts(p) => local_date_time_from_parts(&p),
    };
    parsed
        .map(Some)
        .ok_or_else(|| D::Error::custom("tagCreateTime is not a LocalDateTime"))
}

/// `[year, month, day, hour, minute, second?, nanos?]` as Jackson writes `LocalDateTime`.
fn local_date_time_from_parts(p: &[i64]) -> Option<NaiveDateTime> {
    if !(5..=7).contains(&p.len()) {
        return None;
    }
    let part = |i: usize| u32::try_from(p.get(i).copied().unwrap_or(0)).ok();
    let year = i32::try_from(*p.first()?).ok()?;
    NaiveDate::from_ymd_opt(year, part(1)?, part(2)?)?.and_hms_nano_opt(
        part(3)?,
        part(4)?,
        part(5)?,
        part(6)?,
    )
}

fn ser_local_date_time<S: Serializer>(t: &Option<NaiveDateTime>, s: S) -> Result<S::Ok, S::Error> {
    use chrono::{Datelike, Timelike};
    match t {
        None => s.serialize_none(),
        Some(t) => [
            i64::from(t.year()),
            i64::from(t.month()),
            i64::from(t.day()),
            i64::from(t.hour()),
            i64::from(t.minute()),
            i64::from(t.second()),
            i64::from(t.nanosecond()),
        ]
        .serialize(s),
    }
}

fn de_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    use serde::de::Error as _;
    let Some(secs) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    let secs = secs
        .as_f64()
        .ok_or_else(|| D::Error::custom("tagTimeRetained is not a number"))?;
    Duration::try_from_secs_f64(secs)
        .map(Some)
        .map_err(|e| D::Error::custom(format!("tagTimeRetained: {e}")))
}

fn ser_duration<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        None => s.serialize_none(),
        Some(d) => s.serialize_f64(d.as_secs_f64()),
    }
}

/// Parses a `LATEST`/`EARLIEST` hint: a decimal snapshot id, surrounding whitespace tolerated.
pub fn parse_hint(bytes: &[u8]) -> Result<i64> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Error::data_invalid("snapshot hint is not UTF-8"))?
        .trim();
    text.parse::<i64>().map_err(|_| {
        Error::data_invalid("snapshot hint is not a decimal id")
            .with_context("found", text.chars().take(40).collect::<String>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::java_fixtures;

    fn files_named(prefix: &str, dir_name: &str) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![java_fixtures()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.parent().unwrap().file_name().unwrap() == dir_name
                    && p.file_name().unwrap().to_str().unwrap().starts_with(prefix)
                {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn every_fixture_snapshot_parses_and_id_matches_name() {
        let files = files_named("snapshot-", "snapshot");
        // 98 before the pk-btree and file-index tables joined the fixtures (+36).
        assert_eq!(files.len(), 134);
        for f in files {
            let s = Snapshot::from_json_bytes(&std::fs::read(&f).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let name = f.file_name().unwrap().to_str().unwrap();
            assert_eq!(name, format!("snapshot-{}", s.id));
            assert_eq!(s.version, 3);
            assert_ne!(s.commit_kind, CommitKind::Unknown);
            assert!(s.base_manifest_list.starts_with("manifest-list-"));
        }
    }

    /// Java 2.0's snapshot files (those with a `uuid`) are written back byte for byte; older
    /// ones (1.x keys such as `logOffsets`) round-trip to an equal snapshot.
    #[test]
    fn snapshots_encode_as_java_writes_them() {
        let (mut golden, mut other) = (0, 0);
        for f in files_named("snapshot-", "snapshot") {
            let bytes = std::fs::read(&f).unwrap();
            let s = Snapshot::from_json_bytes(&bytes).unwrap();
            let text = s.to_json().unwrap();
            if s.uuid.is_some() {
                assert_eq!(text.as_bytes(), &bytes[..], "{}", f.display());
                golden += 1;
            } else {
                other += 1;
            }
            assert_eq!(Snapshot::from_json_bytes(text.as_bytes()).unwrap(), s);
        }
        assert!(golden >= 15 && other > 50, "{golden} golden, {other} other");
        let mut unknown = Snapshot::from_json_bytes(MINIMAL.as_bytes()).unwrap();
        unknown.commit_kind = CommitKind::Unknown;
        assert!(unknown.to_json().is_err());
    }

    #[test]
    fn every_fixture_schema_parses() {
        let files = files_named("schema-", "schema");
        assert!(files.len() >= 30, "{}", files.len());
        for f in files {
            let s = crate::spec::TableSchema::from_json_bytes(&std::fs::read(&f).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let name = f.file_name().unwrap().to_str().unwrap();
            assert_eq!(name, format!("schema-{}", s.id));
        }
    }

    #[test]
    fn every_fixture_hint_parses_to_an_existing_snapshot() {
        let mut n = 0;
        for name in ["LATEST", "EARLIEST"] {
            for f in files_named(name, "snapshot") {
                let id = parse_hint(&std::fs::read(&f).unwrap()).unwrap();
                assert!(f.with_file_name(format!("snapshot-{id}")).exists());
                n += 1;
            }
        }
        assert!(n >= 40, "{n}");
    }

    #[test]
    fn append_09_snapshot_5_values() {
        let p = java_fixtures().join("parquet/append_09.db/append_09/snapshot/snapshot-5");
        let s = Snapshot::from_json_bytes(&std::fs::read(p).unwrap()).unwrap();
        assert_eq!(s.id, 5);
        assert_eq!(s.commit_kind, CommitKind::Compact);
        assert_eq!(s.commit_identifier, i64::MAX);
        assert_eq!(s.time_millis, 1755758264539);
        assert_eq!(s.total_record_count, Some(11));
        assert_eq!(s.delta_record_count, Some(0));
        assert_eq!(s.changelog_manifest_list, None);
        assert_eq!(s.index_manifest, None);
        assert_eq!(
            s.delta_manifest_list,
            "manifest-list-739ea106-ac05-4953-a13f-c7260482dbf1-3"
        );
    }

    const MINIMAL: &str = r#"{"version":3,"id":7,"schemaId":1,"baseManifestList":"b",
        "deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"ANALYZE",
        "timeMillis":5,"watermark":null,"properties":{"k":"v"},"someFutureKey":[1,2]}"#;

    #[test]
    fn nulls_unknown_keys_and_kinds() {
        let s = Snapshot::from_json_bytes(MINIMAL.as_bytes()).unwrap();
        assert_eq!(s.commit_kind, CommitKind::Analyze);
        assert_eq!(s.watermark, None);
        assert_eq!(s.total_record_count, None);
        assert_eq!(s.properties.unwrap()["k"], "v");
        let odd = MINIMAL.replace("ANALYZE", "REWRITE");
        let s = Snapshot::from_json_bytes(odd.as_bytes()).unwrap();
        assert_eq!(s.commit_kind, CommitKind::Unknown);
        let no_id = MINIMAL.replace(r#""id":7,"#, "");
        let e = Snapshot::from_json_bytes(no_id.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("`id`"), "{e}");
        assert!(Snapshot::from_json_bytes(b"{").is_err());
    }

    #[test]
    fn tag_with_jackson_time_and_duration() {
        let json = MINIMAL.replace(
            r#""version":3,"#,
            r#""version":3,"tagCreateTime":[2024,3,9,14,5,7,120000000],"tagTimeRetained":86400.500000000,"#,
        );
        let t = Tag::from_json_bytes(json.as_bytes()).unwrap();
        assert_eq!(t.snapshot.id, 7);
        let want = NaiveDate::from_ymd_opt(2024, 3, 9)
            .unwrap()
            .and_hms_nano_opt(14, 5, 7, 120_000_000)
            .unwrap();
        assert_eq!(t.tag_create_time, Some(want));
        assert_eq!(t.tag_time_retained, Some(Duration::from_millis(86_400_500)));
        let short = json.replace("[2024,3,9,14,5,7,120000000]", "[2024,3,9,14,5]");
        let t = Tag::from_json_bytes(short.as_bytes()).unwrap();
        assert_eq!(
            t.tag_create_time.unwrap().to_string(),
            "2024-03-09 14:05:00"
        );
        let back: Tag = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(back, t);
        let plain = Tag::from_json_bytes(MINIMAL.as_bytes()).unwrap();
        assert_eq!(
            (plain.tag_create_time, plain.tag_time_retained),
            (None, None)
        );
        let bad = json.replace("[2024,3,9,14,5,7,120000000]", "[2024,13,9,14,5]");
        assert!(Tag::from_json_bytes(bad.as_bytes()).is_err());
    }

    #[test]
    fn hints() {
        assert_eq!(parse_hint(b"5").unwrap(), 5);
        assert_eq!(parse_hint(b" 12\n").unwrap(), 12);
        assert!(parse_hint(b"").is_err());
        assert!(parse_hint(b"x1").is_err());
        assert!(parse_hint(&[0xff]).is_err());
    }
}
