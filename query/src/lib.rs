//! # cairn-query: the EXPLORE / ASK language
//!
//! The language users and agents write to explore a Cairn graph. This crate is pure: it parses
//! text into a syntax tree ([`ast`]), prints trees back in canonical form ([`print()`]), and compiles
//! them into [`Plan`]s with names resolved through a [`Catalog`] and every default filled in.
//! The grammar and the meaning of every clause are in `docs/LANGUAGE.md`.
//!
//! ```
//! use cairn_query::{prepare, Compiled, MemoryCatalog};
//!
//! let catalog = MemoryCatalog::with(&["Author", "Venue"], &["AUTHORED", "PUBLISHED_IN"], &["name"]);
//! let compiled = prepare(
//!     r#"EXPLORE "venues of Jiawei Han's co-authors"
//!          FROM Author WHERE name = "Jiawei Han"
//!          VIA <AUTHORED, AUTHORED, PUBLISHED_IN
//!          TARGET Venue
//!          UNTIL sufficient >= 0.8 OR found 10"#,
//!     &catalog,
//! )?;
//! let Compiled::Explore(plan) = compiled else { unreachable!() };
//! assert_eq!(plan.beam, 8); // the default
//! # Ok::<(), cairn_query::QueryError>(())
//! ```
//!
//! Errors render with a caret under the offending text and a hint:
//!
//! ```
//! let err = cairn_query::parse(r#"EXPLORE "x" BEEM 8"#).unwrap_err();
//! assert!(err.render_plain(80).contains("did you mean `BEAM`?"));
//! ```

pub mod ast;
pub mod catalog;
pub mod compile;
pub mod error;
pub mod lexer;
pub mod limits;
pub mod parser;
pub mod plan;
pub mod printer;
pub mod span;

pub use ast::Statement;
pub use catalog::{Catalog, MemoryCatalog};
pub use compile::compile;
pub use error::{ErrorKind, NameKind, QueryError};
pub use lexer::{split, split_statements, Open, Split};
pub use parser::{parse, parse_script};
pub use plan::{
    Aggregate, Bound, Column, Compiled, ElementRef, EntryPlan, Filter, GroupKey, MeetPlan,
    Mutation, NewName, NodeAt, Operand, Output, Plan, PropAt, ScoreWeights, SortBy, SortKey,
    StepPlan, StopCondition, TransactionControl, ViaPlan,
};
pub use printer::print;
pub use span::Span;

/// Parses and compiles one statement; errors carry the source text, ready to render.
pub fn prepare(src: &str, catalog: &dyn Catalog) -> Result<Compiled, QueryError> {
    let stmt = parse(src)?;
    compile(&stmt, catalog).map_err(|e| e.with_source(src))
}
