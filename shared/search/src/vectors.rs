//! Article vectors, stored as i8 with one scale per vector (one byte per dimension), and the
//! cosine similarity of an f32 query vector against them.

use crate::error::{Result, SearchError};

/// A vector quantised to i8: `values[i] * scale` approximates the original component.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QuantizedVector {
    values: Vec<i8>,
    scale: f32,
    /// `1 / |values|`, so a cosine is one dot product and two multiplications.
    inverse_norm: f32,
}

impl QuantizedVector {
    /// Quantises `vector`: each component divided by `max |component| / 127`, rounded.
    pub(crate) fn quantize(vector: &[f32]) -> Result<Self> {
        check(vector)?;
        let max = vector.iter().fold(0f32, |max, v| max.max(v.abs()));
        let scale = max / 127.0;
        let values =
            vector.iter().map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8).collect();
        Self::from_parts(values, scale)
    }

    /// Rebuilds a stored vector (from a bundle), checking what `quantize` guarantees.
    pub(crate) fn from_parts(values: Vec<i8>, scale: f32) -> Result<Self> {
        let squares: i64 = values.iter().map(|&v| i64::from(v) * i64::from(v)).sum();
        if values.is_empty() || squares == 0 || !scale.is_finite() || scale <= 0.0 {
            return Err(SearchError::InvalidVector("empty, all zeros or without a valid scale"));
        }
        Ok(Self { values, scale, inverse_norm: 1.0 / (squares as f32).sqrt() })
    }

    pub(crate) fn dims(&self) -> usize {
        self.values.len()
    }

    pub(crate) fn values(&self) -> &[i8] {
        &self.values
    }

    pub(crate) fn scale(&self) -> f32 {
        self.scale
    }

    /// The vector as f32 (the original, up to quantisation).
    pub(crate) fn to_f32(&self) -> Vec<f32> {
        self.values.iter().map(|&v| f32::from(v) * self.scale).collect()
    }

    /// Cosine similarity with a query prepared by [`unit`] (of the same dimension).
    pub(crate) fn cosine(&self, unit_query: &[f32]) -> f32 {
        dot(unit_query, &self.values) * self.inverse_norm
    }
}

/// Refuses vectors that have no direction: empty, all zeros, or not finite.
pub(crate) fn check(vector: &[f32]) -> Result<()> {
    if vector.is_empty() {
        return Err(SearchError::InvalidVector("it has no dimensions"));
    }
    if !vector.iter().all(|v| v.is_finite()) {
        return Err(SearchError::InvalidVector("it holds NaN or infinity"));
    }
    if vector.iter().all(|&v| v == 0.0) {
        return Err(SearchError::InvalidVector("it is all zeros"));
    }
    Ok(())
}

/// `vector` scaled to length 1 (after [`check`]).
pub(crate) fn unit(vector: &[f32]) -> Result<Vec<f32>> {
    check(vector)?;
    let norm = vector.iter().map(|v| f64::from(*v) * f64::from(*v)).sum::<f64>().sqrt();
    Ok(vector.iter().map(|v| (f64::from(*v) / norm) as f32).collect())
}

/// The dot product, in lanes of eight so the compiler vectorises it.
fn dot(query: &[f32], values: &[i8]) -> f32 {
    const LANES: usize = 8;
    let mut sums = [0f32; LANES];
    let query_chunks = query.chunks_exact(LANES);
    let value_chunks = values.chunks_exact(LANES);
    let tail: f32 = query_chunks
        .remainder()
        .iter()
        .zip(value_chunks.remainder())
        .map(|(q, &v)| q * f32::from(v))
        .sum();
    for (q, v) in query_chunks.zip(value_chunks) {
        for lane in 0..LANES {
            sums[lane] += q[lane] * f32::from(v[lane]);
        }
    }
    sums.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quantised_vector_keeps_its_direction() {
        let original: Vec<f32> = (0..67).map(|i| ((i * 37 % 23) as f32 - 11.0) / 7.0).collect();
        let stored = QuantizedVector::quantize(&original).unwrap();
        assert_eq!(stored.dims(), 67);
        let cosine = stored.cosine(&unit(&original).unwrap());
        assert!((cosine - 1.0).abs() < 1e-3, "{cosine}");
        for (a, b) in original.iter().zip(stored.to_f32()) {
            assert!((a - b).abs() <= stored.scale() / 2.0 + 1e-6);
        }
    }

    #[test]
    fn vectors_without_a_direction_are_refused() {
        assert!(QuantizedVector::quantize(&[]).is_err());
        assert!(QuantizedVector::quantize(&[0.0, 0.0]).is_err());
        assert!(QuantizedVector::quantize(&[1.0, f32::NAN]).is_err());
        assert!(unit(&[f32::INFINITY]).is_err());
    }
}
