//! SQL statements with Paimon meaning that DataFusion does not plan: `CREATE TABLE ... WITH
//! ('primary-key' = ..., 'partition' = ..., 'bucket' = ...)` and `DROP TABLE` of tables in a
//! Paimon catalog ([`PaimonCatalogProvider`]).
//!
//! DataFusion 55 refuses `CREATE TABLE` with `WITH` options and would create an in-memory
//! table otherwise; its `DROP TABLE` calls the synchronous `SchemaProvider::deregister_table`,
//! which cannot do catalog I/O. [`execute`] handles both statements itself when the table
//! resolves to a Paimon catalog and hands every other statement to DataFusion.
//!
//! ```no_run
//! # async fn demo(ctx: &datafusion::prelude::SessionContext) -> datafusion::common::Result<()> {
//! paimon_datafusion::ddl::sql(ctx, "CREATE TABLE paimon.db.t (id BIGINT NOT NULL, v STRING) \
//!     WITH ('primary-key' = 'id', 'bucket' = '2')").await?;
//! paimon_datafusion::ddl::sql(ctx, "INSERT INTO paimon.db.t VALUES (1, 'a')").await?.collect().await?;
//! # Ok(())
//! # }
//! ```

use datafusion::common::{plan_err, Result, TableReference};
use datafusion::dataframe::DataFrame;
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::{DFParser, Statement as DFStatement};
use datafusion::sql::sqlparser::ast::{
    ColumnDef, ColumnOption, CreateTable, CreateTableOptions, Expr as SqlExpr, ObjectName,
    ObjectType, SqlOption, Statement, TableConstraint, Value,
};
use paimon_core::catalog::Schema;
use paimon_core::spec::type_text::parse_fields;
use paimon_core::Identifier;

use crate::catalog::PaimonCatalogProvider;
use crate::error::to_df_error;

/// Parses `sql` (one or more statements separated by `;`) and runs each with [`execute`];
/// returns the last statement's result.
pub async fn sql(ctx: &SessionContext, sql: &str) -> Result<DataFrame> {
    let mut last = None;
    for statement in DFParser::parse_sql(sql)? {
        last = Some(execute(ctx, statement).await?);
    }
    match last {
        Some(df) => Ok(df),
        None => plan_err!("no SQL statement given"),
    }
}

/// Runs one parsed statement: Paimon `CREATE TABLE` / `DROP TABLE` here, everything else
/// through DataFusion. DDL results are empty.
pub async fn execute(ctx: &SessionContext, statement: DFStatement) -> Result<DataFrame> {
    if let DFStatement::Statement(s) = &statement {
        match s.as_ref() {
            Statement::CreateTable(ct) => {
                if let Some((catalog, id)) = paimon_target(ctx, &ct.name)? {
                    create_table(&catalog, id, ct).await?;
                    return ctx.read_empty();
                }
            }
            Statement::Drop {
                object_type: ObjectType::Table,
                if_exists,
                names,
                ..
            } => {
                let mut targets = Vec::new();
                for n in names {
                    match paimon_target(ctx, n)? {
                        Some(t) => targets.push(t),
                        None => break,
                    }
                }
                if targets.len() == names.len() {
                    for (catalog, id) in targets {
                        let name = format!("{}.{}", id.database, id.table);
                        catalog
                            .catalog()
                            .drop_table(&id, *if_exists)
                            .await
                            .map_err(|e| to_df_error(e, &name))?;
                        catalog.refresh().await?;
                    }
                    return ctx.read_empty();
                }
            }
            _ => {}
        }
    }
    let plan = ctx.state().statement_to_plan(statement).await?;
    ctx.execute_logical_plan(plan).await
}

/// The Paimon catalog and identifier `name` resolves to in `ctx` (default catalog and
/// schema applied), or `None` when it is not a Paimon catalog's table.
fn paimon_target(
    ctx: &SessionContext,
    name: &ObjectName,
) -> Result<Option<(PaimonCatalogProvider, Identifier)>> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| match p.as_ident() {
            Some(i) if i.quote_style.is_some() => Ok(i.value.clone()),
            Some(i) => Ok(i.value.to_ascii_lowercase()),
            None => plan_err!("unsupported table name {name}"),
        })
        .collect::<Result<_>>()?;
    let reference = match parts.as_slice() {
        [t] => TableReference::bare(t.as_str()),
        [s, t] => TableReference::partial(s.as_str(), t.as_str()),
        [c, s, t] => TableReference::full(c.as_str(), s.as_str(), t.as_str()),
        _ => return plan_err!("unsupported table name {name}"),
    };
    let state = ctx.state();
    let resolved = reference.resolve(
        &state.config_options().catalog.default_catalog,
        &state.config_options().catalog.default_schema,
    );
    let Some(catalog) = ctx.catalog(&resolved.catalog) else {
        return Ok(None);
    };
    let Some(paimon) = catalog.downcast_ref::<PaimonCatalogProvider>() else {
        return Ok(None);
    };
    let id = Identifier {
        database: resolved.schema.to_string(),
        table: resolved.table.to_string(),
    };
    Ok(Some((paimon.clone(), id)))
}

/// `name TYPE [NOT NULL]` of a column, in the text `paimon_core::spec::type_text` parses.
fn column_text(c: &ColumnDef) -> String {
    let not_null = c.options.iter().any(|o| {
        matches!(
            o.option,
            ColumnOption::NotNull | ColumnOption::PrimaryKey(_)
        )
    });
    let name = c.name.value.replace('`', "``");
    let suffix = if not_null { " NOT NULL" } else { "" };
    format!("`{name}` {}{suffix}", c.data_type)
}

/// The text of an option value: a string literal's contents, else the expression's SQL.
fn option_value(v: &SqlExpr) -> String {
    match v {
        SqlExpr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        SqlExpr::Identifier(i) => i.value.clone(),
        other => other.to_string(),
    }
}

async fn create_table(
    catalog: &PaimonCatalogProvider,
    id: Identifier,
    ct: &CreateTable,
) -> Result<()> {
    let name = format!("{}.{}", id.database, id.table);
    if ct.query.is_some() || ct.or_replace || ct.external || ct.temporary {
        return plan_err!(
            "CREATE TABLE {name}: only column lists are supported (no AS SELECT, OR REPLACE, \
             EXTERNAL or TEMPORARY)"
        );
    }
    let text: Vec<String> = ct.columns.iter().map(column_text).collect();
    let fields = parse_fields(&text.join(", ")).map_err(|e| to_df_error(e, &name))?;
    let mut builder = Schema::builder().columns(fields);
    // Inline `PRIMARY KEY` and a `PRIMARY KEY (a, b)` constraint are primary keys too.
    let mut keys: Vec<String> = ct
        .columns
        .iter()
        .filter(|c| {
            c.options
                .iter()
                .any(|o| matches!(o.option, ColumnOption::PrimaryKey(_)))
        })
        .map(|c| c.name.value.clone())
        .collect();
    for c in &ct.constraints {
        if let TableConstraint::PrimaryKey(pk) = c {
            keys.extend(pk.columns.iter().map(|k| k.column.expr.to_string()));
        }
    }
    if !keys.is_empty() {
        builder = builder.primary_key(keys);
    }
    let options = match &ct.table_options {
        CreateTableOptions::None => &[][..],
        CreateTableOptions::With(o)
        | CreateTableOptions::Options(o)
        | CreateTableOptions::TableProperties(o) => o.as_slice(),
        CreateTableOptions::Plain(_) => {
            return plan_err!("CREATE TABLE {name}: use WITH ('key' = 'value', ...) for options")
        }
    };
    for o in options {
        match o {
            SqlOption::KeyValue { key, value } => {
                builder = builder.option(key.value.clone(), option_value(value));
            }
            other => return plan_err!("CREATE TABLE {name}: unsupported option {other}"),
        }
    }
    let schema = builder.build().map_err(|e| to_df_error(e, &name))?;
    catalog
        .catalog()
        .create_table(&id, schema, ct.if_not_exists)
        .await
        .map_err(|e| to_df_error(e, &name))?;
    catalog.refresh().await?;
    Ok(())
}
