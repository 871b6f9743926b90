def f(n: int) -> str:
    return str(n + 1)


def g(s: str) -> int:
    return len(s)
