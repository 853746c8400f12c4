//! The checker fed planted module graphs: it passes the allowed edges and fails on a cycle, a
//! forbidden edge, a module in no layer and a stale waiver, naming each.

use std::collections::BTreeSet;

use super::{failures, submodules, Edge, Graph, LAYERS};

/// A graph of `edges` (`from`, `to`, `through`, file, line) over the modules of [`LAYERS`] and
/// their submodules in `src/`, plus `extra` modules.
fn planted(edges: &[(&str, &str, Option<&str>, &str, usize)], extra: &[&str]) -> Graph {
    let tops: BTreeSet<String> =
        LAYERS.iter().flat_map(|(_, modules)| modules.iter().map(|m| m.to_string())).collect();
    let submodules = tops.iter().map(|top| (top.clone(), submodules(top))).collect();
    let mut graph = Graph { edges: Vec::new(), tops, submodules };
    graph.edges = edges
        .iter()
        .map(|(from, to, through, file, line)| Edge {
            from: from.to_string(),
            to: to.to_string(),
            through: through.map(str::to_string),
            file: file.to_string(),
            line: *line,
        })
        .collect();
    graph.tops.extend(extra.iter().map(|m| m.to_string()));
    graph
}

#[test]
fn a_graph_along_the_allowed_edges_passes() {
    let graph = planted(
        &[
            ("comments", "articles", Some("AuthorFollowers"), "comments/renames.rs", 16),
            ("articles", "taxonomy", None, "articles/read.rs", 14),
            ("auth", "users", Some("repo"), "auth/handlers.rs", 9),
            ("context", "access", Some("principals"), "context.rs", 3),
            ("setup", "api", None, "setup.rs", 2),
            ("time", "ids", None, "time.rs", 1),
        ],
        &[],
    );
    assert_eq!(failures(&graph, &[]), Vec::<String>::new());
}

#[test]
fn a_planted_cycle_fails_naming_each_of_its_edges() {
    // Within the base layer any edge is allowed, but not a cycle.
    let graph = planted(
        &[
            ("time", "ids", None, "time.rs", 3),
            ("ids", "records", None, "ids.rs", 7),
            ("records", "time", Some("now"), "records.rs", 11),
            ("config", "time", None, "config/mod.rs", 5),
        ],
        &[],
    );
    let failures = failures(&graph, &[]);
    assert_eq!(failures.len(), 1, "{failures:#?}");
    let cycle = &failures[0];
    assert!(cycle.starts_with("a cycle between modules:"), "{cycle}");
    for step in [
        "src/time.rs:3: time uses ids",
        "src/ids.rs:7: ids uses records",
        "src/records.rs:11: records uses time",
    ] {
        assert!(cycle.contains(step), "{step} in {cycle}");
    }
    assert!(!cycle.contains("config"), "only the cycle's edges: {cycle}");
}

#[test]
fn a_planted_forbidden_edge_fails_naming_its_file_and_line() {
    let graph = planted(
        &[
            // A feature above another used from below: the rule forbids it, and with the
            // allowed comments → articles edge it closes a cycle.
            ("articles", "comments", Some("repo"), "articles/worker.rs", 42),
            ("comments", "articles", None, "comments/repo.rs", 5),
            // A port that knows a feature.
            ("ports", "articles", None, "ports/events/local.rs", 9),
            // An allowed edge reaching into a module the edge does not open.
            ("comments", "users", Some("handlers"), "comments/post.rs", 20),
        ],
        &["gadgets"],
    );
    let failures = failures(&graph, &[]);
    let has = |needle: &str| failures.iter().any(|f| f.contains(needle));
    assert!(has("src/articles/worker.rs:42: articles uses comments, which the rule forbids (features → features)"), "{failures:#?}");
    assert!(has("src/ports/events/local.rs:9: ports uses articles, which the rule forbids (base → features)"), "{failures:#?}");
    assert!(has("src/comments/post.rs:20: comments uses users::handlers, but comments may use only the exports of users"), "{failures:#?}");
    assert!(has("module `gadgets` is in no layer"), "{failures:#?}");
    assert!(has("a cycle between modules:\n    src/articles/worker.rs:42: articles uses comments\n    src/comments/repo.rs:5: comments uses articles") || has("a cycle between modules:\n    src/comments/repo.rs:5: comments uses articles\n    src/articles/worker.rs:42: articles uses comments"), "{failures:#?}");
    assert_eq!(failures.len(), 5, "{failures:#?}");
    // A waiver lets one through by file, and fails once its edge is gone.
    let waived = [("ports/events/local.rs", "articles", "planted"), ("gone.rs", "ops", "stale")];
    let failures = self::failures(&graph, &waived);
    assert!(!failures.iter().any(|f| f.contains("ports uses articles")), "{failures:#?}");
    assert!(failures.iter().any(|f| f.contains("src/gone.rs no longer uses ops")), "{failures:#?}");
}
