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
    Action {
        action: name.into(),
        resource: resource.into(),
        leading_keys: keys.iter().map(|k| k.to_string()).collect(),
        on_index,
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
