"""``stop_gradient``: the identity at run time, a constant for symgrad (no SymPy here, so
``from symgrad import stop_gradient`` stays light)."""


def stop_gradient(x):
    """Stop gradients: the identity at run time, a constant when symgrad differentiates.

    The semantics of ``jax.lax.stop_gradient`` and ``tf.stop_gradient``: nothing flows back through
    the value, even where the same sub-expression also appears outside it.

    Args:
        x: any value (float, int, NumPy array).

    Returns:
        ``x`` itself, unchanged.

    >>> import symgrad
    >>> from symgrad import stop_gradient
    >>> def f(x):
    ...     return x * stop_gradient(x)
    >>> f(3.0)                       # at run time: 3 * 3
    9.0
    >>> symgrad.grad(f)(3.0)         # the stopped factor is a constant: d/dx = 3
    3.0
    """
    return x
