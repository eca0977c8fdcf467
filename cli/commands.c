/*  commands.c: the table of iofleet's commands (see commands.h), and the
    check of a command line against it. */
#include "commands.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* Options several commands share. */
#define OPT_JSON   { "--json", NULL, NULL, NULL, "print JSON instead of text" }
/* The key language of --agents, --by, --where, --a and --b (common/match.c). */
#define KEYS "agent, host, host.FIELD, transport, drive.FIELD (model, firmware, transport, " \
             "serial, ...), hba.FIELD (model, firmware, driver, ...), label.KEY (or a bare " \
             "KEY), run.KEY (the run's --label) or health.FIELD (the drive's health before " \
             "the step, in buckets: temperature_c, percentage_used, media_errors, ...)"
#define OPT_BY     { "--by", NULL, "KEY", NULL, "group by KEY: " KEYS }
#define OPT_WHERE  { "--where", NULL, "KEY=GLOB", NULL, "keep the targets whose KEY (as for " \
                     "--by) matches GLOB, and compute every figure of them only; repeatable" }
#define OPT_OUTPUT { "--output", "-o", "FILE", NULL, "the HTML file to write (- for stdout)" }
#define OPT_SINCE  { "--since", NULL, "AGE|DATE", NULL, "an age (30d, 12h, 2w, 90m) or a UTC " \
                     "date (2026-01-31, 2026-01-31T12:00:00Z)" }
#define OPT_FAIL   { "--fail-on-regression", NULL, "PCT", NULL, "exit 1 when a metric got " \
                     "significantly worse by more than PCT percent" }
#define OPT_END    { NULL, NULL, NULL, NULL, NULL }

const command_t commands[] = {
    { "agents", NULL, "[--rejected] [--json]",
      "agents known to the controller (--rejected: keys it refused)",
      "The agents the controller knows: name, connected or gone, host, the iofleet release "
      "each runs (a rolling upgrade shows who is on what), kernel, and labels as "
      "KEY=VALUE,KEY=VALUE. With --rejected, the CURVE public keys the controller refused "
      "instead: as what (agent or admin), from which address, how many attempts and when the "
      "last one was (a controller started without --keys checks no key).",
      (const command_opt_t[]) {
          { "--rejected", NULL, NULL, NULL, "the CURVE keys the controller refused" },
          OPT_JSON, OPT_END }, 0 },

    { "keys", NULL, NULL, "CURVE certificates",
      "CURVE certificates (czmq certificate files) for a fleet whose sockets are off one "
      "host. Secret files are written 0600 in directories of mode 0700; nothing that exists "
      "is overwritten.", NULL, 0 },
    { "keys", "init", "DIR",
      "make the controller's certificate and allowlists in DIR",
      "Makes the controller's certificate: DIR/controller.cert, public, for agents and admins "
      "(their --controller-key), and DIR/controller.cert_secret, which stays with the "
      "controller (iofleet-controller --keys DIR); and the allowlists DIR/agents/ and "
      "DIR/admins/. Copy an agent's NAME.cert into DIR/agents/ to admit it (removing it "
      "revokes the key; no restart), an admin's into DIR/admins/ to admit the CLI over TCP.",
      NULL, COMMAND_FILES },
    { "keys", "agent", "NAME DIR",
      "make an agent's (or an admin's) certificate in DIR",
      "Makes DIR/NAME.cert, public: copy it into the controller's KEYDIR/agents/ (or "
      "KEYDIR/admins/ for an admin) to allow it; and DIR/NAME.cert_secret, secret: "
      "iofleet-agent --cert DIR/NAME.cert_secret (or iofleet --cert). NAME: 1 to 64 letters, "
      "digits, '-', '_' or '.'.",
      NULL, COMMAND_FILES },

    { "inventory", NULL, "AGENT [--json]", "an agent's host, controllers and drives",
      "The hardware inventory agent AGENT last sent: its host (OS, kernel, CPUs, memory), "
      "storage controllers (PCI address, driver and its version, firmware, PCIe link as "
      "trained and at most) and drives (transport, model, firmware, serial, size, I/O "
      "scheduler, and whether it is the boot disk, mounted, held or partitioned). Each run "
      "records the inventory its agents had (see iofleet agents for the names).",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },

    { "plan", NULL, NULL, "plans: fio job files",
      "Plans are fio job files kept in the controller's database by name, each change a new "
      "version; a run keeps the version it ran.", NULL, 0 },
    { "plan", "add", "NAME FILE", "store a fio job file as plan NAME",
      "Checks the job file FILE (read here, at most 1 MiB) with the same parser the "
      "controller uses, so an error names the file, line and option, then stores it as plan "
      "NAME: version 1, or the next version when NAME exists. Prints the version and the "
      "number of steps. Beside fio's options, an [iofleet] section takes sla=CONDITIONS (every "
      "job's service level), purge=discard (a first step that discards the jobs' devices; "
      "agents need --allow-purge), precondition=COUNT (a first step that writes the jobs' "
      "targets COUNT times with 128 KiB sequential writes, as the SNIA PTS preconditions), "
      "rounds=MAX (the steps run again as rounds, at most MAX) and "
      "steady_state=STEP:METRIC[,window=N,range=P%,slope=P%] (the rounds end when METRIC of "
      "STEP is steady on every drive by the SNIA PTS rule; see docs/guide/02-plans.md, "
      "\"Rounds and steady state\").",
      NULL, COMMAND_FILES },
    { "plan", "list", "[--json]", "stored plans (latest versions)",
      "Each plan's name, latest version, number of steps and the file it was added from.",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },
    { "plan", "show", "NAME [--version N] [--json]", "a plan's job file as stored",
      "Prints version N of plan NAME (the newest without --version) as it was added: a "
      "header (version, when and from which file, how many runs used it, whether the plan "
      "was removed), its steps, then the job file's text.",
      (const command_opt_t[]) {
          { "--version", NULL, "N", NULL, "this version rather than the newest" },
          OPT_JSON, OPT_END }, 0 },
    { "plan", "diff", "NAME V1 V2", "what changed between two versions of a plan",
      "The job files of versions V1 and V2 of plan NAME as a unified diff (diffutils' diff "
      "-u), or a line saying they are the same.", NULL, 0 },
    { "plan", "rm", "NAME [--yes] [--json]", "remove a plan",
      "Deletes the versions of plan NAME that no run used and keeps the others, as their "
      "runs' reports need their steps; the name is hidden from plan list and run until it is "
      "added again (as a new version). Without --yes it only says what would go, and exits 2. "
      "Refused while a schedule runs the plan or a run of it is queued or running.",
      (const command_opt_t[]) {
          { "--yes", NULL, NULL, NULL, "remove it (without: say what would go)" },
          OPT_JSON, OPT_END }, 0 },

    { "run", NULL, "PLAN [--agents SELECTOR] [--min-agents N | --require-all] [--wait] [--json]\n"
      "PLAN ... [--label KEY=VALUE]... [--note TEXT] [--tolerate-gaps]",
      "run a plan on the selected agents",
      "Queues a run of plan PLAN (its latest version) on the agents SELECTOR picks, and prints "
      "the run id. Runs queue: one runs at a time, its steps one after another, and every "
      "agent finishes step k before step k+1 starts. An agent that refuses a step (its --allow "
      "does not cover the target, the file cannot be created, ...) or does not answer in time "
      "is left out of that step and named in the report with its reason; the run is then "
      "partial.\n"
      "With --wait it shows the progress and then a summary, and exits 0 only if the run is "
      "complete (every step finished on every selected agent) and meets its plan's "
      "iofleet_sla, so cron and CI can gate on it.",
      (const command_opt_t[]) {
          { "--agents", NULL, "SELECTOR", "all", "all (the default), names (n1,n2), or "
            "conditions KEY=GLOB,... (rack=r12, hba.firmware=16.*, drive.transport=nvme); "
            "KEY: " KEYS },
          { "--min-agents", NULL, "N", NULL, "fail the run at the first step with fewer than N "
            "agents ready" },
          { "--require-all", NULL, NULL, NULL, "fail the run at the first step any selected "
            "agent misses (the ready ones stand down)" },
          { "--wait", NULL, NULL, NULL, "show the progress until the run ends, then its "
            "summary; exit 0 only for a complete run that meets its SLA" },
          { "--json", NULL, NULL, NULL, "print JSON: the run, or with --wait its status and "
            "report" },
          { "--label", NULL, "KEY=VALUE", NULL, "a label kept on the run (repeatable): the "
            "firmware under test, a ticket; shown by runs, matched by run.KEY" },
          { "--note", NULL, "TEXT", NULL, "a note kept on the run (at most 1024 bytes)" },
          { "--tolerate-gaps", NULL, NULL, NULL, "a step whose agents all finished is complete "
            "even when one was stopped (SIGSTOP) for a while meanwhile: its gap and the catch-up "
            "after it are still named in the report (without: the step is partial)" },
          OPT_END }, 0 },

    { "runs", NULL, "[--json]", "runs: when, plan and version, status, labels and note",
      "Every run: its id, when it was made, its plan and the plan's version, status (queued, "
      "running, complete, partial, failed or cancelled, and by whom), number of agents, its labels and note (iofleet "
      "run --label, --note) and the controller's message about it.",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },
    { "runs", "rm", "RUN [--yes] [--json]", "remove an ended run and all its results",
      "Removes run RUN and every row of it: each table of the database with a run_id (a "
      "schedule's record of having fired it stays, without the run). Without --yes it only "
      "says what would go, and exits 2. A queued or running run is refused (cancel it first), "
      "and so is a run a schedule judges against (its --baseline).",
      (const command_opt_t[]) {
          { "--yes", NULL, NULL, NULL, "remove it (without: say what would go)" },
          OPT_JSON, OPT_END }, 0 },

    { "cancel", NULL, "RUN [--json]", "stop a queued or running run",
      "Stops run RUN: a queued run never starts; a running one's agents stop their workers "
      "(and any layout) within a second. What they delivered before is kept and reported. "
      "The run, its current step and the steps not begun end 'cancelled', with who cancelled "
      "(USER@HOST of this command) and when; run --wait and watch on it exit 1. A run that "
      "has ended is refused.",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },

    { "stats", NULL, "[--json]", "what the controller took in since it started",
      "What the controller took in since it started: snapshots stored, messages and bytes "
      "received, commits; the ingest lag (from the end of an interval to the commit that made "
      "its snapshots durable) and the time of one tick's commit, as p50, p99 and max; its RSS "
      "and CPU time; the size of its database; its counters. A lag that keeps growing means "
      "the controller is not keeping up.",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },

    { "watch", NULL, "RUN [--json]", "a run's progress until it ends",
      "Shows run RUN's progress until it ends, refreshed twice a second: per step a bar, the "
      "time left, the last interval's fleet IOPS and p99, the agents by state, and the agents "
      "whose IOPS stand out (plain lines every 5 s when stderr is not a terminal); then its "
      "summary. The exit status is that of run --wait: 0 only for a complete run that meets "
      "its SLA. Interrupting watch leaves the run going (iofleet cancel RUN stops it).",
      (const command_opt_t[]) {
          { "--json", NULL, NULL, NULL, "print the run's status and report as JSON at the "
            "end" },
          OPT_END }, 0 },

    { "compare", NULL,
      "A B [--by KEY [--sum]] [--steps A_STEP=B_STEP,... | --force] [--format text|json|csv] "
      "[--fail-on-regression PCT]\n"
      "A B --format html -o FILE [--by KEY] [--fail-on-regression PCT]\n"
      "RUN --a KEY=GLOB --b KEY=GLOB [--sum] [--format text|json|csv] [--fail-on-regression PCT]\n"
      "A B | RUN --a KEY=GLOB --b KEY=GLOB  --template ab [--ab-threshold PCT] "
      "[--format text|json]",
      "run B against run A, or two groups of one run",
      "Matches the steps of run B to those of run A by name and shows, for the fleet (and "
      "each group with --by), IOPS, bandwidth, p50, p99 and p99.9 of both, the change in "
      "percent, and whether it is significant: beyond both runs' own interval-to-interval "
      "noise, and at least 2%. --format html writes the same as one file with charts of the "
      "changes, regressions highlighted. With --a and --b it compares two groups of one run "
      "instead, e.g. --a label.bay=onboard --b label.bay=expander. Groups are compared per "
      "member (IOPS and bandwidth per agent and per target, percentiles from merged "
      "histograms) with the member counts shown; --sum compares totals. The header names the "
      "plan, version, status and labels of both sides. Runs of different plans or plan "
      "versions are refused (exit 2) unless --steps maps their steps or --force is given, "
      "and then every row names the step of each plan it compares; a failed run, or one that "
      "measured nothing, is refused, never shown as -100%. It exits 1 when "
      "--fail-on-regression finds a metric significantly worse, or nothing could be "
      "compared.",
      (const command_opt_t[]) {
          OPT_BY,
          { "--format", NULL, "FMT", "text json csv html", "text (the default), json, csv, or "
            "html (one file with charts; needs -o)" },
          OPT_OUTPUT,
          { "--a", NULL, "KEY=GLOB", NULL, "the first group of RUN (A); KEY: " KEYS },
          { "--b", NULL, "KEY=GLOB", NULL, "the second group of RUN (B)" },
          { "--sum", NULL, NULL, NULL, "compare groups' totals rather than per member" },
          { "--steps", NULL, "A_STEP=B_STEP,...", NULL, "which step of run B to compare with "
            "which of run A (runs of different plans or versions)" },
          { "--force", NULL, NULL, NULL, "compare runs of different plans or versions by step "
            "name (each row names both steps)" },
          { "--template", NULL, "NAME", "ab", "ab: the backplane A/B report's shape: per test "
            "(step) the change of B against A in IOPS, bandwidth, p50 and p99 with significance, "
            "and a conclusion per test and overall (text or json)" },
          { "--ab-threshold", NULL, "PCT", NULL, "with --template ab: the smallest significant "
            "change a conclusion counts (default 5)" },
          OPT_FAIL, OPT_END }, 0 },

    { "report", NULL, "RUN [--format FMT] [--by KEY] [--where KEY=GLOB]... [-o FILE] "
      "[--template qualification|pts [--target-iops N] [--headroom PCT] "
      "[--sla-class NAME:p99<T]...]",
      "a run's full report",
      "The full report of run RUN: per step, each agent's targets, the groups (with --by) and "
      "the fleet, with IOPS, bandwidth and latency percentiles from merged histograms; "
      "outliers flagged per group, with the health cause of a slow drive; each drive's health "
      "(temperature over the step, throttling, new errors, write amplification); the agents "
      "left out and the data missing, named; and the verdict of the plan's SLA and health "
      "rule. With --where, the controller selects the matching targets first and computes "
      "every figure (fleet totals and percentiles, groups, outliers, SLA checks) from them "
      "only, in every format. It exits 1 when the run failed its verdict.",
      (const command_opt_t[]) {
          { "--format", NULL, "FMT", "text json csv fio-json fio-json+ html", "text (the "
            "default), json, csv, fio-json or fio-json+ (fio's format: one job per step and "
            "agent), or html (one self-contained file with charts; needs -o)" },
          { "--json", NULL, NULL, NULL, "the same as --format json" },
          OPT_BY, OPT_WHERE, OPT_OUTPUT,
          { "--template", NULL, "NAME", "qualification pts", "qualification: the report in "
            "a qualification report's shape (text, json or html): per group (--by, default "
            "drive.transport) the random reads' mean/p95/p99/p99.9, peak IOPS and its depth, "
            "the knee, a mix's penalty against pure reads, SLA classes and capacity advice; "
            "pts: a run with rounds= as the SNIA PTS reports it (text, json or html): each drive's "
            "steady state and the test matrix (block size x mix) over the measurement windows; "
            "see docs/guide/03-reports-and-templates.md, \"The qualification report\" and \"The PTS "
            "report\"" },
          { "--target-iops", NULL, "N", NULL, "with --template qualification: the IOPS the "
            "capacity advice sizes for (default 200000)" },
          { "--headroom", NULL, "PCT", NULL, "with --template qualification: the p99 headroom "
            "each drive keeps under a class's limit in the advice (default 30)" },
          { "--sla-class", NULL, "NAME:p99<T", NULL, "with --template qualification: an SLA "
            "class (repeatable; default OLTP:p99<2ms and latency-sensitive:p99<1ms)" },
          OPT_END }, 0 },

    { "history", NULL,
      "[--step GLOB] [--metric M] [--by KEY] [--where KEY=GLOB]... [--since AGE|DATE] "
      "[--plan GLOB] [--direction read|write|trim] [--format text|json|csv]",
      "one metric over runs, one row per run (and group)",
      "One row per run (and group) over time, oldest first: the run, its time (UTC), plan, "
      "origin (iofleet, or fio for an import), step, group (fleet without --by and --where), "
      "direction, metric and value. Groups come from merged histograms, as in reports. The "
      "fleet and --by drive.firmware, drive.model or hba.firmware (without --where) are read "
      "from the history index the controller keeps while idle; other groupings, and steps not "
      "indexed yet, are computed from the runs' results.",
      (const command_opt_t[]) {
          { "--step", NULL, "GLOB", NULL, "the steps whose name matches GLOB" },
          { "--metric", NULL, "M", "p99 p50 p90 p95 p99.9 p99.99 mean min max stddev iops bw "
            "ops errors", "p99 (the default), p50, p90, p95, p99.9, p99.99, mean, min, max, "
            "stddev (ns), iops, bw (bytes/s), ops or errors" },
          OPT_BY, OPT_WHERE, OPT_SINCE,
          { "--plan", NULL, "GLOB", NULL, "the runs of the plans whose name matches GLOB" },
          { "--direction", NULL, "DIR", "read write trim", "read, write or trim only" },
          { "--format", NULL, "FMT", "text json csv", "text (the default), json or csv" },
          { "--json", NULL, NULL, NULL, "the same as --format json" },
          { "--no-index", NULL, NULL, NULL, "compute every step from its results instead of "
            "reading the history index (slower; the same figures)" },
          OPT_END }, 0 },

    { "import", NULL, "FILE.json... [--label KEY=VALUE]... [--plan NAME] [--host NAME] [--json]",
      "store fio's JSON output as runs",
      "Stores fio's JSON output (--output-format=json or json+, also of client/server mode) "
      "as complete runs, so that fio results join the history: each job name is a step, each "
      "job entry a target of its host. With json+ the latency bins become histograms, which "
      "group and merge like iofleet's own; otherwise fio's percentiles are kept as they are, "
      "never merged. A file is checked whole before anything is stored, and the same document "
      "imported twice is refused.",
      (const command_opt_t[]) {
          { "--label", NULL, "KEY=VALUE", NULL, "tag the runs (--by label.KEY groups on it; a "
            "key named like an inventory key, drive.firmware, answers --by that key); "
            "repeatable" },
          { "--plan", NULL, "NAME", NULL, "the plan name the runs are stored under" },
          { "--host", NULL, "NAME", NULL, "the host of the entries (fio's normal output does "
            "not name it)" },
          { "--json", NULL, NULL, NULL, "print one JSON line per file" },
          OPT_END }, COMMAND_FILES },

    { "schedule", NULL, NULL, "runs on a cron schedule",
      "A schedule queues a run of PLAN whenever its cron expression falls due (five fields: "
      "ranges 1-5, lists 1,3, steps */15, names jan..dec, sun..sat; @daily, @hourly, @weekly, "
      "@monthly, @yearly), in time zone ZONE (an IANA name, default UTC). When the run ends "
      "it is compared with its baseline (last-pass: the newest earlier run of this schedule "
      "that passed; or a fixed RUN), per step and per --by group: a significant change for "
      "the worse beyond PCT percent (default 10) in IOPS, bandwidth, p50 or p99 is a "
      "regression, recorded (iofleet regressions) and handed to the controller's "
      "--on-regression hook.\n"
      "Runs never overlap: a fire while another run is queued or running waits behind it "
      "(--overlap wait, the default) or is skipped (--overlap skip). A fire missed while the "
      "controller was down runs once when it starts again, however many were missed; "
      "--no-catch-up waits for the next one instead.", NULL, 0 },
    { "schedule", "add",
      "NAME --cron EXPR --plan PLAN [--agents SELECTOR] [--baseline last-pass|RUN] "
      "[--fail-on-regression PCT] [--by KEY] [--tz ZONE] [--overlap wait|skip] [--no-catch-up]",
      "run a plan on a cron schedule, each run compared with a baseline",
      "Adds schedule NAME: a run of PLAN whenever EXPR falls due, compared with its baseline "
      "when it ends (see iofleet help schedule). Prints when it fires next.",
      (const command_opt_t[]) {
          { "--cron", NULL, "EXPR", NULL, "when: 'MIN HOUR DOM MON DOW' or @daily, @hourly, "
            "@weekly, @monthly, @yearly" },
          { "--plan", NULL, "PLAN", NULL, "the plan to run" },
          { "--agents", NULL, "SELECTOR", "all", "the agents, as for iofleet run --agents" },
          { "--baseline", NULL, "last-pass|RUN", "last-pass", "what each run is compared with: "
            "the newest earlier run of the schedule that passed (the default), or run RUN" },
          { "--fail-on-regression", NULL, "PCT", NULL, "a significant change for the worse "
            "beyond PCT percent is a regression (default 10)" },
          OPT_BY,
          { "--tz", NULL, "ZONE", NULL, "the time zone of EXPR, an IANA name (default UTC)" },
          { "--overlap", NULL, "MODE", "wait skip", "a fire while another run is queued or "
            "running waits behind it (wait, the default) or is skipped (skip)" },
          { "--no-catch-up", NULL, NULL, NULL, "after the controller was down, wait for the "
            "next fire instead of running the missed one" },
          OPT_END }, 0 },
    { "schedule", "list", "[--json]", "schedules, their next and last fires",
      "Each schedule: its cron expression, time zone, plan, next fire, and the last fire with "
      "its run and verdict (or why it was skipped).",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },
    { "schedule", "rm", "NAME", "remove a schedule",
      "Removes schedule NAME; its past fires and regressions are kept.", NULL, 0 },
    { "schedule", "run-now", "NAME", "fire a schedule now",
      "Fires schedule NAME now, as its cron expression would, and prints the run id.",
      NULL, 0 },

    { "regressions", NULL, "[--since AGE|DATE] [--schedule NAME] [--json]",
      "what scheduled runs found worse than their baseline",
      "The regressions scheduled runs found: when, the schedule, the run and its baseline, "
      "the step, group and metric, both values, the change, and what the --on-regression "
      "hook made of it.",
      (const command_opt_t[]) {
          OPT_SINCE,
          { "--schedule", NULL, "NAME", NULL, "the regressions of schedule NAME only" },
          OPT_JSON, OPT_END }, 0 },

    { "gc", NULL, "--keep-intervals AGE [--json]", "drop per-interval data of old runs",
      "Drops the per-interval snapshots of the runs that ended more than AGE ago; per-step "
      "results and merged histograms are kept forever, so reports, compare and history still "
      "answer (without per-second series: significance needs them). Then VACUUM gives the "
      "space back; the controller pauses while it runs.",
      (const command_opt_t[]) {
          { "--keep-intervals", NULL, "AGE", NULL, "an age: 30d, 2w, 12h, 90m" },
          OPT_JSON, OPT_END }, 0 },

    { "test-clock", NULL, "[EPOCH]", "(tests only) the scheduler clock",
      "Tests only: prints the scheduler clock of a controller started with --test-clock, in "
      "Unix seconds, or sets it to EPOCH.", NULL, 0 },

    { "db", NULL, NULL, "the controller's database",
      "The controller's SQLite database, checked, measured or copied while the controller runs.",
      NULL, 0 },
    { "db", "check", "[--json]", "the database's integrity check",
      "Runs SQLite's integrity check on the controller's database and prints its pages, size "
      "and each problem found. It exits 1 when the database is damaged.",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },
    { "db", "usage", "[--json]", "what each table of the database holds",
      "Prints each table's rows and size with its indexes, biggest first, the database's size "
      "and its free pages (left by deletes such as the retention policy's, and reused before "
      "the file grows), and what the per-interval data holds: target-intervals, the blocks "
      "they are stored in (one per agent and interval, compressed) and the bytes each "
      "target-interval costs on disk. It reads every page (on a reader: runs go on), seconds "
      "per GiB.",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, 0 },
    { "db", "backup", "FILE [--json]", "an online, checked copy of the database",
      "Copies the controller's database to FILE with SQLite's backup API while runs go on "
      "(the controller pauses for the copy), checks the copy, and writes it 0600; it never "
      "overwrites a file. FILE is on the controller's host; a relative one is taken from this "
      "directory.",
      (const command_opt_t[]) { OPT_JSON, OPT_END }, COMMAND_FILES },

    { "demo", NULL, "[--agents N] [--keep] [--dir DIR] [--plan FILE]",
      "a local controller and agents, a plan and its report",
      "Starts a controller on a temporary database and N local agents, each against a file "
      "of its own in a temporary directory, runs the demo plan (about 30 s), prints its "
      "report, and stops and removes everything it started. The directory must be on a file "
      "system with O_DIRECT (not tmpfs).",
      (const command_opt_t[]) {
          { "--agents", NULL, "N", NULL, "how many agents (default 4)" },
          { "--keep", NULL, NULL, NULL, "keep the directory, its database and logs" },
          { "--dir", NULL, "DIR", NULL, "where to make the directory (default $IOFLEET_DEMO_DIR, "
            "else /var/tmp)" },
          { "--plan", NULL, "FILE", NULL, "run this job file instead of the demo plan" },
          OPT_END }, 0 },

    { "help", NULL, "[COMMAND [SUBCOMMAND]]", "the commands, or one command's usage",
      "Without a command, the list of commands; with one, its usage, description and options, "
      "the same as iofleet COMMAND --help.",
      (const command_opt_t[]) {
          { "--list", NULL, NULL, NULL, NULL },     /* every entry, one a line (tests) */
          { "--man", NULL, NULL, NULL, NULL },      /* the manual page (the build) */
          { "--markdown", NULL, NULL, NULL, NULL }, /* docs/reference/cli.md */
          OPT_END }, COMMAND_NAMES },

    { "completion", NULL, NULL, "shell completion",
      "Shell completion scripts, printed from the same table as this help.", NULL, 0 },
    { "completion", "bash", "", "a bash completion script",
      "Prints a bash completion script for iofleet's commands, subcommands and options. The "
      "packages install it as /usr/share/bash-completion/completions/iofleet; to try it in "
      "a shell: source <(iofleet completion bash).", NULL, 0 },

    { NULL, NULL, NULL, NULL, NULL, NULL, 0 },
};

const command_opt_t commands_global_opts[] = {
    { "--controller", NULL, "ENDPOINT", NULL, "the controller's admin endpoint, ipc://PATH or "
      "tcp://HOST:PORT (default: $IOFLEET_CONTROLLER, else this host's controller)" },
    { "--cert", NULL, "FILE", NULL, "CURVE, for a controller off this host: this admin's "
      "secret certificate (NAME.cert_secret of iofleet keys agent; NAME.cert goes in the "
      "controller's KEYDIR/admins/); default $IOFLEET_CERT" },
    { "--controller-key", NULL, "FILE", NULL, "CURVE: the controller's public certificate "
      "(KEYDIR/controller.cert); default $IOFLEET_CONTROLLER_KEY" },
    { "--help", "-h", NULL, NULL, "this list; after a command, that command's usage" },
    { "--version", NULL, NULL, NULL, "print the release" },
    OPT_END,
};

const char commands_intro[] =
    "Qualify storage across a fleet: plans are fio job files, run on many hosts at once; "
    "results are kept as latency histograms in the controller's database.";

const char commands_exit_status[] =
    "0: the command did what it was asked.\n"
    "1: it failed: the controller could not be reached, or refused the request (an unknown "
    "plan or run, or anything else only the controller can check); a file could not be read "
    "or written; a run did not complete or failed its SLA (run --wait, watch, report); a "
    "comparison found a regression (--fail-on-regression); the database is damaged (db "
    "check).\n"
    "2: a usage error, found on the command line before anything was done: an unknown "
    "command, subcommand or option, a missing or malformed argument.\n"
    "130 (143): run --wait or watch stopped by SIGINT (SIGTERM); the run goes on in the "
    "controller.";

const char commands_environment[] =
    "IOFLEET_CONTROLLER: the controller's admin endpoint when --controller is not given; "
    "otherwise ipc:///run/iofleet/admin.sock for root (the packaged controller's), else "
    "ipc://$XDG_RUNTIME_DIR/iofleet/admin.sock, or ipc:///tmp/iofleet-UID/admin.sock "
    "without XDG_RUNTIME_DIR.\n"
    "IOFLEET_CERT, IOFLEET_CONTROLLER_KEY: --cert and --controller-key when not given.\n"
    "IOFLEET_DEMO_DIR: where iofleet demo makes its directory (default /var/tmp).";

const command_t *
commands_find (const char *name, const char *sub)
{
    for (const command_t *c = commands; c->name; c++)
        if (strcmp (c->name, name) == 0
            && (sub ? c->sub && strcmp (c->sub, sub) == 0 : !c->sub))
            return c;
    return NULL;
}

bool
commands_is_group (const char *name)
{
    for (const command_t *c = commands; c->name; c++)
        if (c->sub && strcmp (c->name, name) == 0)
            return true;
    return false;
}

const command_opt_t *
command_opt_find (const command_t *c, const char *arg)
{
    size_t n = strcspn (arg, "=");
    for (const command_opt_t *o = c->opts; o && o->name; o++) {
        bool name = strlen (o->name) == n && strncmp (o->name, arg, n) == 0;
        bool alias = o->alias && strcmp (o->alias, arg) == 0;
        if (name || alias)
            return o;
    }
    return NULL;
}

static bool
is_help (const char *arg)
{
    return strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0;
}

/* "iofleet plan" or "iofleet plan add": what messages about c start with. */
static const char *
full_name (const command_t *c, char *buf, size_t cap)
{
    snprintf (buf, cap, "%s%s%s", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
    return buf;
}

/* The subcommands of group name, "add or list" style, into buf. */
static const char *
sub_names (const char *name, char *buf, size_t cap)
{
    int n = 0, k = 0;
    for (const command_t *c = commands; c->name; c++)
        n += c->sub && strcmp (c->name, name) == 0;
    buf[0] = '\0';
    for (const command_t *c = commands; c->name; c++)
        if (c->sub && strcmp (c->name, name) == 0) {
            k++;
            size_t len = strlen (buf);
            snprintf (buf + len, cap - len, "%s%s", k == 1 ? "" : k == n ? " or " : ", ", c->sub);
        }
    return buf;
}

commands_verdict_t
commands_check (int argc, char **argv, const command_t **cmd)
{
    IOF_ASSERT (argc >= 1 && cmd);
    char full[128], subs[256];
    const command_t *c = commands_find (argv[0], NULL);
    *cmd = NULL;
    if (!c) {
        fprintf (stderr, "iofleet: unknown command '%s' (see iofleet --help)\n", argv[0]);
        return COMMANDS_USAGE;
    }
    int first = 1;
    /* A group with a synopsis of its own (runs: the list; runs rm) is that
       command when no subcommand follows. */
    bool own = c->synopsis && (argc < 2 || (argv[1][0] == '-' && !is_help (argv[1])));
    if (commands_is_group (c->name) && !own) {
        if (argc < 2 || is_help (argv[1])) {
            *cmd = c;
            if (argc >= 2)
                return COMMANDS_HELP;
            fprintf (stderr, "iofleet %s: missing subcommand: %s (see iofleet help %s)\n", c->name,
                     sub_names (c->name, subs, sizeof subs), c->name);
            return COMMANDS_USAGE;
        }
        const command_t *s = commands_find (c->name, argv[1]);
        if (!s) {
            fprintf (stderr, "iofleet %s: unknown subcommand '%s': use %s (see iofleet help "
                     "%s)\n", c->name, argv[1], sub_names (c->name, subs, sizeof subs), c->name);
            return COMMANDS_USAGE;
        }
        c = s;
        first = 2;
    }
    *cmd = c;
    /* --help wins wherever it is: nothing else on the line is acted on. */
    if (args_want_help (argc, argv, first))
        return COMMANDS_HELP;
    for (int i = first; i < argc && strcmp (argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0')    /* an argument, or "-" */
            continue;
        const command_opt_t *o = command_opt_find (c, a);
        if (!o) {
            fprintf (stderr, "iofleet %s: unknown option '%.*s' (see iofleet help %s)\n",
                     full_name (c, full, sizeof full), (int) strcspn (a, "="), a, full);
            return COMMANDS_USAGE;
        }
        if (!o->arg || strchr (a, '='))
            continue;
        if (i + 1 >= argc) {
            fprintf (stderr, "iofleet %s: option '%s' needs a value, %s (see iofleet help %s)\n",
                     full_name (c, full, sizeof full), a, o->arg, full);
            return COMMANDS_USAGE;
        }
        i++;    /* its value, whatever it looks like */
    }
    return COMMANDS_RUN;
}
