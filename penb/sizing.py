"""How the quick and slice presets are sized: which cells they train, on how many seeds, for how many updates.

Rules written before the builds that apply them, reading only cost and training (never a verdict, an interval or a
doubling move); ``penb.presets`` re-exports them, and the chapters' presets cite them value by value.
"""
from __future__ import annotations

# The protocol in force when DEEP_RULE (v1, v2) and FREQ_DEEP_RULE chose their fixed targets (2026-11-28/29): their
# power tables hold its power (power_p7) and their choices read it; protocol 8 (2026-12-04) grades the runs they
# sized, and a rule written under it adds its own column (issue 66: a new protocol adds a column, not a branch).
SIZED_UNDER = 7

# The power every rule aims at: a deep rule's budget and seeds (below), and the protocol's "seeds needed" beside an
# inconclusive verdict (penb.claims.intervals.seeds_needed, penb.claims.to_decide).
POWER = 0.8

# The presets whose budgets, seeds and cells are fixed targets written by a rule below (DEEP_RULE v1-v3,
# FREQ_DEEP_RULE): refused at any other value on every host (each chapter's presets.check), trained by cell by the long
# run (penb.long_run) and toward their targets, depth first, by device calls that continue each other (penb.call).
FIXED_TARGETS = ("deep", "deep_v2", "deep_v3")

# Which cells the quick preset trains (issue 41, item 3; written 2026-11-27, before the build that applies it). The
# rule reads no verdict, no doubling move and no build's interval:
# * seeds: every graded cell takes QUICK_SEEDS confirmation seeds. No count is chosen from a build's intervals, and
#   the pilot's power never cuts a cell: an underpowered cell runs and its row says how many seeds would decide it;
# * cells: every cell that a chapter's claims need (their variants, their x-values) is trained, unless
#   (a) cost: the cells a claim needs beyond those quick trains for the chapter's other claims cost more than
#       QUICK_CLAIM_CPU_MIN CPU-minutes (one core, fp32, N and N/2 of every run, from the runs' recorded times);
#   (b) need: the text places the effect where quick cannot reach it (an effect the text dates past quick's
#       budget), or the model sits at its trivial baseline on the search seeds at quick's settings.
#   Such a claim reads "not tested", its row naming (a) or (b) and the numbers behind it.
# Applied 2026-11-27: the cuts of 549ae11 and ddd9241 (chosen by the doubling column and the pilot's power) are
# restored, key findings' GRU goes from five seeds (chosen after a 3-seed build had been read) to three, and the
# S4D of key findings and Sec. 4.2 comes back (about 8 CPU-minutes a cell, under the cost cap). Still out: the
# LSTM's and S4D's trends over three vocabularies (a: two more cells each, about 16-20 CPU-minutes), Sec. 4.3's
# S4D half in gradient stability (b: its effect fades after 10,000 updates), appendix A.3 (b: both models at the
# blind-guess baseline on search seeds). QUICK_RULE is the sentence the rows cite.
QUICK_CLAIM_CPU_MIN = 10
QUICK_RULE = ("penb.sizing.QUICK_RULE (issue 41): quick leaves a claim to a larger preset only for (a) the cost of "
              f"its own cells, above {QUICK_CLAIM_CPU_MIN} CPU-minutes, or (b) what the claim needs, never for a "
              "verdict seen")

# How the slice presets are sized (issue 43; written 2026-11-27, before any slice confirmation run, and reading only
# training on search seeds, never a gap, an interval or a verdict):
# * shapes: the quick presets' (hidden, length, batch, learning rate): the only shapes whose batched rate on an H100
#   was measured (penb.executors.cost.BATCHED), and the regime the quick searches chose;
# * models: those the batched trainer trains (GRU, LSTM); the S4D is not batched and its GPU rate is unmeasured, so
#   no plan could promise it fits (its claims read "not tested" at slice, with this reason);
# * budget N per model: the smallest quick N x 2^j (j >= 1) at which the model behind (vanilla) on the search seeds
#   (scripts/search_slice.py, its table beside the chapter's presets) gains less than SLICE_STOP from N/2 to N at
#   every vocabulary of its cells; where that N does not fit the minutes with SLICE_SEEDS seeds, the largest quick N
#   x 2^j that does, and the preset says the rule's stop was not reached;
# * seeds: SLICE_SEEDS confirmation seeds a cell (t = 2.78 at 4 degrees of freedom), more (up to 10) while the plan
#   stays within SLICE_MINUTES;
# * minutes: the plan's estimate (penb.call.slice: measured batched rates plus a minute of overhead) at most SLICE_MINUTES,
#   one chapter a call.
SLICE_STOP = 0.02          # protocol 5's smallest move of a model (penb.claims.doubling)
SLICE_SEEDS = 5
SLICE_MINUTES = 8.0
SLICE_RULE = (f"penb.sizing.SLICE_RULE (issue 43): quick's shapes, GRU and LSTM only (batched), N the smallest quick "
              f"N x 2^j where vanilla gains < {SLICE_STOP} per doubling on search seeds or else the largest that fits "
              f"{SLICE_MINUTES:g} H100-minutes, {SLICE_SEEDS}+ seeds")
SLICE_S4D = ("the S4D is not trained by the batched trainer and its GPU rate is unmeasured, so no slice plan can "
             "promise it fits (penb.sizing.SLICE_RULE)")

# How the deep preset is sized (issue 58; written 2026-11-28 before any deep confirmation run, reading only the
# vanilla GRU's curves on search seeds, scripts/search_deep.py -> penb/chapters/key_findings/deep_search.csv, through
# penb.power.fig2_v1; never a confirmation seed, a gap seen or a verdict):
# * cells: Fig. 2's GRU over the paper's whole range, V 32, 64, 128 and 256 (no vocabulary dropped for the verdict it
#   is expected to give), vanilla and sinusoidal, at quick's shapes (h64, L16, batch 64, lr 1e-2, WSD), N/4 and N/2
#   on each run's trunk (earlier=1). Quick's V 8 and 16 are left out: at 32,000 updates they would add half the
#   figure's CPU time to cells the paper does not have;
# * the alternative: the text's own effect (DESIGN.md): the PE GRU above 95% (morita.fig2.level.gru), stopped there,
#   against vanilla on its searched curve; the power at the smallest effect of interest is shown beside it;
# * budget N: the smallest of DEEP_BUDGETS at which morita.fig2.gru (read at the largest V) reaches POWER with
#   at most DEEP_MAX_SEEDS seeds under the protocol in force, among the budgets whose figure fits DEEP_CPU_MIN on the
#   2-core AVX-512 host at the rates measured by the search; where none does, the largest budget that fits;
# * seeds: the fewest from DEEP_MIN_SEEDS up that reach POWER at that N (at most DEEP_MAX_SEEDS), else the
#   most that fit the CPU budget, and the chapter says the cell is underpowered;
# * fixed: the same N and seeds on every host and device (penb.chapters.key_findings.presets.check refuses others).
DEEP_BUDGETS = (32_000, 64_000)
DEEP_MIN_SEEDS = 5
DEEP_MAX_SEEDS = 10
DEEP_CPU_MIN = 90.0
DEEP_RULE = (f"penb.sizing.DEEP_RULE (issue 58): Fig. 2's GRU over V 32-256, vanilla and sinusoidal, N the smallest "
             f"of {', '.join(f'{n:,}' for n in DEEP_BUDGETS)} with {POWER:.0%} power for morita.fig2.gru at "
             f"<= {DEEP_MAX_SEEDS} seeds (penb.power, search seeds only) within {DEEP_CPU_MIN:g} CPU-minutes, the "
             f"fewest seeds from {DEEP_MIN_SEEDS} that reach it")

# FREQ_DEEP_RULE (issue 58, 2026-11-29, written before frequency's deep search ran and before any of its deep
# confirmation runs): the same rule for Fig. 3's GRU cell (penb.power.fig3), where
# * the cell: the paper's GRU vocabulary of Fig. 3 (64 = 32 FREQUENT + 32 RARE tokens), vanilla and sinusoidal, at
#   quick's shapes on the dual-frequency task (h64, L16, batch 64, lr 1e-2, WSD), N/4 and N/2 on each trunk;
# * the claim that sizes it: morita.fig3.pe_robust.gru (the vanilla GRU harmed more by RARE disturbants than the PE
#   one), the chapter's comparison of trained models;
# * the alternative: the effect measured on the search seeds (both variants searched there, never graded), because
#   Fig. 2's deep run showed the text's level far from this scale; the SESOI's power beside it;
# * N: the smallest of FREQ_DEEP_BUDGETS with POWER at <= DEEP_MAX_SEEDS seeds under the protocol in force,
#   among those whose figure fits DEEP_CPU_MIN at the rate the search measured; else the largest that fits;
# * seeds: the fewest from DEEP_MIN_SEEDS that reach it, else the most that fit; fixed on every host.
FREQ_DEEP_BUDGETS = (8_000, 16_000, 32_000, 64_000)
FREQ_DEEP_RULE = (f"penb.sizing.FREQ_DEEP_RULE (issue 58): Fig. 3's GRU at V 64, vanilla and sinusoidal, N the "
                  f"smallest of {', '.join(f'{n:,}' for n in FREQ_DEEP_BUDGETS)} with {POWER:.0%} power for "
                  f"morita.fig3.pe_robust.gru at the effect searched on search seeds, at <= {DEEP_MAX_SEEDS} seeds, "
                  f"within {DEEP_CPU_MIN:g} CPU-minutes, the fewest seeds from {DEEP_MIN_SEEDS} that reach it")

# The LSTM and S4D parts of Fig. 2 (issue 58, defined 2026-11-29 before any of their runs): for a GPU, since on the CPU
# an LSTM figure at the GRU's depth takes about 3 hours. Each part follows DEEP_RULE's steps on its own search:
# * cells: the model's quick shapes (LSTM: h128, batch 64, lr 3e-3; S4D: h64, batch 64, lr 1e-2; WSD, fp32), vanilla
#   and sinusoidal, over the paper's vocabularies from quick's up (V 256-2048; the paper goes to 16,384, beyond what a
#   model of these shapes learns in a GPU call), N/4 and N/2 on each trunk;
# * the search, on search seeds 0-2, both variants (the alternative measured there, as FREQ_DEEP_RULE), budgets
#   N/4-N of trunks 4,000 and 32,000: ``scripts/search_deep.py --core lstm --vocab 256 512 1024 2048 --encodings none
#   sinusoidal --budgets 4000 32000 --device cuda`` (the S4D alike), its table beside key findings' presets
#   (deep_search_lstm.csv, deep_search_s4d.csv);
# * N: the smallest of GPU_DEEP_BUDGETS with POWER for morita.fig2.lstm / .s4d at <= DEEP_MAX_SEEDS seeds under
#   the protocol in force, within GPU_DEEP_MINUTES of device calls at the measured batched rates; else the largest
#   that fits, said underpowered; seeds the fewest from DEEP_MIN_SEEDS;
# * fixed targets, trained by device calls that continue each other (penb.call, DEVICE_PRESET=deep).
# Not yet run: no GPU has been lent since they were defined.
GPU_DEEP_PARTS = {"lstm": (256, 512, 1024, 2048), "s4d": (256, 512, 1024, 2048)}
GPU_DEEP_BUDGETS = (32_000, 64_000, 128_000)
GPU_DEEP_MINUTES = 30.0          # device minutes a part may take over its calls (about three 10-minute calls)

# DEEP_RULE v2 for Fig. 2's GRU (issue 58, written 2026-11-29 before the runs it reads): the deep run at 32,000
# updates left every comparison inconclusive, and its power analysis had assumed the text's PE GRU (above 95%,
# stopped) where the measured one sat at 0.137 and still rose. The next sizing reads the effect, not the text:
# * the search adds the PE GRU on the same search seeds 0-2 and budgets at the two largest vocabularies, where the
#   claim is read and the one beside it (``scripts/search_deep.py --vocab 128 256 --encodings sinusoidal --budgets
#   2000 32000``, written to deep_search_pe.csv beside v1's search; on a GPU with ``--device cuda`` and a trunk of
#   128,000 too), so the alternative is both variants' searched curves; the figure itself keeps all four V;
# * seeds: the five confirmation seeds after the first deep run's (2006-2010), so no seed whose verdict was read
#   confirms the new budget; five is all the confirmation seeds hold, so the power is read at five;
# * N: the smallest of GPU_DEEP_BUDGETS with POWER for morita.fig2.gru at those seeds, within GPU_DEEP_MINUTES of
#   one H100 (the CPU's 90 minutes reach 32,000 only); where none does, the largest that fits, said underpowered.
# penb.power.fig2 reads both searches (scripts/power_analysis.py --chapter key_findings_v2, power_analysis_v2.csv);
# DEEP_RULE (v1) stands for the archived run it sized.
DEEP_V2_SEEDS = (2006, 2007, 2008, 2009, 2010)

# DEEP_RULE v3 for Fig. 2's headline (issue 65, written 2026-12-04, after v2's V 256 part was archived at 128,000 and
# before any trunk went past what 128,000 needs, the stable trunk's 102,400 updates): what is trained and graded at
# the text's budget, and the power that design has. Nothing in it is chosen from a verdict: the issue fixed the cells
# and the budget before the 128,000-update verdicts were read.
# * cells: v2's V 256 runs (GRU, vanilla and sinusoidal, at quick's shapes, DEEP_V2_SEEDS), their own WSD trunks
#   continued (DEEP_V3_CONTINUES: one set of runs per seed) to DEEP_V3_N, the text's 300,000 updates (Morita, Sec.
#   3.3), with N/2 = 150,000 and N/4 = 75,000. The other vocabularies stay at v2's 128,000 (the trend and the decline
#   read them there);
# * seeds: those five. The confirmation pool's ten are all read (2001-2005 by v1 at 32,000, 2006-2010 by v2), and
#   the power below gains little from more (ten seeds: at most 34% in any scenario), so none is added;
# * graded at 300,000: morita.fig2.gru, fig2.distance.gru, fig2.level.gru and sec4_1.more_updates.gru at V 256,
#   under the protocol in force. There, at the text's budget, the horizon carries nothing: a level is read from its
#   own interval (at 128,000 fig2.level.gru's "not reproduced" assumed no take-off over the 1.23 doublings left;
#   at 300,000 it assumes nothing), and the extra-updates claim is read from 150,000 to 300,000, the pair the text's
#   sentence speaks of. fig2.gru still needs the doubling test: the vanilla GRU must have stopped gaining, which the
#   text says of its own vanilla models (Sec. 4.1) and which 128,000 did not show (+0.023 [+0.004, +0.041]);
# * power (penb.power.fig2_v3, power_analysis_v3.csv; both sides' per-seed curves at 32,000-128,000 in
#   book/archived/key_findings-deep_v2, offset and noise pooled from them, under protocol 8): morita.fig2.gru at
#   five seeds settles "reproduced" in 0% of draws with both sides' last moves held, 3.5% with them slowing as v2
#   extrapolated, 6.5% with both stopped at 128,000's levels (gap +0.026), 0% at the SESOI: underpowered in every
#   scenario, and said so beside its verdict. What the run can decide is the level at the text's budget and
#   whether the vanilla GRU stops gaining there (the extra-updates claim, and fig2.gru's premise);
# * cost: 251,400 run-updates a trunk (the stable trunk from 102,400 to 240,000, three decays, the N/4 branch from
#   51,200), about 246 CPU-minutes for all ten trunks on the 2-core host at the first segment's rate: two or three
#   segments. Each power is a share of 200 draws (about 2 points of Monte Carlo uncertainty at these rates).
DEEP_V3_N = 300_000
DEEP_V3_VOCAB = (256,)
DEEP_V3_SEEDS = DEEP_V2_SEEDS
DEEP_V3_CONTINUES = "deep_v2"       # the preset whose long-run trunks v3's runs continue
DEEP_RULE_V3 = (f"penb.sizing, DEEP_RULE v3 (issue 65): Fig. 2's V 256 GRU cells of DEEP_RULE v2, their trunks "
                f"continued to the text's {DEEP_V3_N:,} updates with N/2 and N/4 on seeds "
                f"{DEEP_V3_SEEDS[0]}-{DEEP_V3_SEEDS[-1]}; underpowered for morita.fig2.gru (penb.power.fig2_v3)")
