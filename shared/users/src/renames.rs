//! AuthorRenamedEvent: a profile change that alters the name an account shows as an author
//! (nickname, else user name) or its avatar emits it through the outbox, in the profile's
//! transaction, so whatever shows the author's name elsewhere (the articles' heads; comments)
//! follows within seconds: sent at once, else by the sweep. Users knows no reader of it: the
//! worker handles it.

use serde::{Deserialize, Serialize};

use blog_core::ports::{
    events::outbox::Outgoing,
    table::{TableError, Write},
};

use super::{model::StoredUser, Profiles};

/// The event's `type`.
pub const AUTHOR_RENAMED: &str = "AuthorRenamedEvent";

/// An account's author card changed: its new name and avatar, stamped with the time of the
/// change (handlers keep the newest).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorRenamedEvent {
    /// Always `AuthorRenamedEvent`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Unique id of this emission.
    pub event_id: String,
    /// The account.
    pub user_id: String,
    /// Its name now: nickname, else user name.
    pub name: String,
    /// Its avatar now (empty when none).
    pub avatar: String,
    /// When the change was made (epoch milliseconds): the newer of two renames wins.
    pub created_at: i64,
}

impl AuthorRenamedEvent {
    /// The event for a change from `before` to `after`, when it alters the author card.
    pub fn of(before: &StoredUser, after: &StoredUser) -> Option<Self> {
        let renamed =
            before.display_name() != after.display_name() || before.avatar != after.avatar;
        renamed.then(|| Self {
            kind: AUTHOR_RENAMED.into(),
            event_id: uuid::Uuid::new_v4().simple().to_string(),
            user_id: after.id.to_string(),
            name: after.display_name().to_string(),
            avatar: after.avatar.clone(),
            created_at: chrono::Utc::now().timestamp_millis(),
        })
    }

    fn outgoing(&self) -> Result<Outgoing, TableError> {
        let body = serde_json::to_string(self).map_err(|e| TableError::Invalid(e.to_string()))?;
        Ok(Outgoing::new(body, self.created_at, &self.event_id))
    }

    /// The outbox item to write in the profile's transaction.
    pub fn outbox_write(&self) -> Result<Write, TableError> {
        Ok(self.outgoing()?.write())
    }

    /// Sends the committed event; on failure its outbox item stays for the sweep.
    pub async fn deliver(&self, ctx: &Profiles) {
        let sent = match self.outgoing() {
            Ok(outgoing) => outgoing.send(ctx.table.as_ref(), ctx.port.as_ref()).await,
            Err(error) => Err(error.into()),
        };
        match sent {
            Ok(()) => tracing::info!(user_id = %self.user_id, "AuthorRenamedEvent sent"),
            Err(error) => tracing::warn!(
                user_id = %self.user_id,
                error = format!("{error:#}"),
                "AuthorRenamedEvent not sent now; the outbox sweep will deliver it"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AccountStatus;

    fn account(nickname: &str, avatar: &str) -> StoredUser {
        StoredUser {
            id: 3,
            username: "grace".into(),
            email: "grace@example.com".into(),
            nickname: nickname.into(),
            avatar: avatar.into(),
            status: AccountStatus::Active,
            roles: vec!["ROLE_USER".into()],
            password_hash: String::new(),
            create_time: String::new(),
            update_time: String::new(),
        }
    }

    #[test]
    fn only_a_change_of_the_shown_name_or_the_avatar_is_a_rename() {
        let before = account("Grace", "");
        let mut email_only = before.clone();
        email_only.email = "hopper@example.com".into();
        assert_eq!(AuthorRenamedEvent::of(&before, &email_only), None);
        // An empty nickname shows the user name: from "grace" to "grace" is no rename.
        assert_eq!(AuthorRenamedEvent::of(&account("", ""), &account("grace", "")), None);
        let event = AuthorRenamedEvent::of(&before, &account("Hopper", "")).unwrap();
        assert_eq!((event.kind.as_str(), event.name.as_str()), (AUTHOR_RENAMED, "Hopper"));
        let event = AuthorRenamedEvent::of(&before, &account("Grace", "https://x.org/a.png"));
        assert_eq!(event.map(|e| e.avatar), Some("https://x.org/a.png".into()));
        let json = serde_json::to_value(AuthorRenamedEvent::of(&before, &account("", "")).unwrap());
        assert_eq!(json.unwrap()["userId"], serde_json::json!("3"));
    }
}
