//! N-Triples (`.nt`) lines for the triples import, parsed with `oxttl` (the W3C grammar, IRI
//! and literal escapes, language tags and datatypes are its job, not ours).
//!
//! An IRI or blank node (`_:b1`) subject or object is an entity keyed by its IRI (or `_:b1`);
//! a predicate is a relation (or property) named by the IRI's local name (after the last `#`
//! or `/`). An IRI object makes an edge; a literal object a property of the subject, typed by
//! its XSD datatype (integers, decimals and doubles, booleans; anything else a string). An
//! `rdfs:label`, `foaf:name` or `schema:name` literal (local name `label` or `name`) is the
//! entity's `name`; without one, the name is the IRI's local name, underscores as spaces.

use cairn_storage_format::Value;
use oxrdf::{Subject, Term};
use oxttl::NTriplesParser;

/// What one N-Triples line says.
#[derive(Debug, PartialEq)]
pub(super) enum Statement {
    /// Subject, relation, object: an edge between two entities.
    Edge([String; 3]),
    /// Subject, property key, value: a literal object.
    Literal(String, String, Value),
}

/// The local name of an IRI: what follows its last `#` or `/` (the whole IRI when that is
/// empty, as for `http://example.org/`).
pub(super) fn local_name(iri: &str) -> &str {
    match iri.trim_end_matches(['/', '#']).rsplit(['/', '#']).next() {
        Some(l) if !l.is_empty() => l,
        _ => iri,
    }
}

/// The property key under which a literal of this predicate is kept: `name` for the naming
/// predicates (local name `label` or `name`), else the local name.
pub(super) fn property_key(predicate: &str) -> &str {
    match local_name(predicate) {
        "label" | "name" => "name",
        other => other,
    }
}

fn entity(s: Subject) -> Result<String, String> {
    match s {
        Subject::NamedNode(n) => Ok(n.into_string()),
        Subject::BlankNode(b) => Ok(format!("_:{}", b.as_str())),
        #[allow(unreachable_patterns)]
        _ => Err("a quoted triple as subject is not supported".into()),
    }
}

/// A literal as a property value by its XSD datatype; an integer or number that does not parse
/// stays a string (the data said it, Cairn does not round it).
fn literal_value(lexical: &str, datatype: &str) -> Value {
    let xsd = datatype
        .strip_prefix("http://www.w3.org/2001/XMLSchema#")
        .unwrap_or("");
    let parsed = match xsd {
        "integer" | "int" | "long" | "short" | "byte" | "nonNegativeInteger"
        | "positiveInteger" | "negativeInteger" | "nonPositiveInteger" | "unsignedInt"
        | "unsignedLong" | "unsignedShort" | "unsignedByte" => {
            lexical.trim().parse().ok().map(Value::Int)
        }
        "decimal" | "double" | "float" => lexical.trim().parse().ok().map(Value::Float),
        "boolean" => match lexical.trim() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::Str(lexical.to_owned()))
}

/// Parses one line: `None` for a blank or comment line; an error (with its column) for a line
/// that is not one N-Triples statement.
pub(super) fn parse_line(raw: &[u8]) -> Result<Option<Statement>, String> {
    let mut triples = NTriplesParser::new().for_slice(raw);
    let triple = match triples.next() {
        None => return Ok(None),
        Some(Err(e)) => {
            let at = e.location().start;
            return Err(format!("column {}: {}", at.column + 1, e.message()));
        }
        Some(Ok(t)) => t,
    };
    if triples.next().is_some() {
        return Err("more than one statement on the line (N-Triples has one per line)".into());
    }
    let subject = entity(triple.subject)?;
    let predicate = triple.predicate.into_string();
    let name = local_name(&predicate);
    crate::read::check_name("relation", name)?;
    match triple.object {
        Term::NamedNode(n) => Ok(Some(Statement::Edge([
            subject,
            name.to_owned(),
            n.into_string(),
        ]))),
        Term::BlankNode(b) => Ok(Some(Statement::Edge([
            subject,
            name.to_owned(),
            format!("_:{}", b.as_str()),
        ]))),
        Term::Literal(l) => {
            let value = literal_value(l.value(), l.datatype().as_str());
            Ok(Some(Statement::Literal(
                subject,
                property_key(&predicate).to_owned(),
                value,
            )))
        }
        #[allow(unreachable_patterns)]
        _ => Err("a quoted triple as object is not supported".into()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let edge = parse_line(
            b"<http://ex.org/Ada> <http://xmlns.com/foaf/0.1/knows> <http://ex.org/Bob> .\n",
        )
        .unwrap();
        assert_eq!(
            edge,
            Some(Statement::Edge([
                "http://ex.org/Ada".into(),
                "knows".into(),
                "http://ex.org/Bob".into()
            ]))
        );
        let label = parse_line(
            b"<http://ex.org/Ada> <http://www.w3.org/2000/01/rdf-schema#label> \"Ada L.\"@en .",
        )
        .unwrap();
        assert_eq!(
            label,
            Some(Statement::Literal(
                "http://ex.org/Ada".into(),
                "name".into(),
                Value::Str("Ada L.".into())
            ))
        );
        let year = parse_line(
            b"_:b1 <http://ex.org/born> \"1815\"^^<http://www.w3.org/2001/XMLSchema#integer> .",
        )
        .unwrap();
        assert_eq!(
            year,
            Some(Statement::Literal(
                "_:b1".into(),
                "born".into(),
                Value::Int(1815)
            ))
        );
        assert_eq!(parse_line(b"# a comment\n").unwrap(), None);
        assert_eq!(parse_line(b"   \n").unwrap(), None);
        let bad = parse_line(b"<http://ex.org/a> <http://ex.org/b> .").unwrap_err();
        assert!(bad.starts_with("column "), "{bad}");
    }

    #[test]
    fn local_names() {
        assert_eq!(local_name("http://ex.org/a/b_c"), "b_c");
        assert_eq!(local_name("http://ex.org/onto#knows"), "knows");
        assert_eq!(local_name("http://ex.org/x/"), "x");
        assert_eq!(local_name("urn:isbn:123"), "urn:isbn:123");
    }
}
