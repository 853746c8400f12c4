//! What one article is indexed as, and the tantivy schema that holds it.

use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, SchemaBuilder, TextFieldIndexing,
    TextOptions, STRING,
};
use tantivy::TantivyDocument;

use crate::tokenizer::TokenKind;

/// What is indexed for one published article.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Article {
    /// The article's id (e.g. `"1234567890123456789"`); upserting an id again replaces it.
    pub id: String,
    /// The title (searched, highlighted whole, boosted most).
    pub title: String,
    /// The summary (searched, highlighted as a fragment).
    pub summary: String,
    /// The body's plain text (the caller strips Markdown); searched with [`crate::Fields::Everything`].
    pub body: String,
    /// The category's id, for the exact [`crate::Query::category_id`] filter.
    pub category_id: Option<String>,
    /// The category's name, searched with [`crate::Fields::Everything`].
    pub category_name: Option<String>,
    /// The tags' ids, for the exact [`crate::Query::tag_id`] filter.
    pub tag_ids: Vec<String>,
    /// The tags' names, searched with [`crate::Fields::Everything`].
    pub tag_names: Vec<String>,
    /// Publication time, epoch milliseconds: the order of [`crate::Order::Newest`] and the
    /// tie-break of relevance.
    pub published_at: i64,
    /// Pinned to the top of its list: [`crate::Order::Newest`] puts pinned articles first.
    pub pinned: bool,
    /// The article's embedding, if it has one; every vector of an index has one dimension.
    pub embedding: Option<Vec<f32>>,
}

/// Field boosts: a title match outranks a body-only match.
pub(crate) const TITLE_BOOST: f32 = 3.0;
pub(crate) const SUMMARY_BOOST: f32 = 1.5;
pub(crate) const LABEL_BOOST: f32 = 1.5;
pub(crate) const BODY_BOOST: f32 = 1.0;

/// A searched text: its terms (words and CJK characters, no positions) and its CJK bigrams
/// (with positions, for phrases), each a tantivy field with its own tokenizer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TextField {
    pub terms: Field,
    pub bigrams: Field,
}

/// The handles of the schema's fields.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SchemaFields {
    /// The catalog key of the document (fast u64): ties a tantivy document to its catalog entry.
    pub key: Field,
    /// The article id, indexed whole: deletes and lookups.
    pub id: Field,
    pub title: TextField,
    pub summary: TextField,
    pub body: TextField,
    pub category_name: TextField,
    pub tag_names: TextField,
}

fn add_text(builder: &mut SchemaBuilder, name: &str, stored: bool) -> TextField {
    let options = |kind: TokenKind, record: IndexRecordOption| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(kind.tokenizer_name())
            .set_index_option(record);
        TextOptions::default().set_indexing_options(indexing)
    };
    let terms = options(TokenKind::Terms, IndexRecordOption::WithFreqs);
    TextField {
        terms: builder.add_text_field(name, if stored { terms.set_stored() } else { terms }),
        bigrams: builder.add_text_field(
            &format!("{name}_bigrams"),
            options(TokenKind::Bigrams, IndexRecordOption::WithFreqsAndPositions),
        ),
    }
}

impl SchemaFields {
    /// Builds the schema and its field handles.
    pub(crate) fn build() -> (Schema, SchemaFields) {
        let mut builder = Schema::builder();
        let fields = SchemaFields {
            key: builder.add_u64_field("key", NumericOptions::default().set_fast()),
            id: builder.add_text_field("id", STRING),
            title: add_text(&mut builder, "title", true),
            summary: add_text(&mut builder, "summary", true),
            body: add_text(&mut builder, "body", true),
            category_name: add_text(&mut builder, "category_name", false),
            tag_names: add_text(&mut builder, "tag_names", false),
        };
        (builder.build(), fields)
    }

    /// Looks the fields up by name in a loaded index's schema, which must be this build's.
    pub(crate) fn of(schema: &Schema) -> Option<SchemaFields> {
        let (expected, fields) = SchemaFields::build();
        (schema == &expected).then_some(fields)
    }

    /// The tantivy document of an article under its catalog key.
    pub(crate) fn document(&self, article: &Article, key: u64) -> TantivyDocument {
        let mut document = TantivyDocument::new();
        document.add_u64(self.key, key);
        document.add_text(self.id, &article.id);
        let mut add = |field: TextField, text: &str| {
            document.add_text(field.terms, text);
            document.add_text(field.bigrams, text);
        };
        add(self.title, &article.title);
        add(self.summary, &article.summary);
        add(self.body, &article.body);
        if let Some(name) = &article.category_name {
            add(self.category_name, name);
        }
        for name in &article.tag_names {
            add(self.tag_names, name);
        }
        document
    }

    /// The searched texts with their boosts.
    pub(crate) fn searched(&self, everything: bool) -> Vec<(TextField, f32)> {
        let mut fields = vec![(self.title, TITLE_BOOST), (self.summary, SUMMARY_BOOST)];
        if everything {
            fields.extend([
                (self.tag_names, LABEL_BOOST),
                (self.category_name, LABEL_BOOST),
                (self.body, BODY_BOOST),
            ]);
        }
        fields
    }
}
