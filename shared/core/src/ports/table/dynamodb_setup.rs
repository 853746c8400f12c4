//! Table creation for DynamoDB Local, the local gateway and tests (production tables come from
//! the CloudFormation template), and the tests' adapter on an emulator (feature `test-support`).

use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use aws_sdk_dynamodb::error::{BuildError, DisplayErrorContext};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType,
    Projection, ProjectionType, ScalarAttributeType, TableStatus, TimeToLiveSpecification,
};

use super::super::{Index, PK, SK, TTL};
use super::DynamoTable;

/// How long [`DynamoTable::create_table_if_missing`] waits for the table to become active.
const ACTIVE_TIMEOUT: Duration = Duration::from_secs(120);

impl DynamoTable {
    /// An adapter on the emulator at `endpoint` with static test credentials (`test`/`test`,
    /// region us-east-1), its table created when missing.
    #[cfg(feature = "test-support")]
    pub async fn connect_for_tests(endpoint: &str, table_name: &str) -> anyhow::Result<Self> {
        use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
        use aws_sdk_dynamodb::Client;

        let credentials = Credentials::new("test", "test", None, None, "blog-tests");
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(credentials)
            .endpoint_url(endpoint)
            .build();
        let table = Self::new(Client::from_conf(config), table_name);
        table.create_table_if_missing().await?;
        Ok(table)
    }

    /// Creates the table when it does not exist (string keys `pk`/`sk`; indexes `gsi1`, `gsi2`
    /// and `gsi3` on `gsiNpk`/`gsiNsk` projecting every attribute; on-demand billing), waits
    /// until it and its indexes are active, and enables TTL on `expiresAt`. An existing table
    /// that lacks an index (created by an earlier version) is an error that says so: DynamoDB
    /// Local never finishes building an index added to an existing table, so an emulator's
    /// table is deleted and created again, and a deployed one gains it from the template.
    pub async fn create_table_if_missing(&self) -> anyhow::Result<()> {
        let described = self.client().describe_table().table_name(&self.table).send().await;
        match described {
            Ok(_) => {}
            Err(e) if e.as_service_error().is_some_and(|e| e.is_resource_not_found_exception()) => {
                self.create_table().await?
            }
            Err(e) => bail!("DescribeTable {}: {}", self.table, DisplayErrorContext(e)),
        }
        self.wait_until_active().await?;
        let missing: Vec<&str> =
            self.missing_indexes().await?.into_iter().filter_map(Index::name).collect();
        if !missing.is_empty() {
            bail!(
                "table {} has no index {}: it was created by an earlier version; delete it (an \
                 emulator's table) or deploy template.yaml (AWS), then run \
                 `blog-gateway migrate-indexes` on a table that holds data",
                self.table,
                missing.join(", ")
            );
        }
        let enabled = self
            .client()
            .update_time_to_live()
            .table_name(&self.table)
            .time_to_live_specification(
                TimeToLiveSpecification::builder().enabled(true).attribute_name(TTL).build()?,
            )
            .send()
            .await;
        if let Err(e) = enabled {
            // Already enabled, or not supported by an emulator.
            tracing::debug!(table = %self.table, error = %DisplayErrorContext(e), "TTL not enabled");
        }
        Ok(())
    }

    /// The secondary indexes of [`Index::SECONDARY`] the existing table lacks.
    async fn missing_indexes(&self) -> anyhow::Result<Vec<Index>> {
        let described = self.client().describe_table().table_name(&self.table).send().await;
        let table = described
            .map_err(|e| anyhow!("DescribeTable {}: {}", self.table, DisplayErrorContext(e)))?
            .table
            .context("DescribeTable returned no table")?;
        let present: Vec<&str> =
            table.global_secondary_indexes().iter().filter_map(|i| i.index_name()).collect();
        Ok(Index::SECONDARY
            .into_iter()
            .filter(|index| index.name().is_some_and(|name| !present.contains(&name)))
            .collect())
    }

    async fn create_table(&self) -> anyhow::Result<()> {
        let mut definitions = Vec::new();
        let mut indexes = Vec::new();
        for index in Index::ALL {
            let (pk, sk) = index.key_attributes();
            definitions.extend([definition(pk)?, definition(sk)?]);
            if let Some(name) = index.name() {
                indexes.push(
                    GlobalSecondaryIndex::builder()
                        .index_name(name)
                        .set_key_schema(Some(key_schema(pk, sk)?))
                        .projection(
                            Projection::builder().projection_type(ProjectionType::All).build(),
                        )
                        .build()?,
                );
            }
        }
        let created = self
            .client()
            .create_table()
            .table_name(&self.table)
            .set_attribute_definitions(Some(definitions))
            .set_key_schema(Some(key_schema(PK, SK)?))
            .set_global_secondary_indexes(Some(indexes))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await;
        match created {
            Err(e) if !e.as_service_error().is_some_and(|e| e.is_resource_in_use_exception()) => {
                bail!("CreateTable {}: {}", self.table, DisplayErrorContext(e))
            }
            _ => Ok(()),
        }
    }

    async fn wait_until_active(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + ACTIVE_TIMEOUT;
        loop {
            let described = self.client().describe_table().table_name(&self.table).send().await;
            let table = described
                .map_err(|e| anyhow!("DescribeTable {}: {}", self.table, DisplayErrorContext(e)))?
                .table
                .context("DescribeTable returned no table")?;
            let indexes_active = table
                .global_secondary_indexes()
                .iter()
                .all(|index| index.index_status() == Some(&IndexStatus::Active));
            if table.table_status() == Some(&TableStatus::Active) && indexes_active {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("table {} is not active after {ACTIVE_TIMEOUT:?}", self.table);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// A string attribute's definition.
fn definition(name: &str) -> Result<AttributeDefinition, BuildError> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
}

/// A hash + range key schema.
fn key_schema(pk: &str, sk: &str) -> Result<Vec<KeySchemaElement>, BuildError> {
    let element = |name: &str, key_type| {
        KeySchemaElement::builder().attribute_name(name).key_type(key_type).build()
    };
    Ok(vec![element(pk, KeyType::Hash)?, element(sk, KeyType::Range)?])
}
