"""Display names, defined once for the whole book: model cores and the labels of input variants.

``MODEL_NAMES`` maps a core key of ``penb.models`` to the name a reader sees; ``VARIANT_LABELS`` maps an
encoding key of ``penb.encodings`` (as fed to an RNN) to its label in tables and legends.
"""
MODEL_NAMES = {"gru": "GRU", "lstm": "LSTM", "s4d": "S4D", "transformer": "Transformer"}
VARIANT_LABELS = {"none": "vanilla", "sinusoidal": "position-encoded"}
RNN_CORES = ("gru", "lstm", "s4d")


def model_name(core: str) -> str:
    """'GRU' for 'gru'; an unknown key comes back unchanged."""
    return MODEL_NAMES.get(core, core)


def variant_label(encoding: str) -> str:
    """'vanilla' for 'none', 'position-encoded' for 'sinusoidal'; another key comes back unchanged."""
    return VARIANT_LABELS.get(encoding, encoding)
