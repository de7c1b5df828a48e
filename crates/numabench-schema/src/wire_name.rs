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

/// An enum written as a string (`impl WireName for Kind {}`): its name
/// both ways, from its serde form.
pub trait WireName: Serialize + for<'a> Deserialize<'a> {
    /// The string it is written as.
    fn name(&self) -> String {
        wire_name(self)
    }

    /// The value written as `name`, if any.
    fn of_name(name: &str) -> Option<Self> {
        from_wire_name(name)
    }
}

/// `WireName` and `Display` (its name) for an enum written as a string:
/// `numabench_schema::wire_named!(CheckId);`.
#[macro_export]
macro_rules! wire_named {
    ($type:ty) => {
        impl $crate::WireName for $type {}

        impl std::fmt::Display for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&$crate::WireName::name(self))
            }
        }
    };
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

    crate::wire_named!(Shape);

    /// Names come from the serde attributes, both ways.
    #[test]
    fn names_follow_serde() {
        assert_eq!(wire_name(&Shape::SlowNodePair), "slow_node_pair");
        assert_eq!(wire_name(&Shape::Renamed), "GB/s");
        assert_eq!(from_wire_name("slow_node_pair"), Some(Shape::SlowNodePair));
        assert_eq!(from_wire_name("GB/s"), Some(Shape::Renamed));
        assert_eq!(from_wire_name::<Shape>("SlowNodePair"), None);
        assert_eq!(Shape::Renamed.name(), "GB/s");
        assert_eq!(Shape::SlowNodePair.to_string(), "slow_node_pair");
        assert_eq!(Shape::of_name("slow_node_pair"), Some(Shape::SlowNodePair));
    }
}
