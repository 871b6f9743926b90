def test_it():
    assert 1 == 2
