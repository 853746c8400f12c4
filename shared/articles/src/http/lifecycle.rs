//! The status transitions of spec 3.1, as one table.

use crate::{
    envelope::{ArticleError, ArticleFault},
    model::Status,
};

/// A state-changing operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// PUT .../publish.
    Publish,
    /// PUT .../archive.
    Archive,
    /// PUT .../unarchive.
    Unarchive,
}

/// The status `action` leads to from `from`, or the error it answers.
pub fn transition(from: Status, action: Action) -> Result<Status, ArticleError> {
    use Action::*;
    use Status::*;
    match (from, action) {
        (Draft, Publish) => Ok(Published),
        (Published, Archive) => Ok(Archived),
        (Archived, Unarchive) => Ok(Published),
        (Published, Publish) => Err(ArticleFault::AlreadyPublished.into()),
        (Archived, Archive) => Err(ArticleFault::AlreadyArchived.into()),
        (from, action) => Err(ArticleFault::StatusInvalid(format!(
            "cannot {} an article that is {}",
            match action {
                Publish => "publish",
                Archive => "archive",
                Unarchive => "unarchive",
            },
            match from {
                Draft => "a draft",
                Published => "published",
                Archived => "archived",
            }
        ))
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(result: Result<Status, ArticleError>) -> String {
        match result {
            Ok(status) => format!("{status:?}"),
            Err(ArticleError::Own(ArticleFault::AlreadyPublished)) => {
                "ARTICLE_ALREADY_PUBLISHED".into()
            }
            Err(ArticleError::Own(ArticleFault::AlreadyArchived)) => {
                "ARTICLE_ALREADY_ARCHIVED".into()
            }
            Err(ArticleError::Own(ArticleFault::StatusInvalid(_))) => {
                "ARTICLE_STATUS_INVALID".into()
            }
            Err(other) => format!("{other:?}"),
        }
    }

    #[test]
    fn every_status_and_action_follows_the_spec_table() {
        use Action::*;
        use Status::*;
        let expected = [
            (Draft, Publish, "Published"),
            (Draft, Archive, "ARTICLE_STATUS_INVALID"),
            (Draft, Unarchive, "ARTICLE_STATUS_INVALID"),
            (Published, Publish, "ARTICLE_ALREADY_PUBLISHED"),
            (Published, Archive, "Archived"),
            (Published, Unarchive, "ARTICLE_STATUS_INVALID"),
            (Archived, Publish, "ARTICLE_STATUS_INVALID"),
            (Archived, Archive, "ARTICLE_ALREADY_ARCHIVED"),
            (Archived, Unarchive, "Published"),
        ];
        for (from, action, outcome) in expected {
            assert_eq!(code(transition(from, action)), outcome, "{from:?} {action:?}");
        }
    }
}
