//! `numabench export-memattrs RESULTS -o FILE`: measured matrix figures as
//! custom memory attributes in the machine's hwloc XML.

use crate::args::ExportMemattrsArgs;
use crate::exit::{CliError, Status};
use numabench::memattrs::{
    export_memattrs, measured_pairs, BANDWIDTH_ATTRIBUTE, LATENCY_ATTRIBUTE,
};
use numabench::output::{read_results_file, Mode};
use std::fs;
use std::path::Path;

pub fn run(args: &ExportMemattrsArgs, topology_file: Option<&Path>) -> Result<Status, CliError> {
    let mut records = Vec::new();
    let mut names = Vec::new();
    for path in &args.inputs {
        let input = path.display().to_string();
        let results = read_results_file(path, Mode::Lenient)?;
        for note in &results.notes {
            eprintln!("numabench: note: {note}");
        }
        if topology_file.is_none() {
            refuse_other_hosts(&input, &results.metadata)?;
        }
        records.extend(results.into_records());
        names.push(input);
    }
    let pairs = measured_pairs(&records);
    let summary = export_memattrs(topology_file, &pairs, &names.join(", "), &args.output)?;
    println!(
        "wrote {}: {LATENCY_ATTRIBUTE} (ns) for {} and {BANDWIDTH_ATTRIBUTE} (MiB/s) for {} initiator x target pairs; read back with: lstopo --memattrs -i {}",
        args.output.display(),
        summary.latency_values,
        summary.bandwidth_values,
        args.output.display()
    );
    Ok(Status::Clean)
}

/// Results measured on another host cannot go into this machine's topology.
fn refuse_other_hosts(
    input: &str,
    metadata: &[(String, serde_json::Map<String, serde_json::Value>)],
) -> Result<(), CliError> {
    let here = fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_string())
        .unwrap_or_default();
    for (_, entry) in metadata {
        if let Some(host) = entry.get("host").and_then(|host| host.as_str()) {
            if !here.is_empty() && host != here {
                return Err(CliError::usage(format!(
                    "{input} was measured on host {host}, this is {here}: give that machine's topology with --topology FILE (lstopo --of xml there)"
                )));
            }
        }
    }
    Ok(())
}
