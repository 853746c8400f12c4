use std::collections::BTreeMap;

use axum::http::Request;
use serde_json::json;

use super::*;

fn schemas() -> KeySchemas {
    let indexes = BTreeMap::from([("gsi1".to_string(), "gsi1pk".to_string())]);
    KeySchemas { tables: BTreeMap::from([("blog".to_string(), ("pk".to_string(), indexes))]) }
}

fn parts(method: &str, uri: &str, headers: &[(&str, &str)]) -> Parts {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(()).unwrap().into_parts().0
}

fn dynamodb_call(operation: &str, body: serde_json::Value) -> Vec<Action> {
    let target = format!("DynamoDB_20120810.{operation}");
    let parts = parts("POST", "/", &[("x-amz-target", &target)]);
    of_request("dynamodb", &parts, body.to_string().as_bytes(), &schemas()).unwrap()
}

#[test]
fn the_signed_service_comes_from_the_authorization_header_or_a_presigned_query() {
    let header = "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, \
        SignedHeaders=host, Signature=00";
    assert_eq!(
        signed_service(&parts("POST", "/", &[("authorization", header)])).as_deref(),
        Some("dynamodb")
    );
    let presigned = "/b/k?X-Amz-Credential=test%2F20260101%2Fus-east-1%2Fs3%2Faws4_request";
    assert_eq!(signed_service(&parts("PUT", presigned, &[])).as_deref(), Some("s3"));
    assert_eq!(signed_service(&parts("GET", "/", &[])), None);
}

#[test]
fn item_calls_name_the_table_and_their_partition_key() {
    let get = dynamodb_call(
        "GetItem",
        json!({"TableName": "blog",
        "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "A"}}}),
    );
    assert_eq!(
        get,
        [Action::new("dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:123456789012:table/blog")
            .keys(&["USER#1"])
            .with("dynamodb:Attributes", &["*", "pk", "sk"])]
    );
    let put = dynamodb_call("PutItem", json!({"TableName": "blog", "Item": {"pk": {"S": "X"}}}));
    assert_eq!(put[0].leading_keys, ["X"]);
}

#[test]
fn a_transaction_needs_each_contained_operation() {
    let actions = dynamodb_call(
        "TransactWriteItems",
        json!({"TransactItems": [
            {"Put": {"TableName": "blog", "Item": {"pk": {"S": "A#1"}}}},
            {"Update": {"TableName": "blog", "Key": {"pk": {"S": "B"}}}},
            {"ConditionCheck": {"TableName": "blog", "Key": {"pk": {"S": "C"}}}},
        ]}),
    );
    let names: Vec<&str> = actions.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(names, ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"]);
}

#[test]
fn a_query_of_an_index_is_authorized_on_the_index_with_its_partition_key() {
    let query = dynamodb_call(
        "Query",
        json!({"TableName": "blog", "IndexName": "gsi1",
        "KeyConditionExpression": "#p = :p AND begins_with(gsi1sk, :s)",
        "ExpressionAttributeNames": {"#p": "gsi1pk"},
        "ExpressionAttributeValues": {":p": {"S": "OWNER#3"}, ":s": {"S": "2026"}}}),
    );
    assert_eq!(query[0].resource, "arn:aws:dynamodb:us-east-1:123456789012:table/blog/index/gsi1");
    assert_eq!(
        (query[0].leading_keys.as_slice(), query[0].on_index),
        (&["OWNER#3".to_string()][..], true)
    );
}

#[test]
fn sqs_batches_and_both_protocols_map_to_the_single_action() {
    let url = "http://127.0.0.1:5000/123456789012/events";
    let json = parts("POST", "/", &[("x-amz-target", "AmazonSQS.SendMessageBatch")]);
    let body = json!({"QueueUrl": url}).to_string();
    let actions = of_request("sqs", &json, body.as_bytes(), &schemas()).unwrap();
    assert_eq!(
        (actions[0].action.as_str(), actions[0].resource.as_str()),
        ("sqs:SendMessage", "arn:aws:sqs:us-east-1:123456789012:events")
    );
    let form = format!("Action=GetQueueAttributes&QueueUrl={}", url.replace(':', "%3A"));
    let actions = of_request("sqs", &parts("POST", "/", &[]), form.as_bytes(), &schemas()).unwrap();
    assert_eq!(actions[0].action, "sqs:GetQueueAttributes");
}

#[test]
fn s3_requests_map_to_object_and_bucket_actions() {
    let action = |method: &str, uri: &str, headers: &[(&str, &str)]| {
        of_request("s3", &parts(method, uri, headers), b"", &schemas())
            .unwrap()
            .into_iter()
            .map(|a| format!("{} {}", a.action, a.resource))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        action("PUT", "/b/uploads/a%20b.png?X-Amz-Signature=1", &[]),
        ["s3:PutObject arn:aws:s3:::b/uploads/a b.png"]
    );
    assert_eq!(
        action("PUT", "/b/k", &[("x-amz-tagging", "pending=true")]),
        ["s3:PutObjectTagging arn:aws:s3:::b/k", "s3:PutObject arn:aws:s3:::b/k"]
    );
    assert_eq!(
        action("PUT", "/b/final", &[("x-amz-copy-source", "/b/incoming/x")]),
        ["s3:GetObject arn:aws:s3:::b/incoming/x", "s3:PutObject arn:aws:s3:::b/final"]
    );
    assert_eq!(action("HEAD", "/b/k", &[]), ["s3:GetObject arn:aws:s3:::b/k"]);
    assert_eq!(action("DELETE", "/b/k?tagging", &[]), ["s3:DeleteObjectTagging arn:aws:s3:::b/k"]);
    assert_eq!(action("HEAD", "/b", &[]), ["s3:ListBucket arn:aws:s3:::b"]);
}

#[test]
fn a_model_invocation_names_the_foundation_model() {
    let parts = parts("POST", "/model/amazon.titan-embed-text-v2%3A0/invoke", &[]);
    let actions = of_request("bedrock", &parts, b"{}", &schemas()).unwrap();
    assert_eq!(
        actions[0].resource,
        "arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0"
    );
}

#[test]
fn an_update_names_its_key_and_every_attribute_of_its_expressions() {
    let actions = dynamodb_call(
        "TransactWriteItems",
        json!({"TransactItems": [
            {"Update": {"TableName": "blog", "Key": {"pk": {"S": "ARTICLE#5"}, "sk": {"S": "A#HEAD"}},
             "UpdateExpression": "ADD #n0 :v0 SET title = :v1, meta.size = :v2",
             "ConditionExpression": "attribute_exists(#n1) AND (NOT attribute_type(#n2, :t))",
             "ExpressionAttributeNames": {"#n0": "commentCount", "#n1": "pk", "#n2": "expiresAt"}}},
            {"ConditionCheck": {"TableName": "blog", "Key": {"pk": {"S": "ARTICLE#5"}},
             "ConditionExpression": "#s = :s", "ExpressionAttributeNames": {"#s": "status"}}},
        ]}),
    );
    let attributes = |action: &Action| action.context["dynamodb:Attributes"].clone();
    assert_eq!(attributes(&actions[0]), ["commentCount", "expiresAt", "meta", "pk", "sk", "title"]);
    assert_eq!(attributes(&actions[1]), ["pk", "status"]);
    assert!(
        actions.iter().all(|a| !a.context.contains_key("dynamodb:ReturnValues")),
        "a transaction's entries take no ReturnValues"
    );
}

#[test]
fn a_single_write_carries_its_return_values_and_a_whole_read_every_attribute() {
    let update = dynamodb_call(
        "UpdateItem",
        json!({"TableName": "blog", "Key": {"pk": {"S": "X"}}, "ReturnValues": "ALL_NEW",
        "AttributeUpdates": {"likeCount": {"Action": "ADD"}}}),
    );
    assert_eq!(update[0].context["dynamodb:ReturnValues"], ["ALL_NEW"]);
    assert_eq!(update[0].context["dynamodb:Attributes"], ["likeCount", "pk"]);
    let put = dynamodb_call("PutItem", json!({"TableName": "blog", "Item": {"pk": {"S": "X"}}}));
    assert_eq!(put[0].context["dynamodb:ReturnValues"], ["NONE"], "NONE unless asked");
    let projected = dynamodb_call(
        "GetItem",
        json!({"TableName": "blog", "Key": {"pk": {"S": "X"}}, "ProjectionExpression": "#a, b",
        "ExpressionAttributeNames": {"#a": "status"}}),
    );
    assert_eq!(projected[0].context["dynamodb:Attributes"], ["b", "pk", "status"]);
}

#[test]
fn a_listing_carries_its_prefix() {
    let listing = parts("GET", "/b?list-type=2&prefix=incoming%2F", &[]);
    let actions = of_request("s3", &listing, b"", &schemas()).unwrap();
    assert_eq!(
        actions,
        [Action::new("s3:ListBucket", "arn:aws:s3:::b").with("s3:prefix", &["incoming/"])]
    );
    let head = of_request("s3", &parts("HEAD", "/b", &[]), b"", &schemas()).unwrap();
    assert!(head[0].context.is_empty(), "a HEAD of the bucket lists no prefix");
}
