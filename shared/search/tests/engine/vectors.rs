//! Semantic and hybrid search, and related articles.

use blog_search::{Article, Mode, Query, SearchError, SearchIndex};

use crate::support::*;

fn with_vector(id: &str, title: &str, vector: Vec<f32>, published_at: i64) -> Article {
    Article { embedding: Some(vector), ..titled(id, title, published_at) }
}

#[test]
fn semantic_search_ranks_by_cosine_and_skips_articles_without_vectors() {
    let index = index_of([
        with_vector("far", "far", vec![0.0, 1.0, 0.0], 1),
        with_vector("near", "near", vec![1.0, 0.1, 0.0], 2),
        with_vector("mid", "mid", vec![1.0, 1.0, 0.0], 3),
        titled("none", "no vector", 4),
    ]);
    let results = index.search(&semantic(vec![1.0, 0.0, 0.0])).unwrap();
    assert_eq!(results.total, 3);
    let ids: Vec<&str> = results.hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["near", "mid", "far"]);
    assert!((results.hits[0].score - 0.995).abs() < 0.01);
    assert!((results.hits[1].score - std::f32::consts::FRAC_1_SQRT_2).abs() < 0.01);
    assert!(results.hits[2].score.abs() < 0.01);
}

#[test]
fn semantic_search_applies_filters_and_counts_candidates() {
    let mut tagged = with_vector("tagged", "a", vec![1.0, 0.0], 1);
    tagged.tag_ids = vec!["t1".into()];
    tagged.category_id = Some("c1".into());
    let index = index_of([tagged, with_vector("plain", "b", vec![1.0, 0.0], 2)]);
    let by_tag = Query { tag_id: Some("t1".into()), ..semantic(vec![1.0, 0.0]) };
    let results = index.search(&by_tag).unwrap();
    assert_eq!((results.total, results.hits[0].id.as_str()), (1, "tagged"));
    let by_category = Query { category_id: Some("c2".into()), ..semantic(vec![1.0, 0.0]) };
    assert_eq!(index.search(&by_category).unwrap().total, 0);
}

#[test]
fn quantised_nearest_neighbours_match_exact_cosine_on_random_vectors() {
    // i8 quantisation moves a cosine by less than 0.001 at 512 dimensions: the order may only
    // differ from the exact f32 order between near ties, closer than twice that.
    const NEAR_TIE: f64 = 0.002;
    let mut random = Random::new(7);
    let dims = 512;
    let vectors: Vec<Vec<f32>> = (0..600).map(|_| random.vector(dims)).collect();
    let index = index_of(
        vectors.iter().enumerate().map(|(i, v)| with_vector(&i.to_string(), "x", v.clone(), 0)),
    );
    let mut identical_top_fives = 0;
    for _ in 0..20 {
        let query = random.vector(dims);
        let exact_of = |id: &str| cosine(&query, &vectors[id.parse::<usize>().unwrap()]);
        let mut exact: Vec<(f64, String)> =
            vectors.iter().enumerate().map(|(i, v)| (cosine(&query, v), i.to_string())).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        let found = index.search(&Query { limit: 10, ..semantic(query.clone()) }).unwrap();
        assert_eq!(found.total, 600);
        for (rank, hit) in found.hits.iter().enumerate() {
            assert!((f64::from(hit.score) - exact_of(&hit.id)).abs() < NEAR_TIE / 2.0);
            assert!((exact_of(&hit.id) - exact[rank].0).abs() < NEAR_TIE, "rank {rank}");
        }
        for (i, earlier) in found.hits.iter().enumerate() {
            for later in &found.hits[i + 1..] {
                let inversion = exact_of(&later.id) - exact_of(&earlier.id);
                assert!(inversion < NEAR_TIE, "{} before {}", earlier.id, later.id);
            }
        }
        let found_top: Vec<&str> = found.hits.iter().take(5).map(|h| h.id.as_str()).collect();
        let exact_top: Vec<&str> = exact.iter().take(5).map(|(_, id)| id.as_str()).collect();
        identical_top_fives += usize::from(found_top == exact_top);
    }
    assert!(identical_top_fives >= 15, "top 5 identical in {identical_top_fives} of 20 queries");
}

#[test]
fn a_query_vector_of_the_wrong_dimension_is_an_error() {
    let index = index_of([with_vector("1", "a", vec![1.0, 0.0, 0.0], 1)]);
    let error = index.search(&semantic(vec![1.0, 0.0])).unwrap_err();
    assert!(matches!(error, SearchError::DimensionMismatch { expected: 3, found: 2 }), "{error}");
    let hybrid = Query { mode: Mode::Hybrid(vec![1.0; 4]), ..Query::new("a") };
    assert!(matches!(index.search(&hybrid), Err(SearchError::DimensionMismatch { .. })));
    let zero = index.search(&semantic(vec![0.0; 3])).unwrap_err();
    assert!(matches!(zero, SearchError::InvalidVector(_)), "{zero}");
}

#[test]
fn an_article_vector_of_another_dimension_is_refused() {
    let mut index = index_of([with_vector("1", "a", vec![1.0, 0.0, 0.0], 1)]);
    let error = index.upsert([with_vector("2", "b", vec![1.0, 0.0], 2)]).unwrap_err();
    assert!(matches!(error, SearchError::DimensionMismatch { expected: 3, found: 2 }));
    assert_eq!(index.len(), 1);
    // Replacing the only vector with one of another dimension is a consistent index.
    index.upsert([with_vector("1", "a", vec![1.0, 0.0], 3)]).unwrap();
    assert_eq!(index.vector_dims(), Some(2));
}

#[test]
fn hybrid_fusion_puts_an_article_that_ranks_well_in_both_first() {
    let index = index_of([
        // First by text, last by vector.
        with_vector("text", "rust rust", vec![-1.0, 1.0], 1),
        // First by vector, no text match.
        with_vector("vector", "python", vec![1.0, 0.0], 2),
        // Second by both.
        with_vector("both", "rust notes", vec![1.0, 0.2], 3),
        with_vector("v1", "go", vec![1.0, 0.4], 4),
        with_vector("v2", "go", vec![1.0, 0.6], 5),
        titled("textless", "rust and more words here", 6),
    ]);
    let text_only = index.search(&Query::new("rust")).unwrap();
    let text_order: Vec<&str> = text_only.hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(text_order, ["text", "both", "textless"]);
    let query = Query { mode: Mode::Hybrid(vec![1.0, 0.0]), ..Query::new("rust") };
    let results = index.search(&query).unwrap();
    assert_eq!(results.hits[0].id, "both");
    assert!((results.hits[0].score - 2.0 / 62.0).abs() < 1e-6, "{}", results.hits[0].score);
    // The union: three text matches, five vectors, two of them in both.
    assert_eq!(results.total, 6);
}

#[test]
fn hybrid_search_needs_words() {
    let index = index_of([with_vector("1", "a", vec![1.0], 1)]);
    let query = Query { mode: Mode::Hybrid(vec![1.0]), ..Query::new(" ") };
    assert!(matches!(index.search(&query), Err(SearchError::EmptyQuery)));
}

#[test]
fn semantic_highlights_come_from_the_text_where_it_matches() {
    let index = index_of([
        with_vector("1", "rust notes", vec![1.0, 0.0], 1),
        with_vector("2", "python notes", vec![0.9, 0.1], 2),
    ]);
    let query = Query { mode: Mode::Semantic(vec![1.0, 0.0]), ..Query::new("rust") };
    let results = index.search(&query).unwrap();
    assert_eq!(results.total, 2, "text does not filter a semantic search");
    assert_eq!(results.hits[0].highlights.title.as_deref(), Some("<mark>rust</mark> notes"));
    assert_eq!(results.hits[1].highlights.title, None);
    let without_text = index.search(&semantic(vec![1.0, 0.0])).unwrap();
    assert_eq!(without_text.hits[0].highlights, Default::default());
}

#[test]
fn related_excludes_the_article_itself_and_ranks_by_cosine() {
    let index = index_of([
        with_vector("self", "a", vec![1.0, 0.0, 0.0], 1),
        with_vector("twin", "b", vec![1.0, 0.05, 0.0], 2),
        with_vector("cousin", "c", vec![1.0, 1.0, 0.0], 3),
        with_vector("stranger", "d", vec![0.0, 0.0, 1.0], 4),
        titled("plain", "e", 5),
    ]);
    let related = index.related("self", 2);
    let ids: Vec<&str> = related.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["twin", "cousin"]);
    assert!(related[0].1 > 0.99);
    assert_eq!(index.related("self", 10).len(), 3);
    assert!(index.related("plain", 3).is_empty());
    assert!(index.related("missing", 3).is_empty());
}

#[test]
fn the_stored_vector_is_the_given_one_up_to_quantisation() {
    let vector = vec![0.5, -0.25, 0.125, 1.0];
    let index = index_of([with_vector("1", "a", vector.clone(), 1)]);
    let stored = index.embedding("1").unwrap();
    assert!(vector.iter().zip(&stored).all(|(a, b)| (a - b).abs() < 0.005), "{stored:?}");
    assert_eq!(SearchIndex::new().unwrap().embedding("1"), None);
}
