"""Morita's Sec. 4.2 (Fig. 3, the dual-frequency vocabulary) and the S4D half of Sec. 4.3, each claim with its
measure, rule and baseline. Fig. 5's RNN claims stay in :mod:`penb.claims.morita`; ``penb.claims._load`` puts
:data:`FIG3` before them and :data:`SEC4_3` after them, in the text's order.

Issue 35 (2026-11-26), each change with its reason in the claim's own words below:

* ``fig3.rare_target.*``: "successfully retrieved" is a level, not an equivalence with FREQUENT targets (rule
  ``level`` at 95%, the figure Sec. 4.1 gives to "successfully"); exploratory, since the equivalence reading's
  verdicts had been seen;
* ``fig3.harm.gru``: read on FREQUENT targets, the group the text names for the GRU; exploratory, as the notebook's
  section on the search explains;
* ``fig3.pe_target.*`` (new): the PE RNNs' robustness to the frequency of the *target*, the half of the sentence
  that ``fig3.pe_robust.*`` (the disturbants) left out;
* the level claims (``pe_near_perfect``, ``sec4_3.s4d_t1``, ``gru_exception``) speak of trained models (issue 34,
  item 3): protocol 4's doubling test reads each one's per-seed level, in place of the gate at 10% of the paper's
  updates, which was no training state;
* ``sec4_3.s4d_marginal`` and ``sec4_3.s4d_stable`` (new): "marginal" and "highly stable by itself", read from the
  S4D runs' checkpoints (``morita.fig5.s4d`` keeps the part after 10,000 updates).
"""
from penb.claims.claim import Claim
from penb.claims.grading import Rule
from penb.claims.morita import _P, CHANCE, better
from penb.claims.sources import MORITA

RNNS = (("gru", "GRU"), ("lstm", "LSTM"))
ALL = (*RNNS, ("s4d", "S4D"))
HARM_TARGETS = {"gru": "frequent", "lstm": "all", "s4d": "all"}   # the target group each harm claim reads
SUCCESS = 0.95      # Sec. 4.1 gives "successfully reversed" a figure: a token accuracy above 95%
LEVEL_SESOI_WHY = ("the protocol's default, 0.02 of accuracy: how far the level may move when the updates double "
                   "(protocol 4) or how far from the text's level a mean must be to matter")
_TRAINED = ("a claim about trained models (issue 34, item 3; until 2026-11-26 graded only where a preset trained 10% "
            "of the paper's 300,000 updates, which is no training state): decided only where doubling the updates "
            "moved each per-seed level the evidence names ({levels}) by less than 0.02 (protocol 4); written before "
            "any run graded it under this rule (the 10% gate had kept every preset's runs out)")
_EXPLORATORY = "exploratory: changed on 2026-11-26 (issue 35) after the earlier reading's verdicts had been seen"
_HARM_MEASURE = {
    "gru": ("vanilla GRU accuracy on FREQUENT targets, per seed: FREQUENT disturbants minus RARE ones (Sec. 4.2 "
            "says the vanilla GRU struggled to recover the FREQUENT targets among RARE disturbants; until "
            f"2026-11-26 both target groups were pooled; {_EXPLORATORY}, and the quick GRU vocabulary was chosen "
            "where this FREQUENT-target effect showed on search seeds)"),
    "lstm": "vanilla LSTM accuracy over all targets, per seed: FREQUENT disturbants minus RARE ones (the text names "
            "no target group for the LSTM)",
    "s4d": "vanilla S4D accuracy over all targets, per seed: FREQUENT disturbants minus RARE ones (the text names no "
           "target group for the S4D)"}
S4D_PAPER = {"vocab": 2048, "length": 64, "hidden": 512, "updates": 300_000}

FIG3 = [
    *[Claim(f"morita.fig3.harm.{core}", MORITA, "Fig. 3 / Sec. 4.2",
            f"RARE disturbants lower the vanilla {name}'s accuracy"
            + (" on FREQUENT targets." if HARM_TARGETS[core] == "frequent" else "."), None, "",
            {"vocab": {"gru": 64, "lstm": 1024, "s4d": 2048}, "rare_probability": 1 / 8,
             "length": 64, "test_sequences_per_condition_position": 16, "targets": HARM_TARGETS[core]},
            chapter="frequency", measure=_HARM_MEASURE[core],
            rule=better(f"vanilla {name} more accurate with FREQUENT than with RARE disturbants"),
            baseline=CHANCE)
      for core, name in ALL],
    *[Claim(f"morita.fig3.pe_robust.{core}", MORITA, "Fig. 3 / Sec. 4.2",
            f"The position-encoded {name} is hurt less by RARE disturbants than the vanilla one (the disturbants' "
            f"half of Sec. 4.2's robustness sentence" + (f"; the target's half: morita.fig3.pe_target.{core})."
                                                         if core != "s4d" else ")."), None, "", {},
            chapter="frequency", measure=f"harm (accuracy with FREQUENT minus with RARE disturbants, all "
                                         f"targets) per seed: vanilla {name} vs PE {name}",
            rule=Rule("better", better(
                f"vanilla harm above PE harm ({name}); also inconclusive unless the PE {name} learned the task at "
                f"least as well as the vanilla one where nothing disturbs it: its accuracy with FREQUENT disturbants "
                f"above chance (by 0.02) and not more than 0.02 below the vanilla model's (non-inferiority with a "
                f"margin of 0.02, protocol 3: near the ceiling both sit near 1 and noise must not decide; "
                f"protocols 1-2 asked for strictly above the vanilla model's): a poor model has little to "
                f"lose").text, {**_P, "noninferiority": 0.02}),
            baseline="no vanilla harm (0: nothing to reduce); the vanilla model's accuracy with FREQUENT "
                     "disturbants for the PE model's")
      for core, name in ALL],
    # issue 35: "robustness to the frequency of the target and disturbant tokens" is said of the PE RNNs (the S4D's
    # sentence speaks of disturbants only). Read as the PE model's own indifference to the target's frequency: the
    # same section has the vanilla models barely affected by it, so "hurt less than vanilla" would have nothing to
    # reduce. Written 2026-11-26, before any run was graded under it
    *[Claim(f"morita.fig3.pe_target.{core}", MORITA, "Fig. 3 / Sec. 4.2",
            f"The position-encoded {name} is robust to the frequency of the target: it retrieves RARE targets about "
            f"as well as FREQUENT ones (the target's half of Sec. 4.2's robustness sentence; the disturbants' half: "
            f"morita.fig3.pe_robust.{core}).", None, "", {}, chapter="frequency",
            measure=f"PE {name}, per seed: accuracy on FREQUENT targets (a) and on RARE targets (b), each the mean of "
                    f"its two disturbant groups over all positions"
                    + (", leaving out, for both target groups, the first half of positions under RARE disturbants: "
                       "the text's own exception to the GRU's near-perfect accuracy (morita.fig3.gru_exception), "
                       "which would otherwise count against this sentence" if core == "gru" else ""),
            rule=Rule("no_gain", f"FREQUENT minus RARE target accuracy of the PE {name}, paired by seed: reproduced "
                                 f"when the seed-level 95% interval stays below +0.02; not reproduced when it lies "
                                 f"above +0.02 with 80% of the seeds agreeing (RARE targets clearly worse "
                                 f"retrieved); otherwise inconclusive. RARE targets retrieved better also show no "
                                 f"harm from rarity (one-sided, no control branch); inconclusive when the PE "
                                 f"{name}'s accuracy with FREQUENT disturbants sits within 0.02 of chance, a run "
                                 f"diverged or fewer than 3 seeds are valid",
                      {**_P, "margin": 0.02, "control": False}),
            baseline="chance 1/V for the PE model's accuracy with FREQUENT disturbants", sesoi=0.02,
            sesoi_why="the text prints no size; the protocol's default, 0.02 of accuracy")
      for core, name in RNNS],
    # Sec. 4.2's other statements (issue 22, item 7)
    *[Claim(f"morita.fig3.disturbants.{core}", MORITA, "Fig. 3 / Sec. 4.2",
            f"For the vanilla {name} it is the disturbants' frequency, not the target's, that matters: RARE "
            f"disturbants lower accuracy more than a RARE target does (the RARE target among FREQUENT "
            f"disturbants: morita.fig3.rare_target.{core}).", None, "", {}, chapter="frequency",
            measure=f"vanilla {name}, per seed: the disturbant effect (accuracy with FREQUENT minus with RARE "
                    f"disturbants, averaged over both target groups) vs the target effect (accuracy of FREQUENT "
                    f"minus RARE targets, averaged over both disturbant groups)",
            rule=better(f"disturbant effect above target effect ({name}); an absent disturbant effect is graded "
                        f"(it contradicts the claim); inconclusive when the vanilla {name}'s accuracy with "
                        f"FREQUENT disturbants sits within 0.02 of chance"),
            baseline="chance 1/V for the vanilla model's accuracy with FREQUENT disturbants")
      for core, name in ALL],
    # The first half of the sentence pair that fig3.disturbants grades. Its paragraph describes the vanilla models
    # ("the vanilla RNNs and S4D"; the PE models come in the next one). Issue 35: a level, as the word says, at the
    # figure Sec. 4.1 attaches to the same word; until 2026-11-26 read as "within 0.02 of FREQUENT targets", which
    # passed 0.40 against 0.40 and failed 0.97 against 0.94
    *[Claim(f"morita.fig3.rare_target.{core}", MORITA, "Fig. 3 / Sec. 4.2",
            f"Among FREQUENT disturbants the vanilla {name} retrieves RARE targets successfully (\"successfully\" "
            f"read as Sec. 4.1 uses it for the reversal task: a token accuracy above 95%).", SUCCESS,
            "token accuracy on RARE targets (lower bound, vanilla)", {}, chapter="frequency",
            measure=f"the vanilla {name}'s accuracy on RARE targets among FREQUENT disturbants (all positions), per "
                    f"seed ({_EXPLORATORY}: it was FREQUENT minus RARE target accuracy, graded as no gain)",
            rule=Rule("level", f"the vanilla {name}'s mean accuracy on RARE targets among FREQUENT disturbants "
                               f"against {SUCCESS} (the text prints no number here; Sec. 4.1 calls reversal "
                               f"'successful' at a token accuracy above 95%, and a level is what the word names, "
                               f"not an equality with FREQUENT targets): reproduced when its seed-level 95% "
                               f"interval lies above {SUCCESS}, "
                               f"not reproduced when it lies below; otherwise inconclusive; inconclusive too when "
                               f"the vanilla {name}'s accuracy with FREQUENT disturbants (both target groups) sits "
                               f"within 0.02 of chance (it learned nothing), a run diverged or fewer than 3 seeds "
                               f"are valid", {**_P, "level": SUCCESS}),
            baseline="chance 1/V for the vanilla model's accuracy with FREQUENT disturbants", sesoi=0.02,
            sesoi_why=LEVEL_SESOI_WHY)
      for core, name in ALL],
    Claim("morita.fig3.where.lstm", MORITA, "Fig. 3 / Sec. 4.2",
          "The vanilla LSTM's loss under RARE disturbants is largest when the target lies in the first quarter "
          "of the sequence (t = 1-16 of 64).", None, "", {}, chapter="frequency",
          measure="vanilla LSTM, per seed: the harm of RARE disturbants (FREQUENT minus RARE disturbants, both "
                  "target groups) in the first quarter of target positions vs its mean over the other three",
          rule=better("first-quarter harm above the other quarters' harm; inconclusive when the vanilla LSTM's "
                      "accuracy with FREQUENT disturbants sits within 0.02 of chance"),
          baseline="chance 1/V for the vanilla model's accuracy with FREQUENT disturbants"),
    Claim("morita.fig3.where.s4d", MORITA, "Fig. 3 / Sec. 4.2",
          "Under RARE disturbants the vanilla S4D is least accurate when the target lies in the second quarter "
          "(t = 17-32 of 64).", None, "", {}, chapter="frequency",
          measure="vanilla S4D with RARE disturbants, per seed: the lowest accuracy among the other three quarters "
                  "vs the second quarter's (worst means below every other quarter)",
          rule=better("second quarter below the worst other quarter; inconclusive when the vanilla S4D's accuracy "
                      "with FREQUENT disturbants sits within 0.02 of chance"),
          baseline="chance 1/V for the vanilla model's accuracy with FREQUENT disturbants"),
    *[Claim(f"morita.fig3.pe_near_perfect.{core}", MORITA, "Fig. 3 / Sec. 4.2",
            f"The position-encoded {name} is nearly perfect in most of the test grid's conditions.", 0.95,
            "accuracy (our reading of 'nearly perfect')", {"steps": 300_000}, chapter="frequency",
            measure=f"PE {name}: per condition (target group x disturbant group x quarter of positions, 16 "
                    f"conditions), the mean over seeds and its Student-t interval; per seed, the accuracy that more "
                    f"than half of the conditions reach (the level the doubling test reads)",
            rule=Rule("check", "reproduced when more than half of the conditions have a mean of at least 0.95; not "
                               "reproduced when more than half have an interval whose upper end is below 0.95; "
                               "otherwise inconclusive; " + _TRAINED.format(
                                   levels="the accuracy more than half of the conditions reach"),
                      {"level": 0.95}), baseline=CHANCE, sesoi=0.02, sesoi_why=LEVEL_SESOI_WHY, about="trained")
      for core, name in RNNS],
    Claim("morita.sec4_3.s4d_t1", MORITA, "Sec. 4.3",
          "Both S4Ds, vanilla and position-encoded, retrieve a target at t = 1 with accuracy above 96% whatever "
          "the frequency of target and disturbants.", 0.96, "accuracy", {"steps": 300_000}, chapter="frequency",
          measure="S4D (both variants), per condition (target group x disturbant group) at t = 1: the mean over "
                  "seeds and its Student-t interval; per seed and variant, the lowest of the four conditions (the "
                  "levels the doubling test reads)",
          rule=Rule("check", "reproduced when every condition's mean is above 0.96; not reproduced when some "
                             "condition's interval lies wholly below 0.96; otherwise inconclusive; " + _TRAINED.format(
                                 levels="each S4D's lowest condition"), {"level": 0.96}),
          baseline=CHANCE, sesoi=0.02, sesoi_why=LEVEL_SESOI_WHY, about="trained"),
    Claim("morita.fig3.gru_exception", MORITA, "Fig. 3 / Sec. 4.2",
          "The one exception to near-perfect PE models: the GRU on all-RARE data with the target in the first "
          "half.", 0.95, "accuracy (our reading of 'nearly perfect', as morita.fig3.pe_near_perfect)",
          {"steps": 300_000}, chapter="frequency",
          measure="PE GRU: per condition (target group x disturbant group x quarter of positions, 16 conditions), "
                  "the mean over seeds and its Student-t interval; the exception is RARE target x RARE "
                  "disturbants in the first two quarters (t = 1-32 of 64), the rest the other 14 conditions",
          rule=Rule("check", "reproduced when both exception conditions have an interval whose upper end is below "
                             "0.95 and more than half of the other 14 have a mean of at least 0.95; not reproduced "
                             "when an exception condition's interval lies at or above 0.95 (near perfect there "
                             "too); inconclusive otherwise, when more than half of the others are below 0.95 (no "
                             "near-perfect model to be an exception to), or with fewer than 3 seeds; " +
                             _TRAINED.format(levels="the higher of the two exception conditions, and the accuracy "
                                                    "more than half of the other 14 reach"), {"level": 0.95}),
          baseline=CHANCE, sesoi=0.02, sesoi_why=LEVEL_SESOI_WHY, about="trained"),
]

# Sec. 4.3's S4D half (issue 35): the text reads Fig. 5's S4D panel over its checkpoints ("throughout the
# training"), so both claims speak of the course of training, as Fig. 5's RNN claims do. Written 2026-11-26, before
# any S4D run was graded under them (the quick preset runs no S4D)
SEC4_3 = [
    Claim("morita.sec4_3.s4d_marginal", MORITA, "Sec. 4.3 / Fig. 5",
          "For the S4D the effect of positional encoding on gradient stability is marginal: PE changes by little "
          "how much RARE disturbants lower the S4D's score, in either direction (the text sees a visible early "
          "destabilisation and an observable improvement by PE, both small beside the RNNs').", None, "",
          {"pairs": 1024, "checkpoint_every": 5000}, chapter="gradient_stability",
          measure="per seed, over the run's checkpoints: the mean of (the vanilla S4D's drop of the score from "
                  "FREQUENT to RARE disturbants) minus (the PE S4D's drop), the drops as morita.fig5.gru/.lstm "
                  "read them (a: that mean; b: 0, no effect)",
          rule=Rule("no_gain", "PE's effect on the S4D's drop, paired by seed: reproduced when the seed-level 95% "
                               "interval lies within (-0.02, +0.02); not reproduced when it lies wholly above +0.02 "
                               "(with 80% of the seeds agreeing) or below -0.02 (an effect that is not marginal); "
                               "otherwise inconclusive; inconclusive too when either S4D's accuracy sits within "
                               "0.02 of chance, a run diverged or fewer than 3 seeds are valid",
                    {**_P, "margin": 0.02, "control": False, "two_sided": True}),
          baseline="chance 1/V for each S4D's accuracy (a model that learned nothing has no stability to compare)",
          sesoi=0.02, sesoi_why="the smallest effect the book counts on the same measure for the RNNs (morita.fig5.gru "
                                "and .lstm: the protocol's default, 0.02 of the score): an S4D effect inside it is "
                                "smaller than any the book would call an effect there, which is what 'marginal' "
                                "says beside them", about="course", scale=S4D_PAPER),
    Claim("morita.sec4_3.s4d_stable", MORITA, "Sec. 4.3 / Fig. 5",
          "Without PE the S4D keeps a high gradient-stability score against RARE disturbants throughout training "
          "(\"highly stable by itself\"; read as a score above 0.9, within a tenth of the score 1 that the text "
          "names for perfectly aligned gradients, at every checkpoint).", 0.9,
          "score (lower bound, the book's reading; the text prints none)",
          {"pairs": 1024, "checkpoint_every": 5000}, chapter="gradient_stability",
          measure="vanilla S4D, per seed: its lowest score with RARE disturbants (targets pooled) over the run's "
                  "checkpoints",
          rule=Rule("level", "the vanilla S4D's per-seed lowest score with RARE disturbants against 0.9: reproduced "
                             "when the seed-level 95% interval of its mean lies above 0.9; not reproduced when it "
                             "lies below; otherwise inconclusive; inconclusive too when the vanilla S4D's accuracy "
                             "sits within 0.02 of chance (an S4D's recurrence is linear, so an untrained one can "
                             "score high without having learned anything), a run diverged or fewer than 3 seeds "
                             "are valid", {**_P, "level": 0.9}),
          baseline="chance 1/V for the vanilla S4D's accuracy", sesoi=0.02,
          sesoi_why="the protocol's default, 0.02 of the score (a similarity between -1 and 1)", about="course",
          scale=S4D_PAPER),
]
