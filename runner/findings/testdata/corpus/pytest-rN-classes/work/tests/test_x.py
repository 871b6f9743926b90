def check(v):
    assert v == 1, "value must be 1"


class TestA:
    def test_it(self):
        check(1)


class TestB:
    def test_it(self):
        check(2)
