#[test]
fn old() { let x: i32 = "no"; let _ = x; }
