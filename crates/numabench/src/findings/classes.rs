//! Classes of a sampled matrix whose members disagreed (`class_asymmetry`
//! records): where the budget's allowance ran out before every member was
//! measured, an `over_budget` sentence says how many cells stayed
//! inferred, so an unfinished class is never taken for a measured one.

use super::figures::{of, param_u64};
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::UnfinishedClassParams;
use numabench_schema::params::to_params;

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    for matrix in [benchmark::MATRIX_LATENCY, benchmark::MATRIX_BANDWIDTH] {
        for record in of(records, matrix, "class_asymmetry") {
            let unfinished = param_u64(record, "unfinished").unwrap_or(0);
            if unfinished == 0 {
                continue;
            }
            let class = param_u64(record, "cell_class").unwrap_or(0);
            let cells = param_u64(record, "class_cells").unwrap_or(0);
            let params = to_params(&UnfinishedClassParams {
                benchmark: Some(matrix.to_string()),
                cell_class: Some(class),
                unfinished: Some(unfinished),
                class_cells: Some(cells),
            });
            sentences.push(Sentence {
                kind: FindingKind::OverBudget,
                text: format!(
                    "{matrix} class {class}: its members differ (up to {:.0}% from its representative), and {unfinished} of its {cells} cells could not be measured within the budget (inferred, marked *); --full-matrix or a larger --budget measures them",
                    record.value * 100.0
                ),
                value: unfinished as f64,
                unit: Unit::Count,
                params,
            });
        }
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Placement;
    use numabench_schema::Summary;
    use serde_json::json;

    /// An unfinished class's `over_budget` params on the wire; a finished
    /// one says nothing.
    #[test]
    fn an_unfinished_class_is_said_with_its_counts() {
        let class = |unfinished: u64| {
            let params = json!({"cell_class": 2, "class_cells": 8, "unfinished": unfinished});
            Record::of_median(
                benchmark::MATRIX_LATENCY,
                "class_asymmetry",
                Unit::Ratio,
                Summary::single(0.2),
                params.as_object().unwrap().clone(),
                Placement::default(),
            )
        };
        let found = sentences(&[class(3)]);
        crate::findings::assert_wire(&found, &[
            "over_budget {\"benchmark\":\"matrix-latency\",\"cell_class\":2,\"unfinished\":3,\"class_cells\":8}",
        ]);
        assert!(
            found[0].text.contains("3 of its 8 cells"),
            "{}",
            found[0].text
        );
        assert!(sentences(&[class(0)]).is_empty());
    }
}
