from calc import add, div


def test_add():
    assert add(1, 2) == 3


def test_old_division():
    assert div(7, 2) == 3.5
