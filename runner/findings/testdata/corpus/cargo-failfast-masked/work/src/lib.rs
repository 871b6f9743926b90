pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

pub fn mul(a: i32, b: i32) -> i32 {
    a * b + 1
}

#[cfg(test)]
mod tests {
    #[test]
    fn old_broken() {
        assert_eq!(super::add(2, 2), 5, "an old bug");
    }

    #[test]
    fn adds() {
        assert_eq!(super::add(1, 2), 3);
    }
}
