//! `utf8check`: placeholder until the checker lands.
fn main() {}
