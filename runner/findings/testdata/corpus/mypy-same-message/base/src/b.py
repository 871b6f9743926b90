from a import f, g

x: int = g("old bug")
y: int = f(2)
