import ctypes


def test_old_native_crash():
    ctypes.string_at(0)


def test_later():
    assert True
