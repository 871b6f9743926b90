#[test]
fn multiplies() {
    assert_eq!(calc::mul(2, 3), 6);
}
