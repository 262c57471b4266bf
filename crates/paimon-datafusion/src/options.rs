//! Session options of the integration: time travel for every Paimon table of a query.
//!
//! ```sql
//! SET paimon.scan_snapshot_id = 3;       -- Paimon option scan.snapshot-id
//! SET paimon.scan_tag_name = 'release';  -- scan.tag-name
//! SET paimon.scan_timestamp_millis = 1700000000000;  -- scan.timestamp-millis
//! ```
//!
//! Each key maps one to one onto the Paimon table option of the same name (dots and dashes
//! written as `_` because SQL `SET` takes identifiers; the Paimon spelling `scan.snapshot-id` is
//! accepted too through [`ConfigOptions::set`](datafusion::config::ConfigOptions::set)). An
//! empty value (`SET paimon.scan_snapshot_id = ''`) clears a key. The options apply to every
//! Paimon table read after they are set; tables keep the columns of their latest schema. The
//! extension is written by hand so that [`ExtensionOptions::entries`] carries the `paimon.`
//! prefix.

use std::any::Any;
use std::collections::BTreeMap;

use datafusion::common::config::{ConfigEntry, ConfigExtension, ExtensionOptions};
use datafusion::common::{plan_err, Result};

/// The supported keys: SQL spelling → Paimon option.
const KEYS: [(&str, &str, &str); 3] = [
    (
        "scan_snapshot_id",
        "scan.snapshot-id",
        "Read this snapshot id (Paimon option scan.snapshot-id)",
    ),
    (
        "scan_tag_name",
        "scan.tag-name",
        "Read the snapshot of this tag (Paimon option scan.tag-name)",
    ),
    (
        "scan_timestamp_millis",
        "scan.timestamp-millis",
        "Read the latest snapshot at or before this epoch millis (scan.timestamp-millis)",
    ),
];

/// The `paimon.*` session options (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct PaimonOptions {
    /// Paimon option key → value, as set.
    values: BTreeMap<String, String>,
}

impl PaimonOptions {
    /// The Paimon table options to apply to every scan.
    pub fn table_options(&self) -> &BTreeMap<String, String> {
        &self.values
    }
}

impl ConfigExtension for PaimonOptions {
    const PREFIX: &'static str = "paimon";
}

impl ExtensionOptions for PaimonOptions {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn cloned(&self) -> Box<dyn ExtensionOptions> {
        Box::new(self.clone())
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let key = key.strip_prefix("paimon.").unwrap_or(key);
        let Some((_, option, _)) = KEYS.iter().find(|(k, o, _)| *k == key || *o == key) else {
            let known: Vec<&str> = KEYS.iter().map(|(k, _, _)| *k).collect();
            return plan_err!("unknown option paimon.{key}; known: {}", known.join(", "));
        };
        let value = value.trim().trim_matches('\'');
        if value.is_empty() {
            self.values.remove(*option);
        } else {
            self.values.insert((*option).to_string(), value.to_string());
        }
        Ok(())
    }

    fn entries(&self) -> Vec<ConfigEntry> {
        KEYS.iter()
            .map(|(k, o, d)| ConfigEntry {
                key: format!("{}.{k}", Self::PREFIX),
                value: self.values.get(*o).cloned(),
                description: d,
            })
            .collect()
    }
}
