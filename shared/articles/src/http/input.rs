//! The create/update body (spec 4.6) and its validation; list query parameters.

use serde::Deserialize;
use serde_json::Value;
use utoipa::{
    openapi::path::{Parameter, ParameterIn},
    IntoParams, ToSchema,
};

use blog_core::{
    codes::Coded,
    http::{
        extract::{id_from_json, parse_id, present},
        Failure,
    },
};

use crate::{envelope::ArticleError, model::Status};

/// Most tags one article may carry.
pub const MAX_TAGS: usize = 10;

/// The body of create and update, as sent (update has PUT semantics: an optional field left
/// out takes its default).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(examples(json!({
    "title": "Hello", "content": "# Hello\n\nA first *post*.", "summary": "A first post",
    "coverImage": "https://example.com/cover.png", "tagIds": [], "isTop": 0, "isFeatured": 0,
    "isCommentDisabled": 0
})))]
pub struct ArticleInput {
    /// 1-200 characters once trimmed.
    #[schema(
        value_type = String,
        required = true,
        min_length = 1,
        max_length = 200,
        pattern = "\\S"
    )]
    title: Option<String>,
    /// Markdown, not blank.
    #[schema(value_type = String, required = true, pattern = "\\S")]
    content: Option<String>,
    /// At most 500 characters; absent or blank derives it from the content.
    #[schema(max_length = 500)]
    summary: Option<String>,
    /// An http(s) URL or an absolute path of at most 500 characters; absent or empty for none.
    #[schema(max_length = 500, pattern = "^\\s*((https?://|/)\\S*)?\\s*$")]
    cover_image: Option<String>,
    /// An existing category; absent or `null` for none.
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = blog_core::http::docs::id_input_or_null)]
    category_id: Option<Value>,
    /// Existing tags, at most 10 distinct ones (repeated ids count once).
    #[schema(schema_with = blog_core::http::docs::id_inputs_or_null)]
    tag_ids: Option<Vec<Value>>,
    /// Pinned: 0 (default) or 1.
    #[schema(minimum = 0, maximum = 1)]
    is_top: Option<i64>,
    /// Featured: 0 (default) or 1.
    #[schema(minimum = 0, maximum = 1)]
    is_featured: Option<i64>,
    /// Comments disabled: 0 (default) or 1.
    #[schema(minimum = 0, maximum = 1)]
    is_comment_disabled: Option<i64>,
    /// Update only: the version the caller edited; another than the current one answers 409.
    #[schema(minimum = 1)]
    version: Option<i64>,
}

/// A validated body; absent optional fields take the spec's defaults.
#[derive(Debug)]
pub struct Validated {
    /// 1-200 characters.
    pub title: String,
    /// Markdown, not blank.
    pub content: String,
    /// Given summary (at most 500 characters); `None` derives it.
    pub summary: Option<String>,
    /// Cover image URL, empty when none.
    pub cover_image: String,
    /// Category.
    pub category_id: Option<u64>,
    /// Distinct tags in the order given.
    pub tag_ids: Vec<u64>,
    /// Pinned.
    pub is_top: bool,
    /// Featured.
    pub is_featured: bool,
    /// Comments disabled.
    pub is_comment_disabled: bool,
    /// The version the caller edited (update only).
    pub version: Option<i64>,
}

fn invalid(message: impl Into<String>) -> ArticleError {
    Failure::Invalid(message.into()).into()
}

fn flag(name: &str, value: Option<i64>) -> Result<bool, ArticleError> {
    match value.unwrap_or(0) {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(invalid(format!("{name} must be 0 or 1"))),
    }
}

impl ArticleInput {
    /// Checks every rule of spec 4.6 and decisions.md, naming the field that breaks one.
    pub fn validate(self) -> Result<Validated, ArticleError> {
        let title = self.title.ok_or_else(|| invalid("title is required"))?;
        let title = title.trim().to_string();
        if title.is_empty() || title.chars().count() > 200 {
            return Err(invalid("title must be 1-200 characters"));
        }
        let content = self.content.ok_or_else(|| invalid("content is required"))?;
        if content.trim().is_empty() {
            return Err(invalid("content must not be empty"));
        }
        if content.len() > MAX_CONTENT_BYTES {
            return Err(invalid(format!(
                "content must be at most {MAX_CONTENT_BYTES} bytes of Markdown (it has {})",
                content.len()
            )));
        }
        let summary = self.summary.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        if summary.as_ref().is_some_and(|s| s.chars().count() > 500) {
            return Err(invalid("summary must be at most 500 characters"));
        }
        let cover_image = self.cover_image.unwrap_or_default().trim().to_string();
        let url_like = cover_image.starts_with("https://")
            || cover_image.starts_with("http://")
            || cover_image.starts_with('/');
        if !cover_image.is_empty()
            && (!url_like
                || cover_image.len() > 500
                || cover_image.chars().any(char::is_whitespace))
        {
            return Err(invalid("coverImage must be an http(s) URL or an absolute path"));
        }
        let category_id = match self.category_id {
            None | Some(Value::Null) => None,
            Some(raw) => Some(id_from_json("categoryId", &raw).map_err(invalid)?),
        };
        let mut tag_ids = Vec::new();
        for raw in self.tag_ids.unwrap_or_default() {
            let id = id_from_json("tagIds", &raw).map_err(invalid)?;
            if !tag_ids.contains(&id) {
                tag_ids.push(id);
            }
        }
        if tag_ids.len() > MAX_TAGS {
            return Err(invalid(format!("tagIds may hold at most {MAX_TAGS} tags")));
        }
        if self.version.is_some_and(|v| v < 1) {
            return Err(invalid("version must be a positive integer"));
        }
        Ok(Validated {
            title,
            content,
            summary,
            cover_image,
            category_id,
            tag_ids,
            is_top: flag("isTop", self.is_top)?,
            is_featured: flag("isFeatured", self.is_featured)?,
            is_comment_disabled: flag("isCommentDisabled", self.is_comment_disabled)?,
            version: self.version,
        })
    }
}

/// Query of the public list: `page` (or `current`), `size`, `categoryId`, `tagId`, `keyword`.
/// The administration list takes `page`, `current`, `size` and `status` (documented there).
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Page number (default 1).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1000000)]
    page: Option<String>,
    /// Alias of `page`; the page object then carries `current` too.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1000000)]
    current: Option<String>,
    /// Page size (default 10).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    size: Option<String>,
    /// Only articles of this category.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 9007199254740991_u64)]
    category_id: Option<String>,
    /// Only articles carrying this tag.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 9007199254740991_u64)]
    tag_id: Option<String>,
    /// Every word must occur in the title or summary (in any script; the last word also as the
    /// start of a word, words of 5+ letters also with one typo).
    keyword: Option<String>,
    #[param(ignore)]
    status: Option<String>,
}

/// The query of a tag's articles (`/tags/slug/{slug}/articles`): the parameters of
/// [`ListQuery`] but `tagId`, which the path names.
pub struct TagArticlesQuery;

impl IntoParams for TagArticlesQuery {
    fn into_params(parameter_in: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        list_parameters_but(PathFilter::Tag, parameter_in)
    }
}

/// The query of a category's articles (`/categories/slug/{slug}/articles`): the parameters of
/// [`ListQuery`] but `categoryId`, which the path names.
pub struct CategoryArticlesQuery;

impl IntoParams for CategoryArticlesQuery {
    fn into_params(parameter_in: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        list_parameters_but(PathFilter::Category, parameter_in)
    }
}

/// The documentation of [`ListQuery`]'s parameters without the filter a path names.
fn list_parameters_but(
    named: PathFilter,
    parameter_in: impl Fn() -> Option<ParameterIn>,
) -> Vec<Parameter> {
    let mut parameters = ListQuery::into_params(parameter_in);
    parameters.retain(|parameter| parameter.name != named.parameter());
    parameters
}

/// The filter the path of a tag's or a category's articles names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathFilter {
    /// `/tags/slug/{slug}/articles`: the tag.
    Tag,
    /// `/categories/slug/{slug}/articles`: the category.
    Category,
}

impl PathFilter {
    /// The list's query parameter of this filter.
    pub fn parameter(self) -> &'static str {
        match self {
            Self::Tag => "tagId",
            Self::Category => "categoryId",
        }
    }

    /// What the slug names, in words.
    pub fn kind(self) -> &'static str {
        match self {
            Self::Tag => "tag",
            Self::Category => "category",
        }
    }
}

/// A validated list query.
pub struct Listing {
    /// From 1.
    pub page: u64,
    /// 1-100.
    pub size: u64,
    /// Whether the caller used the `current` alias.
    pub current: bool,
    /// Category filter.
    pub category_id: Option<u64>,
    /// Tag filter.
    pub tag_id: Option<u64>,
    /// Keyword.
    pub keyword: Option<String>,
    /// Status filter (administration list).
    pub status: Option<Status>,
}

/// The longest Markdown an article takes, in bytes (about 15,000 words): with its rendering
/// and contents it must fit one DynamoDB item (400 KB).
pub const MAX_CONTENT_BYTES: usize = 100_000;

/// The most an article's body (Markdown, HTML rendering, contents) may hold, in bytes: DynamoDB's
/// 400 KB item limit less room for the key and attribute names.
pub const MAX_BODY_BYTES: usize = 390_000;

/// The deepest article a public list reaches (`page` × `size`): an anonymous request reads at
/// most this many list items.
pub const MAX_PUBLIC_DEPTH: u64 = 1_000;

impl Listing {
    /// Refuses a public page beyond [`MAX_PUBLIC_DEPTH`] (400 PARAM_ERROR naming the field and
    /// the filters that narrow the list).
    pub fn within_public_depth(self) -> Result<Self, ArticleError> {
        self.within_depth_narrowed_by("categoryId, tagId or keyword")
    }

    /// [`Listing::within_public_depth`] on the articles of the tag or category the path names:
    /// the advice names only the filters that endpoint takes.
    pub fn within_depth_of(self, named: PathFilter) -> Result<Self, ArticleError> {
        let other = match named {
            PathFilter::Tag => PathFilter::Category,
            PathFilter::Category => PathFilter::Tag,
        };
        self.within_depth_narrowed_by(&format!("{} or keyword", other.parameter()))
    }

    fn within_depth_narrowed_by(self, filters: &str) -> Result<Self, ArticleError> {
        if self.page.saturating_mul(self.size) <= MAX_PUBLIC_DEPTH {
            return Ok(self);
        }
        let field = if self.current { "current" } else { "page" };
        Err(invalid(format!(
            "{field} × size must be at most {MAX_PUBLIC_DEPTH} (here {} × {}): narrow the list \
             with {filters}",
            self.page, self.size
        )))
    }

    /// Refuses the query's own filter of what the path names (`tagId` on a tag's articles,
    /// `categoryId` on a category's): 400 PARAM_ERROR naming it. An empty one is absent, as in
    /// the list.
    pub fn without(self, named: PathFilter) -> Result<Self, ArticleError> {
        let given = match named {
            PathFilter::Tag => self.tag_id.is_some(),
            PathFilter::Category => self.category_id.is_some(),
        };
        if given {
            return Err(invalid(format!(
                "{} is not taken here: the path names the {}",
                named.parameter(),
                named.kind()
            )));
        }
        Ok(self)
    }

    /// This listing narrowed to the tag or category `id` the path names.
    pub fn named(mut self, named: PathFilter, id: u64) -> Self {
        match named {
            PathFilter::Tag => self.tag_id = Some(id),
            PathFilter::Category => self.category_id = Some(id),
        }
        self
    }
}

/// An optional integer parameter within `range` (empty is absent).
pub(crate) fn number(
    name: &str,
    raw: Option<&str>,
    range: std::ops::RangeInclusive<u64>,
) -> Result<Option<u64>, ArticleError> {
    let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    match raw.parse::<u64>() {
        Ok(value) if range.contains(&value) => Ok(Some(value)),
        _ => Err(invalid(format!(
            "{name} must be an integer from {} to {}",
            range.start(),
            range.end()
        ))),
    }
}

/// An optional id parameter (empty is absent).
pub(crate) fn id(name: &str, raw: Option<&str>) -> Result<Option<u64>, ArticleError> {
    match raw.map(str::trim).filter(|r| !r.is_empty()) {
        None => Ok(None),
        Some(raw) => parse_id(raw)
            .map(Some)
            .ok_or_else(|| invalid(format!("{name} must be a positive integer id"))),
    }
}

impl ListQuery {
    /// Checks the parameters (`page` >= 1, `size` 1-100, ids positive integers).
    pub fn validate(self) -> Result<Listing, ArticleError> {
        let page = number("page", self.page.as_deref(), 1..=1_000_000)?;
        let current = number("current", self.current.as_deref(), 1..=1_000_000)?;
        let status = number("status", self.status.as_deref(), 0..=2)?;
        Ok(Listing {
            page: page.or(current).unwrap_or(1),
            size: number("size", self.size.as_deref(), 1..=100)?.unwrap_or(10),
            current: current.is_some() && page.is_none(),
            category_id: id("categoryId", self.category_id.as_deref())?,
            tag_id: id("tagId", self.tag_id.as_deref())?,
            keyword: self.keyword.filter(|k| !k.trim().is_empty()),
            status: status.and_then(|code| Status::from_code(code as i64)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validate(body: Value) -> Result<Validated, String> {
        let input: ArticleInput = serde_json::from_value(body).unwrap();
        input.validate().map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_apply_to_absent_optional_fields() {
        let v = validate(json!({"title": " T ", "content": "# x"})).unwrap();
        assert_eq!(v.title, "T");
        assert_eq!((v.is_top, v.is_featured, v.is_comment_disabled), (false, false, false));
        assert!(v.summary.is_none() && v.category_id.is_none() && v.tag_ids.is_empty());
    }

    #[test]
    fn each_rule_names_its_field() {
        let cases = [
            (json!({"content": "x"}), "title"),
            (json!({"title": "", "content": "x"}), "title"),
            (json!({"title": "t".repeat(201), "content": "x"}), "title"),
            (json!({"title": "t"}), "content"),
            (json!({"title": "t", "content": "  "}), "content"),
            (json!({"title": "t", "content": "x", "summary": "s".repeat(501)}), "summary"),
            (json!({"title": "t", "content": "x", "isTop": 2}), "isTop"),
            (json!({"title": "t", "content": "x", "categoryId": "x"}), "categoryId"),
            (json!({"title": "t", "content": "x", "tagIds": [0]}), "tagIds"),
            (
                json!({"title": "t", "content": "x", "tagIds": (1..=11).collect::<Vec<_>>()}),
                "tagIds",
            ),
            (
                json!({"title": "t", "content": "x", "coverImage": "javascript:alert(1)"}),
                "coverImage",
            ),
        ];
        for (body, field) in cases {
            let error = validate(body.clone()).unwrap_err();
            assert!(error.contains(field), "{body}: {error}");
        }
    }

    fn listing(query: &str) -> Listing {
        let query: ListQuery = serde_urlencoded::from_str(query).unwrap();
        query.validate().map_err(|e| e.to_string()).unwrap()
    }

    #[test]
    fn a_page_by_slug_documents_the_lists_parameters_but_the_one_its_path_names() {
        let names = |parameters: Vec<Parameter>| -> Vec<String> {
            parameters.into_iter().map(|parameter| parameter.name).collect()
        };
        let query = || Some(ParameterIn::Query);
        let list = names(ListQuery::into_params(query));
        assert_eq!(list, ["page", "current", "size", "categoryId", "tagId", "keyword"]);
        let tag = names(TagArticlesQuery::into_params(query));
        assert_eq!(tag, ["page", "current", "size", "categoryId", "keyword"]);
        let category = names(CategoryArticlesQuery::into_params(query));
        assert_eq!(category, ["page", "current", "size", "tagId", "keyword"]);
    }

    #[test]
    fn the_filter_a_path_names_is_refused_in_its_query_and_then_set_from_the_path() {
        let refused = listing("tagId=3").without(PathFilter::Tag).err().unwrap().to_string();
        assert!(refused.starts_with("tagId "), "{refused}");
        let refused = listing("categoryId=3").without(PathFilter::Category).err().unwrap();
        assert!(refused.to_string().starts_with("categoryId "), "{refused}");
        let tagged = listing("categoryId=3&tagId=&keyword=x").without(PathFilter::Tag).unwrap();
        let tagged = tagged.named(PathFilter::Tag, 9);
        assert_eq!((tagged.category_id, tagged.tag_id), (Some(3), Some(9)));
        assert_eq!(tagged.keyword.as_deref(), Some("x"));
        let filed = listing("tagId=4").without(PathFilter::Category).unwrap();
        let filed = filed.named(PathFilter::Category, 2);
        assert_eq!((filed.category_id, filed.tag_id), (Some(2), Some(4)));
    }

    #[test]
    fn tag_ids_are_deduplicated_in_order() {
        let v = validate(json!({"title": "t", "content": "x", "tagIds": [3, "1", 3]})).unwrap();
        assert_eq!(v.tag_ids, [3, 1]);
    }
}
