//! Storage of file records and of the stored-object markers that instant uploads share. Every
//! change of a marker's `refs` happens in one transaction with the record change that causes
//! it, guarded by the marker's `fileKey` (and, when a record leaves, by `refs` being above 1
//! for a decrement or at most 1 for the marker's removal), so a stored object is removed only
//! when no live record points at it.

use crate::{
    ids::{next_id, IdKind},
    ports::table::{n, s, AttributeValue, Condition, Item, Key, Table, TableError, Update, Write},
    records,
};

use super::model::{FileRecord, ObjectRecord, COMPLETED};

/// Key of a file record.
pub fn file_key(id: u64) -> Key {
    Key::new(format!("FILE#{id}"), "META")
}

/// Key of the marker of the stored object with this content.
pub fn object_key(md5: &str, size: u64) -> Key {
    Key::new(format!("OBJECT#{md5}#{size}"), "OBJECT")
}

/// A write lost a race with another request; the caller re-reads and decides again.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A condition no longer held.
    #[error("the record or its object changed meanwhile")]
    Changed,
    /// The table failed.
    #[error(transparent)]
    Table(#[from] TableError),
}

fn changed_on_cancel(error: TableError) -> WriteError {
    match error {
        TableError::TransactionCancelled { .. } | TableError::ConditionFailed => {
            WriteError::Changed
        }
        other => WriteError::Table(other),
    }
}

/// Draws a file id.
pub async fn new_id(table: &dyn Table) -> Result<u64, TableError> {
    next_id(table, IdKind::File).await
}

/// Reads a record (deleted ones too).
pub async fn find(table: &dyn Table, id: u64) -> Result<Option<FileRecord>, TableError> {
    table.get(&file_key(id)).await?.map(records::from_item).transpose()
}

/// Reads the marker of the stored object with this content.
pub async fn find_object(
    table: &dyn Table,
    md5: &str,
    size: u64,
) -> Result<Option<ObjectRecord>, TableError> {
    table.get(&object_key(md5, size)).await?.map(records::from_item).transpose()
}

/// The item of a live record, listed under its owner in `gsi1`.
fn record_item(record: &FileRecord) -> Result<Item, TableError> {
    let mut item = records::to_item(record, &file_key(record.id))?;
    item.insert("gsi1pk".into(), s(format!("OWNER#{}", record.owner_id)));
    item.insert("gsi1sk".into(), s(format!("{}#{:016}", record.create_time, record.id)));
    Ok(item)
}

/// Stores a new PENDING record.
pub async fn create(table: &dyn Table, record: &FileRecord) -> Result<(), TableError> {
    table.put(record_item(record)?, Some(Condition::NotExists)).await
}

/// Stores a new COMPLETED record pointing at `object` and counts it there, unless the marker
/// changed meanwhile (then nothing is written).
pub async fn create_instant(
    table: &dyn Table,
    record: &FileRecord,
    object: &ObjectRecord,
) -> Result<(), WriteError> {
    let writes = vec![
        Write::Put { item: record_item(record)?, condition: Some(Condition::NotExists) },
        Write::Update {
            key: object_key(&object.md5, object.file_size),
            update: Update::new().add("refs", 1),
            condition: Some(Condition::equals("fileKey", s(&object.file_key))),
        },
    ];
    table.transact(writes).await.map_err(changed_on_cancel)
}

fn unchanged(record: &FileRecord) -> Condition {
    Condition::All(vec![
        Condition::equals("uploadStatus", n(record.upload_status.into())),
        Condition::LacksAttribute("deleted".into()),
    ])
}

fn completion(record: &FileRecord, now: &str) -> Write {
    Write::Update {
        key: file_key(record.id),
        update: Update::new().set("uploadStatus", n(COMPLETED.into())).set("updateTime", s(now)),
        condition: Some(unchanged(record)),
    }
}

/// How a confirmed record relates to the stored-object marker of its content.
#[derive(Debug, PartialEq, Eq)]
pub enum Completed {
    /// The record's object became the shared one for its content (marker written, refs 1).
    Shared,
    /// The record keeps its object to itself (no MD5, object missing, or another object of
    /// the same content completed first).
    Own,
}

/// Moves a record to COMPLETED. With `share`, its object also becomes the one instant uploads
/// of the same content point at, unless another one holds that place already.
pub async fn complete(
    table: &dyn Table,
    record: &FileRecord,
    share: bool,
    now: &str,
) -> Result<Completed, WriteError> {
    if let (true, Some(md5)) = (share, &record.md5) {
        let marker = ObjectRecord {
            md5: md5.clone(),
            file_size: record.file_size,
            file_key: record.file_key.clone(),
            refs: 1,
            create_time: now.to_string(),
        };
        let writes = vec![
            completion(record, now),
            Write::Put {
                item: records::to_item(&marker, &object_key(md5, record.file_size))?,
                condition: Some(Condition::NotExists),
            },
        ];
        match table.transact(writes).await {
            Ok(()) => return Ok(Completed::Shared),
            Err(TableError::TransactionCancelled { failed }) if failed == [1] => {}
            Err(other) => return Err(changed_on_cancel(other)),
        }
    }
    let Write::Update { key, update, condition } = completion(record, now) else {
        unreachable!("completion is an update")
    };
    table.update(&key, update, condition).await.map_err(changed_on_cancel)?;
    Ok(Completed::Own)
}

/// What deleting a record does to the stored-object marker it is counted in.
#[derive(Clone, Debug, PartialEq)]
pub enum Release {
    /// The record is not counted in a marker: it is the only one pointing at its object.
    Sole,
    /// The record is counted in `object`, read with this `refs` value.
    Counted(ObjectRecord),
}

impl Release {
    /// Whether the stored object goes with the record.
    pub fn removes_object(&self) -> bool {
        match self {
            Release::Sole => true,
            Release::Counted(object) => object.refs <= 1,
        }
    }
}

/// Marks a record deleted (leaving the owner index) and releases its place in the marker:
/// the last record takes the marker away, others decrement `refs`. The decrement holds while
/// another record is still counted (`refs` above 1) and the removal only while none is (`refs`
/// at most 1), whatever value was read: concurrent deletes of records sharing one object do
/// not invalidate each other's reads, and a removal that an instant upload overtook fails (the
/// caller reads again and decrements instead).
pub async fn mark_deleted(
    table: &dyn Table,
    record: &FileRecord,
    release: &Release,
    now: &str,
) -> Result<(), WriteError> {
    let mut writes = vec![Write::Update {
        key: file_key(record.id),
        update: Update::new()
            .set("deleted", AttributeValue::Bool(true))
            .set("updateTime", s(now))
            .remove("gsi1pk")
            .remove("gsi1sk"),
        condition: Some(unchanged(record)),
    }];
    if let Release::Counted(object) = release {
        let key = object_key(&object.md5, object.file_size);
        let ours = Condition::equals("fileKey", s(&object.file_key));
        writes.push(if release.removes_object() {
            let last = Condition::LessThan("refs".into(), 2);
            Write::Delete { key, condition: Some(Condition::All(vec![ours, last])) }
        } else {
            let others = Condition::GreaterThan("refs".into(), 1);
            let update = Update::new().add("refs", -1);
            Write::Update { key, update, condition: Some(Condition::All(vec![ours, others])) }
        });
    }
    table.transact(writes).await.map_err(changed_on_cancel)
}
