"""Corpus loading, tokenizer and LM helpers of the language-modelling appendix (Morita App. E).

Checks against hand-made files, hand-computed cross-entropies (math.log) and published counts.
"""
import math
import random
import sys
import types

import pytest
import sentencepiece as spm
import torch

from penb import corpus, tokenizer
from tests import lm_reference as lm
from penb.store.paths import shared_dir

WIKI = """ 
 = Alpha Article = 
 
 The first paragraph of alpha . It has two sentences . 
 
 = = Section one = = 
 
 Second paragraph , with <unk> inside . 
 
 = = = Deep heading = = = 
 Third paragraph ; right after a heading . 
 = <unk> for the next round 
 
 = Beta Article = 
 
 = = = = Fourth level = = = = 
 Last paragraph . 
 
"""
EXPECTED = [
    "The first paragraph of alpha . It has two sentences .",
    "Second paragraph , with <unk> inside .",
    "Third paragraph ; right after a heading .",
    "= <unk> for the next round",  # a table legend, not a heading: only the official code's rule drops it
    "Last paragraph .",
]


@pytest.fixture
def wiki_dir(tmp_path):
    d = tmp_path / "wikitext-2"
    d.mkdir()
    (d / "wiki.valid.tokens").write_text(WIKI, encoding="utf-8")
    return d


@pytest.fixture
def no_sources(tmp_path, monkeypatch):
    """No env var, an empty shared folder and no importable `datasets`."""
    monkeypatch.delenv(corpus.ENV_VAR, raising=False)
    monkeypatch.setenv("PENB_SHARED", str(tmp_path / "empty-shared"))
    monkeypatch.setitem(sys.modules, "datasets", None)  # `import datasets` raises ImportError


# ---------------------------------------------------------------- preprocessing and sources

def test_preprocessing_drops_headings_of_every_level_and_empty_lines(wiki_dir):
    s = corpus.load_split("wikitext-2", "valid", data_dir=wiki_dir)
    assert list(s.paragraphs) == EXPECTED
    assert (s.lines_read, s.headings_dropped, s.empty_dropped) == (18, 5, 8)
    assert (s.corpus, s.split, s.markers) == ("wikitext-2", "valid", ("<unk>",))
    assert s.source.startswith("local:") and s.source.endswith("wiki.valid.tokens")
    assert "WikiText-2" in s.label and "valid" in s.describe()


def test_prefix_rule_of_the_official_code(wiki_dir):
    s = corpus.load_split("wikitext-2", "valid", data_dir=wiki_dir, heading_rule="prefix")
    assert list(s.paragraphs) == [p for p in EXPECTED if not p.startswith("=")]


def test_env_var_root_with_corpus_subfolders(wiki_dir, monkeypatch):
    monkeypatch.setenv(corpus.ENV_VAR, str(wiki_dir.parent))
    s = corpus.load_split("wikitext-2", "valid")
    assert str(wiki_dir) in s.source and len(s) == len(EXPECTED)


def test_datasets_path_is_lazy_and_labelled(no_sources, monkeypatch):
    calls = []

    def load_dataset(name, config, split):
        calls.append((name, config, split))
        return [{"text": line + "\n"} for line in WIKI.split("\n")]

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    s = corpus.load_split("wikitext-103-raw", "valid")
    assert calls == [("Salesforce/wikitext", "wikitext-103-raw-v1", "validation")]
    assert s.source == "datasets:Salesforce/wikitext/wikitext-103-raw-v1[validation]"
    assert list(s.paragraphs) == EXPECTED and s.markers == ()


def test_missing_corpus_names_both_ways(no_sources):
    with pytest.raises(corpus.CorpusNotFoundError) as e:
        corpus.load_split("wikitext-103-raw", "train")
    msg = str(e.value)
    assert corpus.ENV_VAR in msg and "data_dir" in msg  # way 1: a local folder
    assert "datasets" in msg and "network" in msg and "not installed" in msg  # way 2
    with pytest.raises(corpus.CorpusNotFoundError, match=corpus.ENV_VAR):
        corpus.load_split("wikitext-2", "valid", data_dir="/nonexistent/wikitext")


def test_datasets_failure_is_reported(no_sources, monkeypatch):
    def offline(*a, **k):
        raise ConnectionError("network unreachable")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=offline))
    with pytest.raises(corpus.CorpusNotFoundError, match="network unreachable") as e:
        corpus.load_split("wikitext-2-raw", "test")
    assert corpus.ENV_VAR in str(e.value)


def test_malformed_corpora(tmp_path, monkeypatch):
    d = tmp_path / "wikitext-2"
    d.mkdir()
    (d / "notes.md").write_text("nothing here")
    with pytest.raises(corpus.CorpusError, match="wiki.valid.tokens"):
        corpus.load_split("wikitext-2", "valid", data_dir=d)
    monkeypatch.setenv(corpus.ENV_VAR, str(tmp_path))  # a found folder without the split: reported, both ways named
    monkeypatch.setenv("PENB_SHARED", str(tmp_path / "empty-shared"))
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(corpus.CorpusNotFoundError, match="no 'valid' split") as e:
        corpus.load_split("wikitext-2", "valid")
    assert "wiki.valid.tokens" in str(e.value) and "pip install datasets" in str(e.value)
    (d / "valid.txt").write_text(" \n = Only = \n \n = = A heading = = \n")
    with pytest.raises(corpus.CorpusError, match="no paragraphs"):
        corpus.load_split("wikitext-2", "valid", data_dir=d)
    with pytest.raises(corpus.CorpusError, match="no paragraphs"):  # found through the env var: still an error
        corpus.load_split("wikitext-2", "valid")
    (d / "test.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(corpus.CorpusError, match="binary"):
        corpus.load_split("wikitext-2", "test", data_dir=d)
    (d / "test.txt").write_bytes(b" some text \xff\xfe more\n")
    with pytest.raises(corpus.CorpusError, match="UTF-8"):
        corpus.load_split("wikitext-2", "test", data_dir=d)


@pytest.mark.parametrize("kw", [dict(corpus="wikitext-7"), dict(split="validation"), dict(source="web"),
                                dict(heading_rule="loose")])
def test_bad_arguments(kw):
    with pytest.raises(ValueError, match="valid"):
        corpus.load_split(**{"corpus": "wikitext-2", "split": "valid", **kw})


@pytest.mark.skipif(not (shared_dir() / "data" / "wikitext-2" / "valid.txt").is_file(),
                    reason="the shared WikiText-2 copy (shared/data/wikitext-2) is absent")
@pytest.mark.parametrize("split,published_tokens", [("valid", 217_646), ("test", 245_569)])
def test_shared_wikitext2(split, published_tokens):
    path = shared_dir() / "data" / "wikitext-2" / f"{split}.txt"
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    # the copy is the published one: Merity et al. (2017) count words plus one <eos> per line
    assert sum(len(line.split()) + 1 for line in lines) == published_tokens
    heads = [x for x in lines if x.strip().startswith("=") and x.strip().endswith("=")]
    paras = [x.strip() for x in lines if x.strip() and x not in heads]
    s = corpus.load_split("wikitext-2", split)
    assert list(s.paragraphs) == paras and s.headings_dropped == len(heads)
    assert s.source == f"local:{path.resolve()}"
    prefix = corpus.load_split("wikitext-2", split, heading_rule="prefix")
    assert len(prefix) == sum(1 for x in lines if x.strip() and not x.startswith(" ="))


# ---------------------------------------------------------------- tokenizer

def _synthetic_paragraphs(n=300, seed=0):
    rng = random.Random(seed)
    syll = [c + v for c in "bdgklmnprst" for v in "aeiou"]
    words = ["".join(rng.choice(syll) for _ in range(rng.randint(1, 3))) for _ in range(200)]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(5, 60))) + " ." for _ in range(n)]


def test_tokenizer_round_trip_truncation_and_markers(tmp_path):
    texts = _synthetic_paragraphs() + ["a <unk> b <unk> ."]
    tok = tokenizer.train_tokenizer(texts, 120, user_symbols=("<unk>",), folder=tmp_path)
    assert tok.trained and tok.vocab_size == 120 and tok.path.parent == tmp_path
    for t in texts[:20]:
        assert tok.decode(tok.encode(t)) == t
    long = texts[0] + " " + texts[1]
    full = tok.encode(long)
    assert len(full) > 7 and tok.encode(long, max_tokens=7) == full[:7]
    assert [ids[:7] for ids in tok.encode_all([long, "ka"])] == tok.encode_all([long, "ka"], max_tokens=7)
    assert "<unk>" in tok.pieces("ka <unk> to") and tok.unk_id != tok.sp.piece_to_id("<unk>")
    with pytest.raises(ValueError, match="max_tokens"):
        tok.encode(long, max_tokens=0)


def test_tokenizer_is_deterministic_and_cached(tmp_path, monkeypatch):
    texts = _synthetic_paragraphs()
    a = tokenizer.train_tokenizer(texts, 100, folder=tmp_path / "a")
    b = tokenizer.train_tokenizer(texts, 100, folder=tmp_path / "b")
    assert a.key == b.key and a.path.read_bytes() == b.path.read_bytes()

    def no_training(*args, **kwargs):
        raise AssertionError("the cached tokenizer was retrained")

    monkeypatch.setattr(spm.SentencePieceTrainer, "train", no_training)
    c = tokenizer.train_tokenizer(texts, 100, folder=tmp_path / "a")
    assert not c.trained and c.key == a.key and c.encode(texts[3]) == a.encode(texts[3])
    with pytest.raises(AssertionError, match="retrained"):  # another size or text is another model
        tokenizer.train_tokenizer(texts, 90, folder=tmp_path / "a")
    with pytest.raises(AssertionError, match="retrained"):
        tokenizer.train_tokenizer(texts[:-1], 100, folder=tmp_path / "a")


def test_tokenizer_default_cache_in_store_and_split_identity(wiki_dir):
    from penb.store.paths import store_dir

    s = corpus.load_split("wikitext-2", "valid", data_dir=wiki_dir)
    assert s.digest == tokenizer.text_digest(s.paragraphs)
    tok = tokenizer.train_tokenizer(s, 40, model_type="bpe", character_coverage=1.0)
    assert tok.path.parent == store_dir() / "tokenizers" and tok.path.with_suffix(".json").is_file()
    assert tok.corpus == s.label and tok.options["user_defined_symbols"] == "<unk>"


@pytest.mark.parametrize("kw", [dict(vocab_size=0), dict(model_type="word-ish"), dict(num_threads=0),
                                dict(vocab_size=5000), dict(user_symbols=("a,b",))])
def test_tokenizer_bad_input(tmp_path, kw):
    with pytest.raises(ValueError):
        tokenizer.train_tokenizer(_synthetic_paragraphs(50), **{"vocab_size": 50, **kw}, folder=tmp_path)


# ---------------------------------------------------------------- batching and perplexity

def test_shift_pad_by_hand():
    x, y = lm.shift_pad([[5, 6, 7, 8], [9, 3]], pad_id=0, ignore_ids=(7,))
    assert x.tolist() == [[5, 6, 7], [9, 0, 0]]
    assert y.tolist() == [[6, -100, 8], [3, -100, -100]]
    assert lm.target_count([[5, 6, 7, 8], [9, 3], [4]], ignore_ids=(7,)) == 3
    with pytest.raises(ValueError, match=">= 2 tokens"):
        lm.shift_pad([[1]])


def test_perplexity_against_hand_computation():
    logits = torch.tensor([[[1.0, 2.0, 0.5], [0.0, 0.0, 0.0], [9.0, -9.0, 3.0]]])
    targets = torch.tensor([[1, 2, -100]])
    ce1 = -(2.0 - math.log(math.exp(1.0) + math.exp(2.0) + math.exp(0.5)))
    ce2 = math.log(3.0)
    total, n = lm.nll_sum(logits, targets)
    assert n == 2 and total == pytest.approx(ce1 + ce2, rel=1e-6)
    assert lm.perplexity(total, n) == pytest.approx(math.exp((ce1 + ce2) / 2), rel=1e-6)
    assert lm.perplexity(2 * math.log(7.0), 2) == pytest.approx(7.0)  # uniform over 7 -> 7
    with pytest.raises(ValueError):
        lm.perplexity(1.0, 0)
    with pytest.raises(ValueError, match="targets must lie"):
        lm.nll_sum(logits, torch.tensor([[1, 3, -100]]))


def test_evaluate_excludes_padding_and_matches_a_plain_loop():
    g = torch.Generator().manual_seed(0)
    V = 6
    table = torch.randn(V, V, generator=g)  # a bigram "model": logits at t depend on the input at t
    seqs = [[1, 2, 3, 4, 5, 0, 1], [3, 3], [5], [2, 0, 4, 1]]

    def model(inputs):
        return table[inputs]

    by_hand, count = 0.0, 0
    for s in seqs:
        for a, b in zip(s[:-1], s[1:]):
            row = table[a].tolist()
            by_hand += -(row[b] - math.log(sum(math.exp(v) for v in row)))
            count += 1
    for pad_id in (0, 5):
        for bs in (1, 3):
            r = lm.evaluate(model, seqs, batch_size=bs, pad_id=pad_id)
            assert r.n_tokens == count == 6 + 1 + 3
            assert r.total_nll == pytest.approx(by_hand, rel=1e-6)
            assert r.perplexity == pytest.approx(math.exp(by_hand / count), rel=1e-6)
            assert r.tokens_by_position.tolist() == [3, 2, 2, 1, 1, 1]
            assert r.nll_by_position.sum() == pytest.approx(by_hand, rel=1e-6)
    first = sum(-torch.log_softmax(table[s[0]], 0)[s[1]].item() for s in seqs if len(s) > 1)
    assert r.nll_by_position[0] == pytest.approx(first, rel=1e-6)
    r = lm.evaluate(model, seqs, ignore_ids=(1,))
    assert r.n_tokens == lm.target_count(seqs, ignore_ids=(1,)) == count - 2


def test_batches_cover_every_target_once():
    g = torch.Generator().manual_seed(1)
    seqs = [list(range(n)) for n in (3, 1, 7, 2, 5, 4, 6)]
    for order in lm.ORDERS:
        got = sum(int((y != lm.IGNORE).sum()) for _, y in lm.batches(seqs, 3, order=order, generator=g))
        assert got == lm.target_count(seqs) == 2 + 6 + 1 + 4 + 3 + 5
    lengths = [x.shape[1] for x, _ in lm.batches(seqs, 2, order="sorted")]
    assert lengths == sorted(lengths, reverse=True)
    with pytest.raises(ValueError, match="order"):
        next(lm.batches(seqs, 2, order="random"))
