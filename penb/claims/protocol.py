"""The grading protocol in force and its history (``penb.claims.grading``)."""
PROTOCOL = 5                     # the grading protocol in force
PROTOCOLS = {
    1: "percentile bootstrap intervals over seeds; an effect not shown counted as absent (not reproduced)",
    2: "Student-t intervals over seeds; not reproduced only when the interval excludes the smallest effect of "
       "interest (or lies below 0); otherwise inconclusive, with the seeds 80% power would need; sign agreement "
       "required of trends too (adopted 2026-11-24, for every claim at once, after the protocol-1 verdicts "
       "had been seen)",
    3: "as 2, with rules that can give every outcome their claims allow (issue 28): 'no gain' is not reproduced "
       "only when the gain exceeds the margin (an equivalence test); a gain compared with a reference gain is "
       "compared on the gain over the room left and can be not reproduced; a control that asks 'at least as "
       "well' passes within a margin of the reference; and (issue 27) every comparison carries its models' training "
       "state from the runs' own histories (penb.claims.training): a claim about trained models whose models "
       "are still learning (a rise above 0.02 over the second half of training) is inconclusive, 'still learning "
       "at N updates', whatever its rule says; 'not reproduced' needs the claim's premise to hold in the runs; "
       "smallest effects of interest restated in each measure's own unit from the texts' own numbers or words "
       "(Table 1's gap as a ratio, 'marginally' as any lead, Cohen's medium rank correlation, one smallest "
       "accuracy effect per doubling of V), each with its why in the registry. Only irie.q4's margin has no "
       "number in the texts behind it and was set after its verdict had been seen: that claim is exploratory "
       "(adopted 2026-11-25, for every claim at once, after protocol 2's verdicts had been seen)",
    4: "as 3, with the paper's own test of 'trained' (Sec. 4.1; issue 34) in place of protocol 3's rise of "
       "training accuracy: a claim about trained models is decided only where doubling the updates (N/2 to N, "
       "the same seeds) moved the quantity that could overturn its verdict by less than its smallest effect of "
       "interest, on a Student-t interval of the per-seed moves (penb.claims.doubling): the gap for 'A better "
       "than B' (a fall could overturn a gap found, a rise a gap denied), the slope for a trend, the level the "
       "text names, both models for 'no gain'; otherwise inconclusive, with the move and the next budget. "
       "Claims about a fixed budget or the course of training are read at that budget (adopted 2026-11-26, "
       "for every claim about trained models at once, after protocol 3's verdicts had been seen; protocol 3's "
       "verdicts are kept beside it)",
    5: "as 4, with the doubling test as the paper states it (Sec. 4.1: more updates did not improve the vanilla "
       "models; issue 41's review): a gap found stands only where, from N/2 to N, the model behind did not rise by "
       "the smallest effect of interest (nor the model ahead fall by it) and the gap did not shrink; a gap denied "
       "only where the model that would have to pull ahead did not rise by it and the gap did not grow; read on "
       "the claim's own measure, for both models at every x of a trend and for both parts of a gain compared "
       "with a reference (penb.claims.doubling). A gap that grows while both models still learn says 'learns "
       "faster', not 'better'. An interval of zero width decides nothing: all seeds alike give the measure's "
       "stated resolution on either side, or nothing. The rule's rate of settling wrongly is measured on "
       "simulated curves at 3, 5 and 10 seeds (tests/test_doubling_calibration.py). Adopted 2026-11-27, for "
       "every claim about trained models at once, after protocol 4's verdicts had been seen; protocol 4's "
       "verdicts are kept beside it",
}
