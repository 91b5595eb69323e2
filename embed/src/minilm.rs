//! all-MiniLM-L6-v2 (sentence-transformers) run in-process on CPU: a compact BERT encoder forward
//! over `safetensors` weights with `ndarray` matrix products, `tokenizers` for WordPiece, then
//! sentence-transformers' mean pooling and L2 normalisation.
//!
//! Why not candle: it compiles for ~21 min on 2 cores (BUILD-NOTES); this path needs only the
//! tokenizer, a safetensors reader and a GEMM, and its throughput is measured in docs/VECTOR.md.

use crate::{finish, EmbedError, Embedder, MINILM_DIM, MINILM_DIR_ENV, MINILM_ID};
use cairn_http::settings::SettingError;
use ndarray::{Array1, Array2, ArrayView2, Axis, Slice};
use std::ops::Range;
use std::path::{Path, PathBuf};

const MAX_TOKENS: usize = 256; // sentence-transformers' max_seq_length for this model

/// Tokens encoded by one packed forward (see [`MiniLmEmbedder::forward_packed`]). Large enough that
/// every weight matrix is streamed from memory once per thousands of tokens instead of once per
/// sentence; small enough that the widest activation (tokens × 1536 floats) stays near 25 MB.
const PACK_TOKENS: usize = 4096;

#[derive(Debug)]
struct Linear {
    /// (out, in), as stored by PyTorch.
    w: Array2<f32>,
    b: Array1<f32>,
}

impl Linear {
    fn apply(&self, x: &ArrayView2<'_, f32>) -> Array2<f32> {
        let mut y = x.dot(&self.w.t());
        y += &self.b;
        y
    }
}

#[derive(Debug)]
struct Norm {
    g: Array1<f32>,
    b: Array1<f32>,
}

#[derive(Debug)]
struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    attn_out: Linear,
    attn_norm: Norm,
    up: Linear,
    down: Linear,
    out_norm: Norm,
}

/// The all-MiniLM-L6-v2 embedder (384-d).
pub struct MiniLmEmbedder {
    tokenizer: tokenizers::Tokenizer,
    words: Array2<f32>,
    positions: Array2<f32>,
    token_type: Array1<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
    heads: usize,
    eps: f32,
    dir: PathBuf,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder")
            .field("dir", &self.dir)
            .field("layers", &self.layers.len())
            .finish()
    }
}

fn model_err(path: &Path, message: impl Into<String>) -> EmbedError {
    EmbedError::Model {
        path: path.to_owned(),
        message: message.into(),
    }
}

impl MiniLmEmbedder {
    /// Loads the model from the directory named by `CAIRN_MINILM_DIR` (empty counts as unset).
    /// Failures name the variable and the script that fills such a directory, since that is
    /// what the user has to fix.
    pub fn from_env() -> Result<Self, EmbedError> {
        let dir = std::env::var_os(MINILM_DIR_ENV)
            .filter(|d| !d.is_empty())
            .ok_or(SettingError::Missing {
            var: MINILM_DIR_ENV,
            why: "it names the all-MiniLM-L6-v2 model directory: run `bash scripts/fetch-minilm.sh` and set it to the directory it prints",
        })?;
        Self::load(Path::new(&dir)).map_err(|e| {
            SettingError::invalid(
                MINILM_DIR_ENV,
                &dir.to_string_lossy(),
                format!(
                    "{e}; run `bash scripts/fetch-minilm.sh` and set {MINILM_DIR_ENV} to the directory it prints"
                ),
            )
            .into()
        })
    }

    /// Loads `model.safetensors`, `tokenizer.json` and `config.json` from `dir`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let read = |name: &str| {
            let p = dir.join(name);
            std::fs::read(&p).map_err(|source| EmbedError::ModelIo { path: p, source })
        };
        let cfg_path = dir.join("config.json");
        let cfg: serde_json::Value = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| model_err(&cfg_path, format!("bad config.json: {e}")))?;
        let num = |k: &str| {
            cfg.get(k)
                .and_then(serde_json::Value::as_u64)
                .map(|x| x as usize)
        };
        let (Some(hidden), Some(heads), Some(n_layers)) = (
            num("hidden_size"),
            num("num_attention_heads"),
            num("num_hidden_layers"),
        ) else {
            return Err(model_err(
                &cfg_path,
                "config.json lacks hidden_size/num_attention_heads/num_hidden_layers",
            ));
        };
        if heads == 0 || hidden % heads != 0 || hidden != 384 {
            return Err(model_err(
                &cfg_path,
                format!("not a MiniLM-L6 config (hidden {hidden}, heads {heads})"),
            ));
        }
        let eps = cfg
            .get("layer_norm_eps")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(1e-12) as f32;

        let st_path = dir.join("model.safetensors");
        let bytes = read("model.safetensors")?;
        let st = safetensors::SafeTensors::deserialize(&bytes)
            .map_err(|e| model_err(&st_path, format!("not a safetensors file: {e}")))?;
        let tensor = |name: &str, shape: &[usize]| -> Result<Vec<f32>, EmbedError> {
            let t = st
                .tensor(name)
                .map_err(|_| model_err(&st_path, format!("missing tensor {name}")))?;
            if t.dtype() != safetensors::Dtype::F32 || t.shape() != shape {
                return Err(model_err(
                    &st_path,
                    format!(
                        "tensor {name}: {:?} {:?}, expected F32 {shape:?}",
                        t.dtype(),
                        t.shape()
                    ),
                ));
            }
            Ok(t.data()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect())
        };
        let mat = |name: &str, r: usize, c: usize| -> Result<Array2<f32>, EmbedError> {
            Array2::from_shape_vec((r, c), tensor(name, &[r, c])?)
                .map_err(|e| model_err(&st_path, e.to_string()))
        };
        let vec1 = |name: &str, n: usize| -> Result<Array1<f32>, EmbedError> {
            Ok(Array1::from(tensor(name, &[n])?))
        };
        let lin = |p: &str, out: usize, inp: usize| -> Result<Linear, EmbedError> {
            Ok(Linear {
                w: mat(&format!("{p}.weight"), out, inp)?,
                b: vec1(&format!("{p}.bias"), out)?,
            })
        };
        let norm = |p: &str| -> Result<Norm, EmbedError> {
            Ok(Norm {
                g: vec1(&format!("{p}.weight"), hidden)?,
                b: vec1(&format!("{p}.bias"), hidden)?,
            })
        };
        let inter = num("intermediate_size").unwrap_or(4 * hidden);
        let vocab = num("vocab_size").unwrap_or(30522);
        let max_pos = num("max_position_embeddings").unwrap_or(512);
        let mut layers = Vec::with_capacity(n_layers);
        for i in 0..n_layers {
            let p = format!("encoder.layer.{i}");
            layers.push(Layer {
                q: lin(&format!("{p}.attention.self.query"), hidden, hidden)?,
                k: lin(&format!("{p}.attention.self.key"), hidden, hidden)?,
                v: lin(&format!("{p}.attention.self.value"), hidden, hidden)?,
                attn_out: lin(&format!("{p}.attention.output.dense"), hidden, hidden)?,
                attn_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                up: lin(&format!("{p}.intermediate.dense"), inter, hidden)?,
                down: lin(&format!("{p}.output.dense"), hidden, inter)?,
                out_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        let types = mat("embeddings.token_type_embeddings.weight", 2, hidden)?;
        let token_type = types.row(0).to_owned();

        let tok_path = dir.join("tokenizer.json");
        if !tok_path.is_file() {
            return Err(EmbedError::ModelIo {
                path: tok_path,
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "tokenizer.json not found",
                ),
            });
        }
        let mut tokenizer = tokenizers::Tokenizer::from_file(&tok_path)
            .map_err(|e| model_err(&tok_path, format!("bad tokenizer.json: {e}")))?;
        // the file pads to 128; pooling only over real tokens makes padding pure waste
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS.min(max_pos),
                ..Default::default()
            }))
            .map_err(|e| model_err(&tok_path, e.to_string()))?;

        Ok(MiniLmEmbedder {
            tokenizer,
            words: mat("embeddings.word_embeddings.weight", vocab, hidden)?,
            positions: mat("embeddings.position_embeddings.weight", max_pos, hidden)?,
            token_type,
            emb_norm: norm("embeddings.LayerNorm")?,
            layers,
            heads,
            eps,
            dir: dir.to_owned(),
        })
    }

    fn layer_norm(&self, x: &mut Array2<f32>, n: &Norm) {
        for mut row in x.rows_mut() {
            let len = row.len() as f32;
            let mean = row.sum() / len;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / len;
            let inv = 1.0 / (var + self.eps).sqrt();
            row.iter_mut()
                .zip(n.g.iter().zip(n.b.iter()))
                .for_each(|(v, (g, b))| *v = (*v - mean) * inv * g + b);
        }
    }

    /// Encoder forward for several token-id sequences packed one after another, without padding.
    /// The position-wise parts (projections, feed-forward, layer norms) are row-independent, so
    /// they run as one matrix product over every token of every sentence: each weight matrix is
    /// then read once per pack instead of once per sentence, which is what bounds a per-sentence
    /// forward (its products have only ~20 rows). Attention mixes rows only within a sentence and
    /// runs per sentence on its own rows. Returns each sentence's mean-pooled, unnormalised
    /// vector; the result for a sentence does not depend on its pack mates.
    fn forward_packed(&self, seqs: &[&[u32]]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let hidden = self.token_type.len();
        let mut spans: Vec<Range<usize>> = Vec::with_capacity(seqs.len());
        let mut total = 0;
        for s in seqs {
            spans.push(total..total + s.len());
            total += s.len();
        }
        let mut x = Array2::<f32>::zeros((total, hidden));
        for (ids, span) in seqs.iter().zip(&spans) {
            for (i, id) in ids.iter().enumerate() {
                let id = *id as usize;
                if id >= self.words.nrows() || i >= self.positions.nrows() {
                    return Err(model_err(
                        &self.dir,
                        format!("token id {id} or position {i} out of range"),
                    ));
                }
                let mut row = x.row_mut(span.start + i);
                row.assign(&self.words.row(id));
                row += &self.positions.row(i);
                row += &self.token_type;
            }
        }
        self.layer_norm(&mut x, &self.emb_norm);
        let dh = hidden / self.heads;
        let scale = 1.0 / (dh as f32).sqrt();
        for l in &self.layers {
            let xv = x.view();
            let (q, k, v) = (l.q.apply(&xv), l.k.apply(&xv), l.v.apply(&xv));
            let mut ctx = Array2::<f32>::zeros((total, hidden));
            for span in &spans {
                // (the `s!` macro expands to `unsafe`, which this crate forbids)
                let rows = Slice::from(span.clone());
                let (q, k, v) = (
                    q.slice_axis(Axis(0), rows),
                    k.slice_axis(Axis(0), rows),
                    v.slice_axis(Axis(0), rows),
                );
                let mut ctx = ctx.slice_axis_mut(Axis(0), rows);
                for h in 0..self.heads {
                    let cols = Slice::from(h * dh..(h + 1) * dh);
                    let mut scores = q
                        .slice_axis(Axis(1), cols)
                        .dot(&k.slice_axis(Axis(1), cols).t());
                    for mut row in scores.rows_mut() {
                        let max = row.iter().fold(f32::NEG_INFINITY, |a, b| a.max(*b));
                        row.mapv_inplace(|s| ((s - max) * scale).exp());
                        let sum = row.sum();
                        row.mapv_inplace(|s| s / sum);
                    }
                    ctx.slice_axis_mut(Axis(1), cols)
                        .assign(&scores.dot(&v.slice_axis(Axis(1), cols)));
                }
            }
            let mut a = l.attn_out.apply(&ctx.view());
            a += &x;
            self.layer_norm(&mut a, &l.attn_norm);
            let mut up = l.up.apply(&a.view());
            // exact (erf) GELU, as BERT's "gelu"
            up.mapv_inplace(|u| 0.5 * u * (1.0 + libm::erff(u * std::f32::consts::FRAC_1_SQRT_2)));
            let mut out = l.down.apply(&up.view());
            out += &a;
            self.layer_norm(&mut out, &l.out_norm);
            x = out;
        }
        Ok(spans
            .into_iter()
            .map(|span| {
                x.slice_axis(Axis(0), Slice::from(span))
                    .mean_axis(Axis(0))
                    .map(|m| m.to_vec())
                    .unwrap_or_default()
            })
            .collect())
    }

    /// Embeds already tokenised sentences on the calling thread, in packs of about
    /// [`PACK_TOKENS`] tokens.
    fn embed_encoded(&self, enc: &[tokenizers::Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(enc.len());
        let mut pack: Vec<&[u32]> = Vec::new();
        let mut tokens = 0;
        for e in enc {
            let ids = e.get_ids();
            if !pack.is_empty() && tokens + ids.len() > PACK_TOKENS {
                self.finish_pack(&mut pack, &mut out)?;
                tokens = 0;
            }
            tokens += ids.len();
            pack.push(ids);
        }
        self.finish_pack(&mut pack, &mut out)?;
        Ok(out)
    }

    fn finish_pack(
        &self,
        pack: &mut Vec<&[u32]>,
        out: &mut Vec<Vec<f32>>,
    ) -> Result<(), EmbedError> {
        if pack.is_empty() {
            return Ok(());
        }
        for v in self.forward_packed(pack)? {
            out.push(finish(MINILM_ID, MINILM_DIM, v)?);
        }
        pack.clear();
        Ok(())
    }
}

impl Embedder for MiniLmEmbedder {
    fn id(&self) -> &str {
        MINILM_ID
    }

    fn dim(&self) -> usize {
        MINILM_DIM
    }

    /// A sentence-embedding model: cosine follows meaning.
    fn is_semantic(&self) -> bool {
        true
    }

    /// Sentences are tokenised, split into one contiguous share per core (balanced by token
    /// count, since the cost of a sentence grows with its length) and encoded in packs.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| model_err(&self.dir, format!("tokenizer: {e}")))?;
        let threads = std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(enc.len())
            .max(1);
        let shares = split_by_tokens(&enc, threads);
        let parts: Vec<Result<Vec<Vec<f32>>, EmbedError>> = std::thread::scope(|s| {
            let handles: Vec<_> = shares
                .into_iter()
                .map(|share| s.spawn(move || self.embed_encoded(share)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(model_err(&self.dir, "embedding thread panicked")))
                })
                .collect()
        });
        let mut out = Vec::with_capacity(texts.len());
        for p in parts {
            out.extend(p?);
        }
        Ok(out)
    }
}

/// Splits `enc` into at most `n` contiguous, non-empty shares of about equal token counts.
fn split_by_tokens(enc: &[tokenizers::Encoding], n: usize) -> Vec<&[tokenizers::Encoding]> {
    let total: usize = enc.iter().map(|e| e.len()).sum();
    let per = total.div_ceil(n.max(1)).max(1);
    let mut shares = Vec::with_capacity(n);
    let (mut start, mut tokens) = (0, 0);
    for (i, e) in enc.iter().enumerate() {
        tokens += e.len();
        if tokens >= per && shares.len() + 1 < n {
            shares.push(&enc[start..=i]);
            start = i + 1;
            tokens = 0;
        }
    }
    if start < enc.len() {
        shares.push(&enc[start..]);
    }
    shares
}
