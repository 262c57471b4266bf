//! Leaf queries on one BTree payload (Java
//! `org.apache.paimon.globalindex.btree.BTreeIndexReader` visited by
//! `org.apache.paimon.globalindex.GlobalIndexEvaluator`): literals become keys of the column's
//! key type; results are group ordinals.

use roaring::RoaringTreemap;

use std::cmp::Ordering;

use crate::expr::LeafOp;
use crate::index::bitmap_global::BitmapGlobalIndexReader;
use crate::index::btree::{BTreeIndexReader, Key, KeyType};
use crate::spec::types::{DataType, TypeKind};
use crate::spec::Datum;
use crate::Result;

/// Answers leaves with group ordinals.
pub(crate) trait GroupReader: Send + Sync {
    /// Group ordinals of the rows that may satisfy `op`, or `None` when the leaf cannot be
    /// answered safely (the file is then read normally).
    fn query(&self, op: &LeafOp) -> Option<Result<RoaringTreemap>>;
}

/// A [`GroupReader`] over a BTree payload.
pub(crate) struct BTreeGroupReader {
    reader: BTreeIndexReader,
    data_type: DataType,
}

impl BTreeGroupReader {
    /// A reader of `reader`'s payload, for a column of `data_type`.
    pub fn new(reader: BTreeIndexReader, data_type: DataType) -> Self {
        BTreeGroupReader { reader, data_type }
    }

    fn key(&self, d: &Datum) -> Option<Key> {
        datum_to_key(d, &self.data_type)
    }

    fn keys(&self, ds: &[Datum]) -> Option<Vec<Key>> {
        ds.iter().map(|d| self.key(d)).collect()
    }
}

impl GroupReader for BTreeGroupReader {
    fn query(&self, op: &LeafOp) -> Option<Result<RoaringTreemap>> {
        let r = &self.reader;
        Some(match op {
            LeafOp::Eq(v) => r.equal(&self.key(v)?),
            LeafOp::NotEq(v) => r.not_equal(&self.key(v)?),
            LeafOp::Lt(v) => r.less_than(&self.key(v)?),
            LeafOp::LtEq(v) => r.less_or_equal(&self.key(v)?),
            LeafOp::Gt(v) => r.greater_than(&self.key(v)?),
            LeafOp::GtEq(v) => r.greater_or_equal(&self.key(v)?),
            LeafOp::In(vs) => r.in_list(&self.keys(vs)?),
            LeafOp::NotIn(vs) => r.not_in(&self.keys(vs)?),
            LeafOp::IsNull => r.is_null().map(|b| (*b).clone()),
            // Prefix matches: every non-null row, a superset the residual filter refines.
            LeafOp::IsNotNull | LeafOp::StartsWith(_) | LeafOp::NotStartsWith(_) => r.is_not_null(),
        })
    }
}

/// A [`GroupReader`] over a bitmap payload (`pk-bitmap`; Java `BitmapIndexReader`).
pub(crate) struct BitmapGroupReader {
    reader: BitmapGlobalIndexReader,
    data_type: DataType,
}

impl BitmapGroupReader {
    /// A reader of `reader`'s payload, for a column of `data_type`.
    pub fn new(reader: BitmapGlobalIndexReader, data_type: DataType) -> Self {
        BitmapGroupReader { reader, data_type }
    }

    fn range(&self, d: &Datum, wanted: &[Ordering]) -> Option<Result<RoaringTreemap>> {
        let key = datum_to_key(d, &self.data_type)?;
        Some(self.reader.range(&key, wanted))
    }
}

impl GroupReader for BitmapGroupReader {
    fn query(&self, op: &LeafOp) -> Option<Result<RoaringTreemap>> {
        use Ordering::{Equal, Greater, Less};
        let r = &self.reader;
        let key = |d: &Datum| datum_to_key(d, &self.data_type);
        let keys = |ds: &[Datum]| ds.iter().map(key).collect::<Option<Vec<Key>>>();
        let not_null = || r.is_not_null().clone();
        Some(match op {
            LeafOp::Eq(v) => r.equal(&key(v)?),
            LeafOp::NotEq(v) => r.equal(&key(v)?).map(|m| not_null() - m),
            LeafOp::Lt(v) => return self.range(v, &[Less]),
            LeafOp::LtEq(v) => return self.range(v, &[Less, Equal]),
            LeafOp::Gt(v) => return self.range(v, &[Greater]),
            LeafOp::GtEq(v) => return self.range(v, &[Greater, Equal]),
            LeafOp::In(vs) => r.in_list(&keys(vs)?),
            LeafOp::NotIn(vs) => r.in_list(&keys(vs)?).map(|m| not_null() - m),
            LeafOp::IsNull => Ok(r.is_null().clone()),
            // Prefix matches: every non-null row, a superset the residual filter refines.
            LeafOp::IsNotNull | LeafOp::StartsWith(_) | LeafOp::NotStartsWith(_) => Ok(not_null()),
        })
    }
}

/// The BTree key of a literal of a column of type `t`, or `None` when the literal cannot be
/// looked up safely: another kind, a decimal of another scale, or a ±0.0 / NaN float (the
/// index orders floats by `Float.compare`, so `= 0.0` would miss `-0.0`).
pub(crate) fn datum_to_key(d: &Datum, t: &DataType) -> Option<Key> {
    let key_type = KeyType::from_data_type(t).ok()?;
    Some(match (d, key_type) {
        (Datum::TinyInt(v), KeyType::TinyInt) => Key::TinyInt(*v),
        (Datum::SmallInt(v), KeyType::SmallInt) => Key::SmallInt(*v),
        (Datum::Int(v) | Datum::Date(v) | Datum::Time(v), KeyType::Int) => Key::Int(*v),
        (Datum::BigInt(v), KeyType::BigInt) => Key::BigInt(*v),
        (Datum::Boolean(v), KeyType::Boolean) => Key::Boolean(*v),
        (Datum::Float(v), KeyType::Float) if *v != 0.0 && !v.is_nan() => Key::Float(*v),
        (Datum::Double(v), KeyType::Double) if *v != 0.0 && !v.is_nan() => Key::Double(*v),
        (Datum::Decimal(v), KeyType::Decimal { .. }) => match &t.kind {
            TypeKind::Decimal { scale, .. } if *scale == v.scale => Key::Decimal(v.unscaled),
            _ => return None,
        },
        (Datum::String(s), KeyType::String) => Key::String(s.as_bytes().to_vec()),
        (Datum::Timestamp(ts) | Datum::LocalZonedTimestamp(ts), KeyType::Timestamp { .. }) => {
            Key::Timestamp {
                millis: ts.millis,
                nanos_of_milli: i32::try_from(ts.nanos).ok()?,
            }
        }
        _ => return None,
    })
}
