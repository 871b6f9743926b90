def test_old():
    assert 1 == 2


def test_ok():
    pass
