//! What the crate's unit tests share: the record they build theirs from.

use crate::model::{AccessPolicy, FileRecord, UploadStatus};

impl FileRecord {
    /// For tests to vary: file 1 of account 2, a PENDING private PNG of 5 bytes named `a.png`,
    /// at `uploads/2026/03/04/a.png` staged at `incoming/a.png`, in the local store, without
    /// MD5, image facts or variants.
    pub(crate) fn pending_for_tests() -> Self {
        FileRecord {
            id: 1,
            owner_id: 2,
            file_name: "a.png".into(),
            file_size: 5,
            file_type: "image/png".into(),
            file_key: "uploads/2026/03/04/a.png".into(),
            staging_key: Some("incoming/a.png".into()),
            md5: None,
            object_marker: None,
            storage_type: "LOCAL".into(),
            bucket_name: "local".into(),
            upload_status: UploadStatus::Pending,
            image_width: None,
            image_height: None,
            variants: None,
            variants_error: None,
            access_policy: AccessPolicy::Private,
            ref_type: None,
            ref_id: None,
            deleted: false,
            create_time: String::new(),
            update_time: String::new(),
        }
    }
}
