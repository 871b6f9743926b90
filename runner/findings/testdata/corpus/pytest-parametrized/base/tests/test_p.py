import pytest


@pytest.mark.parametrize("n", [1, 2])
def test_x(n):
    assert n != 1
