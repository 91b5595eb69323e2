//! The architecture check (docs/ARCHITECTURE.md): every dependency between workspace crates must
//! be an allowed arrow of the page's `arrows` block, and no crate may have an import cycle
//! between its modules. Reads the real `cargo metadata` and the real sources.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Allowed arrows `from -> to`, from the fenced block opened by "```arrows" in `doc`.
fn allowed_arrows(doc: &str) -> Result<BTreeSet<(String, String)>, String> {
    let start = doc
        .find("```arrows\n")
        .ok_or("no ```arrows block in docs/ARCHITECTURE.md")?
        + "```arrows\n".len();
    let len = doc[start..]
        .find("```")
        .ok_or("the ```arrows block is not closed")?;
    let mut arrows = BTreeSet::new();
    for (i, line) in doc[start..start + len].lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (from, to) = line
            .split_once("->")
            .ok_or_else(|| format!("arrows block line {}: `{line}` is not `a -> b`", i + 1))?;
        arrows.insert((from.trim().to_owned(), to.trim().to_owned()));
    }
    Ok(arrows)
}

/// The short name of a workspace crate: `cairn-store` → `store`; the facade stays `cairn`.
fn short(package: &str) -> &str {
    package.strip_prefix("cairn-").unwrap_or(package)
}

/// Dependencies (normal and build) between workspace crates that no arrow allows.
fn forbidden(
    deps: &BTreeMap<String, BTreeSet<String>>,
    allowed: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (from, tos) in deps {
        for to in tos {
            if !allowed.contains(&(from.clone(), to.clone())) {
                bad.push(format!("{from} -> {to}"));
            }
        }
    }
    bad
}

/// The module a source file defines, by its path under `src/`: `lib.rs` is the crate root
/// (`""`), `foo.rs` and `foo/mod.rs` are `foo`, and `foo/bar.rs` counts as `foo`.
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    match first.strip_suffix(".rs") {
        Some("lib" | "main") => String::new(),
        Some(m) => m.to_owned(),
        None => first,
    }
}

/// Identifiers that follow `prefix` in `code`: `crate::foo` gives `foo`, and
/// `crate::{foo::X, bar}` gives `foo` and `bar`.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item = true,
                    c if item && depth == 0 && !c.is_whitespace() => {
                        out.push(ident(&group[i..]));
                        item = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// Source text without `//` comments (doc comments name paths that are not imports).
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module graph of one crate from its files (path under `src/` → text): an arrow from a
/// module to each other module it names through `crate::…` (or `super::…` at the top level).
/// Names the root re-exports (`pub use foo::{X, Y}` in lib.rs) count as arrows to their module.
fn module_graph(files: &[(PathBuf, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(p, _)| module_of(p))
        .filter(|m| !m.is_empty())
        .collect();
    let mut reexport: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in files {
        if !module_of(path).is_empty() {
            continue;
        }
        for stmt in strip_comments(text).split(';') {
            let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
                continue;
            };
            let rest = rest.trim_start_matches("crate::");
            let Some((module, items)) = rest.split_once("::") else {
                continue;
            };
            if !modules.contains(module) {
                continue;
            }
            let items = items.trim().trim_start_matches('{').trim_end_matches('}');
            for item in items.split(',') {
                let name = item.split(" as ").last().unwrap_or("").trim();
                if !name.is_empty() {
                    reexport.insert(name.to_owned(), module.to_owned());
                }
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in files {
        let from = module_of(path);
        if from.is_empty() {
            continue;
        }
        let code = strip_comments(text);
        let mut names = paths_after(&code, "crate::");
        if path.components().count() == 1 {
            names.extend(paths_after(&code, "super::"));
        }
        let edges = graph.entry(from.clone()).or_default();
        for name in names {
            let to = match reexport.get(&name) {
                Some(m) => m.clone(),
                None => name,
            };
            if to != from && modules.contains(&to) {
                edges.insert(to);
            }
        }
    }
    graph
}

/// A cycle of `graph`, as `a -> b -> a`, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<String> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let at = stack.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = stack[at..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle.join(" -> "));
            }
            None => {}
        }
        marks.insert(node.to_owned(), Mark::Open);
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, marks, stack) {
                return Some(c);
            }
        }
        stack.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(c) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

/// The `.rs` files under `dir`, with their paths relative to it.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.strip_prefix(dir).unwrap().to_path_buf(), text));
            }
        }
    }
    out.sort();
    out
}

/// Workspace crates (short name → `src/` directory) and their dependencies on each other.
type Workspace = (
    BTreeMap<String, PathBuf>,
    BTreeMap<String, BTreeSet<String>>,
);

fn workspace() -> Workspace {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo metadata failed: {out:?}");
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let names: BTreeSet<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut dirs = BTreeMap::new();
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in packages {
        let name = short(p["name"].as_str().unwrap()).to_owned();
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
        dirs.insert(name.clone(), manifest.parent().unwrap().join("src"));
        let entry = deps.entry(name).or_default();
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            let kind = d["kind"].as_str();
            if names.contains(dep) && kind != Some("dev") {
                entry.insert(short(dep).to_owned());
            }
        }
    }
    (dirs, deps)
}

#[test]
fn every_dependency_between_crates_is_an_allowed_arrow() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md"))
            .unwrap();
    let allowed = allowed_arrows(&doc).unwrap();
    let (dirs, deps) = workspace();
    let bad = forbidden(&deps, &allowed);
    assert!(
        bad.is_empty(),
        "dependencies not allowed by docs/ARCHITECTURE.md: {bad:?}"
    );
    // Every arrow names real crates, so the page cannot drift from the workspace unnoticed.
    for (from, to) in &allowed {
        assert!(
            dirs.contains_key(from) && dirs.contains_key(to),
            "arrow {from} -> {to} names a crate that is not in the workspace"
        );
    }
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let (dirs, _) = workspace();
    let mut cycles = Vec::new();
    for (name, src) in &dirs {
        let graph = module_graph(&sources(src));
        if let Some(c) = find_cycle(&graph) {
            cycles.push(format!("{name}: {c}"));
        }
    }
    assert!(cycles.is_empty(), "module cycles: {cycles:?}");
}

#[test]
fn the_checker_catches_a_forbidden_arrow() {
    let doc = "# Page\n```arrows\nexec -> store\nagent -> exec   # comment\n```\n";
    let allowed = allowed_arrows(doc).unwrap();
    let mut deps = BTreeMap::new();
    deps.insert(
        "agent".to_owned(),
        BTreeSet::from(["exec".to_owned(), "store".to_owned()]),
    );
    deps.insert("exec".to_owned(), BTreeSet::from(["store".to_owned()]));
    assert_eq!(
        forbidden(&deps, &allowed),
        vec!["agent -> store".to_owned()]
    );
    assert!(allowed_arrows("```arrows\nexec store\n```").is_err());
    assert!(allowed_arrows("no block").is_err());
}

#[test]
fn the_checker_finds_and_names_a_module_cycle() {
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_owned());
    let cyclic = [
        file(
            "lib.rs",
            "mod answer;\nmod ask;\npub use ask::{AgentError, Asker};\n",
        ),
        file("ask.rs", "use crate::answer::Answerer;\n"),
        // Through the root re-export, and in a grouped import.
        file("answer.rs", "use crate::{AgentError, validate::X};\n"),
        file(
            "validate.rs",
            "// use crate::ask::Nothing; (a comment is no import)\n",
        ),
    ];
    let graph = module_graph(&cyclic);
    assert_eq!(
        find_cycle(&graph).as_deref(),
        Some("answer -> ask -> answer")
    );
    let acyclic = [
        file("lib.rs", "mod error;\npub use error::AgentError;\n"),
        file(
            "ask.rs",
            "use crate::answer::Answerer;\nuse crate::AgentError;\n",
        ),
        file("answer.rs", "use crate::error::AgentError;\n"),
        file("error.rs", "use std::fmt;\n"),
    ];
    assert_eq!(find_cycle(&module_graph(&acyclic)), None);
}

/// The packages in the library's resolved normal dependency tree (`cargo tree -p cairn -e
/// normal`): what an application that links Cairn compiles.
fn library_tree() -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree", "-p", "cairn", "-e", "normal", "--prefix", "none", "-f", "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo tree failed: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn the_library_links_no_cli_crate() {
    let tree = library_tree();
    assert!(tree.contains("cairn-exec"), "unexpected tree: {tree:?}");
    let cli_only = [
        "clap",
        "rustyline",
        "indicatif",
        "ctrlc",
        "tracing-subscriber",
        "parse-size",
        "cairn-generate",
        "cairn-cli",
    ];
    let found: Vec<&str> = cli_only.into_iter().filter(|c| tree.contains(*c)).collect();
    assert!(
        found.is_empty(),
        "the library `cairn` depends on CLI-only crates: {found:?}"
    );
}
