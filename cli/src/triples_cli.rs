//! `cairn import`'s flags for triples files (`subject<TAB>relation<TAB>object` lines), kept apart
//! from the other import flags; docs/IMPORT.md ("Triples") describes the label rules.

use cairn_import::triples::{RelationLabels, TriplesOptions};
use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub struct TriplesArgs {
    /// Read every file as triples whatever its name. Needed for `.txt` files, which are never
    /// guessed; `.tsv`, `.triples` and N-Triples `.nt` (optionally `.gz`) are read as triples
    /// without it.
    #[arg(long, value_enum)]
    pub format: Option<ImportFormat>,
    /// Triples: the label of every entity no other rule labels [default: Entity].
    #[arg(long, value_name = "NAME", value_parser = label)]
    pub label: Option<String>,
    /// Triples: infer labels from the relations (the objects of one relation share a label, and
    /// so do its subjects; names come from the relation names, e.g. `plays_in_club` → `Club`).
    #[arg(long)]
    pub infer_labels: bool,
    /// Triples: label the subjects and objects of relation REL (repeatable; wins over --label
    /// and --infer-labels; leave a side empty to keep the other rules for it, e.g. `REL=:Club`).
    #[arg(long = "relation-label", value_name = "REL=SUBJECT:OBJECT")]
    pub relation_labels: Vec<RelationLabels>,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    /// `subject<TAB>relation<TAB>object` lines.
    Triples,
}

fn label(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("a label cannot be empty".to_owned());
    }
    Ok(s.to_owned())
}

impl TriplesArgs {
    pub fn options(self) -> TriplesOptions {
        TriplesOptions {
            forced: self.format == Some(ImportFormat::Triples),
            label: self.label,
            infer: self.infer_labels,
            relation_labels: self.relation_labels,
        }
    }
}
