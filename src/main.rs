//! The `cairn` command-line tool.

use cairn::{Graph, GraphOptions};
use clap::{Parser, Subcommand};
use miette::{IntoDiagnostic, WrapErr};
use std::path::PathBuf;

/// Cairn: an embedded graph database with an agent query language.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Database directory.
    #[arg(long, env = "CAIRN_DB", global = true, default_value = "cairn.db")]
    db: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the schema and size estimates of a database.
    ///
    /// Example: cairn --db ./academic.cairn stats
    Stats,
}

fn main() -> miette::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Stats => stats(&cli.db),
    }
}

fn stats(db: &std::path::Path) -> miette::Result<()> {
    let graph = Graph::open(
        db,
        GraphOptions {
            create_if_missing: false,
            ..GraphOptions::default()
        },
    )
    .into_diagnostic()
    .wrap_err_with(|| format!("opening {}", db.display()))?;
    let catalog = graph.catalog();
    let estimate = |cf: &str| graph.estimate_keys(cf).into_diagnostic();
    println!("database   {}", db.display());
    println!("nodes      ~{}", estimate("node")?);
    println!("edges      ~{}", estimate("out")?);
    let labels: Vec<&str> = catalog.labels().map(|(_, n)| n).collect();
    println!("labels     {}", labels.join(", "));
    for (_, rel) in catalog.relations() {
        let parent = rel.parent.and_then(|p| catalog.relation_name(p));
        let ends: Vec<String> = rel
            .endpoints
            .iter()
            .map(|(s, d)| {
                format!(
                    "{}->{}",
                    catalog.label_name(*s).unwrap_or("?"),
                    catalog.label_name(*d).unwrap_or("?")
                )
            })
            .collect();
        match parent {
            Some(p) => println!("relation   {} (under {p}) {}", rel.name, ends.join(" ")),
            None => println!("relation   {} {}", rel.name, ends.join(" ")),
        }
    }
    for index in catalog.indexes() {
        println!(
            "index      {}({})",
            catalog.label_name(index.label).unwrap_or("?"),
            catalog.prop_name(index.prop).unwrap_or("?")
        );
    }
    Ok(())
}
