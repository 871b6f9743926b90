def f(n: int) -> int:
    return n + 1


def g(s: str) -> str:
    return s
