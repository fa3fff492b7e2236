"""The board put together: every solid placed as it stands at rest (``whole``), the printed
parts and the bought ones (``bought``), each one a ``Placed`` (``placed``)."""
