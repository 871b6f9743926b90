"""A shop."""

TAX = 0.2


def with_tax(price):
    """Add the tax."""
    return price * (1 + TAX)


def total(prices):
    """Sum the prices."""
    result = 0
    for i in range(len(prices)):
        result += prices[i]
    return result
