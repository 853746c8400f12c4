//! What each function must NOT be able to do beyond the table's partitions (see `must_not`):
//! the attributes of an article head, the bucket's prefixes, the other functions' secrets,
//! queue actions and model, the table itself.

use std::collections::BTreeMap;

use blog_stack::{
    actions::Action,
    iam::probe::{self, allows},
};

use super::must_not::policies;

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
fn files_lists_and_touches_objects_under_its_three_prefixes_only_and_the_worker_public_ones() {
    let policies = policies();
    let files = &policies["FilesFunction"];
    assert!(allows(files, &probe::listing(Some("incoming/")))); // the local sweep's listing
    assert!(allows(files, &probe::listing(Some("uploads/2026/11/27/a.png")))); // a HeadObject's
    assert!(allows(files, &probe::listing(Some("public/2026/11/27/a.png"))));
    for prefix in [None, Some(""), Some("other/"), Some("upload"), Some("incoming")] {
        assert!(!allows(files, &probe::listing(prefix)), "files lists {prefix:?}");
    }
    let keys = ["uploads/2026/11/27/a.png", "public/2026/11/27/a.png", "incoming/a.png"];
    for (function, policy) in &policies {
        for action in ["GetObject", "PutObject", "DeleteObject", "PutObjectTagging"] {
            for key in keys.into_iter().chain(["other/a.png", "a.png"]) {
                // The worker reads public images and puts (or, for a record deleted
                // meanwhile, deletes) their variants beside them.
                let expected = action != "PutObjectTagging"
                    && match function.as_str() {
                        "FilesFunction" => keys.contains(&key),
                        "WorkerFunction" => key.starts_with("public/"),
                        _ => false,
                    };
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
fn the_search_index_is_written_by_the_worker_and_read_by_the_articles_function_only() {
    for (function, policy) in &policies() {
        for action in ["GetObject", "PutObject", "DeleteObject", "PutObjectTagging"] {
            let expected = match function.as_str() {
                "WorkerFunction" => ["GetObject", "PutObject"].contains(&action),
                "ArticlesFunction" => action == "GetObject",
                _ => false,
            };
            let granted = allows(policy, &probe::object(action, "search/articles.index"));
            assert_eq!(granted, expected, "{function} {action} search/articles.index");
        }
        // A missing index is a 404 (no index yet), not a 403, to its two users (and the ops
        // function, whose health check lists the whole bucket).
        let lists = allows(policy, &probe::listing(Some("search/articles.index")));
        let users = ["WorkerFunction", "ArticlesFunction", "OpsFunction"];
        let users = users.contains(&function.as_str());
        assert_eq!(lists, users, "{function} lists the search prefix");
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
            vec!["UsersFunction", "AdminArticlesFunction", "OutboxSweepFunction", "FilesFunction"],
        ),
        (Action::new("sqs:GetQueueAttributes", "EventsQueue"), vec!["OpsFunction"]),
        // The worker's receives and deletes are SAM's grant for its SQS event, not a policy's.
        (Action::new("sqs:ReceiveMessage", "EventsQueue"), vec![]),
        (Action::new("sqs:DeleteMessage", "EventsQueue"), vec![]),
        (Action::new("sqs:PurgeQueue", "EventsQueue"), vec![]),
        // The worker embeds articles; the articles function embeds semantic searches.
        (Action::new("bedrock:InvokeModel", model), vec!["ArticlesFunction", "WorkerFunction"]),
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
