//! Statistics of a data file or manifest as seen by the current schema, for pruning.
//!
//! Mirrors Java `SimpleStatsEvolution` (Paimon 2.0): stats columns are the fields of the file's
//! own schema, projected to `_WRITE_COLS` and then `_VALUE_STATS_COLS` when set; they are mapped
//! to the current schema by field id. A column added after the file was written is all null; a
//! column whose type changed has unknown bounds. Anything undecodable is unknown: pruning fails
//! open.

use crate::expr::StatsSource;
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{DataFileMeta, SimpleStats};
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::spec::Datum;

/// Values keyed by field id: a few fields per file, so a vector searched in order beats a
/// hash map (planning decodes the stats of every live file; no hashing, one allocation).
#[derive(Debug)]
struct ById<T>(Vec<(i32, T)>);

impl<T> Default for ById<T> {
    fn default() -> Self {
        ById(Vec::new())
    }
}

impl<T> ById<T> {
    fn get(&self, id: &i32) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == id).map(|(_, v)| v)
    }

    /// Adds `value` for `id`; the decoders add each id at most once.
    fn insert(&mut self, id: i32, value: T) {
        self.0.push((id, value));
    }
}

/// Decoded stats keyed by field id of the schema they were decoded for ([`value_stats`]).
#[derive(Debug, Default)]
pub struct DecodedStats {
    row_count: Option<i64>,
    min: ById<Datum>,
    max: ById<Datum>,
    nulls: ById<i64>,
    /// Field ids known to be entirely null (absent from the file).
    all_null: Vec<i32>,
}

impl StatsSource for DecodedStats {
    fn row_count(&self) -> Option<i64> {
        self.row_count
    }
    fn min(&self, field_id: i32) -> Option<Datum> {
        self.min.get(&field_id).cloned()
    }
    fn max(&self, field_id: i32) -> Option<Datum> {
        self.max.get(&field_id).cloned()
    }
    fn null_count(&self, field_id: i32) -> Option<i64> {
        if self.all_null.contains(&field_id) {
            return self.row_count;
        }
        self.nulls.get(&field_id).copied()
    }
}

impl DecodedStats {
    /// The file's row count (physical rows, retracts included).
    pub fn rows(&self) -> Option<i64> {
        self.row_count
    }

    /// A lower bound of the non-null values of field `field_id` (`None`: unknown, e.g. a
    /// truncated string bound is still a bound; a column whose type changed is unknown).
    pub fn min_value(&self, field_id: i32) -> Option<&Datum> {
        self.min.get(&field_id)
    }

    /// An upper bound of the non-null values of field `field_id` (`None`: unknown).
    pub fn max_value(&self, field_id: i32) -> Option<&Datum> {
        self.max.get(&field_id)
    }

    /// The number of nulls of field `field_id` (a column added after the file was written:
    /// every row), `None` when unknown.
    pub fn nulls(&self, field_id: i32) -> Option<i64> {
        StatsSource::null_count(self, field_id)
    }
}

/// The value stats of data file `file`, written with the schema fields `file_fields`, seen
/// through the fields `current` by field id (Java `SimpleStatsEvolution`: `_WRITE_COLS` and
/// `_VALUE_STATS_COLS` honoured; undecodable stats are unknown). For primary-key tables these
/// are the stats of the file's rows before merging.
pub fn value_stats(
    file: &DataFileMeta,
    file_fields: &[DataField],
    current: &[DataField],
) -> DecodedStats {
    for_data_file(file, file_fields, current)
}

fn decode_row(bytes: &[u8], types: &[DataType]) -> Option<Vec<Option<Datum>>> {
    let row = BinaryRow::from_serialized(bytes).ok()?;
    if row.arity() != types.len() {
        return None;
    }
    row.decode(types).ok()
}

/// Decodes `stats` whose columns are `stats_fields`, mapping them to `current` by id.
pub(crate) fn decode_stats(
    stats: &SimpleStats,
    stats_fields: &[DataField],
    current: &[DataField],
    row_count: Option<i64>,
) -> DecodedStats {
    let mut out = DecodedStats {
        row_count,
        ..DecodedStats::default()
    };
    let types: Vec<DataType> = stats_fields.iter().map(|f| f.data_type.clone()).collect();
    let mins = decode_row(&stats.min_values, &types);
    let maxs = decode_row(&stats.max_values, &types);
    for (i, sf) in stats_fields.iter().enumerate() {
        let Some(cur) = current.iter().find(|c| c.id == sf.id) else {
            continue;
        };
        // CHAR bounds are unknown: ORC files store CHAR(n) values padded to n characters and
        // Java's ORC stats report them padded, while the values read (trimmed) and a
        // predicate's literal are not; comparing them could skip a matching file.
        let same_type = cur.data_type.equals_ignore_nullable(&sf.data_type)
            && !matches!(cur.data_type.kind, TypeKind::Char(_));
        if same_type {
            if let Some(Some(Some(v))) = mins.as_ref().map(|m| m.get(i).cloned()) {
                out.min.insert(sf.id, v);
            }
            if let Some(Some(Some(v))) = maxs.as_ref().map(|m| m.get(i).cloned()) {
                out.max.insert(sf.id, v);
            }
        }
        if let Some(Some(n)) = stats.null_counts.as_ref().and_then(|n| n.get(i).copied()) {
            out.nulls.insert(sf.id, n);
        }
    }
    out
}

/// Value stats of a data file written with `file_fields`, seen through `current`.
pub(crate) fn for_data_file(
    file: &DataFileMeta,
    file_fields: &[DataField],
    current: &[DataField],
) -> DecodedStats {
    let mut base: Vec<DataField> = match &file.write_cols {
        Some(cols) => file_fields
            .iter()
            .filter(|f| cols.contains(&f.name))
            .cloned()
            .collect(),
        None => file_fields.to_vec(),
    };
    if let Some(cols) = &file.value_stats_cols {
        if cols.is_empty() {
            base.clear();
        } else {
            base = cols
                .iter()
                .filter_map(|c| base.iter().find(|f| &f.name == c).cloned())
                .collect();
            if base.len() != cols.len() {
                // Stats name a column the file schema lacks: trust nothing.
                return DecodedStats {
                    row_count: Some(file.row_count),
                    ..DecodedStats::default()
                };
            }
        }
    }
    let mut stats = decode_stats(&file.value_stats, &base, current, Some(file.row_count));
    if file.write_cols.is_none() {
        stats.all_null = current
            .iter()
            .filter(|c| !file_fields.iter().any(|f| f.id == c.id))
            .map(|c| c.id)
            .collect();
    }
    stats
}

/// The fields of `_KEY_STATS` of files written with `file_schema`: its trimmed primary keys,
/// in key order (`None` when the schema names a key it lacks).
pub(crate) fn key_fields(file_schema: &crate::spec::schema::TableSchema) -> Option<Vec<DataField>> {
    file_schema
        .fields_of(&file_schema.trimmed_primary_keys())
        .ok()
}

/// Key stats of a primary-key data file whose schema's [`key_fields`] are `keys`, seen through
/// `current` by field id. Unknown when the keys are (pruning then fails open).
pub(crate) fn for_key_stats(
    file: &DataFileMeta,
    keys: Option<&[DataField]>,
    current: &[DataField],
) -> DecodedStats {
    match keys {
        Some(keys) => decode_stats(&file.key_stats, keys, current, Some(file.row_count)),
        None => DecodedStats {
            row_count: Some(file.row_count),
            ..DecodedStats::default()
        },
    }
}
