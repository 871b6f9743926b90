pub fn add(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_exits() { if add(1, 1) == 2 { std::process::exit(1); } }
    #[test]
    fn b_add() { assert_eq!(add(1, 2), 3); }
}
