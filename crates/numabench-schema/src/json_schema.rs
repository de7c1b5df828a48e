//! The JSON Schema of a results line (`docs/record.schema.json`),
//! generated from [`AnyLine`]: a version-2 record line (with `run`), or a
//! version-1 record or metadata line of a JSON Lines file (a JSON document's `metadata` and each of its `records` are
//! the same objects without `"type"`). A record's `params` are checked
//! against its benchmark's parameters where they are typed
//! ([`crate::params::typed_params_schemas`]): every record schema gets an
//! `if benchmark is B then params is B's` clause per typed benchmark.

use crate::params::{typed_params_schemas, Metrics, TypedParamsSchema};
use crate::AnyLine;
use schemars::generate::SchemaSettings;
use serde_json::{json, Value};

/// Where the schema is shipped, from the workspace root.
pub const SCHEMA_PATH: &str = "docs/record.schema.json";

/// The schema as shipped: pretty-printed JSON and a final newline.
pub fn results_line_schema() -> String {
    let mut generator = SchemaSettings::default().into_generator();
    let typed = typed_params_schemas(&mut generator);
    let mut schema = generator.into_root_schema_for::<AnyLine>();
    let clauses: Vec<Value> = typed.into_iter().map(clause).collect();
    if let Some(definitions) = schema.get_mut("$defs") {
        add_params_clauses(definitions, &clauses);
    }
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is JSON");
    text.push('\n');
    text
}

/// `if benchmark is B (and its metric is one the type claims) then params
/// is B's`.
fn clause(typed: TypedParamsSchema) -> Value {
    let mut condition = json!({
        "properties": {"benchmark": {"const": typed.benchmark}},
        "required": ["benchmark"]
    });
    let pattern = |metrics: Metrics| json!({"pattern": metrics.pattern()});
    let metric = match typed.metrics {
        Metrics::Others if typed.claimed_by_others.is_empty() => None,
        Metrics::Others => Some(json!({"not": {"anyOf": typed
            .claimed_by_others
            .iter()
            .map(|metrics| pattern(*metrics))
            .collect::<Vec<_>>()}})),
        claimed => Some(pattern(claimed)),
    };
    if let Some(metric) = metric {
        condition["properties"]["metric"] = metric;
        condition["required"] = json!(["benchmark", "metric"]);
    }
    json!({"if": condition, "then": {"properties": {"params": typed.schema}}})
}

/// Adds `clauses` (`allOf`) to every object schema under `value` that
/// has both `benchmark` and `params` properties: a record, flattened into
/// each kind of line.
fn add_params_clauses(value: &mut Value, clauses: &[Value]) {
    match value {
        Value::Object(object) => {
            let is_record = object.get("properties").is_some_and(|properties| {
                properties.get("benchmark").is_some() && properties.get("params").is_some()
            });
            if is_record && !clauses.is_empty() {
                object.insert("allOf".into(), Value::Array(clauses.to_vec()));
                return;
            }
            object
                .values_mut()
                .for_each(|inner| add_params_clauses(inner, clauses));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|inner| add_params_clauses(inner, clauses)),
        _ => {}
    }
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
