//! The dependency rule of docs/architecture.md, checked over the crate's module imports.
//!
//! Every `crate::…` path in `src/**/*.rs` (in `use` lines and in code, comments and strings
//! left out), every `super::…` path that climbs out of its top-level module, and every path
//! through a feature's name (`taxonomy::…`, after `use crate::taxonomy`) is an edge from the
//! file's top-level module to the one the path names. Each edge must be allowed by [`LAYERS`]
//! and [`FEATURE_EDGES`], and the top-level modules must form no cycle. A failure names the
//! file and line of every offending path.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// The layers, bottom first. A module may use every module of a lower layer. Within "base"
/// and "composition" any edge is allowed as long as it makes no cycle; within "features" only
/// the edges of [`FEATURE_EDGES`].
const LAYERS: &[(&str, &[&str])] = &[
    ("base", &["time", "ids", "codes", "records", "config", "private_files", "ports", "telemetry"]),
    ("http", &["http"]),
    ("access", &["access"]),
    ("context", &["context"]),
    ("area", &["area"]),
    ("features", &["users", "auth", "taxonomy", "articles", "comments", "feeds", "files", "ops"]),
    ("composition", &["api", "openapi", "setup", "lambda"]),
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

/// Edges that break the rule today, waived one file at a time with the reason. The test fails
/// when a waived edge is gone, so that the waiver goes with it.
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

/// The source text with comments, strings and character literals blanked out (line breaks
/// kept, so positions keep their line).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let ident = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        let start = i;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 1;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                i += 1;
            }
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && (!ident(i.checked_sub(1).and_then(|p| chars.get(p))) || chars[i - 1] == 'b')
            && chars[i + 1..].iter().find(|c| **c != '#') == Some(&'"')
        {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            out.push('r');
            i += 2 + hashes;
            let close: Vec<char> =
                std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            while i < chars.len() && !chars[i..].starts_with(&close) {
                i += 1;
            }
            i = (i + close.len()).min(chars.len());
            chars[start + 1..i].iter().for_each(|c| blank(&mut out, *c));
            continue;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            i += if next == Some('\\') { 3 } else { 2 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
            continue;
        }
        chars[start..i.min(chars.len())].iter().for_each(|c| blank(&mut out, *c));
    }
    out
}

fn skip_space(code: &[char], mut at: usize) -> usize {
    while code.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}

fn ident_end(code: &[char], mut at: usize) -> usize {
    while code.get(at).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
        at += 1;
    }
    at
}

/// Reads the path or use tree at `at` under `prefix`, recording each path it names with its
/// position; returns where the tree ends.
fn use_tree(
    code: &[char],
    at: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let mut at = skip_space(code, at);
    if code.get(at) == Some(&'{') {
        at += 1;
        loop {
            at = skip_space(code, at);
            match code.get(at) {
                None => return at,
                Some('}') => return at + 1,
                Some(',') => at += 1,
                Some(_) => {
                    let next = use_tree(code, at, prefix, out);
                    at = if next == at { at + 1 } else { next };
                }
            }
        }
    }
    if code.get(at) == Some(&'*') {
        out.push((prefix.to_vec(), at));
        return at + 1;
    }
    let end = ident_end(code, at);
    if end == at {
        return at;
    }
    let ident: String = code[at..end].iter().collect();
    let mut path = prefix.to_vec();
    if ident != "self" {
        path.push(ident);
    }
    let after = skip_space(code, end);
    if code[after..].starts_with(&[':', ':']) {
        return use_tree(code, after + 2, &path, out);
    }
    out.push((path, at));
    let renamed = code[after..].starts_with(&['a', 's']) && ident_end(code, after) == after + 2;
    if renamed {
        ident_end(code, skip_space(code, after + 2))
    } else {
        end
    }
}

/// The paths out of its top-level module that `source` (a file of module depth `depth`) names,
/// each cut to two segments (module, then what it reaches into), with its line: `crate::`
/// paths, `super::` paths that climb to the crate root (inline `mod x {` blocks count as a
/// level), and paths that start with one of `bare` (the features, named after an import).
fn paths_out(source: &str, depth: usize, bare: &[&str]) -> Vec<(Vec<String>, usize)> {
    let code: Vec<char> = code_only(source).chars().collect();
    let line_of = |at: usize| 1 + code[..at].iter().filter(|c| **c == '\n').count();
    let (mut found, mut braces, mut inline) = (Vec::new(), 0usize, Vec::new());
    let word = |at: usize, w: &str| {
        let before = at.checked_sub(1).and_then(|p| code.get(p));
        !before.is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            && code[at..].starts_with(&w.chars().collect::<Vec<_>>())
    };
    let mut i = 0;
    while i < code.len() {
        match code[i] {
            '{' => braces += 1,
            '}' => {
                braces = braces.saturating_sub(1);
                if inline.last() == Some(&braces) {
                    inline.pop();
                }
            }
            _ => {}
        }
        if word(i, "mod ") {
            let name_end = ident_end(&code, skip_space(&code, i + 4));
            if code.get(skip_space(&code, name_end)) == Some(&'{') {
                inline.push(braces);
            }
        } else if word(i, "crate::") {
            i = use_tree(&code, i + 7, &[], &mut found);
            continue;
        } else if word(i, "super::") {
            let mut at = i;
            let mut climbs = 0;
            while code[at..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                climbs += 1;
                at += 7;
            }
            if climbs >= depth + inline.len() {
                at = use_tree(&code, at, &[], &mut found);
            }
            i = at;
            continue;
        } else if let Some(name) = bare.iter().find(|name| word(i, &format!("{name}::"))) {
            i = use_tree(&code, i, &[], &mut found);
            debug_assert!(found.last().is_some_and(|(path, _)| path[0] == *name));
            continue;
        }
        i += 1;
    }
    let cut = |path: Vec<String>| path.into_iter().take(2).collect::<Vec<_>>();
    found.into_iter().filter(|(p, _)| !p.is_empty()).map(|(p, at)| (cut(p), line_of(at))).collect()
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

/// Every edge between top-level modules, and the top-level modules lib.rs declares.
fn edges() -> (Vec<Edge>, BTreeSet<String>) {
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
    (edges, tops)
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

/// Why `edge` breaks the rule, if it does.
fn breach(edge: &Edge) -> Option<String> {
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
    (submodules(&edge.to).contains(through) && !open.contains(&through.as_str())).then(|| {
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

#[test]
fn modules_use_only_what_the_dependency_rule_allows_and_form_no_cycle() {
    let (all, tops) = edges();
    assert!(all.len() > 50, "read the crate's imports ({} edges)", all.len());
    let waived = |e: &Edge| WAIVED.iter().any(|(file, to, _)| e.file == *file && e.to == *to);
    let edges: Vec<Edge> = all.iter().filter(|e| !waived(e)).cloned().collect();
    let mut failures: Vec<String> = tops
        .iter()
        .filter(|module| layer_of(module).is_none())
        .map(|module| format!("module `{module}` is in no layer: add it to LAYERS"))
        .collect();
    failures.extend(edges.iter().filter_map(breach));
    if let Some(cycle) = cycle(&edges) {
        let steps: Vec<String> = cycle.iter().map(ToString::to_string).collect();
        failures.push(format!("a cycle between modules:\n    {}", steps.join("\n    ")));
    }
    for (file, to, why) in WAIVED {
        if !all.iter().any(|e| e.file == *file && e.to == *to) {
            failures.push(format!("src/{file} no longer uses {to}: remove its waiver ({why})"));
        }
    }
    assert!(
        failures.is_empty(),
        "the dependency rule (docs/architecture.md) is broken:\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn the_scan_reads_paths_and_groups_and_skips_comments_and_strings() {
    let source = "use crate::{\n    http::{a, b},\n    ports::table,\n};\n\
        // crate::articles in a comment\n/* crate::auth */ let s = \"crate::files\";\n\
        let r = r#\"crate::ops\"#; let c = '\"'; let q = '\\''; fn f<'a>() { crate::time::now() }\n\
        mod tests { use super::super::setup; use super::ids; }\n\
        let x = taxonomy::tags::repo::find(); use crate::{taxonomy::{self as t, TagLabel}};\n";
    let found = paths_out(source, 1, &["taxonomy"]);
    let paths: Vec<(String, usize)> = found.iter().map(|(p, l)| (p.join("::"), *l)).collect();
    let expected = [
        ("http::a", 2),
        ("http::b", 2),
        ("ports::table", 3),
        ("time::now", 7),
        ("setup", 8),
        ("taxonomy::tags", 9),
        ("taxonomy", 9),
        ("taxonomy::TagLabel", 9),
    ];
    assert_eq!(paths, expected.map(|(p, l)| (p.to_string(), l)));
}
