//! Transactions of the DynamoDB adapter: each [`Write`] as a TransactWriteItems item, and the
//! request retried while only conflicting transactions or throttling cancelled it.

use anyhow::anyhow;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Put, TransactWriteItem, Update as UpdateAction,
};

use super::{
    backoff, build_error, distinct_keys, expr::Expr, failure, invalid, key_attrs, no_key,
    DynamoTable, MAX_ATTEMPTS, MAX_ITEMS, TOTAL,
};
use crate::ports::table::{now_epoch_seconds, Key, TableError, Write, PK};

/// Cancellation reasons of a transaction worth retrying (the first: a concurrent transaction on
/// one of the items).
const RETRYABLE: [&str; 3] =
    ["TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"];

impl DynamoTable {
    /// Runs `writes` as one TransactWriteItems, retried with a backoff while it is cancelled
    /// only by concurrent transactions or throttling; a failed condition is
    /// [`TableError::TransactionCancelled`] naming the writes.
    pub(super) async fn transact_writes(&self, writes: Vec<Write>) -> Result<(), TableError> {
        if writes.is_empty() {
            return Err(invalid(format!("a transaction takes 1 to {MAX_ITEMS} writes")));
        }
        let keys = writes.iter().map(write_key).collect::<Result<Vec<_>, _>>()?;
        distinct_keys(keys, "transaction")?;
        for attempt in 0..MAX_ATTEMPTS {
            let now = now_epoch_seconds();
            let items = writes.iter().map(|write| self.transact_item(write, now));
            let request = self
                .client()
                .transact_write_items()
                .set_transact_items(Some(items.collect::<Result<_, _>>()?))
                .return_consumed_capacity(TOTAL);
            self.usage.called();
            let error = match request.send().await {
                Ok(out) => {
                    self.usage.consumed(true, out.consumed_capacity());
                    return Ok(());
                }
                Err(error) => error,
            };
            let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
                error.as_service_error()
            else {
                return Err(failure("TransactWriteItems", error));
            };
            let (mut failed, mut retry) = (Vec::new(), false);
            for (index, reason) in cancelled.cancellation_reasons().iter().enumerate() {
                match reason.code() {
                    None | Some("None") => {}
                    Some("ConditionalCheckFailed") => failed.push(index),
                    Some(code) if RETRYABLE.contains(&code) => retry = true,
                    Some("ValidationError") => {
                        let message = reason.message().unwrap_or("ValidationError");
                        return Err(invalid(format!("TransactWriteItems #{index}: {message}")));
                    }
                    Some(_) => return Err(failure("TransactWriteItems", error)),
                }
            }
            if !failed.is_empty() {
                return Err(TableError::TransactionCancelled { failed });
            }
            if !retry {
                return Err(failure("TransactWriteItems", error));
            }
            tracing::debug!(attempt, "transaction cancelled by a conflict or throttling; retrying");
            backoff(attempt).await;
        }
        let error = anyhow!("TransactWriteItems: still conflicting after {MAX_ATTEMPTS} attempts");
        Err(TableError::Backend(error))
    }

    fn transact_item(&self, write: &Write, now: i64) -> Result<TransactWriteItem, TableError> {
        let mut x = Expr::new(now);
        let item = TransactWriteItem::builder();
        let item = match write {
            Write::Put { item: put, condition } => {
                let condition = condition.as_ref().and_then(|c| x.condition(c));
                let put = Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(put.clone().into()))
                    .set_condition_expression(condition);
                item.put(with_parts!(put, x).build().map_err(build_error)?)
            }
            Write::Update { key, update, condition } => {
                let Some(expression) = x.update(update)? else {
                    let message = format!("a transaction may not update {key} with no change");
                    return Err(TableError::Invalid(message));
                };
                let condition = condition.as_ref().and_then(|c| x.condition(c));
                let update = UpdateAction::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)))
                    .update_expression(expression)
                    .set_condition_expression(condition);
                item.update(with_parts!(update, x).build().map_err(build_error)?)
            }
            Write::Delete { key, condition } => {
                let condition = condition.as_ref().and_then(|c| x.condition(c));
                let delete = Delete::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)))
                    .set_condition_expression(condition);
                item.delete(with_parts!(delete, x).build().map_err(build_error)?)
            }
            Write::Check { key, condition } => {
                // An empty `All` always holds, but a check needs an expression: a tautology.
                let condition = x.condition(condition).unwrap_or_else(|| {
                    let pk = x.name(PK);
                    format!("attribute_exists({pk}) OR attribute_not_exists({pk})")
                });
                let check = ConditionCheck::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_attrs(key)))
                    .condition_expression(condition);
                item.condition_check(with_parts!(check, x).build().map_err(build_error)?)
            }
        };
        Ok(item.build())
    }
}

fn write_key(write: &Write) -> Result<Key, TableError> {
    match write {
        Write::Put { item, .. } => Key::of(item).ok_or_else(no_key),
        Write::Update { key, .. } | Write::Delete { key, .. } | Write::Check { key, .. } => {
            Ok(key.clone())
        }
    }
}
