//! A DynamoDB table created by a version with fewer secondary indexes (an emulator's table kept
//! across versions) is refused, with what to do, when the adapter creates its table if missing
//! (DynamoDB Local never finishes building an index added to an existing table).
#![cfg(all(feature = "dynamodb", feature = "test-support"))]

use aws_sdk_dynamodb::{
    config::{BehaviorVersion, Credentials, Region},
    types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType,
    },
    Client,
};
use blog_api::ports::table::{dynamodb::DynamoTable, s, Index, Item, Query, Table};

fn client(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "blog-tests"))
        .endpoint_url(endpoint)
        .build();
    Client::from_conf(config)
}

fn schema(pk: &str, sk: &str) -> Vec<KeySchemaElement> {
    [(pk, KeyType::Hash), (sk, KeyType::Range)]
        .map(|(name, kind)| {
            KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap()
        })
        .to_vec()
}

/// A table of the layout before gsi3: keys, gsi1 and gsi2.
async fn create_two_index_table(client: &Client, name: &str) {
    let mut create =
        client.create_table().table_name(name).billing_mode(BillingMode::PayPerRequest);
    for attribute in ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"] {
        create = create.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(attribute)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        );
    }
    create = create.set_key_schema(Some(schema("pk", "sk")));
    for index in ["gsi1", "gsi2"] {
        create = create.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(index)
                .set_key_schema(Some(schema(&format!("{index}pk"), &format!("{index}sk"))))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .unwrap(),
        );
    }
    create.send().await.expect("CreateTable");
}

#[tokio::test]
#[ignore = "needs DynamoDB Local; make test runs it"]
async fn a_table_of_two_indexes_is_refused_with_the_index_it_lacks() {
    let endpoint =
        std::env::var("BLOG_TEST_DYNAMODB_ENDPOINT").expect("BLOG_TEST_DYNAMODB_ENDPOINT");
    let name = format!("older-{}", uuid::Uuid::new_v4().simple());
    let client = client(&endpoint);
    create_two_index_table(&client, &name).await;
    let error = DynamoTable::connect_for_tests(&endpoint, &name).await.err().expect("refused");
    let message = format!("{error:#}");
    assert!(message.contains(&format!("table {name} has no index gsi3")), "{message}");
    assert!(message.contains("migrate-indexes"), "{message}");
    client.delete_table().table_name(&name).send().await.unwrap();
    let table = DynamoTable::connect_for_tests(&endpoint, &name).await.expect("created again");
    let described = client.describe_table().table_name(&name).send().await.unwrap();
    let indexes = described.table().unwrap().global_secondary_indexes().len();
    assert_eq!(indexes, 3, "created with every index");
    let mut item = Item::default();
    for (attribute, value) in [("pk", "A"), ("sk", "1"), ("gsi3pk", "P"), ("gsi3sk", "1")] {
        item.insert(attribute.into(), s(value));
    }
    table.put(item, None).await.unwrap();
    assert_eq!(table.query(Query::partition(Index::Gsi3, "P")).await.unwrap().items.len(), 1);
}
