//! Ground truth from sysfs: the guest kernel's view of its NUMA nodes, and
//! `numabench topo --json`, both checked against the topology QEMU was given.

use super::harness::{parse_cpulist, VmTopology};
use super::MIN_MEMORY_FRACTION;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// `node <i> <key> <value>` lines of [`super::SYSFS_DUMP`], as (node, key) -> value;
/// the `online` line is stored under node `u32::MAX`.
pub(crate) fn parse_sysfs(text: &str) -> BTreeMap<(u32, String), String> {
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let mut it = line.splitn(4, ' ');
        match (it.next(), it.next(), it.next(), it.next()) {
            (Some("online"), Some(v), _, _) => {
                map.insert((u32::MAX, "online".to_string()), v.to_string());
            }
            (Some("node"), Some(i), Some(k), v) => {
                if let Ok(i) = i.parse() {
                    map.insert((i, k.to_string()), v.unwrap_or("").trim().to_string());
                }
            }
            _ => {}
        }
    }
    map
}

pub(crate) fn memory_bounds(mib: u64) -> (u64, u64) {
    let max = mib << 20;
    ((max as f64 * MIN_MEMORY_FRACTION) as u64, max)
}

pub(crate) fn check_sysfs(topo: &VmTopology, text: &str) -> Vec<String> {
    let sys = parse_sysfs(text);
    let get = |i: u32, k: &str| sys.get(&(i, k.to_string())).cloned();
    let mut errors = Vec::new();
    let n = topo.nodes.len() as u32;
    let online = sys
        .get(&(u32::MAX, "online".to_string()))
        .map(|s| parse_cpulist(s));
    if online != Some(Ok((0..n).collect())) {
        errors.push(format!("online nodes: {online:?}, want 0..{n}"));
    }
    let visible = topo.visible_hmat();
    for (i, node) in topo.nodes.iter().enumerate() {
        let i = i as u32;
        let cpus = get(i, "cpulist").map(|s| parse_cpulist(&s));
        if cpus != Some(Ok(node.cpus.clone())) {
            errors.push(format!("node {i}: cpulist {cpus:?}, want {:?}", node.cpus));
        }
        let want_dist = match &topo.distances {
            Some(d) => d[i as usize]
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            // No SLIT: Linux reports 10 local, 20 remote.
            None => (0..n)
                .map(|j| if i == j { "10" } else { "20" })
                .collect::<Vec<_>>()
                .join(" "),
        };
        if get(i, "distance").as_deref() != Some(want_dist.as_str()) {
            errors.push(format!(
                "node {i}: distance {:?}, want {want_dist:?}",
                get(i, "distance")
            ));
        }
        let total = get(i, "memtotal_kb")
            .and_then(|s| s.parse::<u64>().ok())
            .map(|kb| kb * 1024);
        let (lo, hi) = memory_bounds(node.memory_mib);
        if !total.is_some_and(|t| (lo..=hi).contains(&t)) {
            errors.push(format!(
                "node {i}: MemTotal {total:?} bytes, want {lo}..={hi}"
            ));
        }
        let expect = visible.iter().find(|e| e.target == i);
        match expect {
            Some(e) => {
                let want_init = e.initiator.to_string();
                if get(i, "initiators").as_deref() != Some(want_init.as_str()) {
                    errors.push(format!(
                        "node {i}: access0 initiators {:?}, want {want_init:?}",
                        get(i, "initiators")
                    ));
                }
                for (k, want) in [
                    ("read_latency", e.latency_ns),
                    ("write_latency", e.latency_ns),
                    ("read_bandwidth", e.bandwidth_mib_s),
                    ("write_bandwidth", e.bandwidth_mib_s),
                ] {
                    let got = get(i, k).and_then(|s| s.parse::<u64>().ok());
                    if got != Some(want.unwrap_or(0)) {
                        errors.push(format!("node {i}: access0 {k} {got:?}, want {want:?}"));
                    }
                }
            }
            None => {
                for k in [
                    "read_latency",
                    "write_latency",
                    "read_bandwidth",
                    "write_bandwidth",
                ] {
                    if let Some(v) = get(i, k) {
                        if v != "0" {
                            errors.push(format!("node {i}: access0 {k} = {v}, want none"));
                        }
                    }
                }
            }
        }
    }
    errors
}

// ---------------------------------------------------------------------------
// `numabench topo --json` against the description
// ---------------------------------------------------------------------------

pub(crate) fn u64s(v: &Value) -> Option<Vec<u64>> {
    v.as_array()?.iter().map(Value::as_u64).collect()
}

pub(crate) fn u32s(v: &[u32]) -> Vec<u64> {
    v.iter().map(|&x| u64::from(x)).collect()
}

pub(crate) fn expect(errors: &mut Vec<String>, what: &str, got: &Value, want: Value) {
    if *got != want {
        errors.push(format!("{what}: got {got}, want {want}"));
    }
}

pub(crate) fn check_topo_json(
    topo: &VmTopology,
    j: &Value,
    sys: &BTreeMap<(u32, String), String>,
) -> Vec<String> {
    let mut errors: Vec<String> = Vec::new();
    let n = topo.nodes.len();
    let all_cpus: Vec<u64> = (0..u64::from(topo.cpu_count())).collect();
    let all_nodes: Vec<u64> = (0..n as u64).collect();

    expect(
        &mut errors,
        "schema_version",
        &j["schema_version"],
        Value::from(1),
    );
    expect(
        &mut errors,
        "cpu_count",
        &j["cpu_count"],
        Value::from(topo.cpu_count()),
    );
    expect(&mut errors, "node_count", &j["node_count"], Value::from(n));
    expect(
        &mut errors,
        "allowed.cpus",
        &j["allowed"]["cpus"],
        Value::from(all_cpus.clone()),
    );
    expect(
        &mut errors,
        "allowed.nodes",
        &j["allowed"]["nodes"],
        Value::from(all_nodes),
    );

    // Package of each node: that of its CPUs, or (HMAT) of its initiator.
    let node_package = |i: usize| -> Option<u32> {
        let node = &topo.nodes[i];
        let cpu = match node.cpus.first() {
            Some(&c) => c,
            None if topo.has_hmat() => *topo.nodes[topo.initiator_of(i as u32)? as usize]
                .cpus
                .first()?,
            None => return None,
        };
        topo.package_of_cpu(cpu)
    };

    // Nodes.
    let nodes = j["nodes"].as_array().cloned().unwrap_or_default();
    if nodes.len() != n {
        errors.push(format!("nodes: {} entries, want {n}", nodes.len()));
    }
    for (i, (node, want)) in nodes.iter().zip(&topo.nodes).enumerate() {
        let at = |k: &str| format!("nodes[{i}].{k}");
        expect(&mut errors, &at("index"), &node["index"], Value::from(i));
        expect(
            &mut errors,
            &at("cpus"),
            &node["cpus"],
            Value::from(u32s(&want.cpus)),
        );
        expect(
            &mut errors,
            &at("cpuless"),
            &node["cpuless"],
            Value::from(want.cpus.is_empty()),
        );
        let (lo, hi) = memory_bounds(want.memory_mib);
        match node["memory_total_bytes"].as_u64() {
            Some(t) if (lo..=hi).contains(&t) => {
                let kb = sys
                    .get(&(i as u32, "memtotal_kb".to_string()))
                    .and_then(|s| s.parse::<u64>().ok());
                if kb.map(|kb| kb * 1024) != Some(t) {
                    errors.push(format!(
                        "{}: {t}, but the node's MemTotal is {kb:?} kB",
                        at("memory_total_bytes")
                    ));
                }
            }
            other => errors.push(format!(
                "{}: {other:?}, want {lo}..={hi} ({} MiB given)",
                at("memory_total_bytes"),
                want.memory_mib
            )),
        }
        match (
            node["memory_free_bytes"].as_u64(),
            node["memory_total_bytes"].as_u64(),
        ) {
            (Some(f), Some(t)) if f <= t && f > 0 => {}
            (f, t) => errors.push(format!(
                "{}: {f:?}, want 0 < free <= total {t:?}",
                at("memory_free_bytes")
            )),
        }
        if let Some(p) = node_package(i) {
            expect(
                &mut errors,
                &at("package"),
                &node["package"],
                Value::from(p),
            );
        }
    }

    // Packages (only when the topology fixes the sockets).
    if let Some(sockets) = topo.sockets {
        let packages = j["packages"].as_array().cloned().unwrap_or_default();
        if packages.len() != sockets as usize {
            errors.push(format!(
                "packages: {} entries, want {sockets}",
                packages.len()
            ));
        }
        for (p, pkg) in packages.iter().enumerate() {
            let cpus: Vec<u64> = all_cpus
                .iter()
                .copied()
                .filter(|&c| topo.package_of_cpu(c as u32) == Some(p as u32))
                .collect();
            let nodes: Vec<u64> = (0..n)
                .filter(|&i| node_package(i) == Some(p as u32))
                .map(|i| i as u64)
                .collect();
            expect(
                &mut errors,
                &format!("packages[{p}].index"),
                &pkg["index"],
                Value::from(p),
            );
            expect(
                &mut errors,
                &format!("packages[{p}].cpus"),
                &pkg["cpus"],
                Value::from(cpus),
            );
            if topo.has_hmat() || topo.nodes.iter().all(|x| !x.cpus.is_empty()) {
                let got = u64s(&pkg["nodes"]).map(|mut v| {
                    v.sort_unstable();
                    v
                });
                if got.as_ref() != Some(&nodes) {
                    errors.push(format!(
                        "packages[{p}].nodes: got {}, want {nodes:?}",
                        pkg["nodes"]
                    ));
                }
            }
        }
    }

    // Distances.
    let want_dist = match &topo.distances {
        Some(d) => Value::from(
            d.iter()
                .map(|r| r.iter().map(|&v| u64::from(v)).collect::<Vec<_>>())
                .collect::<Vec<_>>(),
        ),
        None => Value::Null,
    };
    expect(&mut errors, "distances", &j["distances"], want_dist);

    // Memory attributes: exactly the HMAT values Linux exposes.
    let attrs = j["memory_attributes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !j["memory_attributes"].is_array() {
        errors.push(format!(
            "memory_attributes: got {}, want an array",
            j["memory_attributes"]
        ));
    }
    // (name, initiator_node, target_node) -> value.
    let mut want: BTreeMap<(String, Option<u32>, u32), u64> = BTreeMap::new();
    for e in topo.visible_hmat() {
        if let Some(l) = e.latency_ns {
            want.insert(("latency".into(), Some(e.initiator), e.target), l);
        }
        if let Some(b) = e.bandwidth_mib_s {
            want.insert(("bandwidth".into(), Some(e.initiator), e.target), b);
        }
    }
    let mut got: BTreeMap<(String, Option<u32>, u32), u64> = BTreeMap::new();
    let mut seen_names = BTreeSet::new();
    for (k, a) in attrs.iter().enumerate() {
        let name = a["name"].as_str().unwrap_or("?").to_string();
        seen_names.insert(name.clone());
        // QEMU's access-latency/bandwidth set read and write alike, so the
        // read_/write_ variants hwloc >= 2.8 reports must agree with the plain ones.
        let base = name
            .trim_start_matches("read_")
            .trim_start_matches("write_")
            .to_string();
        let unit = match base.as_str() {
            "latency" => "ns",
            "bandwidth" => "MiB/s",
            _ => continue,
        };
        if a["unit"] != unit {
            errors.push(format!(
                "memory_attributes[{k}] ({name}): unit {}, want {unit:?}",
                a["unit"]
            ));
        }
        let init = a["initiator_node"].as_u64().map(|x| x as u32);
        let Some(target) = a["target_node"].as_u64().map(|x| x as u32) else {
            errors.push(format!("memory_attributes[{k}]: no target_node: {a}"));
            continue;
        };
        let want_cpus = init.map(|i| {
            u32s(
                &topo
                    .nodes
                    .get(i as usize)
                    .map(|x| x.cpus.clone())
                    .unwrap_or_default(),
            )
        });
        if want_cpus.is_none() || u64s(&a["initiator_cpus"]) != want_cpus {
            errors.push(format!(
                "memory_attributes[{k}] ({name} -> node {target}): initiator_cpus {} do not match initiator_node {}",
                a["initiator_cpus"], a["initiator_node"]
            ));
        }
        let Some(value) = a["value"].as_u64() else {
            errors.push(format!(
                "memory_attributes[{k}]: value {} is not an integer",
                a["value"]
            ));
            continue;
        };
        if base == name {
            if got.insert((name.clone(), init, target), value).is_some() {
                errors.push(format!(
                    "memory_attributes: {name} {init:?} -> {target} listed twice"
                ));
            }
        } else {
            match want.get(&(base.clone(), init, target)) {
                Some(&w) if w == value => {}
                w => errors.push(format!(
                    "memory_attributes[{k}]: {name} from node {init:?} to node {target} = {value}, want {w:?}"
                )),
            }
        }
    }
    if got != want {
        let fmt = |m: &BTreeMap<(String, Option<u32>, u32), u64>| {
            m.iter()
                .map(|((n, i, t), v)| format!("{n} {i:?}->{t} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        errors.push(format!(
            "memory_attributes (latency/bandwidth): got [{}], want [{}] (names seen: {seen_names:?})",
            fmt(&got),
            fmt(&want)
        ));
    }
    errors
}
