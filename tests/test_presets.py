"""Presets: unknown chapters, presets, keys and impossible values fail before any work."""
import pytest

from penb import presets


def test_every_chapter_has_three_presets_derived_from_paper():
    for chapter in presets.chapters():
        t = presets.table(chapter)
        assert {"smoke", "quick", "paper"} <= set(t) <= set(presets.PRESETS)
        assert all(set(t[p]) == set(t["paper"]) for p in t)          # same keys: overrides only


def test_each_chapter_presets_pass_their_own_check_and_the_check_is_live():
    """Every preset of every chapter resolves to a config named after it whose values are the table's; the same
    preset with a device no machine has is refused in one line (the checks run at every preset)."""
    for chapter in presets.chapters():
        table = presets.table(chapter)
        for p in table:
            cfg = presets.resolve(chapter, p, **({"device": "cpu"} if p in presets.GPU_ONLY else {}))
            assert cfg.preset == p and len(cfg.key()) == 16
            assert all(cfg[k] == v for k, v in table[p].items() if k != "device" and not isinstance(v, (list, dict)))
            with pytest.raises(ValueError, match="device"):
                presets.resolve(chapter, p, device="tpu")


def test_unknown_preset_lists_valid_ones():
    with pytest.raises(ValueError, match="unknown preset 'fast'.*smoke, quick, paper"):
        presets.resolve("encodings", "fast")


def test_unknown_chapter_and_key():
    with pytest.raises(ValueError, match="unknown chapter"):
        presets.resolve("no-such-chapter", "quick")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['bogus'\]"):
        presets.resolve("encodings", "quick", bogus=1)


def test_wrong_type_and_impossible_value():
    with pytest.raises(ValueError, match="must be int"):
        presets.resolve("encodings", "quick", dim="wide")
    with pytest.raises(ValueError, match="even"):
        presets.resolve("encodings", "quick", dim=3)


def test_none_means_preset_value_and_config_is_frozen():
    cfg = presets.resolve("encodings", "smoke", dim=None)
    assert cfg.dim == presets.table("encodings")["smoke"]["dim"]
    with pytest.raises(TypeError):
        cfg.dim = 4
    assert cfg.replace(dim=8).dim == 8 and cfg.dim != 8


def test_config_key_changes_with_any_field():
    a = presets.resolve("encodings", "quick")
    assert a.key() == presets.resolve("encodings", "quick").key()
    assert a.key() != a.replace(seed=a.seed + 1).key()


def test_device_cuda_without_cuda_is_refused(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)     # a machine without CUDA, whatever this is
    with pytest.raises(ValueError, match="CUDA is not available"):
        presets.resolve("encodings", "quick", device="cuda")
    with pytest.raises(ValueError, match="unknown device"):
        presets.resolve("encodings", "quick", device="tpu")


def test_from_parameters_takes_config_keys_only():
    ns = {"preset": "smoke", "inits": 3, "unrelated": object(), "dim": None}
    cfg = presets.from_parameters("invertibility", ns)
    assert cfg.preset == "smoke" and cfg.inits == 3
    assert cfg.dim == presets.resolve("invertibility", "smoke").dim              # None: the preset's value
    with pytest.raises(ValueError, match="no 'preset'"):
        presets.from_parameters("invertibility", {"inits": 3})
    with pytest.raises(ValueError, match="must be int"):
        presets.from_parameters("invertibility", {"preset": "smoke", "inits": "many"})


def test_differences_show_overrides_not_just_the_preset():
    cfg = presets.resolve("invertibility", "smoke", inits=3)
    paper = presets.table("invertibility")["paper"]
    d = presets.differences(cfg)
    assert d.loc["inits", "smoke"] == 3 and d.loc["inits", "paper"] == paper["inits"]
    assert all(paper[k] != cfg[k] for k in d.index) and all(k in d.index for k in paper if paper[k] != cfg[k])
    assert presets.differences(presets.resolve("invertibility", "paper")).empty


def test_the_gpu_preset_refuses_a_machine_without_cuda(monkeypatch):
    import torch

    gpu = [c for c in presets.chapters() if "gpu" in presets.table(c)]
    assert "key_findings" in gpu
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="no CUDA device"):
        presets.resolve("key_findings", "gpu")
    assert presets.resolve("key_findings", "gpu", device="cpu").device == "cpu"     # explicit: allowed
    with pytest.raises(ValueError, match="unknown preset 'gpu' for encodings"):
        presets.resolve("encodings", "gpu")


def test_no_cell_is_left_out_of_quick_for_a_verdict():
    """Issue 41, item 3: which cells quick trains is decided by penb.sizing.QUICK_RULE, cost or what the claim
    needs, never by a verdict, a doubling move or the pilot's power. Every chapter's table of cells left out says
    which, and none cites an outcome."""
    from penb.chapters.appendix import appendix_a
    from penb.chapters.beyond_rnn import analysis as beyond_rnn
    from penb.chapters.key_findings import grading as key_findings

    tables = {"appendix_a": appendix_a.NOT_RUN, "beyond_rnn": beyond_rnn.NOT_RUN, "key_findings": key_findings.NOT_RUN}
    outcome = ("doubling", "moved", "settled", "needs 1", "needs 2", "seeds, so 3", "build of")
    for chapter, table in tables.items():
        for (preset, key), why in table.items():
            assert not any(word in why for word in outcome), (chapter, key, why)
    # the cells 549ae11 and ddd9241 cut by their doubling column and the pilot's power are back, and the GRU
    # takes the three seeds every cell takes
    assert set(presets.resolve("appendix_a", "quick").sort_cores) == {"gru", "lstm"}
    assert "variable" in presets.resolve("appendix_d", "quick").settings
    kf = presets.resolve("key_findings", "quick")
    assert len(kf.seeds) == presets.QUICK_SEEDS and not kf.core_seeds and "s4d" in kf.cores
    assert "s4d" in presets.resolve("frequency", "quick").cores


def test_execution_is_one_parameter_that_lays_out_as_the_keys_it_names():
    """Issue 67: ``execution={"executor": "batched", "workers": 2}`` resolves as the two keys given alone; a key
    outside the chapter's execution knobs, a value that is not a dict, or a knob given twice is refused in one line."""
    alone = presets.resolve("key_findings", "smoke", executor="batched", workers=2)
    assert presets.resolve("key_findings", "smoke", execution={"executor": "batched", "workers": 2}) == alone
    assert presets.resolve("key_findings", "smoke", execution=None) == presets.resolve("key_findings", "smoke")
    for bad, match in [({"execution": {"steps": 3}}, r"execution has no key\(s\) \['steps'\]"),
                       ({"execution": ["batched"]}, "execution must be a dict"),
                       ({"execution": {"workers": 2}, "workers": 1}, "given both on its own and in execution")]:
        with pytest.raises(ValueError, match=match):
            presets.resolve("key_findings", "smoke", **bad)
    with pytest.raises(ValueError, match="execution has no key"):              # irie's only knob is workers
        presets.resolve("irie", "smoke", execution={"executor": "batched"})


# Values of each recipe knob that every chapter's quick preset accepts in place of its own (never its own).
OTHER = {"warmup": lambda v: 1 if v != 1 else 2, "schedule": lambda v: "cosine" if v == "wsd" else "wsd",
         "doubling": lambda v: not v, "earlier": lambda v: 0 if v else 1, "betas": lambda v: (0.8, 0.9),
         "held_out": lambda v: v // 2 if v > 1 else v + 1, "bootstrap": lambda v: v + 100}


@pytest.mark.parametrize("chapter", presets.chapters())
def test_recipe_is_one_parameter_that_lays_out_as_the_keys_it_names(chapter):
    """Issue 67: each knob of ``recipe`` given in the dict resolves as given alone, to that key and no other, from
    the notebook's namespace too; left out (None, an empty dict), it is the preset table's value."""
    table = presets.table(chapter)
    knobs = presets.group_knobs("recipe", table["paper"])
    assert knobs == [k for k in presets.RECIPE_KNOBS if k in table["paper"]]
    for p in ("smoke", "quick"):
        plain = presets.from_parameters(chapter, {"preset": p, "recipe": None})
        assert presets.from_parameters(chapter, {"preset": p, "recipe": {}}) == plain
        assert all(plain[k] == table[p][k] for k in knobs)
    base = presets.resolve(chapter, "quick")
    for k in knobs:
        other = OTHER[k](base[k])
        budgets = {"doubling": base.get("doubling", True), "earlier": base.get("earlier", 0), k: other}
        if budgets["earlier"] and not budgets["doubling"]:                 # N/4 without N/2: the checks refuse it
            continue
        alone = presets.resolve(chapter, "quick", **{k: other})
        grouped = presets.from_parameters(chapter, {"preset": "quick", "recipe": {k: other}})
        assert grouped == alone and grouped.key() == alone.key() != base.key(), k
        assert [f for f in base if base[f] != grouped[f]] == [k] and grouped[k] == other, k


def test_a_recipe_knob_twice_or_unknown_is_refused_in_one_line():
    for bad, match in [({"recipe": {"warmpu": 3}}, r"recipe has no key\(s\) \['warmpu'\] \(did you mean 'warmup'\?\)"),
                       ({"recipe": {"warmup": 3}, "warmup": 4}, r"\['warmup'\] given both on its own and in recipe"),
                       ({"recipe": ("warmup", 3)}, "recipe must be a dict of warmup, schedule"),
                       ({"recipe": {"workers": 2}}, r"recipe has no key\(s\) \['workers'\]"),
                       ({"execution": {"warmup": 2}}, r"execution has no key\(s\) \['warmup'\]")]:
        with pytest.raises(ValueError, match=match) as err:
            presets.resolve("key_findings", "smoke", **bad)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"recipe has no key\(s\) \['doubling'\]"):      # lm_appendix's: warmup, betas,
        presets.resolve("lm_appendix", "smoke", recipe={"doubling": False})            # held_out
