//! Rendering an error whose statement has a very long line (issue 33: a 65,534-character line
//! panicked inside miette's padding, exit 101 in the CLI).
#![allow(clippy::unwrap_used)]

use cairn_query::{parse, parse_script, QueryError};

fn render(e: &QueryError) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
    let mut out = String::new();
    handler.render_report(&mut out, e).unwrap();
    out
}

#[test]
fn an_error_on_a_very_long_line_renders_a_window_with_the_true_place() {
    // 65,534 and more columns panicked inside miette's padding.
    for n in [65_534, 70_000, 300] {
        let src = format!("EXPLORE \"{}\" BEEM 8", "A".repeat(n));
        let e = parse(&src).unwrap_err();
        let out = render(&e);
        assert!(out.contains(&format!("[query:1:{}]", n + 12)), "{out}");
        assert!(out.contains("BEEM"), "{out}");
        assert!(out.lines().all(|l| l.len() < 1000), "{out}");
        let plain = e.render_plain(80);
        assert!(plain.contains("BEEM"), "{plain}");
    }
    // In a script, on its third line; and a span as long as the line.
    let long = "Ж".repeat(40_000);
    let script = format!("SHOW LABELS;\nSHOW LABELS;\nEXPLORE \"{long}");
    let e = parse_script(&script)
        .unwrap_err()
        .in_script("q.explore", &script, 0);
    let out = render(&e);
    assert!(out.contains("[q.explore:3:9]"), "{out}");
    assert!(out.lines().all(|l| l.len() < 2000), "{out}");
}
