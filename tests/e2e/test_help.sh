#!/usr/bin/env bash
# Help is safe: every command and subcommand of iofleet's table (iofleet
# help --list, so a new command is covered by adding it) answers --help and
# -h, wherever they are on the line, with its usage on stdout and exit 0,
# in an empty directory that stays empty and with a controller endpoint
# nobody listens on; iofleet help CMD prints the same.  Unknown commands,
# subcommands and options exit 2 naming them.  The bash completion parses
# and completes.  The daemons' --help creates nothing either.  Then, with a
# controller: agents' labels as KEY=VALUE and counts in the singular.
. "$(dirname "$0")/lib.sh"
fleet_setup

W="$T/work"
mkdir "$W"
cd "$W"
# Nobody listens here: a command that called the controller would fail.
export IOFLEET_CONTROLLER="ipc://$T/nobody/admin.sock"
export IOFLEET_DEMO_DIR="$W"
I="$BIN/iofleet"

# expect_help WANT CMD...: exit 0, stdout's first line "usage: WANT",
# nothing on stderr, the directory still empty.
expect_help () {
  local want=$1 rc=0
  shift
  timeout 20 "$@" >"$T/out" 2>"$T/err" || rc=$?
  [ "$rc" = 0 ] || fail "'${*#"$BIN/"}' exited $rc: $(head -3 "$T/err")"
  grep -Eq "^usage: $want( |$)" <<<"$(head -1 "$T/out")" \
    || fail "'${*#"$BIN/"}': no usage line for '$want': $(head -2 "$T/out")"
  [ ! -s "$T/err" ] || fail "'${*#"$BIN/"}' wrote to stderr: $(head -3 "$T/err")"
  [ -z "$(ls -A "$W")" ] || fail "'${*#"$BIN/"}' created $(ls -A "$W" | tr '\n' ' ')in the directory"
  [ ! -e "$T/nobody" ] || fail "'${*#"$BIN/"}' created $T/nobody"
}

# expect_usage_error PATTERN CMD...: exit 2, stderr matches PATTERN, the
# directory still empty.
expect_usage_error () {
  local pat=$1 rc=0
  shift
  timeout 20 "$@" >"$T/out" 2>"$T/err" || rc=$?
  [ "$rc" = 2 ] || fail "'${*#"$BIN/"}' exited $rc, want 2: $(head -3 "$T/err")"
  grep -Eq -- "$pat" "$T/err" || fail "'${*#"$BIN/"}': stderr lacks /$pat/: $(head -3 "$T/err")"
  [ -z "$(ls -A "$W")" ] || fail "'${*#"$BIN/"}' created $(ls -A "$W" | tr '\n' ' ')"
}

mapfile -t entries < <("$I" help --list)
[ "${#entries[@]}" -ge 20 ] || fail "help --list gave ${#entries[@]} entries: ${entries[*]}"
for must in "keys init" "db backup" "schedule rm" "schedule run-now" agents inventory "plan list" \
            run runs stats compare report history import "db check" demo help "completion bash"; do
  grep -qx "$must" <<<"$(printf '%s\n' "${entries[@]}")" || fail "help --list lacks '$must'"
done

n=0
for e in "${entries[@]}"; do
  read -ra words <<<"$e"
  # a group (plan, schedule, ...) is an entry other entries start with
  group=0
  grep -q "^$e " <<<"$(printf '%s\n' "${entries[@]}")" && group=1
  expect_help "iofleet $e" "$I" "${words[@]}" -h
  expect_help "iofleet $e" "$I" "${words[@]}" --help
  cp "$T/out" "$T/help.txt"
  expect_help "iofleet $e" "$I" help "${words[@]}"
  cmp -s "$T/help.txt" "$T/out" || fail "iofleet help $e differs from iofleet $e --help: $(diff "$T/help.txt" "$T/out" | head -5)"
  if [ "$group" = 0 ]; then
    # after arguments, and between them
    expect_help "iofleet $e" "$I" "${words[@]}" somedir x.json --help
    expect_help "iofleet $e" "$I" --controller "$IOFLEET_CONTROLLER" "${words[@]}" somedir -h 7
    expect_usage_error "unknown option '--no-such-option'" "$I" "${words[@]}" --no-such-option
  else
    expect_usage_error "unknown subcommand 'frob'" "$I" "${words[@]}" frob
  fi
  n=$((n + 1))
done
ok "$n commands and subcommands answer --help and -h (also after arguments) with their usage, create nothing, call no controller; help CMD is the same"

# The issue's cases, by name.
expect_help "iofleet keys init" "$I" keys init --help
expect_help "iofleet keys init" "$I" keys init somedir --help
expect_help "iofleet db backup" "$I" db backup --help
expect_help "iofleet db backup" "$I" db backup out.db --json -h
expect_help "iofleet schedule rm" "$I" schedule rm --help
expect_help "iofleet schedule run-now" "$I" schedule run-now --help
expect_help "iofleet report" "$I" report 3 --by --help
expect_help "iofleet schedule" "$I" schedule --help
expect_help "iofleet" "$I" --help
expect_help "iofleet" "$I" help
# (into files: grep -q ending a pipe early would fail it under pipefail)
"$I" --help >"$T/list.txt"
grep -q "^exit status:" "$T/list.txt" || fail "iofleet --help does not state the exit status"
"$I" help --man >"$T/iofleet.1"
grep -q '^\.SH "EXIT STATUS"' "$T/iofleet.1" || fail "the manual page has no EXIT STATUS"
ok "keys init, db backup, schedule rm/run-now --help: usage, nothing created"

expect_usage_error "unknown command 'frobnicate'" "$I" frobnicate
expect_usage_error "unknown command 'frobnicate'" "$I" frobnicate --help
expect_usage_error "unknown option '--frob'" "$I" --frob runs
expect_usage_error "unknown option '--frob'" "$I" runs --frob
expect_usage_error "unknown option '--frob'" "$I" report 3 --frob=1
expect_usage_error "unknown subcommand 'frob'" "$I" plan frob
expect_usage_error "missing subcommand" "$I" schedule
expect_usage_error "option '--format' needs a value" "$I" report 3 --format
expect_usage_error "option '--controller' needs a value" "$I" --controller
expect_usage_error "no command 'frobnicate'" "$I" help frobnicate
expect_usage_error "unexpected argument 'x'" "$I" completion bash x
expect_usage_error "usage: iofleet" "$I"
ok "unknown commands, subcommands, options and missing values: exit 2, named"

# Bash completion, printed from the same table.
"$I" completion bash >"$T/completion.bash"
bash -n "$T/completion.bash" || fail "iofleet completion bash does not parse"
# complete WORDS...: what the completion offers for the last word.
complete_words () {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _iofleet
           printf "%s\n" "${COMPREPLY[@]}"' _ "$T/completion.bash" "$@"
}
for e in "${entries[@]}"; do
  read -ra words <<<"$e"
  last=${words[-1]}
  # the last word's first three letters, after the words before it
  grep -qx -- "$last" <<<"$(complete_words iofleet "${words[@]:0:${#words[@]}-1}" "${last:0:3}")" \
    || fail "completion of '${words[*]:0:${#words[@]}-1} ${last:0:3}' lacks '$last': $(complete_words iofleet "${words[@]:0:${#words[@]}-1}" "${last:0:3}" | tr '\n' ' ')"
done
[ "$(complete_words iofleet --controller "$IOFLEET_CONTROLLER" sched)" = schedule ] \
  || fail "completion after --controller: $(complete_words iofleet --controller x sched)"
grep -qx -- --format <<<"$(complete_words iofleet report 3 --fo)" || fail "completion of report --fo"
[ "$(complete_words iofleet report 3 --format fio | tr '\n' ' ')" = "fio-json fio-json+ " ] \
  || fail "completion of report --format fio: $(complete_words iofleet report 3 --format fio)"
[ "$(complete_words iofleet help schedule run | tr '\n' ' ')" = "run-now " ] \
  || fail "completion of help schedule run: $(complete_words iofleet help schedule run)"
ok "completion bash parses; completes all ${#entries[@]} commands and subcommands, options and their values"

# The daemons: --help wherever it is, even as an option's value.
for args in "--help" "-h" "--db x.db --listen tcp://0.0.0.0:1 --help" "--db --help" \
            "--bogus --help" "stray --help"; do
  # shellcheck disable=SC2086
  expect_help "iofleet-controller" "$BIN/iofleet-controller" $args
done
for args in "--help" "-h" "--controller tcp://127.0.0.1:1 --spool-dir sp --help" "--name -h" \
            "--simulate 0 --help"; do
  # shellcheck disable=SC2086
  expect_help "iofleet-agent" "$BIN/iofleet-agent" $args
done
expect_help "iofleet-agent run" "$BIN/iofleet-agent" run --help
expect_help "iofleet-agent run" "$BIN/iofleet-agent" run job.fio --output-format json --help
expect_help "iofleet-agent run" "$BIN/iofleet-agent" run --allow-write-formatted rel -h
expect_help "iofleet-agent spool" "$BIN/iofleet-agent" spool --help
expect_help "iofleet-agent spool" "$BIN/iofleet-agent" spool sp extra --help
ok "iofleet-controller and iofleet-agent (run, spool) --help: usage, exit 0, nothing created"

# With a controller: labels as KEY=VALUE, sorted; counts in the singular.
cd "$T"
export IOFLEET_CONTROLLER="ipc://$T/admin.sock"
start_controller
start_agent h1 --label rack=r12 --label bay=onboard
wait_agents 1
"$I" agents >"$T/agents.txt"
grep -Eq "^h1 .* bay=onboard,rack=r12$" "$T/agents.txt" || fail "agents' labels: $(cat "$T/agents.txt")"
printf '[one]\nioengine=null\nrw=read\nbs=4k\nsize=1m\n' >"$T/one.fio"
out=$("$I" plan add one "$T/one.fio")
[ "$out" = "plan 'one' version 1: 1 step" ] || fail "plan add of one step: '$out'"
ok "agents: labels bay=onboard,rack=r12; plan add: '$out'"
