//! A Paimon warehouse as a DataFusion catalog: databases are schemas, tables are
//! [`PaimonTableProvider`]s, and `table$kind` names are system tables ([`crate::system`]).
//!
//! ```no_run
//! # async fn demo() -> datafusion::common::Result<()> {
//! use datafusion::prelude::SessionContext;
//! use paimon_datafusion::register_warehouse;
//!
//! let ctx = paimon_datafusion::session_context();
//! register_warehouse(&ctx, "paimon", "/path/to/warehouse").await?;
//! ctx.sql("SELECT count(*) FROM paimon.db.orders").await?.show().await?;
//! # Ok(())
//! # }
//! ```
//!
//! DataFusion's catalog listing methods are synchronous: database and table names are listed
//! once when the catalog is created ([`PaimonCatalogProvider::try_new`]) and again on
//! [`PaimonCatalogProvider::refresh`]. Looking a table up (`SchemaProvider::table`) always
//! reads the table's current schema, so a table created after the listing can still be queried.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider, TableProvider};
use datafusion::common::{plan_err, DataFusionError, Result};
use futures::future::BoxFuture;
use paimon_core::{ErrorKind, FileSystemCatalog, Identifier};

use crate::error::to_df_error;
use crate::system;
use crate::table::PaimonTableProvider;

type Listing = Arc<RwLock<BTreeMap<String, Vec<String>>>>;

/// A Paimon warehouse ([`FileSystemCatalog`]) as a DataFusion [`CatalogProvider`].
#[derive(Debug, Clone)]
pub struct PaimonCatalogProvider {
    catalog: Arc<FileSystemCatalog>,
    listing: Listing,
}

impl PaimonCatalogProvider {
    /// A provider over `catalog`, with its databases and tables listed.
    pub async fn try_new(catalog: FileSystemCatalog) -> Result<Self> {
        let p = PaimonCatalogProvider {
            catalog: Arc::new(catalog),
            listing: Arc::default(),
        };
        p.refresh().await?;
        Ok(p)
    }

    /// Lists the warehouse's databases and tables again.
    pub async fn refresh(&self) -> Result<()> {
        let warehouse = self.catalog.warehouse().to_string();
        let err = |e| to_df_error(e, &warehouse);
        let mut listing = BTreeMap::new();
        for db in self.catalog.list_databases().await.map_err(err)? {
            let tables = self.catalog.list_tables(&db).await.map_err(err)?;
            listing.insert(db, tables);
        }
        match self.listing.write() {
            Ok(mut l) => *l = listing,
            Err(_) => return plan_err!("the table listing of {warehouse} is poisoned"),
        }
        Ok(())
    }

    /// The warehouse catalog.
    pub fn catalog(&self) -> &Arc<FileSystemCatalog> {
        &self.catalog
    }
}

impl CatalogProvider for PaimonCatalogProvider {
    fn schema_names(&self) -> Vec<String> {
        self.listing
            .read()
            .map(|l| l.keys().cloned().collect())
            .unwrap_or_default()
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        Some(Arc::new(PaimonSchemaProvider {
            catalog: self.catalog.clone(),
            database: name.to_string(),
            listing: self.listing.clone(),
        }))
    }
}

/// One database of a warehouse as a DataFusion [`SchemaProvider`].
#[derive(Debug, Clone)]
pub struct PaimonSchemaProvider {
    catalog: Arc<FileSystemCatalog>,
    database: String,
    listing: Listing,
}

#[async_trait]
impl SchemaProvider for PaimonSchemaProvider {
    fn table_names(&self) -> Vec<String> {
        self.listing
            .read()
            .ok()
            .and_then(|l| l.get(&self.database).cloned())
            .unwrap_or_default()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>, DataFusionError> {
        let (base, kind) = match name.split_once('$') {
            Some((b, k)) => (b, Some(k)),
            None => (name, None),
        };
        let id = Identifier {
            database: self.database.clone(),
            table: base.to_string(),
        };
        let full = format!("{}.{name}", self.database);
        let table = match get_table(self.catalog.clone(), id).await {
            Ok(t) => t,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(to_df_error(e, &full)),
        };
        match kind {
            None => {
                let provider: Arc<dyn TableProvider> =
                    Arc::new(PaimonTableProvider::try_new(table, full)?);
                Ok(Some(provider))
            }
            Some(kind) => system_table(table, kind.to_string(), full).await.map(Some),
        }
    }

    fn table_exist(&self, name: &str) -> bool {
        let base = name.split_once('$').map_or(name, |(b, _)| b);
        self.table_names().iter().any(|t| t == base)
    }
}

/// The catalog's `get_table` as a boxed `Send` future (its Send-ness is proven here, with
/// concrete lifetimes, rather than inside the `async_trait` method).
fn get_table(
    catalog: Arc<FileSystemCatalog>,
    id: Identifier,
) -> BoxFuture<'static, paimon_core::Result<paimon_core::Table>> {
    Box::pin(async move { catalog.get_table(&id).await })
}

/// [`system::system_table`] as a boxed `Send` future (see [`get_table`]).
fn system_table(
    table: paimon_core::Table,
    kind: String,
    name: String,
) -> BoxFuture<'static, Result<Arc<dyn TableProvider>>> {
    Box::pin(async move { system::system_table(&table, &kind, &name).await })
}
