//! The `fields.*` options of the merge engines, parsed once when [`TableOptions`] is built.
//!
//! Mirrors the per-field options Java reads through `CoreOptions` and the merge-function
//! factories (Paimon 2.0): `fields.<s1>[,<s2>…].sequence-group`,
//! `fields.<f>.aggregate-function`, `fields.default-aggregate-function`,
//! `fields.<f>.ignore-retract`, `fields.<f>.list-agg-delimiter` and `fields.<f>.distinct`.
//! Field names are taken verbatim between `fields.` and the suffix (no trimming, as in Java).
//! A bad boolean is reported when the merge engine asks for it (as Java's factories do), not
//! when the options are parsed: tables whose merge engine never reads it stay readable.
//!
//! [`TableOptions`]: super::TableOptions

use std::collections::{BTreeMap, HashMap};

use crate::{Error, Result};

/// Key prefix of per-field options.
pub const FIELDS_PREFIX: &str = "fields.";
/// Suffix of `fields.<s1>[,<s2>…].sequence-group`.
pub const SEQUENCE_GROUP: &str = "sequence-group";
/// Suffix of `fields.<f>.aggregate-function`.
pub const AGGREGATE_FUNCTION: &str = "aggregate-function";
/// Suffix of `fields.<f>.ignore-retract` (default false).
pub const IGNORE_RETRACT: &str = "ignore-retract";
/// Suffix of `fields.<f>.list-agg-delimiter` (default `,`).
pub const LIST_AGG_DELIMITER: &str = "list-agg-delimiter";
/// Suffix of `fields.<f>.distinct` (default false).
pub const DISTINCT: &str = "distinct";
/// `fields.default-aggregate-function`.
pub const DEFAULT_AGGREGATE_FUNCTION: &str = "fields.default-aggregate-function";

/// One `fields.<seq>.sequence-group` option, by field name.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceGroup {
    /// The option key.
    pub key: String,
    /// The sequence fields, in declared order.
    pub seq: Vec<String>,
    /// The fields the group protects.
    pub members: Vec<String>,
}

/// A boolean per-field option: the value, or the stored text that is not a Java boolean.
type Flag = std::result::Result<bool, String>;

/// The merge options of one field.
#[derive(Debug, Clone, Default, PartialEq)]
struct FieldSettings {
    aggregate_function: Option<String>,
    ignore_retract: Option<Flag>,
    list_agg_delimiter: Option<String>,
    distinct: Option<Flag>,
}

/// The `fields.*` options of the merge engines (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldOptions {
    /// Sorted by option key.
    sequence_groups: Vec<SequenceGroup>,
    default_aggregate_function: Option<String>,
    fields: BTreeMap<String, FieldSettings>,
}

/// Java `OptionsUtils#convertToBoolean`, keeping the stored text of a bad value.
fn flag(v: &str) -> Flag {
    if v.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if v.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(v.to_string())
    }
}

impl FieldOptions {
    /// Collects the `fields.*` merge options of `map`; other keys are ignored.
    pub(super) fn from_map(map: &HashMap<String, String>) -> Self {
        let mut out = FieldOptions {
            default_aggregate_function: map.get(DEFAULT_AGGREGATE_FUNCTION).cloned(),
            ..FieldOptions::default()
        };
        let mut groups = BTreeMap::new();
        for (key, value) in map {
            let Some(rest) = key.strip_prefix(FIELDS_PREFIX) else {
                continue;
            };
            let Some((name, suffix)) = rest.rsplit_once('.') else {
                continue;
            };
            if suffix == SEQUENCE_GROUP {
                groups.insert(key.clone(), (name, value));
                continue;
            }
            if ![
                AGGREGATE_FUNCTION,
                IGNORE_RETRACT,
                LIST_AGG_DELIMITER,
                DISTINCT,
            ]
            .contains(&suffix)
            {
                continue;
            }
            let settings = out.fields.entry(name.to_string()).or_default();
            match suffix {
                AGGREGATE_FUNCTION => settings.aggregate_function = Some(value.clone()),
                IGNORE_RETRACT => settings.ignore_retract = Some(flag(value)),
                LIST_AGG_DELIMITER => settings.list_agg_delimiter = Some(value.clone()),
                _ => settings.distinct = Some(flag(value)),
            }
        }
        out.sequence_groups = groups
            .into_iter()
            .map(|(key, (names, members))| SequenceGroup {
                key,
                seq: names.split(',').map(str::to_string).collect(),
                members: members.split(',').map(str::to_string).collect(),
            })
            .collect();
        out
    }

    /// The sequence groups, sorted by option key. Names are not trimmed (as in Java, `a, b`
    /// names a field ` b`).
    pub fn sequence_groups(&self) -> &[SequenceGroup] {
        &self.sequence_groups
    }

    /// `fields.default-aggregate-function`.
    pub fn default_aggregate_function(&self) -> Option<&str> {
        self.default_aggregate_function.as_deref()
    }

    /// `fields.<field>.aggregate-function`, else `fields.default-aggregate-function` (Java
    /// `getAggFuncName` before its engine-specific defaults).
    pub fn aggregate_function(&self, field: &str) -> Option<&str> {
        self.fields
            .get(field)
            .and_then(|s| s.aggregate_function.as_deref())
            .or_else(|| self.default_aggregate_function())
    }

    /// `fields.<field>.list-agg-delimiter` (default `,`).
    pub fn list_agg_delimiter(&self, field: &str) -> &str {
        self.fields
            .get(field)
            .and_then(|s| s.list_agg_delimiter.as_deref())
            .unwrap_or(",")
    }

    /// `fields.<field>.distinct` (default false); a value that is not a Java boolean is an
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
    pub fn distinct(&self, field: &str) -> Result<bool> {
        let flag = self.fields.get(field).and_then(|s| s.distinct.as_ref());
        flag_value(flag, field, DISTINCT)
    }

    /// `fields.<field>.ignore-retract` (default false); a value that is not a Java boolean is
    /// an [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
    pub fn ignore_retract(&self, field: &str) -> Result<bool> {
        let flag = self
            .fields
            .get(field)
            .and_then(|s| s.ignore_retract.as_ref());
        flag_value(flag, field, IGNORE_RETRACT)
    }
}

fn flag_value(flag: Option<&Flag>, field: &str, suffix: &str) -> Result<bool> {
    match flag {
        None => Ok(false),
        Some(Ok(b)) => Ok(*b),
        Some(Err(v)) => Err(Error::invalid_argument(format!(
            "fields.{field}.{suffix} = '{v}': expected true or false"
        ))),
    }
}
