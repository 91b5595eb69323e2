//! The distance kernel every vector comparison uses: embedders' cosine and the HNSW index (which
//! depends on this crate for it, so there is one kernel, below both).

use simsimd::SpatialSimilarity;

/// Dot product of two equal-length vectors (cosine for unit vectors), through simsimd's kernel for
/// the CPU it runs on (AVX-512, AVX2 + FMA or NEON, chosen at run time; a safe API, where this
/// workspace forbids `unsafe`). Measured on 384-d rows (docs/VECTOR.md): 2.5x faster than
/// `portable_dot` on rows not in cache, which is what an HNSW walk reads. Slices of different
/// lengths (never passed by this project) fall back to `portable_dot` over the common prefix.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    match f32::dot(a, b) {
        Some(d) => d as f32,
        None => portable_dot(a, b),
    }
}

/// Dot product of two equal-length `i8` vectors (an HNSW walk's compact rows), through simsimd's
/// kernel for the CPU (AVX-512 VNNI, AVX2 or NEON). Exact: the sum of products is an integer, and
/// below 2^24 for rows up to 1,040 components, so `f32` holds it. Unequal lengths fall back to the
/// plain loop over the common prefix.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> f32 {
    match i8::dot(a, b) {
        Some(d) => d as f32,
        None => a
            .iter()
            .zip(b)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum::<i32>() as f32,
    }
}

/// The same dot product in plain Rust: sixteen independent accumulators in fixed-size chunks are
/// the shape LLVM turns into SIMD without intrinsics. The reference the tests hold `dot` to.
fn portable_dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive_and_portable() {
        for n in [0usize, 1, 7, 15, 16, 17, 31, 100, 384, 385, 1000] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f64 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum();
            assert!((f64::from(dot(&a, &b)) - naive).abs() < 1e-4, "n={n}");
            assert!(
                (f64::from(portable_dot(&a, &b)) - naive).abs() < 1e-4,
                "n={n}"
            );
        }
    }

    #[test]
    fn dot_i8_is_exact() {
        for n in [0usize, 1, 17, 64, 384, 1000] {
            let a: Vec<i8> = (0..n)
                .map(|i| ((i * 37) % 255) as i32 - 127)
                .map(|x| x as i8)
                .collect();
            let b: Vec<i8> = (0..n)
                .map(|i| ((i * 11) % 255) as i32 - 127)
                .map(|x| x as i8)
                .collect();
            let naive: i64 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| i64::from(*x) * i64::from(*y))
                .sum();
            assert_eq!(dot_i8(&a, &b), naive as f32, "n={n}");
        }
        assert_eq!(dot_i8(&[2, 3, 4], &[5, 6]), 28.0);
    }

    #[test]
    fn unequal_lengths_use_the_common_prefix() {
        let a = [1.0f32, 2.0, 3.0];
        let b = [1.0f32, 1.0];
        assert_eq!(dot(&a, &b), 3.0);
    }
}
