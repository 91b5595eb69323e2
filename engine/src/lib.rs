//! Cairn storage engine (work in progress).
