//! A record (or the run metadata) as flat `column -> cell` pairs, exactly
//! as `pandas.json_normalize` flattens the JSON Lines records, so that the
//! CSV and the JSON Lines load into the same table: nested objects become
//! dotted columns (`params.size_bytes`, `placement.requested.memory`),
//! top-level plain fields come first, then the nested ones in key order;
//! empty objects give no column; lists are JSON text; null is an empty
//! cell.

use serde_json::{Map, Value};

/// The columns and cells of one JSON object, in pandas' order.
pub fn flatten(object: &Map<String, Value>) -> Vec<(String, String)> {
    let mut cells: Vec<(String, String)> = object
        .iter()
        .filter(|(_, value)| !value.is_object())
        .map(|(key, value)| (key.clone(), cell(value)))
        .collect();
    for (key, value) in object {
        if let Value::Object(inner) = value {
            nested(key, inner, &mut cells);
        }
    }
    cells
}

fn nested(prefix: &str, object: &Map<String, Value>, cells: &mut Vec<(String, String)>) {
    for (key, value) in object {
        let column = format!("{prefix}.{key}");
        match value {
            Value::Object(inner) => nested(&column, inner, cells),
            other => cells.push((column, cell(other))),
        }
    }
}

/// One cell: strings as they are, null empty, lists and numbers as JSON.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flattens_like_json_normalize() {
        let object = json!({
            "benchmark": "latency",
            "params": {"cpus": [0, 1], "size": "1 GiB"},
            "value": 80.5,
            "placement": {"requested": {}, "verified": null, "status": {"state": "verified"}},
            "ok": true,
        });
        let cells = flatten(object.as_object().unwrap());
        let expected = [
            ("benchmark", "latency"),
            ("value", "80.5"),
            ("ok", "true"),
            ("params.cpus", "[0,1]"),
            ("params.size", "1 GiB"),
            ("placement.verified", ""),
            ("placement.status.state", "verified"),
        ];
        let cells: Vec<(&str, &str)> = cells
            .iter()
            .map(|(column, cell)| (column.as_str(), cell.as_str()))
            .collect();
        assert_eq!(cells, expected);
    }
}
