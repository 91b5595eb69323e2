//! The EXPLORE / ASK language (work in progress).
