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

//! Encoders for the compound ORC types: STRUCT (only a PRESENT stream), LIST and MAP (PRESENT
//! and LENGTH streams). Their children are separate columns, following the parent in column ID
//! order (pre-order); a null parent contributes no values to its children.

use arrow::{
    array::{Array, ArrayRef, AsArray, BooleanArray, BooleanBufferBuilder, OffsetSizeTrait},
    buffer::NullBuffer,
    compute::filter,
    datatypes::FieldRef,
};
use snafu::ResultExt;

use crate::{
    encoding::{
        boolean::BooleanEncoder,
        integer::{rle_v2::RleV2Encoder, UnsignedEncoding},
        PrimitiveValueEncoder,
    },
    error::{ArrowSnafu, Result},
    memory::EstimateMemory,
};

use super::{
    column::ColumnStripeEncoder, stripe::create_encoder, ColumnEncoding, Stream, StreamType,
};

/// The PRESENT stream of a compound column, created once the first null is seen.
#[derive(Default)]
struct PresentEncoder {
    present: Option<BooleanEncoder>,
    /// Non-null values in the current stripe (all rows before the first null).
    encoded_count: usize,
}

impl PresentEncoder {
    fn extend(&mut self, nulls: Option<&NullBuffer>, len: usize) {
        match nulls {
            Some(nulls) if nulls.null_count() > 0 => {
                let encoded_count = self.encoded_count;
                let present = self.present.get_or_insert_with(|| {
                    let mut present = BooleanEncoder::new();
                    present.extend_present(encoded_count);
                    present
                });
                present.extend(nulls);
                self.encoded_count += len - nulls.null_count();
            }
            _ => {
                if let Some(present) = self.present.as_mut() {
                    present.extend_present(len);
                }
                self.encoded_count += len;
            }
        }
    }

    fn finish(&mut self, streams: &mut Vec<Stream>) {
        self.encoded_count = 0;
        if let Some(present) = self.present.as_mut() {
            streams.push(Stream {
                kind: StreamType::Present,
                bytes: present.finish(),
            });
        }
    }

    fn estimate_memory_size(&self) -> usize {
        self.present
            .as_ref()
            .map(|p| p.estimate_memory_size())
            .unwrap_or(0)
    }
}

/// The rows of `array` where `nulls` is valid (all rows without nulls).
fn non_null_rows(array: &ArrayRef, nulls: Option<&NullBuffer>) -> Result<ArrayRef> {
    match nulls {
        Some(nulls) if nulls.null_count() > 0 => {
            let mask = BooleanArray::new(nulls.inner().clone(), None);
            filter(array.as_ref(), &mask).context(ArrowSnafu)
        }
        _ => Ok(array.clone()),
    }
}

/// Writes the lengths of the non-null entries of a list or map and returns the child values
/// they cover, in order: the children of null entries are dropped.
fn list_children<O: OffsetSizeTrait>(
    offsets: &[O],
    nulls: Option<&NullBuffer>,
    lengths: &mut RleV2Encoder<i64, UnsignedEncoding>,
    children: &[&ArrayRef],
) -> Result<Vec<ArrayRef>> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Ok(children.iter().map(|c| c.slice(0, 0)).collect());
    };
    let (start, end) = (first.as_usize(), last.as_usize());
    let children = children.iter().map(|c| c.slice(start, end - start));
    match nulls {
        Some(nulls) if nulls.null_count() > 0 => {
            // Mask over the child values: true for those of non-null entries.
            let mut mask = BooleanBufferBuilder::new(end - start);
            for (index, window) in offsets.windows(2).enumerate() {
                let length = (window[1] - window[0]).as_usize();
                let valid = nulls.is_valid(index);
                if valid {
                    lengths.write_one(length as i64);
                }
                mask.append_n(length, valid);
            }
            let mask = BooleanArray::new(mask.finish(), None);
            children
                .map(|c| filter(c.as_ref(), &mask).context(ArrowSnafu))
                .collect()
        }
        _ => {
            for window in offsets.windows(2) {
                lengths.write_one((window[1] - window[0]).as_usize() as i64);
            }
            Ok(children.collect())
        }
    }
}

/// Encodes a STRUCT column: a PRESENT stream, and one child column per field.
pub struct StructColumnEncoder {
    present: PresentEncoder,
    children: Vec<Box<dyn ColumnStripeEncoder>>,
}

impl StructColumnEncoder {
    pub fn new(fields: &[FieldRef]) -> Self {
        Self {
            present: PresentEncoder::default(),
            children: fields.iter().map(create_encoder).collect(),
        }
    }
}

impl EstimateMemory for StructColumnEncoder {
    fn estimate_memory_size(&self) -> usize {
        self.present.estimate_memory_size()
            + self
                .children
                .iter()
                .map(|c| c.estimate_memory_size())
                .sum::<usize>()
    }
}

impl ColumnStripeEncoder for StructColumnEncoder {
    fn encode_array(&mut self, array: &ArrayRef) -> Result<()> {
        let array = array.as_struct();
        self.present.extend(array.nulls(), array.len());
        for (column, encoder) in array.columns().iter().zip(self.children.iter_mut()) {
            encoder.encode_array(&non_null_rows(column, array.nulls())?)?;
        }
        Ok(())
    }

    fn column_encoding(&self) -> ColumnEncoding {
        ColumnEncoding::Direct
    }

    fn finish(&mut self) -> Vec<Stream> {
        let mut streams = vec![];
        self.present.finish(&mut streams);
        streams
    }

    fn children(&self) -> &[Box<dyn ColumnStripeEncoder>] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Box<dyn ColumnStripeEncoder>] {
        &mut self.children
    }
}

/// Encodes a LIST column (from Arrow `List` or `LargeList`): PRESENT and LENGTH streams, and
/// the element column as its child.
pub struct ListColumnEncoder<O: OffsetSizeTrait> {
    present: PresentEncoder,
    lengths: RleV2Encoder<i64, UnsignedEncoding>,
    /// The element encoder (one child).
    children: Vec<Box<dyn ColumnStripeEncoder>>,
    _offset: std::marker::PhantomData<O>,
}

impl<O: OffsetSizeTrait> ListColumnEncoder<O> {
    pub fn new(element: &FieldRef) -> Self {
        Self {
            present: PresentEncoder::default(),
            lengths: RleV2Encoder::new(),
            children: vec![create_encoder(element)],
            _offset: Default::default(),
        }
    }
}

impl<O: OffsetSizeTrait> EstimateMemory for ListColumnEncoder<O> {
    fn estimate_memory_size(&self) -> usize {
        self.present.estimate_memory_size()
            + self.lengths.estimate_memory_size()
            + self
                .children
                .iter()
                .map(|c| c.estimate_memory_size())
                .sum::<usize>()
    }
}

impl<O: OffsetSizeTrait> ColumnStripeEncoder for ListColumnEncoder<O> {
    fn encode_array(&mut self, array: &ArrayRef) -> Result<()> {
        let array = array.as_list::<O>();
        self.present.extend(array.nulls(), array.len());
        let values = list_children(
            array.value_offsets(),
            array.nulls(),
            &mut self.lengths,
            &[array.values()],
        )?;
        for (values, encoder) in values.iter().zip(self.children.iter_mut()) {
            encoder.encode_array(values)?;
        }
        Ok(())
    }

    fn column_encoding(&self) -> ColumnEncoding {
        ColumnEncoding::DirectV2
    }

    fn finish(&mut self) -> Vec<Stream> {
        let mut streams = vec![Stream {
            kind: StreamType::Length,
            bytes: self.lengths.take_inner(),
        }];
        self.present.finish(&mut streams);
        streams
    }

    fn children(&self) -> &[Box<dyn ColumnStripeEncoder>] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Box<dyn ColumnStripeEncoder>] {
        &mut self.children
    }
}

/// Encodes a MAP column: PRESENT and LENGTH streams, and the key and value columns as its two
/// children.
pub struct MapColumnEncoder {
    present: PresentEncoder,
    lengths: RleV2Encoder<i64, UnsignedEncoding>,
    /// The key and the value encoders.
    children: Vec<Box<dyn ColumnStripeEncoder>>,
}

impl MapColumnEncoder {
    pub fn new(key: &FieldRef, value: &FieldRef) -> Self {
        Self {
            present: PresentEncoder::default(),
            lengths: RleV2Encoder::new(),
            children: vec![create_encoder(key), create_encoder(value)],
        }
    }
}

impl EstimateMemory for MapColumnEncoder {
    fn estimate_memory_size(&self) -> usize {
        self.present.estimate_memory_size()
            + self.lengths.estimate_memory_size()
            + self
                .children
                .iter()
                .map(|c| c.estimate_memory_size())
                .sum::<usize>()
    }
}

impl ColumnStripeEncoder for MapColumnEncoder {
    fn encode_array(&mut self, array: &ArrayRef) -> Result<()> {
        let array = array.as_map();
        self.present.extend(array.nulls(), array.len());
        let entries = array.entries();
        let children = list_children(
            array.value_offsets(),
            array.nulls(),
            &mut self.lengths,
            &[entries.column(0), entries.column(1)],
        )?;
        for (values, encoder) in children.iter().zip(self.children.iter_mut()) {
            encoder.encode_array(values)?;
        }
        Ok(())
    }

    fn column_encoding(&self) -> ColumnEncoding {
        ColumnEncoding::DirectV2
    }

    fn finish(&mut self) -> Vec<Stream> {
        let mut streams = vec![Stream {
            kind: StreamType::Length,
            bytes: self.lengths.take_inner(),
        }];
        self.present.finish(&mut streams);
        streams
    }

    fn children(&self) -> &[Box<dyn ColumnStripeEncoder>] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Box<dyn ColumnStripeEncoder>] {
        &mut self.children
    }
}
