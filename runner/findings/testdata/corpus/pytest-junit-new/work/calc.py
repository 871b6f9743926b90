def add(a, b):
    return a + b + 1


def div(a, b):
    return a // b
