//! Storage of file records and of the stored-object markers that instant uploads share. A
//! marker belongs to one owner (`OBJECT#<ownerId>#<md5>#<size>`), and each record it counts names
//! it in `objectMarker`; records written before markers were per owner lack that attribute and
//! are counted, if at all, in the marker `OBJECT#<md5>#<size>`. Every change of a marker's `refs`
//! happens in one transaction with the record change that causes it, guarded by the marker's
//! `fileKey` (and, when a record leaves, by `refs` being above 1 for a decrement or at most 1
//! for the marker's removal), so a stored object is removed only when no live record points at
//! it.

use blog_core::{
    codes::Coded,
    ids::{next_id, IdKind},
    ports::table::{
        n, s, AttributeValue, Condition, Item, Key, Table, TableError, Transaction, Update, Write,
    },
    records,
};

use super::model::{AccessPolicy, FileRecord, ObjectRecord, StoredVariant, UploadStatus};

/// Sort key of every stored-object marker.
const MARKER_SK: &str = "OBJECT";

/// Key of a file record.
pub fn file_key(id: u64) -> Key {
    Key::new(format!("FILE#{id}"), "META")
}

/// Key of the marker of `owner`'s stored object with this content (a public object has its own:
/// its key is under `public/`, and a private upload never shares it, nor a public one a private
/// object).
pub fn object_key(owner: u64, md5: &str, size: u64, policy: AccessPolicy) -> Key {
    let pk = match policy {
        AccessPolicy::Private => format!("OBJECT#{owner}#{md5}#{size}"),
        AccessPolicy::Public => format!("OBJECT#{owner}#{md5}#{size}#PUBLIC"),
    };
    Key::new(pk, MARKER_SK)
}

/// Key of a marker written before markers were per owner (shared by every user's records of
/// that content); only releases of the records it counts still touch it.
pub fn legacy_object_key(md5: &str, size: u64) -> Key {
    Key::new(format!("OBJECT#{md5}#{size}"), MARKER_SK)
}

/// The marker that may count `record`: the one it names, else (a record written before markers
/// were per owner) the legacy marker of its content; `None` when no marker can count it (not
/// COMPLETED, or no MD5). Whether the marker does count it is for its `fileKey` to say.
pub fn marker_of(record: &FileRecord) -> Option<Key> {
    let md5 = record.md5.as_deref().filter(|_| record.upload_status == UploadStatus::Completed)?;
    Some(match &record.object_marker {
        Some(pk) => Key::new(pk.clone(), MARKER_SK),
        None => legacy_object_key(md5, record.file_size),
    })
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
        TableError::TransactionCancelled { .. }
        | TableError::Refused { .. }
        | TableError::ConditionFailed => WriteError::Changed,
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

/// Reads the marker at `key`.
pub async fn find_object(table: &dyn Table, key: &Key) -> Result<Option<ObjectRecord>, TableError> {
    table.get(key).await?.map(records::from_item).transpose()
}

/// The item of a live record, listed under its owner in the private index (gsi3).
pub fn record_item(record: &FileRecord) -> Result<Item, TableError> {
    let mut item = records::to_item(record, &file_key(record.id))?;
    item.insert("gsi3pk".into(), s(format!("OWNER#{}", record.owner_id)));
    item.insert("gsi3sk".into(), s(format!("{}#{:016}", record.create_time, record.id)));
    Ok(item)
}

/// Stores a new PENDING record.
pub async fn create(table: &dyn Table, record: &FileRecord) -> Result<(), TableError> {
    table.put(record_item(record)?, Some(Condition::NotExists)).await
}

/// Stores a new COMPLETED record pointing at `object`, the marker at `marker` (which the record
/// names in `objectMarker`), and counts it there, with the outbox item of `event` (if any),
/// unless the marker changed meanwhile (then nothing is written).
pub async fn create_instant(
    table: &dyn Table,
    record: &FileRecord,
    marker: Key,
    object: &ObjectRecord,
    event: Option<Write>,
) -> Result<(), WriteError> {
    let mut writes = vec![
        Write::Put { item: record_item(record)?, condition: Some(Condition::NotExists) },
        Write::Update {
            key: marker,
            update: Update::new().add("refs", 1),
            condition: Some(Condition::equals("fileKey", s(&object.file_key))),
        },
    ];
    writes.extend(event);
    table.transact(writes).await.map_err(changed_on_cancel)
}

fn unchanged(record: &FileRecord) -> Condition {
    Condition::All(vec![
        Condition::equals("uploadStatus", n(record.upload_status.code())),
        Condition::LacksAttribute("deleted".into()),
    ])
}

fn status_change(record: &FileRecord, status: UploadStatus, now: &str) -> (Key, Update, Condition) {
    let mut update = Update::new().set("uploadStatus", n(status.code())).set("updateTime", s(now));
    if let (Some(width), Some(height)) = (record.image_width, record.image_height) {
        update = update.set("imageWidth", n(width.into())).set("imageHeight", n(height.into()));
    }
    (file_key(record.id), update, unchanged(record))
}

/// How a confirmed record relates to the stored-object marker of its content.
#[derive(Debug, PartialEq, Eq)]
pub enum Completed {
    /// The record's object became the one its owner's instant uploads of that content share
    /// (marker written, refs 1).
    Shared,
    /// The record keeps its object to itself (no MD5, or another object of the owner's with the
    /// same content completed first).
    Own,
}

/// Moves a record whose stored bytes were verified to COMPLETED, with the outbox item of
/// `event` (if any) in the same transaction. With an MD5, its object also becomes the one its
/// owner's instant uploads of that content point at, unless another one holds that place
/// already.
pub async fn complete(
    table: &dyn Table,
    record: &FileRecord,
    now: &str,
    event: Option<Write>,
) -> Result<Completed, WriteError> {
    let (key, update, condition) = status_change(record, UploadStatus::Completed, now);
    if let Some(md5) = &record.md5 {
        let marker_key = object_key(record.owner_id, md5, record.file_size, record.access_policy);
        let marker = ObjectRecord {
            md5: md5.clone(),
            file_size: record.file_size,
            file_key: record.file_key.clone(),
            refs: 1,
            image_width: record.image_width,
            image_height: record.image_height,
            create_time: now.to_string(),
        };
        let counted = update.clone().set("objectMarker", s(&marker_key.pk));
        let record =
            Write::Update { key: key.clone(), update: counted, condition: Some(condition.clone()) };
        let marker = Write::Put {
            item: records::to_item(&marker, &marker_key)?,
            condition: Some(Condition::NotExists),
        };
        let mut writes = Transaction::new().with("record", record).with("marker", marker);
        writes.extend("event", event.clone());
        match writes.commit(table).await {
            Ok(()) => return Ok(Completed::Shared),
            // Another upload holds the marker already, and the record is as read.
            Err(TableError::Refused { failed }) if failed == ["marker"] => {}
            Err(other) => return Err(changed_on_cancel(other)),
        }
    }
    match event {
        None => table.update(&key, update, Some(condition)).await.map(drop),
        Some(event) => {
            let record = Write::Update { key, update, condition: Some(condition) };
            Transaction::new().with("record", record).with("event", event).commit(table).await
        }
    }
    .map_err(changed_on_cancel)?;
    Ok(Completed::Own)
}

/// Moves a PENDING record whose stored bytes do not match its declared size or MD5 to FAILED.
pub async fn fail(table: &dyn Table, record: &FileRecord, now: &str) -> Result<(), WriteError> {
    let (key, update, condition) = status_change(record, UploadStatus::Failed, now);
    table.update(&key, update, Some(condition)).await.map_err(changed_on_cancel)?;
    Ok(())
}

/// Lists the variants the worker made on record `id` (with why there are none, when it could
/// not make them), unless it was deleted meanwhile, is gone, or lists some already.
pub async fn set_variants(
    table: &dyn Table,
    id: u64,
    variants: &[StoredVariant],
    error: Option<&str>,
) -> Result<(), WriteError> {
    let listed: AttributeValue = serde_dynamo::to_attribute_value(variants)
        .map_err(|e| TableError::Invalid(e.to_string()))?;
    let mut update = Update::new().set("variants", listed);
    if let Some(error) = error {
        update = update.set("variantsError", s(error));
    }
    let condition = Condition::All(vec![
        Condition::LacksAttribute("deleted".into()),
        Condition::LacksAttribute("variants".into()),
    ]);
    table.update(&file_key(id), update, Some(condition)).await.map_err(changed_on_cancel)?;
    Ok(())
}

/// What deleting a record does to the stored-object marker it is counted in.
#[derive(Clone, Debug, PartialEq)]
pub enum Release {
    /// The record is not counted in a marker: it is the only one pointing at its object.
    Sole,
    /// The record is counted in the marker at `key`, read as `object` (with its `refs`).
    Counted {
        /// Key of the marker.
        key: Key,
        /// The marker as read.
        object: ObjectRecord,
    },
}

impl Release {
    /// Whether the stored object goes with the record.
    pub fn removes_object(&self) -> bool {
        match self {
            Release::Sole => true,
            Release::Counted { object, .. } => object.refs <= 1,
        }
    }
}

/// How `record` is counted: in the marker [`marker_of`] names when that marker points at its
/// object, else not at all.
pub async fn release_of(table: &dyn Table, record: &FileRecord) -> Result<Release, TableError> {
    let Some(key) = marker_of(record) else { return Ok(Release::Sole) };
    Ok(match find_object(table, &key).await? {
        Some(object) if object.file_key == record.file_key => Release::Counted { key, object },
        _ => Release::Sole,
    })
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
            .remove("gsi3pk")
            .remove("gsi3sk")
            // A record written before gsi3 is listed in gsi1 until it moves.
            .remove("gsi1pk")
            .remove("gsi1sk"),
        condition: Some(unchanged(record)),
    }];
    if let Release::Counted { key, object } = release {
        let key = key.clone();
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
