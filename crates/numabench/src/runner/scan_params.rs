//! Parameter scans of `numabench run --param NAME=V1,V2,...` (like hyperfine's
//! `--parameter-list`): the parameters, their `{NAME}` placeholders in the
//! command, and the configurations they span (the cartesian product).
//!
//! Everything is checked before anything runs: a malformed parameter, a name
//! given twice, a placeholder naming no parameter and a parameter the command
//! never uses are each one error naming the bad value.

use std::collections::BTreeSet;
use thiserror::Error;

/// One `--param NAME=V1,V2,...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanParam {
    pub name: String,
    /// In the order given.
    pub values: Vec<String>,
}

/// One configuration of a scan: a value for every parameter, and the command
/// with its placeholders replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanPoint {
    /// `(name, value)` in the order the parameters were given.
    pub values: Vec<(String, String)>,
    pub command: Vec<String>,
}

impl ScanPoint {
    /// `t=4, n=2`: how the configuration is named in tables and messages.
    pub fn label(&self) -> String {
        self.values
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A scan that cannot run.
///
/// Always the user's fault (the `--param` flags and the command).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScanError {
    #[error("--param '{param}': expected NAME=V1,V2,... (no '=')")]
    NoEquals { param: String },
    #[error(
        "--param '{param}': the name must be letters, digits and '_', not starting with a digit"
    )]
    BadName { param: String },
    #[error("--param '{param}': empty list of values")]
    NoValues { param: String },
    #[error("--param '{param}': empty value in the list")]
    EmptyValue { param: String },
    #[error("--param '{0}': value '{1}' given twice")]
    DuplicateValue(String, String),
    #[error("--param '{0}': the parameter '{1}' is given twice")]
    DuplicateName(String, String),
    #[error("placeholder '{{{0}}}' in the command names no --param (given: {1})")]
    UnknownPlaceholder(String, String),
    #[error("--param '{name}' is never used: the command has no '{{{name}}}' placeholder")]
    Unused { name: String },
}

crate::error::all_faulty!(Usage: ScanError);

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses `NAME=V1,V2,...`.
pub fn parse_param(text: &str) -> Result<ScanParam, ScanError> {
    let Some((name, list)) = text.split_once('=') else {
        return Err(ScanError::NoEquals {
            param: text.to_string(),
        });
    };
    if !is_name(name) {
        return Err(ScanError::BadName {
            param: text.to_string(),
        });
    }
    if list.trim().is_empty() {
        return Err(ScanError::NoValues {
            param: text.to_string(),
        });
    }
    let mut values: Vec<String> = Vec::new();
    for value in list.split(',') {
        if value.is_empty() {
            return Err(ScanError::EmptyValue {
                param: text.to_string(),
            });
        }
        if values.iter().any(|seen| seen == value) {
            return Err(ScanError::DuplicateValue(
                text.to_string(),
                value.to_string(),
            ));
        }
        values.push(value.to_string());
    }
    Ok(ScanParam {
        name: name.to_string(),
        values,
    })
}

/// The names of the `{NAME}` placeholders in `text` (braces around anything
/// that is not a name, such as awk's `{print $1}`, are left alone).
fn placeholders(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_name(&after[..close]) => {
                found.push(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    found
}

/// Replaces every `{NAME}` of `values` in `text`.
fn substitute(text: &str, values: &[(String, String)]) -> String {
    values.iter().fold(text.to_string(), |text, (name, value)| {
        text.replace(&format!("{{{name}}}"), value)
    })
}

/// Parses every `--param` and checks them against the command.
pub fn parse_scan(texts: &[String], command: &[String]) -> Result<Vec<ScanParam>, ScanError> {
    let mut params: Vec<ScanParam> = Vec::new();
    for text in texts {
        let param = parse_param(text)?;
        if params.iter().any(|seen| seen.name == param.name) {
            return Err(ScanError::DuplicateName(text.clone(), param.name));
        }
        params.push(param);
    }
    let used: BTreeSet<&str> = command.iter().flat_map(|arg| placeholders(arg)).collect();
    let names: Vec<&str> = params.iter().map(|param| param.name.as_str()).collect();
    if let Some(unknown) = used.iter().find(|name| !names.contains(name)) {
        return Err(ScanError::UnknownPlaceholder(
            unknown.to_string(),
            names.join(", "),
        ));
    }
    if let Some(unused) = names.iter().find(|name| !used.contains(*name)) {
        return Err(ScanError::Unused {
            name: unused.to_string(),
        });
    }
    Ok(params)
}

/// Every configuration, the first parameter varying slowest (as nested loops
/// in the order given).
pub fn scan_points(params: &[ScanParam], command: &[String]) -> Vec<ScanPoint> {
    let mut combinations: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for param in params {
        combinations = combinations
            .into_iter()
            .flat_map(|prefix| {
                param.values.iter().map(move |value| {
                    let mut values = prefix.clone();
                    values.push((param.name.clone(), value.clone()));
                    values
                })
            })
            .collect();
    }
    combinations
        .into_iter()
        .map(|values| ScanPoint {
            command: command.iter().map(|arg| substitute(arg, &values)).collect(),
            values,
        })
        .collect()
}

/// The worker counts of a one-parameter scan whose values are all positive
/// numbers (`None` otherwise): speedup and parallel efficiency are computed
/// only then, the parameter taken to be a number of threads or ranks.
pub fn numeric_values(params: &[ScanParam]) -> Option<Vec<f64>> {
    let [param] = params else { return None };
    param
        .values
        .iter()
        .map(|value| {
            value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|number| number.is_finite() && *number > 0.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn cartesian_product_substitutes_every_placeholder() {
        let command = strings(&["env", "T={t}", "prog", "-n", "{n}x{t}", "{print $1}"]);
        let params = parse_scan(&strings(&["t=1,2", "n=a,b,c"]), &command).unwrap();
        let points = scan_points(&params, &command);
        assert_eq!(points.len(), 6);
        assert_eq!(points[0].label(), "t=1, n=a");
        assert_eq!(points[5].label(), "t=2, n=c");
        assert_eq!(
            points[4].command,
            strings(&["env", "T=2", "prog", "-n", "bx2", "{print $1}"])
        );
    }

    #[test]
    fn numeric_only_for_one_numeric_parameter() {
        let param = |text: &str| parse_param(text).unwrap();
        assert_eq!(
            numeric_values(&[param("t=1,2,4")]),
            Some(vec![1.0, 2.0, 4.0])
        );
        assert_eq!(numeric_values(&[param("t=1,x")]), None);
        assert_eq!(numeric_values(&[param("t=0,1")]), None);
        assert_eq!(numeric_values(&[param("t=1"), param("n=2")]), None);
    }

    #[test]
    fn bad_scans_are_refused_naming_the_value() {
        let command = strings(&["prog", "{t}"]);
        for (texts, expected) in [
            (&["t"][..], "--param 't': expected NAME=V1,V2,..."),
            (&["t="], "--param 't=': empty list"),
            (&["t=1,,2"], "empty value"),
            (&["t=1,1"], "value '1' given twice"),
            (&["1t=1"], "--param '1t=1': the name"),
            (&["t=1", "t=2"], "'t' is given twice"),
            (
                &["u=1"],
                "placeholder '{t}' in the command names no --param",
            ),
            (&["t=1", "u=1"], "--param 'u' is never used"),
        ] {
            let error = parse_scan(&strings(texts), &command)
                .unwrap_err()
                .to_string();
            assert!(error.contains(expected), "{texts:?}: {error}");
        }
    }
}
