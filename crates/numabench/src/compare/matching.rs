//! Matching records across result sets by [`MeasurementKey`].

use super::by_role::MatchBy;
use super::key::MeasurementKey;
use crate::output::Record;
use crate::stats::Sample;
use crate::study;
use std::collections::HashMap;

/// One result set: a file's records, named after the file.
#[derive(Debug, Clone)]
pub struct ResultSet {
    pub name: String,
    pub records: Vec<Record>,
    /// The machine the set's metadata names (host, CPU model, topology),
    /// None when the file has no metadata; [`MatchBy::choose`] reads it.
    pub machine: Option<String>,
}

/// One measurement in one set.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The record's value; for several records of the key (repetitions),
    /// the median of their values.
    pub value: f64,
    /// Every record's value, in file order (one per repetition).
    pub values: Vec<f64>,
}

impl Figure {
    pub(super) fn of(values: Vec<f64>) -> Self {
        let value = match Sample::new(values.iter().copied()) {
            Ok(sample) if values.len() > 1 => sample.median(),
            _ => values[0],
        };
        Self { value, values }
    }
}

/// A measurement found in every set.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchedFigure {
    pub key: MeasurementKey,
    /// One figure per set, in the order the sets were given.
    pub figures: Vec<Figure>,
}

impl MatchedFigure {
    /// Set `index`'s value over the first set's (None when the first is 0).
    pub fn ratio(&self, index: usize) -> Option<f64> {
        let base = self.figures[0].value;
        (base != 0.0).then(|| self.figures[index].value / base)
    }

    /// [`MatchedFigure::ratio`] as a table cell: `1.23x` with `digits`
    /// decimals, `n/a` without a ratio.
    pub fn ratio_text(&self, index: usize, digits: usize) -> String {
        self.ratio(index)
            .map_or("n/a".into(), |ratio| format!("{ratio:.digits$}x"))
    }

    /// Two-sided Mann-Whitney p-value of set `index`'s repetitions against
    /// the first set's; None unless both have at least two. (Matched by
    /// role, a figure's values are different measurements, not
    /// repetitions: the comparison gives no p-value there.)
    pub fn p_value(&self, index: usize) -> Option<f64> {
        let sample = |figure: &Figure| {
            (figure.values.len() >= 2)
                .then(|| Sample::new(figure.values.iter().copied()).ok())
                .flatten()
        };
        let first = sample(&self.figures[0])?;
        let other = sample(&self.figures[index])?;
        Some(study::Comparison::between(&other, &first).p_value)
    }
}

/// Records of one set whose measurement is missing from another set.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmatched {
    /// Number of records.
    pub records: usize,
    /// Their measurements, in file order, each with its number of records.
    pub keys: Vec<(MeasurementKey, usize)>,
}

impl Unmatched {
    /// The unmatched measurements of one set, each with its record count.
    pub fn of(keys: Vec<(MeasurementKey, usize)>) -> Self {
        Unmatched {
            records: keys.iter().map(|(_, count)| count).sum(),
            keys,
        }
    }
}

/// Every set side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The sets' names, in the order given.
    pub sets: Vec<String>,
    /// How the records were matched.
    pub by: MatchBy,
    /// Measurements in every set, in the first set's order.
    pub matched: Vec<MatchedFigure>,
    /// Per set, what some other set lacks.
    pub unmatched: Vec<Unmatched>,
}

/// Groups a set's records by key, keeping the order of first appearance.
fn group(records: &[Record]) -> (Vec<MeasurementKey>, HashMap<String, Vec<f64>>) {
    let mut order = Vec::new();
    let mut values: HashMap<String, Vec<f64>> = HashMap::new();
    for record in records {
        let key = MeasurementKey::of(record);
        let entry = values.entry(key.identity()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(record.value);
    }
    (order, values)
}

/// Matches every set's records: a measurement is matched when every set
/// has it; the records of the others are counted as unmatched in their set.
pub fn compare(sets: &[ResultSet]) -> Comparison {
    let grouped: Vec<_> = sets.iter().map(|set| group(&set.records)).collect();
    let in_every_set = |identity: &str| {
        grouped
            .iter()
            .all(|(_, values)| values.contains_key(identity))
    };
    let matched = match grouped.first() {
        Some((order, _)) => order
            .iter()
            .filter(|key| in_every_set(&key.identity()))
            .map(|key| {
                let identity = key.identity();
                MatchedFigure {
                    key: key.clone(),
                    figures: grouped
                        .iter()
                        .map(|(_, values)| Figure::of(values[&identity].clone()))
                        .collect(),
                }
            })
            .collect(),
        None => Vec::new(),
    };
    let unmatched = grouped
        .iter()
        .map(|(order, values)| {
            let keys: Vec<(MeasurementKey, usize)> = order
                .iter()
                .filter(|key| !in_every_set(&key.identity()))
                .map(|key| (key.clone(), values[&key.identity()].len()))
                .collect();
            Unmatched::of(keys)
        })
        .collect();
    Comparison {
        sets: sets.iter().map(|set| set.name.clone()).collect(),
        by: MatchBy::Exact,
        matched,
        unmatched,
    }
}
