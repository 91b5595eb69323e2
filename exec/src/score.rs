//! The scoring kernel the node sources share, so that the in-memory table and the store view
//! give the same numbers: vectors quantised to i8 with one scale each, their dot products, and
//! the connectivity normalisation.

/// A goal vector in the table's i8 form.
#[derive(Debug, Clone)]
pub struct Probe {
    q: Vec<i8>,
    scale: f32,
}

impl Probe {
    /// `query` quantised like the table's vectors (see `NodeTable::probe`).
    pub fn new(query: &[f32]) -> Probe {
        let mut q = vec![0; query.len()];
        let scale = quantize_into(query, &mut q);
        Probe { q, scale }
    }

    /// The cosine with a vector in the same form (`None` for another dimension).
    pub(crate) fn cosine(&self, v: &[i8], scale: f32) -> Option<f32> {
        (v.len() == self.q.len()).then(|| dot_i8(&self.q, v) as f32 * scale * self.scale)
    }
}

/// `ln(1 + max degree)`, the connectivity normaliser (never 0).
pub(crate) fn log_max(max_degree: u32) -> f64 {
    (1.0 + f64::from(max_degree)).ln().max(1e-9)
}

/// A node's connectivity: its log-degree over the normaliser, at most 1.
pub(crate) fn connectivity(degree: u32, log_max: f64) -> f32 {
    ((1.0 + f64::from(degree)).ln() / log_max).min(1.0) as f32
}

/// Writes `q` with `x ≈ q · scale`, `q` in -127..=127, and returns the scale: 0 (and `q` left
/// as it was) for a zero or non-finite vector, which scoring treats as "no vector".
pub(crate) fn quantize_into(x: &[f32], q: &mut [i8]) -> f32 {
    let max = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    if !(max > 0.0 && max.is_finite()) {
        return 0.0;
    }
    let scale = max / 127.0;
    for (q, v) in q.iter_mut().zip(x) {
        *q = (v / scale).round().clamp(-127.0, 127.0) as i8;
    }
    scale
}

/// `Σ a[i]·b[i]` for an f32 and an i8 vector, in 16 independent lanes so that it vectorises.
pub(crate) fn dot_f32_i8(a: &[f32], b: &[i8]) -> f32 {
    let mut acc = [0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * f32::from(*y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..16 {
            acc[k] += x[k] * f32::from(y[k]);
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `Σ a[i]·b[i]` for two i8 vectors, exact in i32 (|a·b| ≤ 127² per component), in 16 lanes.
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..16 {
            acc[k] += i32::from(x[k]) * i32::from(y[k]);
        }
    }
    acc.iter().sum::<i32>() + tail
}

#[cfg(test)]
mod tests {
    use super::{dot_f32_i8, dot_i8, quantize_into};

    #[test]
    fn quantised_dot_matches_float_dot() {
        let a: Vec<f32> = (0..40).map(|i| ((i as f32) * 0.37).sin()).collect();
        let b: Vec<i8> = (0..40)
            .map(|i| (((i as f32) * 0.91).cos() * 127.0) as i8)
            .collect();
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * f32::from(*y)).sum();
        assert!((dot_f32_i8(&a, &b) - exact).abs() < 1e-3);
        let mut qa = vec![0i8; a.len()];
        let sa = quantize_into(&a, &mut qa);
        let both = dot_i8(&qa, &b) as f32 * sa;
        assert!(
            (both - exact).abs() < 0.01 * exact.abs().max(1.0),
            "{both} vs {exact}"
        );
        let exact_int: i32 = qa
            .iter()
            .zip(&b)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        assert_eq!(dot_i8(&qa, &b), exact_int);
    }

    #[test]
    fn zero_and_non_finite_vectors_quantise_to_scale_zero() {
        let mut q = [0i8; 2];
        assert_eq!(quantize_into(&[0.0, 0.0], &mut q), 0.0);
        assert_eq!(quantize_into(&[1.0, f32::INFINITY], &mut q), 0.0);
        assert_eq!(q, [0, 0]);
    }
}
