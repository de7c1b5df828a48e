//! Maps keyed by node number (`{"0": ..., "1": ...}` on the wire), or by
//! another number such as a thread id, read through their keys' text. serde_json reads such a key as a number
//! only when the map is read straight from the JSON: inside a struct that
//! is flattened into another (the counts in a run's params, an app's page
//! report), the keys reach the map as text, and a `u32` key refuses text.
//! The flattened struct then fails to read, and an `Option` of it reads
//! as `None`: the counts of a counted run vanished so.

use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;

/// `#[serde(deserialize_with = "node_keyed")]` for a `BTreeMap<u32, V>`.
pub(crate) fn node_keyed<'de, D, V>(deserializer: D) -> Result<BTreeMap<u32, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    BTreeMap::<String, V>::deserialize(deserializer)?
        .into_iter()
        .map(|(node, value)| {
            let node = node.parse().map_err(|_| {
                serde::de::Error::custom(format!("a number (node, thread) as a key, not {node:?}"))
            })?;
            Ok((node, value))
        })
        .collect()
}
