"""A shop."""


def total(prices):
    """Sum the prices."""
    result = 0
    for i in range(len(prices)):
        result += prices[i]
    return result
