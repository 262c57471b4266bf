//! Column statistics of a data file as Java records them in `_VALUE_STATS` / `_KEY_STATS`
//! (Java `SimpleStatsCollector`, `TruncateSimpleColStatsCollector#convert`,
//! `SimpleStatsConverter#toBinary`, Paimon 2.0).
//!
//! Bounds are collected per batch with Arrow aggregate kernels (never per row) and folded
//! across the batches of a file; the mode of each column then applies as Java applies it to
//! the stats a Parquet/ORC footer reports:
//!
//! - `none`: no bounds, no null count;
//! - `counts`: the null count only;
//! - `full`: bounds and null count;
//! - `truncate(n)`: strings cut to `n` code points, the maximum's last code point incremented
//!   (both bounds dropped when no code point can be incremented); other types untouched.
//!
//! With `metadata.stats-dense-store` (default) columns whose mode is `none` and nested
//! columns are left out and `_VALUE_STATS_COLS` lists the kept names (null when all are kept).
//! Parquet and ORC files: BINARY/VARBINARY and TIMESTAMP(p > 6) columns get no bounds (Java reads
//! stats from the file footer, where parquet-mr keeps none for them). ORC files: CHAR(n) bounds
//! are padded with spaces to n characters, as ORC Java's `CharTreeWriter` stores the values and
//! its footer statistics then report them (Java `OrcSimpleStatsExtractor`).

use arrow_array::{Array, RecordBatch};

use super::datum::min_max;
use crate::spec::binary_row::BinaryRow;
use crate::spec::datum::Datum;
use crate::spec::manifest::SimpleStats;
use crate::spec::options::StatsMode;
use crate::spec::types::{DataField, DataType, TypeKind};
use crate::{Error, Result};

/// What one column of a file collects.
#[derive(Debug, Clone)]
struct Column {
    /// Position of the column in the written batches.
    position: usize,
    data_type: DataType,
    mode: StatsMode,
    /// False for types whose bounds Java does not keep (nested; Parquet binary and INT96).
    bounded: bool,
    /// CHAR(n) bounds padded to `n` characters (ORC files).
    pad_to: Option<u32>,
    min: Option<Datum>,
    max: Option<Datum>,
    nulls: i64,
}

/// Collects the stats of a set of columns over the batches of one file.
#[derive(Debug, Clone)]
pub(crate) struct StatsCollector {
    columns: Vec<Column>,
    /// `_VALUE_STATS_COLS`: `None` when every column is kept.
    stats_cols: Option<Vec<String>>,
}

/// Where Java takes a file's statistics from, which decides what they hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatsOrigin {
    /// The values written (Avro: Java collects them in memory).
    Values,
    /// The Parquet footer.
    Parquet,
    /// The ORC footer (as Parquet's, and CHAR values padded).
    Orc,
}

/// One column to collect: the field, its position in the written batches and its mode.
pub(crate) struct StatsColumn<'a> {
    /// The column.
    pub field: &'a DataField,
    /// Its position in the written batches.
    pub position: usize,
    /// Its statistics mode.
    pub mode: StatsMode,
}

fn is_nested(t: &DataType) -> bool {
    t.is_nested()
}

fn parquet_bounded(t: &DataType) -> bool {
    match t.kind {
        TypeKind::Binary(_) | TypeKind::VarBinary(_) | TypeKind::Blob => false,
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => p <= 6,
        _ => true,
    }
}

impl StatsCollector {
    /// A collector of `columns`; `dense` = `metadata.stats-dense-store`; `source` applies the
    /// limits of the footer Java reads.
    pub(crate) fn new(columns: &[StatsColumn<'_>], dense: bool, source: StatsOrigin) -> Self {
        let footer = source != StatsOrigin::Values;
        let mut kept = Vec::new();
        let mut names = Vec::new();
        for c in columns {
            let nested = is_nested(&c.field.data_type);
            if dense && (c.mode == StatsMode::None || nested) {
                continue;
            }
            names.push(c.field.name.clone());
            kept.push(Column {
                position: c.position,
                data_type: c.field.data_type.clone(),
                mode: if nested { StatsMode::None } else { c.mode },
                bounded: !nested && (!footer || parquet_bounded(&c.field.data_type)),
                pad_to: match c.field.data_type.kind {
                    TypeKind::Char(n) if source == StatsOrigin::Orc => Some(n),
                    _ => None,
                },
                min: None,
                max: None,
                nulls: 0,
            });
        }
        let stats_cols = (dense && kept.len() != columns.len()).then(|| names.clone());
        StatsCollector {
            columns: kept,
            stats_cols,
        }
    }

    /// `_VALUE_STATS_COLS` of the file.
    pub(crate) fn stats_cols(&self) -> Option<Vec<String>> {
        self.stats_cols.clone()
    }

    /// Folds one batch into the statistics.
    pub(crate) fn update(&mut self, batch: &RecordBatch) -> Result<()> {
        for c in &mut self.columns {
            let array = batch
                .columns()
                .get(c.position)
                .ok_or_else(|| Error::internal(format!("stats column {} missing", c.position)))?;
            c.nulls += array.null_count() as i64;
            if !c.bounded || matches!(c.mode, StatsMode::None | StatsMode::Counts) {
                continue;
            }
            if let Some((lo, hi)) = min_max(array.as_ref(), &c.data_type)? {
                let (lo, hi) = match c.pad_to {
                    Some(n) => (pad(lo, n), pad(hi, n)),
                    None => (lo, hi),
                };
                if c.min
                    .as_ref()
                    .is_none_or(|m| lo.compare(m).is_some_and(|o| o.is_lt()))
                {
                    c.min = Some(lo);
                }
                if c.max
                    .as_ref()
                    .is_none_or(|m| hi.compare(m).is_some_and(|o| o.is_gt()))
                {
                    c.max = Some(hi);
                }
            }
        }
        Ok(())
    }

    /// The stats row of the file (`SimpleStats`).
    pub(crate) fn result(&self) -> Result<SimpleStats> {
        let mut mins = Vec::with_capacity(self.columns.len());
        let mut maxs = Vec::with_capacity(self.columns.len());
        let mut nulls = Vec::with_capacity(self.columns.len());
        let mut types = Vec::with_capacity(self.columns.len());
        for c in &self.columns {
            let (lo, hi, n) = column_result(c);
            mins.push(lo);
            maxs.push(hi);
            nulls.push(n);
            types.push(c.data_type.clone());
        }
        Ok(SimpleStats {
            min_values: BinaryRow::encode(&mins, &types)?.serialize(),
            max_values: BinaryRow::encode(&maxs, &types)?.serialize(),
            null_counts: Some(nulls),
        })
    }
}

fn column_result(c: &Column) -> (Option<Datum>, Option<Datum>, Option<i64>) {
    match c.mode {
        StatsMode::None => (None, None, None),
        StatsMode::Counts => (None, None, Some(c.nulls)),
        StatsMode::Full => (c.min.clone(), c.max.clone(), Some(c.nulls)),
        StatsMode::Truncate(n) => {
            let hi = c.max.clone().map(|v| truncate_max(v, n));
            match hi {
                Some(None) => (None, None, Some(c.nulls)),
                hi => (
                    c.min.clone().map(|v| truncate_min(v, n)),
                    hi.flatten(),
                    Some(c.nulls),
                ),
            }
        }
    }
}

/// A string padded with spaces to `n` characters (ORC Java's CHAR values).
fn pad(v: Datum, n: u32) -> Datum {
    match v {
        Datum::String(mut s) => {
            let len = s.chars().count();
            s.extend(std::iter::repeat_n(' ', (n as usize).saturating_sub(len)));
            Datum::String(s)
        }
        other => other,
    }
}

/// Java `truncateMin`: a string cut to `n` code points; other values unchanged.
pub(crate) fn truncate_min(v: Datum, n: u32) -> Datum {
    match v {
        Datum::String(s) => Datum::String(s.chars().take(n as usize).collect()),
        other => other,
    }
}

/// Java `truncateMax`: a string longer than `n` code points cut to `n` with the last code
/// point that can be incremented incremented (the rest dropped); `None` when none can be.
pub(crate) fn truncate_max(v: Datum, n: u32) -> Option<Datum> {
    let Datum::String(s) = v else { return Some(v) };
    if s.chars().count() <= n as usize {
        return Some(Datum::String(s));
    }
    let mut chars: Vec<char> = s.chars().take(n as usize).collect();
    while let Some(last) = chars.pop() {
        // U+D7FF has no Rust successor (Java would write a lone surrogate): try the one before.
        if let Some(c) = char::from_u32(u32::from(last) + 1) {
            chars.push(c);
            return Some(Datum::String(chars.into_iter().collect()));
        }
    }
    None
}

#[cfg(test)]
mod tests;
