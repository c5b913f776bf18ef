"""The texts the book reproduces, and the label of the book's own hypotheses."""
MORITA = "Morita, Positional Encoding Helps RNNs Handle a Large Vocabulary (TMLR)"
IRIE = "Irie, Why are positional encodings nonessential for deep autoregressive Transformers?"
HANSEN = "Hansen, A Normally Distributed Position Encoding (blog)"
BEYOND = "penb: beyond the papers"


def published_scale(claim) -> dict:
    """The scale the text made ``claim`` at (``penb.claims.scale.published_scale``)."""
    from penb.claims.scale import published_scale as scale

    return scale(claim)
