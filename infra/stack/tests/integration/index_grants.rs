//! Which secondary indexes template.yaml lets each function Query, read from the template
//! itself. IAM cannot narrow an index Query by partition, so each index holds one audience
//! (gsi1 public listings and search words, gsi2 article links and vectors, gsi3 what only the
//! administration and owners read) and a function may query only the indexes of its audience:
//! none serving anonymous callers may query gsi3.

use std::collections::{BTreeMap, BTreeSet};

use crate::must_not::ANONYMOUS;

use blog_stack::{
    actions::Action, iam::Decision, report::symbolic_policies, template::Template,
    testing::workspace,
};

fn query_of(index: &str) -> Action {
    Action::new("dynamodb:Query", format!("BlogTable/index/{index}"))
        .keys(&["ADMIN#0"])
        .on_an_index()
}

#[test]
fn each_function_queries_only_the_indexes_of_its_audience_and_no_anonymous_one_the_private() {
    let template = Template::load(&workspace().join("template.yaml")).expect("template.yaml");
    let policies = symbolic_policies(&template).unwrap();
    let expected: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("ArticlesFunction", &["gsi1"][..]),
        ("CategoriesFunction", &["gsi2"][..]),
        ("TagsFunction", &["gsi2"][..]),
        ("AdminArticlesFunction", &["gsi3"][..]),
        ("CommentsFunction", &[][..]),
        ("AdminCommentsFunction", &["gsi3"][..]),
        ("OutboxSweepFunction", &["gsi3"][..]),
        ("WorkerFunction", &["gsi1", "gsi2", "gsi3"][..]),
        ("AuthFunction", &[][..]),
        ("UsersFunction", &[][..]),
        ("OpsFunction", &[][..]),
        ("FilesFunction", &[][..]),
    ]);
    assert_eq!(
        policies.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        expected.keys().copied().collect(),
        "every function is listed"
    );
    for (function, (_, policy)) in &policies {
        let granted: BTreeMap<&str, String> = ["gsi1", "gsi2", "gsi3"]
            .into_iter()
            .filter_map(|index| match policy.decide(&query_of(index)) {
                Decision::Allowed(sid) => Some((index, sid)),
                _ => None,
            })
            .collect();
        let indexes: Vec<&str> = granted.keys().copied().collect();
        assert_eq!(indexes, expected[function.as_str()], "{function} queries");
        if let (true, Some(sid)) = (ANONYMOUS.contains(&function.as_str()), granted.get("gsi3")) {
            panic!("{function} serves anonymous callers but may query gsi3 ({sid})");
        }
    }
}
