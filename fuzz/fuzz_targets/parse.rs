//! Fuzzes the EXPLORE parser, printer and compiler.
//!
//! For any UTF-8 input: parsing must not panic; a parsed statement must print to text that parses
//! back to the same tree and compiles without panicking; a compiled plan must print to text that
//! compiles back to the same plan; every error's span must lie inside the input and render.
#![no_main]

use cairn_query::{compile, parse, parse_script, print, MemoryCatalog};
use libfuzzer_sys::fuzz_target;

fn catalog() -> MemoryCatalog {
    MemoryCatalog::with(
        &["Author", "Paper", "Venue", "Topic"],
        &["AUTHORED", "CITES", "PUBLISHED_IN", "ABOUT"],
        &["name", "year", "title", "citations"],
    )
}

fn check_span(src: &str, span: cairn_query::Span) {
    assert!(span.start <= span.end && span.end <= src.len());
    assert!(src.get(span.start..span.end).is_some());
}

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_script(src);
    match parse(src) {
        Err(e) => {
            check_span(src, e.span());
            let _ = e.render_plain(80);
        }
        Ok(stmt) => {
            let printed = print(&stmt);
            let mut again = match parse(&printed) {
                Ok(s) => s,
                Err(e) => panic!("canonical form does not parse: {printed:?}: {e}"),
            };
            let mut orig = stmt.clone();
            orig.clear_spans();
            again.clear_spans();
            assert_eq!(orig, again, "print/parse mismatch: {printed:?}");
            match compile(&stmt, &catalog()) {
                Ok(compiled) => {
                    let shown = compiled.to_string();
                    let reparsed = match parse(&shown) {
                        Ok(s) => s,
                        Err(e) => panic!("printed plan does not parse: {shown:?}: {e}"),
                    };
                    match compile(&reparsed, &catalog()) {
                        Ok(c) => assert_eq!(c, compiled, "plan round trip: {shown:?}"),
                        Err(e) => panic!("printed plan does not compile: {shown:?}: {e}"),
                    }
                }
                Err(e) => {
                    check_span(src, e.span());
                    let _ = e.with_source(src).render_plain(80);
                }
            }
        }
    }
});
