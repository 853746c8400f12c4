//! The dependency rule of docs/architecture.md, checked over the crate's module imports.
//!
//! Every `crate::…` path in `src/**/*.rs` (in `use` lines and in code, comments and strings
//! left out), every `super::…` path that climbs out of its top-level module, and every path
//! through a feature's name (`taxonomy::…`, after `use crate::taxonomy`) is an edge from the
//! file's top-level module to the one the path names. Each edge must be allowed by [`LAYERS`]
//! and [`FEATURE_EDGES`], and the top-level modules must form no cycle. A failure names the
//! file and line of every offending path. The scanner is in `scan`; `planted` feeds the checker
//! graphs with a planted cycle and forbidden edges.

mod planted;
mod scan;

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

use scan::{code_only, paths_out};

/// The layers, bottom first. A module may use every module of a lower layer. Within "base"
/// and "composition" any edge is allowed as long as it makes no cycle; within "features" only
/// the edges of [`FEATURE_EDGES`].
const LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &[
            "time",
            "ids",
            "codes",
            "records",
            "config",
            "private_files",
            "ports",
            "telemetry",
            "whole_body",
        ],
    ),
    ("http", &["http"]),
    ("access", &["access"]),
    ("context", &["context"]),
    ("area", &["area"]),
    ("features", &["users", "auth", "taxonomy", "articles", "comments", "feeds", "files", "ops"]),
    ("composition", &["api", "openapi", "setup", "lambda", "index_migration"]),
];

/// The feature → feature edges allowed (docs/architecture.md says why each exists), each with
/// the submodules of the lower feature that the higher one may reach into. Items at the lower
/// feature's root (its exports) are always allowed: `&[]` allows nothing else.
const FEATURE_EDGES: &[(&str, &str, &[&str])] = &[
    ("auth", "users", &["envelope", "model", "principal", "repo"]),
    ("taxonomy", "users", &["principal"]),
    ("articles", "users", &["principal"]),
    ("files", "users", &["principal"]),
    ("articles", "taxonomy", &[]),
    ("comments", "articles", &[]),
    ("comments", "users", &["principal", "repo"]),
    ("feeds", "articles", &[]),
    ("feeds", "taxonomy", &[]),
];

/// Edges that break the rule today, waived one file at a time with the reason (file, module
/// used, why). The test fails when a waived edge is gone, so that the waiver goes with it.
const WAIVED: &[(&str, &str, &str)] = &[];

/// One path from a file into another top-level module.
#[derive(Clone, Debug)]
struct Edge {
    from: String,
    to: String,
    /// The path's next segment after `to`, if any.
    through: Option<String>,
    file: String,
    line: usize,
}

impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "src/{}:{}: {} uses {}", self.file, self.line, self.from, self.to)
    }
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable source directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The module graph the rule is checked over: the edges between top-level modules, the
/// top-level modules lib.rs declares, and the submodules of each (what an edge may reach into).
struct Graph {
    edges: Vec<Edge>,
    tops: BTreeSet<String>,
    submodules: BTreeMap<String, BTreeSet<String>>,
}

/// The crate's graph, read from `src/`.
fn crate_graph() -> Graph {
    let features = LAYERS.iter().find(|l| l.0 == "features").expect("a features layer").1;
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = code_only(&fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let tops: BTreeSet<String> = lib
        .split(';')
        .filter_map(|item| item.trim().rsplit_once("mod ").map(|(_, name)| name.trim().to_string()))
        .collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut edges = Vec::new();
    for path in files {
        let relative = path.strip_prefix(&src).expect("under src");
        let file = relative.to_string_lossy().replace('\\', "/");
        if file == "lib.rs" {
            continue;
        }
        let mut segments: Vec<&str> = file.trim_end_matches(".rs").split('/').collect();
        if segments.last() == Some(&"mod") {
            segments.pop();
        }
        let from = segments[0].to_string();
        let source = fs::read_to_string(&path).expect("readable source file");
        for (mut path, line) in paths_out(&source, segments.len(), features) {
            let (through, to) = (path.get(1).cloned(), path.swap_remove(0));
            if to != from && tops.contains(&to) {
                edges.push(Edge { from: from.clone(), to, through, file: file.clone(), line });
            }
        }
    }
    let submodules = tops.iter().map(|top| (top.clone(), submodules(top))).collect();
    Graph { edges, tops, submodules }
}

fn layer_of(module: &str) -> Option<(usize, &'static str)> {
    LAYERS
        .iter()
        .enumerate()
        .find(|(_, (_, members))| members.contains(&module))
        .map(|(i, l)| (i, l.0))
}

/// The submodules of top-level module `module` (its files and directories).
fn submodules(module: &str) -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(module);
    let entries = fs::read_dir(dir).into_iter().flatten().flatten();
    let names =
        entries.map(|e| e.file_name().to_string_lossy().trim_end_matches(".rs").to_string());
    names.filter(|name| name != "mod").collect()
}

/// Why `edge` breaks the rule, if it does (`submodules`: those of the module it reaches).
fn breach(edge: &Edge, submodules: &BTreeSet<String>) -> Option<String> {
    let (from, from_layer) = layer_of(&edge.from)?;
    let (to, to_layer) = layer_of(&edge.to)?;
    let declared = FEATURE_EDGES.iter().find(|e| (e.0, e.1) == (&edge.from, &edge.to));
    let allowed = to < from || (to == from && from_layer != "features") || declared.is_some();
    if !allowed {
        let lower: Vec<&str> = LAYERS[..from].iter().map(|l| l.0).collect();
        let features: Vec<&str> =
            FEATURE_EDGES.iter().filter(|e| e.0 == edge.from).map(|e| e.1).collect();
        return Some(format!(
            "{edge}, which the rule forbids ({from_layer} → {to_layer}): {} may use the layers \
             {lower:?} and the features {features:?}",
            edge.from
        ));
    }
    let (through, (_, _, open)) = (edge.through.as_ref()?, declared?);
    (submodules.contains(through) && !open.contains(&through.as_str())).then(|| {
        format!(
            "{edge}::{through}, but {} may use only the exports of {} (its root items) and \
             its modules {open:?}",
            edge.from, edge.to
        )
    })
}

/// A cycle among the modules, as the edges that make it, if there is one.
fn cycle(edges: &[Edge]) -> Option<Vec<Edge>> {
    let mut out: BTreeMap<&str, Vec<&Edge>> = BTreeMap::new();
    for edge in edges {
        let targets = out.entry(edge.from.as_str()).or_default();
        if !targets.iter().any(|e| e.to == edge.to) {
            targets.push(edge);
        }
    }
    fn visit<'a>(
        module: &'a str,
        out: &BTreeMap<&'a str, Vec<&'a Edge>>,
        path: &mut Vec<&'a Edge>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<Edge>> {
        if let Some(start) = path.iter().position(|e| e.from == module) {
            return Some(path[start..].iter().map(|e| (*e).clone()).collect());
        }
        if !done.insert(module) {
            return None;
        }
        for edge in out.get(module).into_iter().flatten() {
            path.push(edge);
            if let Some(found) = visit(&edge.to, out, path, done) {
                return Some(found);
            }
            path.pop();
        }
        None
    }
    let mut done = BTreeSet::new();
    out.keys().find_map(|module| visit(module, &out, &mut Vec::new(), &mut done))
}

/// Everything of `graph` that breaks the rule, with the edges `waived`: modules in no layer,
/// edges the tables do not allow (file and line each), a cycle edge by edge, and waivers whose
/// edge is gone.
fn failures(graph: &Graph, waived: &[(&str, &str, &str)]) -> Vec<String> {
    let is_waived = |e: &Edge| waived.iter().any(|(file, to, _)| e.file == *file && e.to == *to);
    let edges: Vec<Edge> = graph.edges.iter().filter(|e| !is_waived(e)).cloned().collect();
    let mut failures: Vec<String> = graph
        .tops
        .iter()
        .filter(|module| layer_of(module).is_none())
        .map(|module| format!("module `{module}` is in no layer: add it to LAYERS"))
        .collect();
    let none = BTreeSet::new();
    failures.extend(
        edges.iter().filter_map(|e| breach(e, graph.submodules.get(&e.to).unwrap_or(&none))),
    );
    if let Some(cycle) = cycle(&edges) {
        let steps: Vec<String> = cycle.iter().map(ToString::to_string).collect();
        failures.push(format!("a cycle between modules:\n    {}", steps.join("\n    ")));
    }
    for (file, to, why) in waived {
        if !graph.edges.iter().any(|e| e.file == *file && e.to == *to) {
            failures.push(format!("src/{file} no longer uses {to}: remove its waiver ({why})"));
        }
    }
    failures
}

#[test]
fn modules_use_only_what_the_dependency_rule_allows_and_form_no_cycle() {
    let graph = crate_graph();
    assert!(graph.edges.len() > 50, "read the crate's imports ({} edges)", graph.edges.len());
    let failures = failures(&graph, WAIVED);
    assert!(
        failures.is_empty(),
        "the dependency rule (docs/architecture.md) is broken:\n  {}",
        failures.join("\n  ")
    );
}
