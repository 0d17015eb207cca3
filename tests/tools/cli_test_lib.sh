# Shared by the CLI's sh_tests: `source` it with the binary's path in $1.
# Sets W (the binary) and T (a scratch directory) and provides fail,
# expect_status and finish.

W="$1"
T="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect_status STATUS SUBSTRING CMD...: that exit status, one stderr line of at
# most 1,000 characters holding the substring, within 60 s.
expect_status() {
  local want_rc=$1 want=$2
  shift 2
  timeout 60 "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ "$rc" -eq "$want_rc" ] || fail "exit $rc (want $want_rc) from: $*: $(head -c 300 "$T/err")"
  [ "$(wc -l <"$T/err")" -eq 1 ] || fail "stderr is not one line from: $*: $(head -c 300 "$T/err")"
  [ "$(wc -c <"$T/err")" -le 1000 ] || fail "stderr longer than 1000 characters from: $*"
  grep -qF -- "$want" "$T/err" || fail "stderr lacks [$want] from: $*: $(head -c 300 "$T/err")"
}

# expect_error SUBSTRING CMD...: bad input, exit status 1.
expect_error() {
  expect_status 1 "$@"
}

# Exits 1 if anything failed, else prints MESSAGE.
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
  fi
  echo "$1"
}
