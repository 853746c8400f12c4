//! What each function must NOT be able to do, asked of template.yaml's policies the way AWS
//! asks it (`blog_stack::iam::probe`: this action, on this resource, with these partition keys
//! and attributes). The stack checks from below that every call a function makes is granted;
//! these tests hold the grants from above: every partition of the table and every item action
//! a function does not use (docs/iam.md) is refused to it, and so are the other functions'
//! secrets, queue actions, models, bucket prefixes and article attributes.

use std::collections::{BTreeMap, BTreeSet};

use blog_stack::{
    actions::Action,
    iam::{
        probe::{self, allows},
        Policy,
    },
    report::symbolic_policies,
    template::Template,
    testing::workspace,
};

/// Every function's policy, by logical id.
fn policies() -> BTreeMap<String, Policy> {
    let template = Template::load(&workspace().join("template.yaml")).expect("template.yaml");
    let policies = symbolic_policies(&template).expect("the functions' policies");
    policies.into_iter().map(|(function, (_, policy))| (function, policy)).collect()
}

/// One partition key of each kind of partition of the table (docs/data-model.md).
const PARTITIONS: [&str; 31] = [
    "USER#7",
    "USERNAME#ada",
    "EMAIL#ada@example.com",
    "COUNTER#USER",
    "LOGINFAIL#ada",
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
    "NOTIFIED#5",
    "METRICS",
    "CONFIG",
];

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
            TOKEN_CHECK,
            METRICS,
            LOGGER_LEVELS,
        ],
        "TagsFunction" => &[
            (&["TAGS", "TAGSLUG#rust", "COUNTER#TAG", "ARTICLE#5"], READ_WRITE),
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
            METRICS,
            LOGGER_LEVELS,
        ],
        "AdminArticlesFunction" => &[
            (
                &["ARTICLE#5", "CATEGORIES", "TAGS", "STATS", "OUTBOX", "COUNTER#ARTICLE"],
                READ_WRITE,
            ),
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
            (&["LIKES#7"], &["DeleteItem"]),
            (&["REPORT#2", "REPORTS#7"], &["PutItem"]),
            (&["ARTICLE#5"], &["GetItem", "UpdateItem"]),
            TOKEN_CHECK,
            METRICS,
            LOGGER_LEVELS,
        ],
        "AdminCommentsFunction" => &[
            (&["COMMENTS#5", "COMMENT#9", "REPORT#2"], &["GetItem", "Query"]),
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
            METRICS,
            LOGGER_LEVELS,
        ],
        "WorkerFunction" => &[
            (&["ARTICLE#5", "RECENT"], READ),
            (&["ARTICLE#5", "RECENT", "NOTIFIED#5"], &["PutItem", "DeleteItem"]),
            (&["ARTICLE#5", "COMMENTS#5"], &["UpdateItem"]),
            (&["COMMENTS#5"], &["Query"]),
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

/// The functions that answer anonymous callers (some of their routes need no token).
const ANONYMOUS: [&str; 7] = [
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

/// Attributes of an article's items that are not the comments' counters.
const ARTICLE_ATTRIBUTES: [&str; 21] = [
    "title",
    "summary",
    "content",
    "contentHtml",
    "tocJson",
    "coverImage",
    "authorId",
    "authorName",
    "authorAvatar",
    "categoryId",
    "categoryName",
    "tags",
    "isTop",
    "isFeatured",
    "version",
    "publishTime",
    "scheduledAt",
    "viewCount",
    "gsi1pk",
    "gsi2pk",
    "gsi1sk",
];

#[test]
fn the_comments_functions_change_only_the_counters_of_an_article_head() {
    let policies = policies();
    let comments = &policies["CommentsFunction"];
    let moderation = &policies["AdminCommentsFunction"];
    let counted = ["pk", "sk", "commentCount", "likeCount", "status", "isDeleted", "expiresAt"];
    assert!(allows(comments, &probe::update("ARTICLE#5", &counted)), "what a like writes");
    let approved = ["pk", "sk", "commentCount", "expiresAt"];
    assert!(allows(moderation, &probe::update("ARTICLE#5", &approved)), "what an approval writes");
    for attribute in ARTICLE_ATTRIBUTES {
        for (function, policy) in [("comments", comments), ("admin-comments", moderation)] {
            let update = probe::update("ARTICLE#5", &["pk", "sk", "commentCount", attribute]);
            assert!(!allows(policy, &update), "{function} may update an article's {attribute}");
        }
    }
    for attribute in ["likeCount", "status", "isDeleted", "isCommentDisabled"] {
        let update = probe::update("ARTICLE#5", &["pk", "sk", attribute]);
        assert!(!allows(moderation, &update), "admin-comments may update an article's {attribute}");
    }
    for returns in ["ALL_NEW", "ALL_OLD"] {
        let update =
            probe::update("ARTICLE#5", &approved).with("dynamodb:ReturnValues", &[returns]);
        assert!(!allows(comments, &update), "comments may read a head back with {returns}");
    }
}

#[test]
fn files_lists_and_touches_objects_under_its_two_prefixes_only() {
    let policies = policies();
    let files = &policies["FilesFunction"];
    assert!(allows(files, &probe::listing(Some("incoming/")))); // the local sweep's listing
    assert!(allows(files, &probe::listing(Some("uploads/2026/11/27/a.png")))); // a HeadObject's
    for prefix in [None, Some(""), Some("other/"), Some("upload"), Some("incoming")] {
        assert!(!allows(files, &probe::listing(prefix)), "files lists {prefix:?}");
    }
    for (function, policy) in &policies {
        for action in ["GetObject", "PutObject", "DeleteObject", "PutObjectTagging"] {
            for key in ["uploads/2026/11/27/a.png", "incoming/a.png", "other/a.png", "a.png"] {
                let expected = function == "FilesFunction"
                    && action != "PutObjectTagging"
                    && (key.starts_with("uploads/") || key.starts_with("incoming/"));
                let granted = allows(policy, &probe::object(action, key));
                assert_eq!(granted, expected, "{function} {action} {key}");
            }
        }
        // The ops function's health check is a HeadBucket (ListBucket without a prefix).
        let lists = allows(policy, &probe::listing(None));
        assert_eq!(lists, function == "OpsFunction", "{function} lists the whole bucket");
    }
}

#[test]
fn secrets_the_queue_the_model_and_the_table_itself_are_held_by_their_users_only() {
    let policies = policies();
    let model = policies["WorkerFunction"]
        .statements
        .iter()
        .flat_map(|s| s.resources().to_vec())
        .find(|r| r.contains("foundation-model/"))
        .expect("the worker's model");
    let jwt = vec![
        "AuthFunction",
        "UsersFunction",
        "CategoriesFunction",
        "TagsFunction",
        "AdminArticlesFunction",
        "CommentsFunction",
        "AdminCommentsFunction",
        "FilesFunction",
    ];
    let holders: Vec<(Action, Vec<&str>)> = vec![
        (Action::new("secretsmanager:GetSecretValue", "JwtSecret"), jwt),
        (Action::new("secretsmanager:GetSecretValue", "AdminPasswordSecret"), vec!["AuthFunction"]),
        (Action::new("secretsmanager:GetSecretValue", "ActuatorTokenSecret"), vec!["OpsFunction"]),
        (
            Action::new("secretsmanager:GetSecretValue", "WebhookSigningSecret"),
            vec!["WorkerFunction"],
        ),
        (
            Action::new("sqs:SendMessage", "EventsQueue"),
            vec!["UsersFunction", "AdminArticlesFunction", "OutboxSweepFunction"],
        ),
        (Action::new("sqs:GetQueueAttributes", "EventsQueue"), vec!["OpsFunction"]),
        // The worker's receives and deletes are SAM's grant for its SQS event, not a policy's.
        (Action::new("sqs:ReceiveMessage", "EventsQueue"), vec![]),
        (Action::new("sqs:DeleteMessage", "EventsQueue"), vec![]),
        (Action::new("sqs:PurgeQueue", "EventsQueue"), vec![]),
        (Action::new("bedrock:InvokeModel", model), vec!["WorkerFunction"]),
        (Action::new("dynamodb:DescribeTable", probe::TABLE), vec!["OpsFunction"]),
        (Action::new("dynamodb:Scan", probe::TABLE), vec![]),
    ];
    for (function, policy) in &policies {
        for (action, users) in &holders {
            let granted = allows(policy, action);
            let expected = users.contains(&function.as_str());
            assert_eq!(granted, expected, "{function} {} on {}", action.action, action.resource);
        }
    }
}

/// A TransactWriteItems as the DynamoDB adapter sends a like of article 5 (`counter_while`),
/// with `extra` attribute names SET beside the counter.
fn like_transaction(extra: &[&str]) -> Vec<Action> {
    let mut names = serde_json::json!({
        "#n0": "pk", "#n1": "expiresAt", "#n2": "status", "#n3": "isDeleted", "#n4": "likeCount"
    });
    let mut update = "ADD #n4 :v2".to_string();
    for (i, name) in extra.iter().enumerate() {
        names[format!("#x{i}")] = serde_json::json!(name);
        update += &format!(" SET #x{i} = :x");
    }
    let alive = "attribute_exists(#n0) AND (NOT attribute_type(#n1, :ttlType) OR #n1 > :now)";
    let body = serde_json::json!({"TransactItems": [{"Update": {
        "TableName": "blog",
        "Key": {"pk": {"S": "ARTICLE#5"}, "sk": {"S": "A#HEAD"}},
        "UpdateExpression": update,
        "ConditionExpression": format!("({alive} AND #n2 = :v0) AND ({alive} AND #n3 = :v1)"),
        "ExpressionAttributeNames": names,
    }}]});
    let parts = axum::http::Request::post("/")
        .header("x-amz-target", "DynamoDB_20120810.TransactWriteItems")
        .body(())
        .unwrap()
        .into_parts()
        .0;
    let tables = BTreeMap::from([("blog".to_string(), ("pk".to_string(), BTreeMap::new()))]);
    let schemas = blog_stack::actions::KeySchemas { tables };
    let actions =
        blog_stack::actions::of_request("dynamodb", &parts, body.to_string().as_bytes(), &schemas)
            .expect("a transaction the check reads");
    // The template's policies name the table by its logical id.
    actions.into_iter().map(|a| Action { resource: probe::TABLE.into(), ..a }).collect()
}

#[test]
fn a_recorded_update_naming_an_article_title_is_refused_to_the_comments_function() {
    let policies = policies();
    let comments = &policies["CommentsFunction"];
    let like = like_transaction(&[]);
    assert!(like.iter().all(|a| allows(comments, a)), "the like itself: {like:?}");
    for attribute in ["title", "content", "gsi1pk", "version"] {
        let tampered = like_transaction(&[attribute]);
        assert!(!allows(comments, &tampered[0]), "comments may SET {attribute}: {tampered:?}");
    }
}
