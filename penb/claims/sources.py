"""The texts the book reproduces, and the label of the book's own hypotheses."""
MORITA = "Morita, Positional Encoding Helps RNNs Handle a Large Vocabulary (TMLR)"
IRIE = "Irie, Why are positional encodings nonessential for deep autoregressive Transformers?"
HANSEN = "Hansen, A Normally Distributed Position Encoding (blog)"
BEYOND = "penb: beyond the papers"

