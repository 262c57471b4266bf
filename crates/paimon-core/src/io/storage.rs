//! Location parsing and store construction per scheme.

use std::collections::HashMap;
use std::sync::Arc;

use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::ObjectStore;

use crate::{Error, Result};

/// Where a location lives: the store key (scheme + authority) and the path inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    /// `file` or `scheme://authority`.
    pub store_key: String,
    pub scheme: String,
    pub authority: String,
    pub path: Path,
}

/// Whether `location` is on local disk (an absolute path or a `file:` URI). A location that
/// does not parse is not.
pub fn is_local_location(location: &str) -> bool {
    parse_location(location).is_ok_and(|l| l.scheme == "file")
}

/// Parses a location string; local paths must be absolute.
pub(crate) fn parse_location(location: &str) -> Result<Location> {
    let invalid = |why: &str| {
        Error::invalid_argument(format!("invalid location: {why}"))
            .with_context("location", location)
    };
    let (scheme, rest) = match location.split_once(':') {
        Some((s, r))
            if s.len() > 1
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.') =>
        {
            (s.to_ascii_lowercase(), r)
        }
        _ => ("file".to_string(), location),
    };
    if scheme == "file" {
        let p = rest.strip_prefix("//").map_or(rest, |r| {
            // file://host/path: only an empty or localhost authority is local.
            match r.find('/') {
                Some(i) if r[..i].is_empty() || r[..i] == *"localhost" => &r[i..],
                _ => r,
            }
        });
        if !p.starts_with('/') {
            return Err(invalid("a local path must be absolute"));
        }
        let path = Path::parse(normalize(p)).map_err(|e| invalid(&e.to_string()))?;
        return Ok(Location {
            store_key: "file".into(),
            scheme,
            authority: String::new(),
            path,
        });
    }
    let r = rest
        .strip_prefix("//")
        .ok_or_else(|| invalid("expected scheme://authority/path"))?;
    let (authority, p) = r.split_once('/').unwrap_or((r, ""));
    let path = Path::parse(p).map_err(|e| invalid(&e.to_string()))?;
    Ok(Location {
        store_key: format!("{scheme}://{authority}"),
        scheme,
        authority: authority.to_string(),
        path,
    })
}

/// Resolves `.` and `..` segments of an absolute local path lexically; drops empty segments.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// Builds the store for a parsed location.
pub(crate) fn build_store(
    loc: &Location,
    options: &HashMap<String, String>,
) -> Result<Arc<dyn ObjectStore>> {
    let _ = options;
    match loc.scheme.as_str() {
        "file" => Ok(Arc::new(LocalFileSystem::new())),
        #[cfg(feature = "s3")]
        "s3" | "s3a" | "s3n" | "oss" => {
            let mut b = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(&loc.authority);
            for (k, v) in options {
                let key = match k.as_str() {
                    "s3.endpoint" | "fs.s3a.endpoint" => "aws_endpoint",
                    "s3.access-key" | "fs.s3a.access.key" => "aws_access_key_id",
                    "s3.secret-key" | "fs.s3a.secret.key" => "aws_secret_access_key",
                    "s3.region" | "fs.s3a.endpoint.region" => "aws_region",
                    "s3.session-token" => "aws_session_token",
                    "s3.path-style-access" | "fs.s3a.path.style.access" => "aws_virtual_hosted_style_request",
                    _ => continue,
                };
                let value = if key == "aws_virtual_hosted_style_request" {
                    if v == "true" { "false".to_string() } else { "true".to_string() }
                } else {
                    v.clone()
                };
                if let Ok(ck) = key.parse::<object_store::aws::AmazonS3ConfigKey>() {
                    b = b.with_config(ck, value);
                }
            }
            Ok(Arc::new(b.build()?))
        }
        #[cfg(feature = "gcs")]
        "gs" | "gcs" => Ok(Arc::new(
            object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&loc.authority)
                .build()?,
        )),
        #[cfg(feature = "azure")]
        "az" | "abfs" | "abfss" | "wasb" | "wasbs" => {
            let container = loc.authority.split('@').next().unwrap_or_default();
            Ok(Arc::new(
                object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_container_name(container)
                    .build()?,
            ))
        }
        other => Err(Error::unsupported(format!(
            "storage scheme '{other}' is not supported by this build (enable the s3, gcs or azure feature)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_local_forms() {
        for s in [
            "/tmp/a/b",
            "file:/tmp/a/b",
            "FILE:/tmp/a/b",
            "file:///tmp/a/b",
        ] {
            let l = parse_location(s).unwrap();
            assert_eq!(l.store_key, "file", "{s}");
            assert_eq!(l.path.as_ref(), "tmp/a/b", "{s}");
        }
        assert!(parse_location("relative/path").is_err());
        let l = parse_location("/a/b/../c/./d//e").unwrap();
        assert_eq!(l.path.as_ref(), "a/c/d/e");
    }

    #[test]
    fn parses_object_store_urls() {
        let l = parse_location("s3://bucket/wh/db.db/t").unwrap();
        assert_eq!(l.store_key, "s3://bucket");
        assert_eq!(l.path.as_ref(), "wh/db.db/t");
        assert!(build_store(&parse_location("foo://x/y").unwrap(), &HashMap::new()).is_err());
    }

    #[test]
    fn local_locations_are_told_apart() {
        for s in ["/tmp/a", "file:/tmp/a", "file:///tmp/a"] {
            assert!(is_local_location(s), "{s}");
        }
        for s in ["s3://bucket/wh", "memory:///wh", "relative/path", ""] {
            assert!(!is_local_location(s), "{s}");
        }
    }
}
