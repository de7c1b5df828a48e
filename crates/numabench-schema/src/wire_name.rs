//! A name on the wire read from a type's serde form, so an enum whose
//! variants are written as strings (a finding's kind, a doctor check's id)
//! spells each name once, in its `#[serde(rename...)]`.

use serde::de::value::{Error, StrDeserializer};
use serde::de::IntoDeserializer;
use serde::{Deserialize, Serialize};

/// The string `value` is written as (a unit variant's serialized name).
pub fn wire_name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// The value written as `name`, if `T` has one by that name.
pub fn from_wire_name<'a, T: Deserialize<'a>>(name: &'a str) -> Option<T> {
    let name: StrDeserializer<'a, Error> = name.into_deserializer();
    T::deserialize(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Shape {
        SlowNodePair,
        #[serde(rename = "GB/s")]
        Renamed,
    }

    /// Names come from the serde attributes, both ways.
    #[test]
    fn names_follow_serde() {
        assert_eq!(wire_name(&Shape::SlowNodePair), "slow_node_pair");
        assert_eq!(wire_name(&Shape::Renamed), "GB/s");
        assert_eq!(from_wire_name("slow_node_pair"), Some(Shape::SlowNodePair));
        assert_eq!(from_wire_name("GB/s"), Some(Shape::Renamed));
        assert_eq!(from_wire_name::<Shape>("SlowNodePair"), None);
    }
}
