//! The crates' layers (docs/architecture.md) beyond what Cargo enforces by itself. Cargo refuses
//! a cycle and a path into a crate that is not a dependency; these tests hold the dependencies
//! to the documented edges, and a feature's use of another to the items at its root plus the
//! submodules its edge names.

use std::{
    collections::BTreeSet,
    fs,
    path::{Path, PathBuf},
};

/// A feature it may use, with the submodules it may reach into.
type Edge = (&'static str, &'static [&'static str]);

/// The features, each with the features it may use and, of each, the submodules it may reach
/// into (items at the root, the feature's exports, are always allowed).
const FEATURES: &[(&str, &[Edge])] = &[
    ("users", &[]),
    ("auth", &[("users", &["envelope", "model", "principal", "repo"])]),
    ("taxonomy", &[("users", &["principal"])]),
    ("articles", &[("users", &["principal"]), ("taxonomy", &[])]),
    ("comments", &[("articles", &[]), ("users", &["principal", "repo"])]),
    ("feeds", &[("articles", &[]), ("taxonomy", &[])]),
    ("files", &[("users", &["principal"])]),
    ("ops", &[]),
];

/// The leaves beside the core (crates that know no `blog-*` crate), with the features that use
/// them.
const LEAVES: &[(&str, &[&str])] = &[("search", &["articles"])];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `blog-*` crates of a manifest's `[dependencies]` (not its dev-dependencies).
fn blog_dependencies(krate: &str) -> BTreeSet<String> {
    let manifest = fs::read_to_string(shared().join(krate).join("Cargo.toml")).unwrap();
    let mut section = "";
    let mut found = BTreeSet::new();
    for line in manifest.lines() {
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]" {
            if let Some(name) =
                line.strip_prefix("blog-").and_then(|rest| rest.split(['.', ' ']).next())
            {
                found.insert(name.to_string());
            }
        }
    }
    found
}

#[test]
fn each_library_crate_depends_on_exactly_the_crates_its_layer_allows() {
    assert_eq!(blog_dependencies("core"), BTreeSet::new(), "the core knows no feature");
    assert_eq!(blog_dependencies("search"), BTreeSet::new(), "the search engine is a leaf");
    for (feature, edges) in FEATURES {
        let leaves = LEAVES.iter().filter(|(_, users)| users.contains(feature));
        let expected: BTreeSet<String> = ["core"]
            .into_iter()
            .chain(edges.iter().map(|(to, _)| *to))
            .chain(leaves.map(|(leaf, _)| *leaf))
            .map(String::from)
            .collect();
        assert_eq!(blog_dependencies(feature), expected, "blog-{feature}'s dependencies");
    }
    let mut everything: BTreeSet<String> = FEATURES.iter().map(|(f, _)| f.to_string()).collect();
    everything.insert("core".into());
    assert_eq!(blog_dependencies("api"), everything, "the composition uses every crate");
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The first segment of every path a text takes into `feature`, with its byte offset:
/// `blog_users::principal::X`, `use blog_users::{principal::X, repo as accounts}`, or through an
/// alias, `taxonomy::x` after `use blog_taxonomy as taxonomy`.
fn segments_into(text: &str, feature: &str) -> Vec<(usize, String)> {
    let mut segments = Vec::new();
    for prefix in [format!("blog_{feature}::"), format!("{feature}::")] {
        for (at, _) in text.match_indices(&prefix) {
            let before = text[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let after = &text[at + prefix.len()..];
            let Some(group) = after.strip_prefix('{') else {
                segments.push((at, after.to_string()));
                continue;
            };
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        segments.push((at, std::mem::take(&mut item)));
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            segments.push((at, item));
        }
    }
    segments
        .into_iter()
        .filter_map(|(at, path)| {
            let path = path.trim_start();
            let segment = path.split(|c: char| !c.is_alphanumeric() && c != '_').next()?;
            (!segment.is_empty()).then(|| (at, segment.to_string()))
        })
        .collect()
}

#[test]
fn a_feature_uses_another_through_its_root_and_the_submodules_its_edge_names() {
    let modules = blog_api::telemetry::targets::MODULES;
    let mut breaches = Vec::new();
    for (feature, edges) in FEATURES {
        let mut files = Vec::new();
        rust_files(&shared().join(feature).join("src"), &mut files);
        for file in files {
            // Comments left out, lines kept (a breach is named by its line).
            let text: String = fs::read_to_string(&file)
                .unwrap()
                .lines()
                .map(|line| {
                    if line.trim_start().starts_with("//") {
                        "\n".into()
                    } else {
                        format!("{line}\n")
                    }
                })
                .collect();
            for (to, allowed) in *edges {
                for (at, segment) in segments_into(&text, to) {
                    let is_module = modules.contains(&format!("blog_{to}::{segment}").as_str());
                    if is_module && !allowed.contains(&segment.as_str()) {
                        let line = text[..at].matches('\n').count() + 1;
                        breaches.push(format!(
                            "{}:{line}: {feature} reaches into {to}::{segment}",
                            file.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(breaches.is_empty(), "paths past the allowed edges:\n{}", breaches.join("\n"));
}

#[test]
fn the_edge_check_sees_paths_in_groups_and_through_aliases() {
    let segments = |text: &str, feature: &str| -> Vec<String> {
        segments_into(text, feature).into_iter().map(|(_, segment)| segment).collect()
    };
    let group =
        "use blog_users::{\n    principal::{Admin, Authenticated},\n    repo as accounts,\n};";
    assert_eq!(segments(group, "users"), ["principal", "repo"]);
    assert_eq!(segments("let x = taxonomy::tags::handlers::f();", "taxonomy"), ["tags"]);
    assert_eq!(
        segments("my_taxonomy::tags blog_core::taxonomy::x", "taxonomy"),
        Vec::<String>::new()
    );
}
