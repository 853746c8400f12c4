//! The index as one blob: exact round trips, refused damage.

use blog_search::{Article, Fields, Mode, Order, Query, SearchError, SearchIndex, BUNDLE_FORMAT};

use crate::support::*;

fn sample_index() -> SearchIndex {
    let mut random = Random::new(11);
    let mut index = SearchIndex::new().unwrap();
    for batch in 0..3 {
        let articles: Vec<Article> = (0..20)
            .map(|i| {
                let n = batch * 20 + i;
                Article {
                    id: format!("id{n}"),
                    title: format!("Rust 安全管理 part {n}"),
                    summary: format!("summary {n} about tantivy and 向量检索"),
                    body: format!("body {n} {}", "lorem ipsum ".repeat(n % 7)),
                    category_id: Some(format!("c{}", n % 3)),
                    category_name: Some("Backend".into()),
                    tag_ids: vec![format!("t{}", n % 4)],
                    tag_names: vec!["search".into()],
                    published_at: 1_700_000_000_000 + n as i64,
                    pinned: n % 9 == 0,
                    embedding: (n % 5 != 0).then(|| random.vector(16)),
                }
            })
            .collect();
        index.upsert(articles).unwrap();
    }
    index.remove(["id3", "id33"]).unwrap();
    index
}

fn queries(vector: Vec<f32>) -> Vec<Query> {
    vec![
        Query::new("rust"),
        Query::new("安全"),
        Query {
            fields: Fields::TitleAndSummary,
            order: Order::Newest,
            limit: 7,
            offset: 3,
            ..Query::new("tantivy")
        },
        Query { category_id: Some("c1".into()), ..Query::new("part") },
        Query {
            mode: Mode::Semantic(vector.clone()),
            tag_id: Some("t2".into()),
            ..Query::default()
        },
        Query { mode: Mode::Hybrid(vector), limit: 20, ..Query::new("lorem") },
    ]
}

#[test]
fn a_bundle_round_trip_gives_identical_results_and_vectors() {
    let index = sample_index();
    let bundle = index.to_bundle().unwrap();
    let loaded = SearchIndex::from_bundle(&bundle).unwrap();
    assert_eq!((loaded.len(), loaded.generation()), (index.len(), index.generation()));
    assert_eq!(loaded.vector_dims(), Some(16));
    let vector = Random::new(5).vector(16);
    for query in queries(vector) {
        assert_eq!(loaded.search(&query).unwrap(), index.search(&query).unwrap(), "{query:?}");
    }
    for n in 0..60 {
        let id = format!("id{n}");
        assert_eq!(loaded.embedding(&id), index.embedding(&id));
        assert_eq!(loaded.related(&id, 5), index.related(&id, 5));
    }
    assert_eq!(loaded.to_bundle().unwrap(), bundle, "a loaded index bundles to the same bytes");
}

#[test]
fn a_loaded_index_takes_changes_and_bundles_them() {
    let mut loaded = SearchIndex::from_bundle(&sample_index().to_bundle().unwrap()).unwrap();
    let generation = loaded.generation();
    loaded.upsert([titled("new", "zeppelin", 1)]).unwrap();
    loaded.remove(["id1"]).unwrap();
    assert_eq!(loaded.generation(), generation + 2);
    let again = SearchIndex::from_bundle(&loaded.to_bundle().unwrap()).unwrap();
    assert_eq!(find(&again, "zeppelin"), ["new"]);
    assert!(!again.contains("id1"));
    assert_eq!(again.len(), 58);
}

#[test]
fn an_empty_index_round_trips() {
    let empty = SearchIndex::new().unwrap();
    let loaded = SearchIndex::from_bundle(&empty.to_bundle().unwrap()).unwrap();
    assert!(loaded.is_empty());
    assert!(loaded.search(&Query::new("rust")).unwrap().hits.is_empty());
}

#[test]
fn a_damaged_bundle_is_refused_with_an_error() {
    let bundle = sample_index().to_bundle().unwrap();
    for at in [13, 20, bundle.len() / 2, bundle.len() - 1] {
        let mut damaged = bundle.clone();
        damaged[at] ^= 0x40;
        let error = SearchIndex::from_bundle(&damaged).unwrap_err();
        assert!(matches!(error, SearchError::CorruptBundle(_)), "byte {at}: {error}");
    }
}

#[test]
fn a_truncated_bundle_is_refused_with_an_error() {
    let bundle = sample_index().to_bundle().unwrap();
    let step = bundle.len() / 97 + 1;
    for length in (0..bundle.len()).step_by(step) {
        let error = SearchIndex::from_bundle(&bundle[..length]).unwrap_err();
        assert!(matches!(error, SearchError::CorruptBundle(_)), "length {length}: {error}");
    }
    let error = SearchIndex::from_bundle(b"not a bundle at all").unwrap_err();
    assert!(error.to_string().contains("corrupt search bundle"), "{error}");
}

#[test]
fn a_bundle_of_another_format_is_refused() {
    let mut bundle = SearchIndex::new().unwrap().to_bundle().unwrap();
    bundle[8] = BUNDLE_FORMAT + 1;
    let error = SearchIndex::from_bundle(&bundle).unwrap_err();
    assert!(matches!(error, SearchError::UnsupportedBundleVersion { .. }), "{error}");
}
