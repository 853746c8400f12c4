//! Removing what the run created (the file, the articles, the user), each removal checked; it
//! runs after the checks whether they passed or not.

use anyhow::{bail, Context, Result};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::{
    checks::Smoke,
    client::{excerpt, Area},
    fixtures::User,
    report::Report,
};

impl Smoke<'_> {
    /// What the run has created and not removed yet, for a message.
    pub fn leftovers(&self) -> Vec<String> {
        let mut left = Vec::new();
        if let Some(file) = &self.file {
            left.push(format!("file {file}"));
        }
        left.extend(self.articles.iter().map(|id| format!("article {id}")));
        if let Some(user) = &self.user {
            left.push(format!("user {} (id {})", user.username, user.id));
        }
        left
    }

    /// Removes what the run created, one line per kind; a failed removal is a failed check.
    pub async fn clean_up(&mut self, report: &mut Report<'_>) {
        if let Some(file) = self.file.clone() {
            if report.check("clean up the file", self.delete_file(&file)).await.is_ok() {
                self.file = None;
            }
        }
        if !self.articles.is_empty() {
            let articles = self.articles.clone();
            if report.check("clean up the articles", self.delete_articles(&articles)).await.is_ok()
            {
                self.articles.clear();
            }
        }
        if let Some(user) = self.user.clone() {
            if report.check("clean up the user", self.delete_user(&user)).await.is_ok() {
                self.user = None;
            }
        }
    }

    /// Deletes the file (as its owner, else as the administrator); then it is not found.
    async fn delete_file(&self, id: &str) -> Result<String> {
        let token = self
            .user_token
            .as_deref()
            .or(self.admin_token.as_deref())
            .with_context(|| format!("no token to delete file {id} with: it is left behind"))?;
        let path = format!("/api/v1/files/{id}");
        self.api.data(Area::Files, Method::DELETE, &path, Some(token), None).await?;
        let after = self.api.call(Method::GET, &path, Some(token), None).await?;
        if after.status != StatusCode::NOT_FOUND {
            bail!(
                "after its deletion GET {path} answered HTTP {}: {}",
                after.status,
                excerpt(&after.body)
            );
        }
        Ok(format!("file {id} deleted"))
    }

    /// Deletes every article (as the administrator); then the public detail answers 404.
    /// Tries them all before reporting the ones that failed.
    async fn delete_articles(&self, ids: &[String]) -> Result<String> {
        let admin = self
            .admin_token
            .as_deref()
            .with_context(|| format!("no administrator token: articles {ids:?} are left behind"))?;
        let mut errors = Vec::new();
        for id in ids {
            if let Err(error) = self.delete_article(admin, id).await {
                errors.push(format!("article {id}: {error:#}"));
            }
        }
        if !errors.is_empty() {
            bail!("{}", errors.join("; "));
        }
        Ok(format!("articles {} deleted", ids.join(", ")))
    }

    async fn delete_article(&self, admin: &str, id: &str) -> Result<()> {
        let path = format!("/api/v1/admin/articles/{id}");
        let data = self.api.data(Area::Articles, Method::DELETE, &path, Some(admin), None).await?;
        if data != json!(true) {
            bail!("DELETE {path} answered data {}, not true", excerpt(&data));
        }
        let public = format!("/api/v1/articles/{id}");
        let after = self.api.call(Method::GET, &public, None, None).await?;
        if after.status != StatusCode::NOT_FOUND {
            bail!("after its deletion GET {public} answered HTTP {}", after.status);
        }
        Ok(())
    }

    /// Deletes the user (as the administrator); then its login is refused.
    async fn delete_user(&self, user: &User) -> Result<String> {
        let admin = self.admin_token.as_deref().with_context(|| {
            format!("no administrator token: user {} is left behind", user.username)
        })?;
        let path = format!("/api/v1/users/{}", user.id);
        self.api.data(Area::Accounts, Method::DELETE, &path, Some(admin), None).await?;
        let body = json!({ "username": user.username, "password": user.password });
        let login = self.api.call(Method::POST, "/api/v1/auth/login", None, Some(&body)).await?;
        if login.status != StatusCode::UNAUTHORIZED {
            bail!("after its deletion the user's login answered HTTP {}", login.status);
        }
        Ok(format!("{} deleted, its login refused", user.username))
    }
}
