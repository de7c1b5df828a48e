//! Typed parameters: the `params` of a registry benchmark's records as one
//! Rust type per benchmark ([`BenchmarkParams`]), written through
//! [`to_params`] and read back with [`crate::Record::params_as`]. The wire
//! stays an open JSON object ([`crate::Record::params`]): plugins and the
//! benchmarks not typed yet still write maps, and a writer may put keys of
//! its own before a typed value's (a matrix cell's labels) or after it (a
//! step's `cpu_order`, a cluster rank's `host`). The JSON Schema names each
//! typed benchmark's parameters ([`typed_params_schemas`]).

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

/// The parameters of a benchmark's records, typed. The field order is the
/// order of the keys on the wire.
pub trait BenchmarkParams: Serialize + DeserializeOwned + JsonSchema {
    /// The `benchmark` names whose records carry these parameters (and
    /// perhaps keys of their own besides).
    const BENCHMARKS: &'static [&'static str];
    /// Which of those benchmarks' records: by default those no other type
    /// of the benchmark claims by metric (derived records, such as the
    /// node-median ratios, or the MPI monitor's per-host records, claim
    /// theirs).
    const METRICS: Metrics = Metrics::Others;
}

/// Which of a benchmark's records a parameters type covers, by metric.
/// The names are plain words (letters, digits, `_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metrics {
    /// Those no other type of the benchmark claims.
    Others,
    /// Those whose metric ends with this.
    EndingWith(&'static str),
    /// Those whose metric starts with this.
    StartingWith(&'static str),
    /// These metrics.
    Named(&'static [&'static str]),
}

impl Metrics {
    /// Whether `metric` is one of these; `None` for [`Metrics::Others`],
    /// which depends on the other types.
    pub fn claims(self, metric: &str) -> Option<bool> {
        match self {
            Metrics::Others => None,
            Metrics::EndingWith(suffix) => Some(metric.ends_with(suffix)),
            Metrics::StartingWith(prefix) => Some(metric.starts_with(prefix)),
            Metrics::Named(names) => Some(names.contains(&metric)),
        }
    }

    /// The regular expression (ECMA 262, as JSON Schema's `pattern`) of
    /// the metrics claimed; `None` for [`Metrics::Others`].
    pub fn pattern(self) -> Option<String> {
        let words: Vec<&str> = match self {
            Metrics::Others => return None,
            Metrics::EndingWith(word) | Metrics::StartingWith(word) => vec![word],
            Metrics::Named(names) => names.to_vec(),
        };
        for word in &words {
            assert!(
                !word.is_empty()
                    && word
                        .bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_'),
                "a metric name in a pattern is a plain word: {word:?}"
            );
        }
        Some(match self {
            Metrics::EndingWith(suffix) => format!("{suffix}$"),
            Metrics::StartingWith(prefix) => format!("^{prefix}"),
            _ => format!("^({})$", words.join("|")),
        })
    }
}

/// One typed parameters schema and the records it covers: those of
/// `benchmark` that `metrics` claims, or, for [`Metrics::Others`], those
/// none of `claimed_by_others` claims.
#[derive(Debug, Clone)]
pub struct TypedParamsSchema {
    pub benchmark: &'static str,
    pub metrics: Metrics,
    pub claimed_by_others: Vec<Metrics>,
    /// A reference into the generator's definitions.
    pub schema: Schema,
}

/// `params` as written: `value`'s fields (a typed benchmark's params, or
/// a part of them) as a JSON object, in field order, absent options left
/// out.
pub fn to_params<T: Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        // A struct of plain fields always serializes to an object.
        other => unreachable!("parameters serialize to an object: {other:?}"),
    }
}

/// `labels` (a caller's keys, first) then `value`'s fields: a label keeps
/// its place, with `value`'s figure where both have the key
/// (`serde_json::Map` keeps insertion order).
pub fn to_labelled_params<T: Serialize>(
    labels: &Map<String, Value>,
    value: &T,
) -> Map<String, Value> {
    let mut params = labels.clone();
    params.extend(to_params(value));
    params
}

impl crate::Record {
    /// `params` read as `T`; an error when a field `T` requires is absent
    /// or of another type (keys `T` does not know are ignored).
    pub fn params_as<T: BenchmarkParams>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(Value::Object(self.params.clone()))
    }

    /// `params` read as `T` for a reader: a key of another type than `T`
    /// says (a record written by hand, or by another tool) reads as
    /// absent, the others as they are, as a reader of single keys would
    /// take them.
    pub fn params_or_default<T: BenchmarkParams + Default>(&self) -> T {
        if let Ok(params) = self.params_as() {
            return params;
        }
        // Key by key, keeping each that still reads.
        let mut kept = Map::new();
        let mut params = T::default();
        for (name, value) in &self.params {
            kept.insert(name.clone(), value.clone());
            match serde_json::from_value(Value::Object(kept.clone())) {
                Ok(read) => params = read,
                Err(_) => {
                    kept.remove(name);
                }
            }
        }
        params
    }
}

/// Each typed benchmark's parameters schema (a reference into
/// `generator`'s definitions), by benchmark name and metric suffix.
pub fn typed_params_schemas(generator: &mut SchemaGenerator) -> Vec<TypedParamsSchema> {
    let mut schemas = Vec::new();
    add::<super::LatencyParams>(generator, &mut schemas);
    add::<super::CompareRatioParams>(generator, &mut schemas);
    add::<super::CompareUnmatchedParams>(generator, &mut schemas);
    add::<super::BandwidthParams>(generator, &mut schemas);
    add::<super::C2cParams>(generator, &mut schemas);
    add::<super::MlpParams>(generator, &mut schemas);
    add::<super::LoadedLatencyParams>(generator, &mut schemas);
    add::<super::NodeMedianRatioParams>(generator, &mut schemas);
    add::<super::MonitorRankParams>(generator, &mut schemas);
    add::<super::MonitorBufferParams>(generator, &mut schemas);
    add::<super::MonitorHostParams>(generator, &mut schemas);
    add::<super::MonitorCallParams>(generator, &mut schemas);
    add::<super::MonitorPopParams>(generator, &mut schemas);
    add::<super::MatrixCellParams>(generator, &mut schemas);
    add::<super::MatrixAsymmetryParams>(generator, &mut schemas);
    add::<super::ContentionParams>(generator, &mut schemas);
    add::<super::ContentionRatioParams>(generator, &mut schemas);
    add::<super::ScalingParams>(generator, &mut schemas);
    add::<super::EachCpuParams>(generator, &mut schemas);
    add::<super::CacheStateParams>(generator, &mut schemas);
    add::<super::InterferenceParams>(generator, &mut schemas);
    add::<super::InterferenceCellParams>(generator, &mut schemas);
    add::<super::ScanRangeParams>(generator, &mut schemas);
    add::<super::ScanNodeRangesParams>(generator, &mut schemas);
    add::<super::TiersParams>(generator, &mut schemas);
    add::<super::TiersAdviceParams>(generator, &mut schemas);
    add::<super::TiersWeightsCheckParams>(generator, &mut schemas);
    add::<super::RunParams>(generator, &mut schemas);
    add::<super::RunSummaryParams>(generator, &mut schemas);
    add::<super::ScanRatioParams>(generator, &mut schemas);
    // `cluster`'s records and the health check's (`check`).
    add::<super::ClusterOutlierParams>(generator, &mut schemas);
    add::<super::DifferingSettingParams>(generator, &mut schemas);
    add::<super::ClusterFailureParams>(generator, &mut schemas);
    add::<super::BaselineProblemParams>(generator, &mut schemas);
    add::<super::ClusterVerdictParams>(generator, &mut schemas);
    add::<super::ClusterTopoParams>(generator, &mut schemas);
    add::<super::PingpongPairParams>(generator, &mut schemas);
    add::<super::PingpongBestPartnerParams>(generator, &mut schemas);
    add::<super::CheckItemParams>(generator, &mut schemas);
    add::<super::NodeTypeParams>(generator, &mut schemas);
    add::<super::CheckPlanParams>(generator, &mut schemas);
    // The applications' records, their studies, over-decomposition.
    add::<super::AppParams>(generator, &mut schemas);
    add::<super::AppScalingParams>(generator, &mut schemas);
    add::<super::StudyVerdictParams>(generator, &mut schemas);
    add::<super::OverdecomposeParams>(generator, &mut schemas);
    add::<super::OverdecomposeRunParams>(generator, &mut schemas);
    add::<super::OverdecomposeCalibrationParams>(generator, &mut schemas);
    // The findings (`summary` records), one type per kind of finding.
    add::<super::findings::IdleLatencyParams>(generator, &mut schemas);
    add::<super::findings::MemoryLatencyParams>(generator, &mut schemas);
    add::<super::findings::MemoryBandwidthParams>(generator, &mut schemas);
    add::<super::findings::BandwidthSaturationParams>(generator, &mut schemas);
    add::<super::findings::SerialInitParams>(generator, &mut schemas);
    add::<super::findings::CpulessNodeParams>(generator, &mut schemas);
    add::<super::findings::SlowNodeParams>(generator, &mut schemas);
    add::<super::findings::SlowCpuParams>(generator, &mut schemas);
    add::<super::findings::SlowNodePairParams>(generator, &mut schemas);
    add::<super::findings::DeclaredMismatchParams>(generator, &mut schemas);
    add::<super::findings::DeclaredGapParams>(generator, &mut schemas);
    add::<super::findings::MlpFindingParams>(generator, &mut schemas);
    add::<super::findings::C2cFindingParams>(generator, &mut schemas);
    add::<super::findings::HugePagesParams>(generator, &mut schemas);
    add::<super::findings::PlacementVerifiedParams>(generator, &mut schemas);
    add::<super::findings::InterferenceFindingParams>(generator, &mut schemas);
    add::<super::findings::DoctorWarningParams>(generator, &mut schemas);
    add::<super::findings::AdviceParams>(generator, &mut schemas);
    add::<super::findings::BudgetCutParams>(generator, &mut schemas);
    add::<super::findings::BudgetParams>(generator, &mut schemas);
    add::<super::findings::UnfinishedClassParams>(generator, &mut schemas);
    add::<super::findings::RunTimeParams>(generator, &mut schemas);
    // The type of a benchmark's other records leaves out those the
    // benchmark's other types claim.
    let claimed: Vec<(&str, Metrics)> = schemas
        .iter()
        .filter(|typed| typed.metrics != Metrics::Others)
        .map(|typed| (typed.benchmark, typed.metrics))
        .collect();
    for typed in schemas
        .iter_mut()
        .filter(|typed| typed.metrics == Metrics::Others)
    {
        typed.claimed_by_others = claimed
            .iter()
            .filter(|(benchmark, _)| *benchmark == typed.benchmark)
            .map(|(_, metrics)| *metrics)
            .collect();
    }
    schemas
}

/// `T`'s schema under each of its benchmarks' names.
fn add<T: BenchmarkParams>(generator: &mut SchemaGenerator, schemas: &mut Vec<TypedParamsSchema>) {
    let schema = generator.subschema_for::<T>();
    for &benchmark in T::BENCHMARKS {
        schemas.push(TypedParamsSchema {
            benchmark,
            metrics: T::METRICS,
            claimed_by_others: Vec::new(),
            schema: schema.clone(),
        });
    }
}

/// Test helper: `params` read as `T` and written again are the same
/// text (same keys, same order, integers and floats as they were).
#[cfg(test)]
pub(crate) fn assert_round_trips<T: BenchmarkParams>(params: Value) {
    let typed: T = serde_json::from_value(params.clone()).unwrap();
    assert_eq!(
        Value::Object(to_params(&typed)).to_string(),
        params.to_string()
    );
}
