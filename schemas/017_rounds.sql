-- 017_rounds: [iofleet] rounds=MAX and steady_state= (common/rounds.h).
-- A plan's steps run as rounds: one steps row per step and round.
-- steps.round: 1.. for a step a round ran (NULL in a plan without
-- rounds=, and the precondition step); steps.plan_step: which of the
-- plan's steps (job groups, 0-based) the row ran (NULL before 017).
ALTER TABLE steps ADD COLUMN round INTEGER;
ALTER TABLE steps ADD COLUMN plan_step INTEGER;
-- runs.rounds: the plan's rounds= (the most); runs.steady_rule: its
-- steady_state= with every setting written out (rounds_rule_text).
ALTER TABLE runs ADD COLUMN rounds INTEGER;
ALTER TABLE runs ADD COLUMN steady_rule TEXT;
-- Per drive of a run with steady_state=: the tracked figure of each round
-- (a JSON array, rounds 1..n; null where the drive had no figure), the
-- first round whose window met the rule (NULL: not yet, or never), and
-- that window's figures (else the last window judged; NULL before the
-- first window).  Written in the transaction that stores the tracked
-- step's end (controller/rounds.c).
CREATE TABLE steady_drives (
    run_id        INTEGER NOT NULL,
    agent_id      INTEGER NOT NULL,
    target        TEXT NOT NULL,
    figures       TEXT NOT NULL DEFAULT '[]',
    steady_round  INTEGER,
    mean          REAL,
    range_pct     REAL,
    slope         REAL,
    excursion_pct REAL,
    PRIMARY KEY (run_id, agent_id, target)
) WITHOUT ROWID;
