//! The embedder port: text in, a fixed-length vector out, such that texts about the same thing
//! have vectors a small [`cosine_distance`] apart. Locally a hashed n-gram embedder that needs
//! no network and no model ([`local::LocalEmbedder`]); in AWS, Amazon Titan Text Embeddings V2
//! on Bedrock (`bedrock::BedrockEmbedder`, feature `bedrock`).
//!
//! Vectors of different models, or of one model at different dimensions, are not comparable:
//! store [`Embedder::model_id`] and [`Embedder::dimensions`] beside each vector.

use async_trait::async_trait;

#[cfg(feature = "bedrock")]
pub mod bedrock;
pub mod local;

/// Turns text into an embedding vector.
#[async_trait]
pub trait Embedder: Send + Sync + 'static {
    /// The embedding of `text`: [`Embedder::dimensions`] floats with an L2 norm of 1, or all
    /// zeros when the text has nothing to embed (empty or blank; for the local embedder, also
    /// punctuation and stop words only).
    async fn embed(&self, text: &str) -> anyhow::Result<Vec<f32>>;

    /// Identifies the model that makes the vectors.
    fn model_id(&self) -> &str;

    /// Length of every vector this embedder returns.
    fn dimensions(&self) -> usize;
}

/// `1 - cosine similarity` of `a` and `b`, in `[0, 2]`: 0 for the same direction, 1 for
/// unrelated (orthogonal) vectors, 2 for opposite ones. A zero vector, a non-finite component
/// or vectors of different lengths (different models) count as unrelated: 1.
pub fn cosine_distance(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 1.0;
    }
    let (mut dot, mut norm_a, mut norm_b) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        dot += x * y;
        norm_a += x * x;
        norm_b += y * y;
    }
    let norms = (norm_a * norm_b).sqrt();
    if norms == 0.0 || !norms.is_finite() || !dot.is_finite() {
        return 1.0;
    }
    (1.0 - dot / norms).clamp(0.0, 2.0) as f32
}

/// Scales `v` to an L2 norm of 1; leaves a zero vector (or one with a non-finite component)
/// unchanged.
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in v {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_distance_is_zero_for_the_same_direction_one_for_orthogonal_two_for_opposite() {
        let a = [1.0, 2.0, 3.0];
        assert!(cosine_distance(&a, &[2.0, 4.0, 6.0]).abs() < 1e-6);
        assert!((cosine_distance(&[1.0, 0.0], &[0.0, 5.0]) - 1.0).abs() < 1e-6);
        assert!((cosine_distance(&a, &[-1.0, -2.0, -3.0]) - 2.0).abs() < 1e-6);
    }

    #[test]
    fn zero_mismatched_and_non_finite_vectors_are_unrelated() {
        assert_eq!(cosine_distance(&[0.0, 0.0], &[1.0, 0.0]), 1.0);
        assert_eq!(cosine_distance(&[0.0, 0.0], &[0.0, 0.0]), 1.0);
        assert_eq!(cosine_distance(&[1.0, 0.0], &[1.0, 0.0, 0.0]), 1.0);
        assert_eq!(cosine_distance(&[], &[]), 1.0);
        assert_eq!(cosine_distance(&[f32::NAN, 1.0], &[1.0, 1.0]), 1.0);
        assert_eq!(cosine_distance(&[f32::INFINITY, 1.0], &[1.0, 1.0]), 1.0);
    }

    #[test]
    fn normalize_scales_to_unit_length_and_leaves_zero_vectors_alone() {
        let mut v = [3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut zero = [0.0, 0.0];
        normalize(&mut zero);
        assert_eq!(zero, [0.0, 0.0]);
    }
}
