def test_a():
    assert False


def test_b():
    pass
