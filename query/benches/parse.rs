// placeholder until the parse benchmark lands (helper)
fn main() {}
