def test_a():
    assert False, "new"
