// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

//! File-level column statistics for the footer: number of (non-null) values and whether the
//! column has nulls for every column; minimum, maximum and sum for DECIMAL columns; minimum,
//! maximum and total number of children for LIST and MAP columns.

use arrow::{
    array::{Array, ArrayRef, AsArray},
    datatypes::{DataType as ArrowDataType, Decimal128Type},
};

use crate::{error::Result, memory::EstimateMemory, proto};

use super::{column::ColumnStripeEncoder, ColumnEncoding, Stream};

/// Largest unscaled decimal sum that still fits ORC's 38 digits.
const MAX_DECIMAL_SUM: i128 = 10_i128.pow(38) - 1;

#[derive(Default)]
struct DecimalStatistics {
    min: Option<i128>,
    max: Option<i128>,
    /// `None` once the sum no longer fits 38 digits (readers then see no sum).
    sum: Option<i128>,
}

#[derive(Default)]
struct CollectionStatistics {
    min: Option<u64>,
    max: Option<u64>,
    total: u64,
}

/// Wraps a column encoder, collecting statistics of every array it encodes.
pub struct StatisticsEncoder {
    inner: Box<dyn ColumnStripeEncoder>,
    number_of_values: u64,
    has_null: bool,
    /// DECIMAL columns: the type's scale and the statistics so far.
    decimal: Option<(i8, DecimalStatistics)>,
    /// LIST and MAP columns.
    collection: Option<CollectionStatistics>,
}

impl StatisticsEncoder {
    pub fn new(data_type: &ArrowDataType, inner: Box<dyn ColumnStripeEncoder>) -> Self {
        let decimal = match data_type {
            ArrowDataType::Decimal128(_, scale) => Some((
                *scale,
                DecimalStatistics {
                    sum: Some(0),
                    ..Default::default()
                },
            )),
            _ => None,
        };
        let collection = matches!(
            data_type,
            ArrowDataType::List(_) | ArrowDataType::LargeList(_) | ArrowDataType::Map(_, _)
        )
        .then(CollectionStatistics::default);
        Self {
            inner,
            number_of_values: 0,
            has_null: false,
            decimal,
            collection,
        }
    }

    fn update_decimal(stats: &mut DecimalStatistics, array: &ArrayRef) {
        for value in array.as_primitive::<Decimal128Type>().iter().flatten() {
            stats.min = Some(stats.min.map_or(value, |m| m.min(value)));
            stats.max = Some(stats.max.map_or(value, |m| m.max(value)));
            stats.sum = stats
                .sum
                .and_then(|s| s.checked_add(value))
                .filter(|s| s.unsigned_abs() <= MAX_DECIMAL_SUM as u128);
        }
    }

    fn update_collection(stats: &mut CollectionStatistics, array: &ArrayRef) {
        let lengths: Box<dyn Iterator<Item = (usize, u64)>> = match array.data_type() {
            ArrowDataType::List(_) => Box::new(lengths(array.as_list::<i32>().value_offsets())),
            ArrowDataType::LargeList(_) => {
                Box::new(lengths(array.as_list::<i64>().value_offsets()))
            }
            ArrowDataType::Map(_, _) => Box::new(lengths(array.as_map().value_offsets())),
            _ => return,
        };
        for (index, length) in lengths {
            if array.is_valid(index) {
                stats.min = Some(stats.min.map_or(length, |m| m.min(length)));
                stats.max = Some(stats.max.map_or(length, |m| m.max(length)));
                stats.total += length;
            }
        }
    }
}

fn lengths<O: arrow::array::OffsetSizeTrait>(
    offsets: &[O],
) -> impl Iterator<Item = (usize, u64)> + '_ {
    offsets
        .windows(2)
        .map(|w| (w[1] - w[0]).as_usize() as u64)
        .enumerate()
}

/// A decimal's string form, e.g. `-12.50` for unscaled `-1250` at scale 2.
fn decimal_string(unscaled: i128, scale: i8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale <= 0 {
        let zeros = "0".repeat(scale.unsigned_abs() as usize);
        let digits = if unscaled == 0 { "0" } else { &digits };
        return format!("{sign}{digits}{zeros}");
    }
    let scale = scale as usize;
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = digits.split_at(digits.len() - scale);
    format!("{sign}{int}.{frac}")
}

impl EstimateMemory for StatisticsEncoder {
    fn estimate_memory_size(&self) -> usize {
        self.inner.estimate_memory_size()
    }
}

impl ColumnStripeEncoder for StatisticsEncoder {
    fn encode_array(&mut self, array: &ArrayRef) -> Result<()> {
        self.number_of_values += (array.len() - array.null_count()) as u64;
        self.has_null |= array.null_count() > 0;
        if let Some((_, stats)) = self.decimal.as_mut() {
            Self::update_decimal(stats, array);
        }
        if let Some(stats) = self.collection.as_mut() {
            Self::update_collection(stats, array);
        }
        self.inner.encode_array(array)
    }

    fn column_encoding(&self) -> ColumnEncoding {
        self.inner.column_encoding()
    }

    fn finish(&mut self) -> Vec<Stream> {
        self.inner.finish()
    }

    fn children(&self) -> &[Box<dyn ColumnStripeEncoder>] {
        self.inner.children()
    }

    fn children_mut(&mut self) -> &mut [Box<dyn ColumnStripeEncoder>] {
        self.inner.children_mut()
    }

    fn statistics(&self) -> proto::ColumnStatistics {
        let decimal_statistics = self.decimal.as_ref().and_then(|(scale, stats)| {
            let (min, max) = (stats.min?, stats.max?);
            Some(proto::DecimalStatistics {
                minimum: Some(decimal_string(min, *scale)),
                maximum: Some(decimal_string(max, *scale)),
                sum: stats.sum.map(|sum| decimal_string(sum, *scale)),
            })
        });
        let collection_statistics = self.collection.as_ref().and_then(|stats| {
            Some(proto::CollectionStatistics {
                min_children: Some(stats.min?),
                max_children: Some(stats.max?),
                total_children: Some(stats.total),
            })
        });
        proto::ColumnStatistics {
            number_of_values: Some(self.number_of_values),
            has_null: Some(self.has_null),
            decimal_statistics,
            collection_statistics,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_string;

    #[test]
    fn test_decimal_string() {
        assert_eq!(decimal_string(-1250, 2), "-12.50");
        assert_eq!(decimal_string(5, 3), "0.005");
        assert_eq!(decimal_string(-5, 3), "-0.005");
        assert_eq!(decimal_string(0, 2), "0.00");
        assert_eq!(decimal_string(42, 0), "42");
        assert_eq!(decimal_string(42, -2), "4200");
        assert_eq!(
            decimal_string(-(10_i128.pow(38) - 1), 10),
            "-9999999999999999999999999999.9999999999"
        );
    }
}
