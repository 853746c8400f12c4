use serde_json::json;

use super::*;

fn policy() -> Policy {
    Policy::from_policies(&[json!({"Version": "2012-10-17", "Statement": [
        {"Sid": "Reads", "Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:Query"],
         "Resource": ["arn:aws:dynamodb:us-east-1:1:table/t", "arn:aws:dynamodb:us-east-1:1:table/t/index/*"]},
        {"Sid": "Files", "Effect": "Allow", "Action": "dynamodb:PutItem",
         "Resource": "arn:aws:dynamodb:us-east-1:1:table/t",
         "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["FILE#*", "COUNTER#FILE"]}}},
        {"Sid": "Metrics", "Effect": "Allow", "Action": "dynamodb:Query",
         "Resource": "arn:aws:dynamodb:us-east-1:1:table/u",
         "Condition": {"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": ["METRICS"]}}},
        {"Sid": "NoSecrets", "Effect": "Deny", "Action": "secretsmanager:*", "Resource": "*"},
    ]})])
    .unwrap()
}

fn action(name: &str, resource: &str, keys: &[&str], on_index: bool) -> Action {
    let action = Action::new(name, resource).keys(keys);
    if on_index {
        action.on_an_index()
    } else {
        action
    }
}

#[test]
fn an_allow_whose_action_resource_and_conditions_match_grants() {
    let policy = policy();
    let table = "arn:aws:dynamodb:us-east-1:1:table/t";
    assert_eq!(
        policy.decide(&action("dynamodb:GetItem", table, &["USER#1"], false)),
        Decision::Allowed("Reads".into())
    );
    assert_eq!(
        policy.decide(&action("dynamodb:PutItem", table, &["FILE#9"], false)),
        Decision::Allowed("Files".into())
    );
    assert_eq!(
        policy.decide(&action("dynamodb:PutItem", table, &["COUNTER#FILE"], false)),
        Decision::Allowed("Files".into())
    );
    let index = format!("{table}/index/gsi1");
    assert_eq!(
        policy.decide(&action("dynamodb:Query", &index, &["X"], true)),
        Decision::Allowed("Reads".into())
    );
}

#[test]
fn a_key_outside_the_condition_is_not_granted_and_names_the_statement() {
    let policy = policy();
    let table = "arn:aws:dynamodb:us-east-1:1:table/t";
    let mixed = action("dynamodb:PutItem", table, &["FILE#1", "USER#2"], false);
    assert_eq!(policy.decide(&mixed), Decision::NotGranted(vec!["Files".into()]));
    let other = action("dynamodb:DeleteItem", table, &["FILE#1"], false);
    assert_eq!(policy.decide(&other), Decision::NotGranted(vec![]));
}

#[test]
fn leading_key_conditions_never_cover_an_index_query() {
    let policy = policy();
    let index =
        action("dynamodb:Query", "arn:aws:dynamodb:us-east-1:1:table/u", &["METRICS"], true);
    assert_eq!(policy.decide(&index), Decision::NotGranted(vec!["Metrics".into()]));
    let table =
        action("dynamodb:Query", "arn:aws:dynamodb:us-east-1:1:table/u", &["METRICS"], false);
    assert_eq!(policy.decide(&table), Decision::Allowed("Metrics".into()));
}

#[test]
fn an_explicit_deny_wins() {
    let read = action("secretsmanager:GetSecretValue", "arn:aws:secretsmanager:x", &[], false);
    assert_eq!(policy().decide(&read), Decision::Denied("NoSecrets".into()));
}

#[test]
fn policies_the_check_cannot_read_are_refused() {
    assert!(Policy::from_policies(&[json!("AWSLambdaBasicExecutionRole")]).is_err());
    assert!(Policy::from_policies(&[json!({"DynamoDBCrudPolicy": {"TableName": "t"}})]).is_err());
}

#[test]
fn wildcards_match_as_iam_matches_them() {
    assert!(glob("dynamodb:Get*", "dynamodb:GetItem", true));
    assert!(glob("DYNAMODB:getitem", "dynamodb:GetItem", true));
    assert!(glob("arn:aws:s3:::b/uploads/*", "arn:aws:s3:::b/uploads/2026/01/x.png", false));
    assert!(!glob("arn:aws:s3:::b/uploads/*", "arn:aws:s3:::b/incoming/x.png", false));
    assert!(glob("FILE#?", "FILE#1", false) && !glob("FILE#?", "FILE#12", false));
}

fn counters_policy() -> Policy {
    Policy::from_policies(&[json!({"Version": "2012-10-17", "Statement": [
        {"Sid": "Counters", "Effect": "Allow", "Action": "dynamodb:UpdateItem",
         "Resource": "arn:aws:dynamodb:us-east-1:1:table/t",
         "Condition": {
            "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["ARTICLE#*"]},
            "ForAllValues:StringEquals": {"dynamodb:Attributes": ["pk", "sk", "likeCount"]},
            "StringEqualsIfExists": {"dynamodb:ReturnValues": ["NONE", "UPDATED_OLD", "UPDATED_NEW"]}}},
        {"Sid": "Listing", "Effect": "Allow", "Action": "s3:ListBucket",
         "Resource": "arn:aws:s3:::b",
         "Condition": {"StringLike": {"s3:prefix": ["uploads/*", "incoming/*"]}}},
    ]})])
    .unwrap()
}

#[test]
fn an_update_naming_an_attribute_outside_the_list_is_not_granted() {
    let policy = counters_policy();
    let update = |attributes: &[&str]| {
        Action::new("dynamodb:UpdateItem", "arn:aws:dynamodb:us-east-1:1:table/t")
            .keys(&["ARTICLE#5"])
            .with("dynamodb:Attributes", attributes)
    };
    assert_eq!(
        policy.decide(&update(&["pk", "sk", "likeCount"])),
        Decision::Allowed("Counters".into())
    );
    assert_eq!(
        policy.decide(&update(&["pk", "sk", "likeCount", "title"])),
        Decision::NotGranted(vec!["Counters".into()])
    );
}

#[test]
fn return_values_that_read_the_whole_item_back_are_not_granted() {
    let policy = counters_policy();
    let update = |returns: &str| {
        Action::new("dynamodb:UpdateItem", "arn:aws:dynamodb:us-east-1:1:table/t")
            .keys(&["ARTICLE#5"])
            .with("dynamodb:Attributes", &["pk", "likeCount"])
            .with("dynamodb:ReturnValues", &[returns])
    };
    assert_eq!(policy.decide(&update("UPDATED_NEW")), Decision::Allowed("Counters".into()));
    assert_eq!(policy.decide(&update("ALL_NEW")), Decision::NotGranted(vec!["Counters".into()]));
}

#[test]
fn a_listing_is_granted_under_the_prefixes_of_its_condition_only() {
    let policy = counters_policy();
    let list =
        |prefix: &str| Action::new("s3:ListBucket", "arn:aws:s3:::b").with("s3:prefix", &[prefix]);
    assert_eq!(policy.decide(&list("incoming/")), Decision::Allowed("Listing".into()));
    assert_eq!(policy.decide(&list("uploads/2026/x.png")), Decision::Allowed("Listing".into()));
    assert_eq!(policy.decide(&list("")), Decision::NotGranted(vec!["Listing".into()]));
    let whole = Action::new("s3:ListBucket", "arn:aws:s3:::b");
    assert_eq!(
        policy.decide(&whole),
        Decision::NotGranted(vec!["Listing".into()]),
        "a listing without a prefix lacks the key, which only IfExists forgives"
    );
}
