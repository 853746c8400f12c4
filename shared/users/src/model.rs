//! Account records and the validated values they are made of (parse, don't validate).

use std::sync::LazyLock;

use regex_lite::Regex;
use serde::{Deserialize, Serialize};

use blog_core::codes::{self, Coded};

pub use super::nickname::Nickname;
use utoipa::{
    openapi::{schema::SchemaType, Array, ArrayBuilder, Type},
    ToSchema,
};

/// Role every account has.
pub const ROLE_USER: &str = "ROLE_USER";
/// Role of administrators.
pub const ROLE_ADMIN: &str = "ROLE_ADMIN";

/// Whether an account may sign in, stored and served as 1 active, 0 disabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccountStatus {
    /// 0: disabled by an administrator.
    Disabled,
    /// 1: may sign in and use tokens.
    Active,
}

impl Coded for AccountStatus {
    const WHAT: &'static str = "account status";

    fn code(self) -> i64 {
        match self {
            AccountStatus::Disabled => 0,
            AccountStatus::Active => 1,
        }
    }

    fn from_code(code: i64) -> Option<Self> {
        [AccountStatus::Disabled, AccountStatus::Active].into_iter().find(|s| s.code() == code)
    }
}

static USERNAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^[A-Za-z0-9_]{3,20}$").expect("valid regex"));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$")
        .expect("valid regex")
});

/// A user name: 3-20 letters, digits or underscores; unique case-insensitively.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    /// Validates a user name.
    pub fn parse(raw: &str) -> Result<Self, String> {
        if USERNAME.is_match(raw) {
            Ok(Self(raw.to_string()))
        } else {
            Err("username must be 3-20 characters of letters, digits and underscore".into())
        }
    }

    /// As given at registration.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An e-mail address (valid format, at most 254 characters); unique case-insensitively.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    /// Validates an e-mail address.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let raw = raw.trim();
        if raw.len() <= 254 && EMAIL.is_match(raw) {
            Ok(Self(raw.to_string()))
        } else {
            Err("email must be a valid e-mail address".into())
        }
    }

    /// As given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A password as typed: 8-20 characters with upper case, lower case and a digit.
pub struct Password(String);

impl Password {
    /// Validates a new password.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let length = raw.chars().count();
        let ok = (8..=20).contains(&length)
            && raw.chars().any(|c| c.is_ascii_uppercase())
            && raw.chars().any(|c| c.is_ascii_lowercase())
            && raw.chars().any(|c| c.is_ascii_digit());
        if ok {
            Ok(Self(raw.to_string()))
        } else {
            Err("password must be 8-20 characters with upper case, lower case and digits".into())
        }
    }

    /// The plain text, for hashing.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// An avatar: empty, or an http(s) URL of at most 500 characters.
pub fn parse_avatar(raw: &str) -> Result<String, String> {
    let ok = raw.is_empty()
        || (raw.len() <= 500
            && (raw.starts_with("https://") || raw.starts_with("http://"))
            && !raw.chars().any(|c| c.is_whitespace() || c.is_control()));
    if ok {
        Ok(raw.to_string())
    } else {
        Err("avatar must be an http(s) URL of at most 500 characters".into())
    }
}

/// Roles as an administrator may set them: known values, `ROLE_USER` always kept.
pub fn parse_roles(raw: &[String]) -> Result<Vec<String>, String> {
    if let Some(unknown) = raw.iter().find(|r| *r != ROLE_USER && *r != ROLE_ADMIN) {
        return Err(format!("roles: unknown role `{unknown}` (ROLE_USER, ROLE_ADMIN)"));
    }
    let mut roles = vec![ROLE_USER.to_string()];
    if raw.iter().any(|r| r == ROLE_ADMIN) {
        roles.push(ROLE_ADMIN.to_string());
    }
    Ok(roles)
}

/// Schema of a list of roles: `ROLE_USER`, maybe `ROLE_ADMIN`.
pub fn roles_schema() -> Array {
    ArrayBuilder::new()
        .description(Some("Roles: `ROLE_USER`, maybe `ROLE_ADMIN`"))
        .items(blog_core::http::docs::string_enum("A role", [ROLE_USER, ROLE_ADMIN]))
        .build()
}

/// [`roles_schema`] or `null`.
pub fn roles_or_null_schema() -> Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .description(Some("New roles (`ROLE_USER` is always kept), or `null` to keep them"))
        .items(blog_core::http::docs::string_enum("A role", [ROLE_USER, ROLE_ADMIN]))
        .build()
}

/// A stored account (table item `USER#<id>` / `PROFILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredUser {
    /// Account id.
    pub id: u64,
    /// User name as registered.
    pub username: String,
    /// E-mail as given.
    pub email: String,
    /// Display name.
    pub nickname: String,
    /// Avatar URL (may be empty).
    #[serde(default)]
    pub avatar: String,
    /// Stored as 1 active, 0 disabled.
    #[serde(with = "codes::code")]
    pub status: AccountStatus,
    /// `ROLE_USER`, maybe `ROLE_ADMIN`.
    pub roles: Vec<String>,
    /// Argon2id PHC string.
    pub password_hash: String,
    /// Creation time (API format).
    pub create_time: String,
    /// Last change (API format).
    pub update_time: String,
}

impl StoredUser {
    /// Whether the account holds `ROLE_ADMIN`.
    pub fn is_admin(&self) -> bool {
        self.roles.iter().any(|r| r == ROLE_ADMIN)
    }

    /// Whether the account may sign in and use tokens.
    pub fn is_active(&self) -> bool {
        self.status == AccountStatus::Active
    }

    /// The name the account shows as an author: its nickname, else its user name.
    pub fn display_name(&self) -> &str {
        if self.nickname.trim().is_empty() {
            &self.username
        } else {
            &self.nickname
        }
    }

    /// The public view of the account.
    pub fn view(&self) -> UserView {
        UserView {
            id: self.id,
            username: self.username.clone(),
            email: self.email.clone(),
            nickname: self.nickname.clone(),
            avatar: self.avatar.clone(),
            status: self.status.code(),
            roles: self.roles.clone(),
            create_time: self.create_time.clone(),
        }
    }
}

/// The User object of the API (never carries the password).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = User)]
pub struct UserView {
    /// Account id.
    pub id: u64,
    /// User name.
    pub username: String,
    /// E-mail.
    pub email: String,
    /// Display name.
    pub nickname: String,
    /// Avatar URL; empty when none.
    pub avatar: String,
    /// 1 active, 0 disabled.
    #[schema(minimum = 0, maximum = 1)]
    pub status: i64,
    /// Roles.
    #[schema(schema_with = roles_schema)]
    pub roles: Vec<String>,
    /// Creation time.
    #[schema(schema_with = blog_core::http::docs::api_time)]
    pub create_time: String,
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn usernames_follow_the_spec_rule() {
        for ok in ["abc", "user_01", "A_b_C_1234567890_xyz"] {
            assert!(Username::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["ab", "a-b-c", "user name", "twenty_one_characters", "ü_ser", "a@b"] {
            assert!(Username::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords_need_upper_lower_digit_and_8_to_20_chars() {
        assert!(Password::parse("Passw0rd").is_ok());
        for bad in ["Pass0rd", "password1", "PASSWORD1", "Password", "Passw0rdPassw0rdPassw0"] {
            assert!(Password::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn emails_are_checked_for_format() {
        assert!(Email::parse("a.b+c@example.co.uk").is_ok());
        for bad in ["a", "a@", "@b.c", "a@b", "a b@c.d", "a@b..c"] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn roles_always_keep_role_user() {
        assert_eq!(parse_roles(&["ROLE_ADMIN".into()]).unwrap(), vec![ROLE_USER, ROLE_ADMIN]);
        assert_eq!(parse_roles(&[]).unwrap(), vec![ROLE_USER]);
        assert!(parse_roles(&["ROLE_ROOT".into()]).is_err());
    }

    fn stored_user(status: &str) -> serde_dynamo::Item {
        use serde_dynamo::AttributeValue::{L, N, S};
        let attributes = [
            ("id", N("7".into())),
            ("username", S("alice".into())),
            ("email", S("alice@example.com".into())),
            ("nickname", S("Alice".into())),
            ("avatar", S(String::new())),
            ("status", N(status.into())),
            ("roles", L(vec![S(ROLE_USER.into()), S(ROLE_ADMIN.into())])),
            ("passwordHash", S("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into())),
            ("createTime", S("2026-01-01T00:00:00".into())),
            ("updateTime", S("2026-01-02T00:00:00".into())),
        ];
        attributes.map(|(k, v)| (k.to_string(), v)).into_iter().collect::<HashMap<_, _>>().into()
    }

    #[test]
    fn an_account_is_stored_with_the_attributes_and_types_of_the_first_layout() {
        let user = StoredUser {
            id: 7,
            username: "alice".into(),
            email: "alice@example.com".into(),
            nickname: "Alice".into(),
            avatar: String::new(),
            status: AccountStatus::Disabled,
            roles: vec![ROLE_USER.into(), ROLE_ADMIN.into()],
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
            create_time: "2026-01-01T00:00:00".into(),
            update_time: "2026-01-02T00:00:00".into(),
        };
        let item: serde_dynamo::Item = serde_dynamo::to_item(&user).unwrap();
        assert_eq!(item, stored_user("0"));
        let read: StoredUser = serde_dynamo::from_item(stored_user("0")).unwrap();
        assert_eq!((read.status, read.is_active(), read.view().status), (user.status, false, 0));
        let active: StoredUser = serde_dynamo::from_item(stored_user("1")).unwrap();
        assert_eq!((active.status, active.is_active()), (AccountStatus::Active, true));
        assert_eq!(serde_json::to_value(active.view()).unwrap()["status"], 1);
    }

    #[test]
    fn avatars_must_be_http_urls() {
        assert!(parse_avatar("").is_ok());
        assert!(parse_avatar("https://example.com/a.png").is_ok());
        assert!(parse_avatar("javascript:alert(1)").is_err());
    }
}
