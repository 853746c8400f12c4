//! What each function must NOT be able to do, asked of template.yaml's policies the way AWS
//! asks it (`blog_stack::iam::probe`: this action, on this resource, with these partition keys
//! and attributes). The stack checks from below that every call a function makes is granted;
//! these tests hold the grants from above: every partition of the table and every item action
//! a function does not use (docs/iam.md) is refused to it. `must_not_resources` asks the same
//! of article attributes, the bucket, the secrets, the queue and the model.

use std::collections::{BTreeMap, BTreeSet};

use blog_stack::{
    iam::{
        probe::{self, allows},
        Policy,
    },
    report::symbolic_policies,
    template::Template,
    testing::workspace,
};

/// Every function's policy, by logical id.
pub(crate) fn policies() -> BTreeMap<String, Policy> {
    let template = Template::load(&workspace().join("template.yaml")).expect("template.yaml");
    let policies = symbolic_policies(&template).expect("the functions' policies");
    policies.into_iter().map(|(function, (_, policy))| (function, policy)).collect()
}

/// One partition key of each kind of partition of the table (docs/data-model.md).
const PARTITIONS: [&str; 36] = [
    "USER#7",
    "USERNAME#ada",
    "EMAIL#ada@example.com",
    "COUNTER#USER",
    "LOGINFAIL#ada",
    "SIGNUPS#0cc175b9",
    "FILE#3",
    "OBJECT#7#0cc175b9c0f1b6a831c399e269772661#12",
    "COUNTER#FILE",
    "ARTICLE#5",
    "COUNTER#ARTICLE",
    "CATEGORIES",
    "CATSLUG#news",
    "COUNTER#CATEGORY",
    "TAGS",
    "TAGSLUG#rust",
    "COUNTER#TAG",
    "COMMENTS#5",
    "COMMENT#9",
    "LIKES#7",
    "CRATE#7",
    "REPORT#2",
    "REPORTS#7",
    "COUNTER#COMMENT",
    "COUNTER#REPORT",
    "STATS",
    "RECENT",
    "OUTBOX",
    "VIEWS#3",
    "VIEWED#0cc175b9",
    "SITEMAP",
    "NOTIFIED#5",
    "METRICS",
    "CONFIG",
    "SEARCHRATE#192.0.2.1",
    PREVIEW_LINK,
];

/// A preview link's partition (`PREVIEW#<SHA-256 of its token>`).
const PREVIEW_LINK: &str = "PREVIEW#5f0e2b4c9a7d31e8";

/// Every action on the table's items.
const ITEM_ACTIONS: [&str; 9] = [
    "GetItem",
    "BatchGetItem",
    "Query",
    "Scan",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "ConditionCheckItem",
];

type Uses = &'static [(&'static [&'static str], &'static [&'static str])];

const ACCOUNTS: &[&str] = &["USER#7", "USERNAME#ada", "EMAIL#ada@example.com"];
const READ: &[&str] = &["GetItem", "BatchGetItem", "Query"];
const READ_WRITE: &[&str] = &[
    "GetItem",
    "BatchGetItem",
    "Query",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "ConditionCheckItem",
];
const TOKEN_CHECK: (&[&str], &[&str]) = (&["USER#7"], &["GetItem"]);
const METRICS: (&[&str], &[&str]) = (&["METRICS"], &["PutItem", "UpdateItem"]);
const LOGGER_LEVELS: (&[&str], &[&str]) = (&["CONFIG"], &["Query"]);

/// What each function does to the table's items (docs/iam.md): partitions and the actions on
/// them. Everything else on the table's items is refused to it.
fn table_uses(function: &str) -> Uses {
    match function {
        "AuthFunction" => &[
            (
                &[
                    "USER#7",
                    "USERNAME#ada",
                    "EMAIL#ada@example.com",
                    "COUNTER#USER",
                    "LOGINFAIL#ada",
                    "SIGNUPS#0cc175b9",
                ],
                &["GetItem", "PutItem", "UpdateItem", "DeleteItem", "ConditionCheckItem"],
            ),
            METRICS,
            LOGGER_LEVELS,
        ],
        "UsersFunction" => &[
            (ACCOUNTS, &["GetItem", "PutItem", "UpdateItem", "DeleteItem", "ConditionCheckItem"]),
            (&["OUTBOX"], &["PutItem", "DeleteItem"]),
            METRICS,
            LOGGER_LEVELS,
        ],
        "CategoriesFunction" => &[
            (&["CATEGORIES", "CATSLUG#news", "COUNTER#CATEGORY", "ARTICLE#5"], READ_WRITE),
            (&["OUTBOX"], &["PutItem"]),
            TOKEN_CHECK,
            METRICS,
            LOGGER_LEVELS,
        ],
        "TagsFunction" => &[
            (&["TAGS", "TAGSLUG#rust", "COUNTER#TAG", "ARTICLE#5"], READ_WRITE),
            (&["OUTBOX"], &["PutItem"]),
            TOKEN_CHECK,
            METRICS,
            LOGGER_LEVELS,
        ],
        "ArticlesFunction" => &[
            (
                &[
                    "ARTICLE#5",
                    "CATEGORIES",
                    "TAGS",
                    "CATSLUG#news",
                    "TAGSLUG#rust",
                    "RECENT",
                    "STATS",
                ],
                READ,
            ),
            (&["VIEWS#3"], &["UpdateItem"]),
            (&["VIEWED#0cc175b9"], &["PutItem"]),
            (&["ARTICLE#5"], &["ConditionCheckItem"]),
            (&["SITEMAP"], &["BatchGetItem", "Query"]),
            (&["SEARCHRATE#192.0.2.1"], &["PutItem", "UpdateItem"]),
            (&[PREVIEW_LINK], &["GetItem"]),
            METRICS,
            LOGGER_LEVELS,
        ],
        "AdminArticlesFunction" => &[
            (
                &["ARTICLE#5", "CATEGORIES", "TAGS", "STATS", "OUTBOX", "COUNTER#ARTICLE"],
                READ_WRITE,
            ),
            (&[PREVIEW_LINK], &["PutItem", "DeleteItem"]),
            TOKEN_CHECK,
            METRICS,
            LOGGER_LEVELS,
        ],
        "CommentsFunction" => &[
            (
                &[
                    "COMMENTS#5",
                    "COMMENT#9",
                    "LIKES#7",
                    "CRATE#7",
                    "COUNTER#COMMENT",
                    "COUNTER#REPORT",
                ],
                &["GetItem", "Query", "PutItem", "UpdateItem"],
            ),
            (&["COMMENTS#5"], &["ConditionCheckItem"]),
            (&["LIKES#7"], &["DeleteItem"]),
            (&["REPORT#2", "REPORTS#7"], &["PutItem"]),
            (&["ARTICLE#5"], &["GetItem", "UpdateItem"]),
            TOKEN_CHECK,
            METRICS,
            LOGGER_LEVELS,
        ],
        "AdminCommentsFunction" => &[
            (&["COMMENTS#5", "COMMENT#9", "REPORT#2"], READ),
            (&["COMMENTS#5", "REPORT#2"], &["UpdateItem"]),
            (&["REPORTS#7"], &["DeleteItem"]),
            (&["ARTICLE#5"], &["UpdateItem"]),
            TOKEN_CHECK,
            METRICS,
            LOGGER_LEVELS,
        ],
        "FilesFunction" => &[
            (&["FILE#3", "OBJECT#7#0cc175b9c0f1b6a831c399e269772661#12", "USER#7"], &["GetItem"]),
            (
                &["FILE#3", "OBJECT#7#0cc175b9c0f1b6a831c399e269772661#12", "COUNTER#FILE"],
                &["PutItem", "UpdateItem", "DeleteItem"],
            ),
            (&["OUTBOX"], &["PutItem", "DeleteItem"]),
            METRICS,
            LOGGER_LEVELS,
        ],
        "OpsFunction" => &[
            (&["CONFIG", "METRICS"], &["GetItem", "Query"]),
            (&["CONFIG"], &["PutItem", "DeleteItem"]),
            METRICS,
        ],
        "OutboxSweepFunction" => &[
            (&["OUTBOX"], &["Query", "DeleteItem"]),
            (&["VIEWS#3"], &["Query", "UpdateItem", "DeleteItem"]),
            (
                &["ARTICLE#5", "CATEGORIES", "TAGS", "STATS", "OUTBOX"],
                &["GetItem", "PutItem", "UpdateItem", "DeleteItem"],
            ),
            (&["COUNTER#ARTICLE", "ARTICLE#5", "SITEMAP"], &["GetItem", "BatchGetItem"]),
            (&["SITEMAP"], &["PutItem", "UpdateItem"]),
            METRICS,
            LOGGER_LEVELS,
        ],
        "WorkerFunction" => &[
            (&["SITEMAP"], &["GetItem", "PutItem", "UpdateItem"]),
            (&["ARTICLE#5", "RECENT"], READ),
            (&["ARTICLE#5", "RECENT", "NOTIFIED#5"], &["PutItem", "DeleteItem"]),
            (&["ARTICLE#5", "COMMENTS#5"], &["UpdateItem"]),
            (&["COMMENTS#5"], &["Query"]),
            // A public image's variants: its record read and listed, its marker read.
            (&["FILE#3"], &["GetItem", "UpdateItem"]),
            (&["OBJECT#7#0cc175b9c0f1b6a831c399e269772661#12"], &["GetItem"]),
            METRICS,
            LOGGER_LEVELS,
        ],
        other => panic!("{other} is a function the must-not table does not know: add it"),
    }
}

#[test]
fn every_function_is_refused_every_partition_and_item_action_it_does_not_use() {
    let mut wrong = vec![];
    for (function, policy) in policies() {
        let uses: BTreeSet<(&str, &str)> = table_uses(&function)
            .iter()
            .flat_map(|(keys, actions)| keys.iter().flat_map(|k| actions.iter().map(|a| (*k, *a))))
            .collect();
        for key in PARTITIONS {
            for action in ITEM_ACTIONS {
                let granted = allows(&policy, &probe::item(action, key));
                match (granted, uses.contains(&(key, action))) {
                    (true, false) => {
                        wrong.push(format!("{function} may {action} {key}: it must not"))
                    }
                    (false, true) => wrong.push(format!(
                        "{function} no longer may {action} {key}: update table_uses"
                    )),
                    _ => {}
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn only_the_administration_writes_preview_links_and_only_the_articles_function_reads_them() {
    for (function, policy) in policies() {
        for action in ITEM_ACTIONS {
            let granted = allows(&policy, &probe::item(action, PREVIEW_LINK));
            let expected = match function.as_str() {
                // The anonymous read: one GetItem by the token's digest, never a write (a
                // reader cannot make, stretch or revoke a link), nor a Query or Scan.
                "ArticlesFunction" => action == "GetItem",
                // Put with the article's live link and deleted when replaced or revoked, in
                // transactions; it never reads one back.
                "AdminArticlesFunction" => action == "PutItem" || action == "DeleteItem",
                _ => false,
            };
            assert_eq!(granted, expected, "{function} {action} {PREVIEW_LINK}");
        }
    }
}

/// The functions that answer anonymous callers (some of their routes need no token).
pub(crate) const ANONYMOUS: [&str; 7] = [
    "ArticlesFunction",
    "CategoriesFunction",
    "TagsFunction",
    "CommentsFunction",
    "AuthFunction",
    "UsersFunction",
    "OpsFunction",
];

#[test]
fn anonymous_callers_functions_read_no_file_object_or_report_and_accounts_only_by_token() {
    let policies = policies();
    let token_checkers = ["CategoriesFunction", "TagsFunction", "CommentsFunction"];
    for function in ANONYMOUS {
        let policy = &policies[function];
        for read in ["GetItem", "BatchGetItem", "Query", "Scan"] {
            for key in
                ["FILE#3", "OBJECT#7#0cc175b9c0f1b6a831c399e269772661#12", "REPORT#2", "REPORTS#7"]
            {
                assert!(!allows(policy, &probe::item(read, key)), "{function} may {read} {key}");
            }
            let account = allows(policy, &probe::item(read, "USER#7"));
            let checks_tokens = token_checkers.contains(&function) && read == "GetItem";
            let manages_accounts = ["AuthFunction", "UsersFunction"].contains(&function);
            let expected = checks_tokens || (manages_accounts && read == "GetItem");
            assert_eq!(account, expected, "{function} {read} USER#");
        }
    }
}

#[test]
fn only_auth_and_users_write_accounts() {
    for (function, policy) in policies() {
        let manages = function == "AuthFunction" || function == "UsersFunction";
        for write in ["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"] {
            for key in ACCOUNTS {
                let writes = allows(&policy, &probe::item(write, key));
                assert_eq!(
                    writes,
                    manages && write != "BatchWriteItem",
                    "{function} {write} {key}"
                );
            }
        }
    }
}
