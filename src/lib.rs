//! Cairn: embedded graph database.
