//! The checks, in the order they run. Each answers the detail its `ok` line shows; what it
//! creates is recorded in [`Smoke`] so that [`crate::cleanup`] removes it, also after a failure.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::{
    client::{excerpt, Api, Area},
    fixtures::{self, User},
    report::format_duration,
    Options,
};

const RELATED_LIMIT: usize = 20;
const RELATED_POLL: Duration = Duration::from_secs(1);
const METRICS_POLL: Duration = Duration::from_millis(500);

/// The run's client, options, and everything it has created so far.
pub struct Smoke<'o> {
    pub(crate) api: Api,
    pub(crate) options: &'o Options,
    /// Unique to this run: names the user, the articles and the file.
    pub(crate) suffix: String,
    pub(crate) admin_token: Option<String>,
    /// The registered user, once registered.
    pub(crate) user: Option<User>,
    pub(crate) user_token: Option<String>,
    /// Ids of the articles created.
    pub(crate) articles: Vec<String>,
    /// Id of the file presigned.
    pub(crate) file: Option<String>,
}

/// A JSON value as an id: a string, or a number written as one.
fn id_of(value: &Value) -> Option<String> {
    match value {
        Value::String(id) if !id.is_empty() => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

/// `status` and each component's, e.g. `db UP, storage UP`.
fn components(body: &Value) -> String {
    body.get("components")
        .and_then(Value::as_object)
        .map(|components| {
            components
                .iter()
                .map(|(name, c)| format!("{name} {}", c["status"].as_str().unwrap_or("?")))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The `COUNT` measurement of a metric's body.
pub fn count_of(body: &Value) -> Option<f64> {
    body.get("measurements")?
        .as_array()?
        .iter()
        .find(|m| m["statistic"] == "COUNT")
        .and_then(|m| m["value"].as_f64())
}

/// Ids of a related list.
fn related_ids(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|items| items.iter().filter_map(|i| id_of(&i["id"])).collect())
        .unwrap_or_default()
}

impl<'o> Smoke<'o> {
    /// A run against `api` with `options`; nothing created yet.
    pub fn new(api: Api, options: &'o Options) -> Self {
        Smoke {
            api,
            options,
            suffix: fixtures::unique_suffix(),
            admin_token: None,
            user: None,
            user_token: None,
            articles: Vec::new(),
            file: None,
        }
    }

    fn actuator_token(&self) -> Option<&str> {
        self.options.actuator_token.as_deref()
    }

    fn admin(&self) -> Result<&str> {
        self.admin_token.as_deref().context("no administrator token (its login failed)")
    }

    /// `GET /actuator/health` is 200 and UP; the liveness probe answers UP without a token.
    pub async fn health(&self) -> Result<String> {
        let reply =
            self.api.call(Method::GET, "/actuator/health", self.actuator_token(), None).await?;
        if reply.status == StatusCode::UNAUTHORIZED && self.actuator_token().is_none() {
            bail!(
                "GET /actuator/health answered 401: the actuator needs its token \
                 (--actuator-token or BLOG_ACTUATOR_TOKEN)"
            );
        }
        if reply.status != StatusCode::OK || reply.body["status"] != "UP" {
            bail!("GET /actuator/health answered HTTP {}: {}", reply.status, excerpt(&reply.body));
        }
        let probe = self.api.call(Method::GET, "/actuator/health/liveness", None, None).await?;
        if probe.status != StatusCode::OK || probe.body["status"] != "UP" {
            bail!(
                "GET /actuator/health/liveness answered HTTP {}: {}",
                probe.status,
                excerpt(&probe.body)
            );
        }
        Ok(format!("UP ({}), liveness UP", components(&reply.body)))
    }

    /// Logs in; the token and the `user` object of the answer.
    async fn login(&self, username: &str, password: &str) -> Result<(String, Value)> {
        let body = json!({ "username": username, "password": password });
        let data = self
            .api
            .data(Area::Accounts, Method::POST, "/api/v1/auth/login", None, Some(&body))
            .await?;
        let token = data["token"].as_str().context("the login answered no token")?;
        Ok((token.to_string(), data["user"].clone()))
    }

    /// Logs in as the administrator of the options.
    pub async fn admin_login(&mut self) -> Result<String> {
        let name = self.options.admin_username.clone();
        let (token, user) =
            self.login(&name, &self.options.admin_password).await.map_err(|error| {
                anyhow::anyhow!(
                    "{error:#} (the administrator's name and password: --admin-username and \
                     --admin-password, or BLOG_ADMIN_USERNAME and BLOG_ADMIN_PASSWORD; in AWS the \
                     AdminUsername parameter and the value of the AdminPasswordSecret)"
                )
            })?;
        let roles = &user["roles"];
        if !roles.as_array().is_some_and(|r| r.iter().any(|role| role == "ROLE_ADMIN")) {
            bail!("{name} logged in but is not an administrator (roles {roles})");
        }
        self.admin_token = Some(token);
        Ok(name)
    }

    /// Registers a fresh user.
    pub async fn register(&mut self) -> Result<String> {
        let user = User::for_run(&self.suffix);
        let body = json!({
            "username": user.username, "password": user.password,
            "email": user.email(), "nickname": "Smoke test",
        });
        let data = self
            .api
            .data(Area::Accounts, Method::POST, "/api/v1/auth/register", None, Some(&body))
            .await?;
        let id = id_of(&data["id"]).with_context(|| format!("no user id in {}", excerpt(&data)))?;
        let detail = format!("{} (id {id})", user.username);
        self.user = Some(User { id, ..user });
        Ok(detail)
    }

    /// Logs in as the fresh user and reads its profile with the token.
    pub async fn user_login(&mut self) -> Result<String> {
        let user = self.user.as_ref().context("no registered user")?;
        let (token, _) = self.login(&user.username, &user.password).await?;
        let me = self
            .api
            .data(Area::Accounts, Method::GET, "/api/v1/users/me", Some(&token), None)
            .await?;
        if me["username"] != user.username.as_str() {
            bail!("GET /api/v1/users/me answered another user: {}", excerpt(&me));
        }
        self.user_token = Some(token);
        Ok("token accepted by /api/v1/users/me".into())
    }

    /// Creates a draft and publishes it; its id.
    async fn publish_new(&mut self, title: &str, content: &str) -> Result<String> {
        let admin = self.admin()?.to_string();
        let body = json!({ "title": title, "content": content });
        let data = self
            .api
            .data(Area::Articles, Method::POST, "/api/v1/admin/articles", Some(&admin), Some(&body))
            .await?;
        let id = data.as_str().filter(|id| !id.is_empty()).with_context(|| {
            format!("the create answered data {}, not the new id as a string", excerpt(&data))
        })?;
        self.articles.push(id.to_string());
        let path = format!("/api/v1/admin/articles/{id}/publish");
        self.api.data(Area::Articles, Method::PUT, &path, Some(&admin), None).await?;
        Ok(id.to_string())
    }

    /// Creates and publishes an article, then reads it through the public detail.
    pub async fn article(&mut self) -> Result<String> {
        let (title, content) = fixtures::article(&self.suffix, 0);
        let id = self.publish_new(&title, &content).await?;
        let path = format!("/api/v1/articles/{id}");
        let detail = self.api.data(Area::Articles, Method::GET, &path, None, None).await?;
        if detail["title"] != title.as_str() || detail["status"] != 1 {
            bail!("GET {path} answered another article or state: {}", excerpt(&detail));
        }
        if !detail["contentHtml"].as_str().is_some_and(|html| html.contains(&self.suffix)) {
            bail!("GET {path}: contentHtml lacks the content: {}", excerpt(&detail));
        }
        Ok(format!("article {id} published, its public detail rendered"))
    }

    /// Publishes a second article on the same topic and waits until the worker's related list
    /// of one names the other.
    pub async fn related(&mut self) -> Result<String> {
        let first = self.articles.first().context("no first article")?.clone();
        let (title, content) = fixtures::article(&self.suffix, 1);
        let second = self.publish_new(&title, &content).await?;
        let started = Instant::now();
        let mut lists = Vec::new();
        loop {
            lists.clear();
            for (of, other) in [(&first, &second), (&second, &first)] {
                let path = format!("/api/v1/articles/{of}/related?limit={RELATED_LIMIT}");
                let list = self.api.data(Area::Articles, Method::GET, &path, None, None).await?;
                let ids = related_ids(&list);
                if ids.contains(other) {
                    let waited = format_duration(started.elapsed());
                    return Ok(format!("the related list of {of} names {other} after {waited}"));
                }
                lists.push(format!("{of}: {ids:?}"));
            }
            if started.elapsed() >= self.options.related_timeout {
                bail!(
                    "after {}, neither related list names the other ({}): has the worker handled \
                     the publish events? (its logs; the dead-letter queue)",
                    format_duration(self.options.related_timeout),
                    lists.join("; ")
                );
            }
            tokio::time::sleep(RELATED_POLL).await;
        }
    }

    /// Presigns an upload as the user, PUTs the bytes with only `Content-Type`, confirms, and
    /// reads them back through the access URL.
    pub async fn file_round_trip(&mut self) -> Result<String> {
        let token = self.user_token.clone().context("no user token (its login failed)")?;
        let bytes = fixtures::file_bytes(&self.suffix);
        let body = json!({
            "fileName": format!("smoke-{}.png", self.suffix),
            "fileSize": bytes.len(),
            "fileType": fixtures::FILE_TYPE,
            "md5": fixtures::md5_hex(&bytes),
        });
        let data = self
            .api
            .data(Area::Files, Method::POST, "/api/v1/files/presigned", Some(&token), Some(&body))
            .await?;
        let id =
            id_of(&data["fileId"]).with_context(|| format!("no fileId in {}", excerpt(&data)))?;
        self.file = Some(id.clone());
        if data["instant"] != false {
            bail!(
                "the presign answered instant {}: a fresh user's upload is never",
                data["instant"]
            );
        }
        // Not shown in messages: the signed URL is a credential.
        let url = data["uploadUrl"].as_str().context("the presign answered no uploadUrl")?;
        self.api.upload(url, fixtures::FILE_TYPE, bytes.clone()).await?;
        let confirm = format!("/api/v1/files/{id}/confirm");
        self.api.data(Area::Files, Method::PATCH, &confirm, Some(&token), None).await?;
        let access = format!("/api/v1/files/{id}/access-url?expireMinutes=5");
        let url = self.api.data(Area::Files, Method::GET, &access, Some(&token), None).await?;
        let url = url.as_str().with_context(|| format!("{access} answered {}", excerpt(&url)))?;
        let read = self.api.download(url).await?;
        if read != bytes {
            bail!(
                "the access URL answered {} bytes unlike the {} uploaded",
                read.len(),
                bytes.len()
            );
        }
        Ok(format!("file {id}: {} bytes uploaded, confirmed, read back equal", bytes.len()))
    }

    /// The `COUNT` of `http.server.requests`.
    async fn request_count(&self) -> Result<f64> {
        let path = "/actuator/metrics/http.server.requests";
        let reply = self.api.call(Method::GET, path, self.actuator_token(), None).await?;
        if reply.status != StatusCode::OK {
            bail!("GET {path} answered HTTP {}: {}", reply.status, excerpt(&reply.body));
        }
        count_of(&reply.body)
            .with_context(|| format!("GET {path}: no COUNT in {}", excerpt(&reply.body)))
    }

    /// The request count grows after a request.
    pub async fn metrics(&self) -> Result<String> {
        let before = self.request_count().await?;
        let started = Instant::now();
        loop {
            self.api.call(Method::GET, "/actuator/health", self.actuator_token(), None).await?;
            let after = self.request_count().await?;
            if after > before {
                return Ok(format!("http.server.requests COUNT {before} -> {after}"));
            }
            if started.elapsed() >= self.options.metrics_timeout {
                bail!(
                    "http.server.requests COUNT stayed at {before} for {}",
                    format_duration(self.options.metrics_timeout)
                );
            }
            tokio::time::sleep(METRICS_POLL).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_strings_or_numbers() {
        assert_eq!(id_of(&json!("42")), Some("42".into()));
        assert_eq!(id_of(&json!(42)), Some("42".into()));
        assert_eq!(id_of(&json!("")), None);
        assert_eq!(id_of(&Value::Null), None);
    }

    #[test]
    fn the_count_is_read_from_the_measurements() {
        let body = json!({"measurements": [
            {"statistic": "TOTAL_TIME", "value": 1.5},
            {"statistic": "COUNT", "value": 12.0},
        ]});
        assert_eq!(count_of(&body), Some(12.0));
        assert_eq!(count_of(&json!({"measurements": []})), None);
        assert_eq!(count_of(&json!({"status": 404})), None);
    }

    #[test]
    fn components_and_related_ids_are_listed() {
        let health = json!({"status": "UP", "components": {"db": {"status": "UP"}, "queue": {}}});
        assert_eq!(components(&health), "db UP, queue ?");
        let list = json!([{"id": "7", "title": "a"}, {"id": 8}, {"title": "no id"}]);
        assert_eq!(related_ids(&list), vec!["7".to_string(), "8".to_string()]);
        assert!(related_ids(&json!(null)).is_empty());
    }
}
