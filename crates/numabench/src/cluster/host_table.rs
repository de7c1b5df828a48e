//! The host table `cluster` ends with: a row per host, a column per
//! compared metric (`params.cluster_key`), and the host's flags (outlier
//! metrics, differing settings, failure); flagged hosts first.

use super::tags;
use super::verdict::ClusterVerdict;
use crate::output::tables::TableModel;
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::ClusterLabels;

/// The host table of the tagged records rank 0 gathered and its verdict.
pub fn host_table(records: &[Record], verdict: &ClusterVerdict) -> TableModel {
    // Each record's labels, read once.
    let labelled: Vec<(ClusterLabels, &Record)> = records
        .iter()
        .map(|record| (tags::labels(record), record))
        .collect();
    let mut hosts: Vec<String> = Vec::new();
    let mut keys: Vec<(String, &'static str)> = Vec::new();
    for (labels, record) in &labelled {
        let Some(host) = &labels.host else {
            continue;
        };
        if !hosts.contains(host) {
            hosts.push(host.clone());
        }
        if let Some(key) = &labels.cluster_key {
            if !keys.iter().any(|(known, _)| known == key) {
                keys.push((key.clone(), record.unit.as_str()));
            }
        }
    }
    for failure in &verdict.failures {
        if !hosts.contains(&failure.host) {
            hosts.push(failure.host.clone());
        }
    }
    let mut header = vec!["host".to_string()];
    header.extend(keys.iter().map(|(key, unit)| format!("{key} {unit}")));
    header.push("flags".to_string());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = TableModel::new("Hosts, flagged first (! = outlier figure)", &header);
    let mut rows: Vec<(bool, Vec<String>)> = Vec::new();
    for host in &hosts {
        let mut row = vec![host.clone()];
        for (key, _) in &keys {
            let values: Vec<f64> = labelled
                .iter()
                .filter(|(labels, _)| {
                    labels.host.as_ref() == Some(host) && labels.cluster_key.as_ref() == Some(key)
                })
                .map(|(_, record)| record.value)
                .collect();
            let outlier = verdict
                .outliers
                .iter()
                .any(|finding| finding.host == *host && finding.key == *key);
            let mark = if outlier { " !" } else { "" };
            row.push(match values.as_slice() {
                [] => "-".to_string(),
                [one] => format!("{}{mark}", format_value(*one)),
                many => {
                    let low = many.iter().copied().fold(f64::INFINITY, f64::min);
                    let high = many.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    format!("{}-{}{mark}", format_value(low), format_value(high))
                }
            });
        }
        let mut flags = Vec::new();
        let outliers = verdict.outliers.iter().filter(|o| o.host == *host).count();
        if outliers > 0 {
            flags.push(format!("{outliers} outlier(s)"));
        }
        for difference in verdict.differences.iter().filter(|d| d.host == *host) {
            flags.push(format!("differs: {}", difference.setting));
        }
        if verdict.failures.iter().any(|failure| failure.host == *host) {
            flags.push("FAILED".to_string());
        }
        row.push(flags.join(", "));
        rows.push((!flags.is_empty(), row));
    }
    // Flagged first; the order hosts were seen in otherwise (stable sort).
    rows.sort_by_key(|(flagged, _)| !flagged);
    for (_, row) in rows {
        table.push(row);
    }
    table.note("a range where a host has several units or targets of one metric (--per numa)");
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::verdict::fixtures::four_hosts_one_slow;
    use crate::cluster::{analyze, OutlierRule};

    /// Golden: the slow host comes first with its figures marked, the
    /// others after in the order they were seen.
    #[test]
    fn flagged_hosts_come_first() {
        let records = four_hosts_one_slow();
        let verdict = analyze(&records, Vec::new(), Vec::new(), &OutlierRule::default());
        assert_eq!(
            host_table(&records, &verdict).plain(),
            "\
Hosts, flagged first (! = outlier figure)
host | triad node 0 GB/s | latency local ns | flags
c | 3.00 ! | 300.0 ! | 2 outlier(s)
a | 10.00 | 90.00 | 
b | 10.20 | 91.00 | 
d | 9.90 | 89.00 | 
a range where a host has several units or targets of one metric (--per numa)
"
        );
    }
}
