import typing as t


def want_bytes(s: t.Union[str, bytes], encoding: str = "utf-8") -> bytes:
    if isinstance(s, str):
        s = s.encode(encoding)
    return s


def old(x: int) -> str:
    return x
