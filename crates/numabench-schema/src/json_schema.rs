//! The JSON Schema of a results line (`docs/record.schema.json`),
//! generated from [`AnyLine`]: a version-2 record line (with `run`), or a
//! version-1 record or metadata line of a JSON Lines file (a JSON document's `metadata` and each of its `records` are
//! the same objects without `"type"`).

use crate::AnyLine;

/// Where the schema is shipped, from the workspace root.
pub const SCHEMA_PATH: &str = "docs/record.schema.json";

/// The schema as shipped: pretty-printed JSON and a final newline.
pub fn results_line_schema() -> String {
    let schema = schemars::schema_for!(AnyLine);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is JSON");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The shipped file is the generated one; `NUMABENCH_BLESS=1` writes it.
    #[test]
    fn the_shipped_schema_is_the_generated_one() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(SCHEMA_PATH);
        let generated = results_line_schema();
        if std::env::var_os("NUMABENCH_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let shipped = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            shipped == generated,
            "{SCHEMA_PATH} differs from the types' schema; regenerate it with \
             `NUMABENCH_BLESS=1 cargo test -p numabench-schema` and commit it"
        );
    }

    #[test]
    fn the_schema_names_both_kinds_of_line() {
        let schema: serde_json::Value = serde_json::from_str(&results_line_schema()).unwrap();
        let text = schema.to_string();
        for needle in [
            "\"metadata\"",
            "\"record\"",
            "\"run\"",
            "schema_version",
            "placement",
            "GB/s",
        ] {
            assert!(text.contains(needle), "{needle} missing: {text}");
        }
    }
}
