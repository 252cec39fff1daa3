#!/usr/bin/env bash
# Prepare everything `make book` and `make test` need, on a fresh
# Debian/Ubuntu machine or any machine with Python >= 3.10:
#
#   1. Graphviz's `dot` program, from apt-get when it is missing and apt-get
#      exists (with sudo when not root). If that is not possible, the
#      graphviz-pure package from requirements.txt is used instead (step 4).
#   2. A virtual environment in .venv (python3 -m venv), created if missing.
#   3. requirements.txt installed into it (which installs minitorch itself,
#      editable). This runs again only when requirements.txt, pyproject.toml
#      or the Python version changed: a stamp file in .venv records them.
#   4. When no system `dot` exists, a `dot` link in .venv/bin pointing at
#      graphviz-pure, so that pictures still render.
#
# Environment knobs:
#   PYTHON=python3.12   the interpreter used to create .venv (default python3)
#   VENV=path           where the virtual environment lives (default .venv)
#   NO_APT=1            never call apt-get, even when `dot` is missing
#   REQUIREMENTS=file   what to install (default requirements.txt; `make setup-check`
#                       gives requirements-check.txt: only what `python -m classroom
#                       check` needs)
#
# It is safe to run again and again; a second run does almost nothing.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
REQUIREMENTS=${REQUIREMENTS:-requirements.txt}
STAMP="$VENV/.requirements-stamp"

say()  { printf '[setup] %s\n' "$*"; }
warn() { printf '[setup] WARNING: %s\n' "$*" >&2; }
die()  { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# Run a command as root: directly when we are root, through sudo otherwise.
# Returns non-zero (without running anything) when neither is possible.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        return 1
    fi
}

can_apt() {
    [ -z "${NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1 \
        && { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }
}

# apt-get install, refreshing the package lists once if the first try fails
# (a fresh machine often has empty or stale lists).
apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get install -y --no-install-recommends "$@" && return 0
    say "refreshing the apt package lists and trying again"
    as_root apt-get update && as_root apt-get install -y --no-install-recommends "$@"
}

# `dot` as found on PATH, ignoring our own fallback link in the venv.
system_dot() {
    local dir venv_bin
    venv_bin=$(cd "$VENV/bin" 2>/dev/null && pwd || true)
    local IFS=:
    for dir in $PATH; do
        [ -n "$dir" ] || continue
        [ -n "$venv_bin" ] && [ "$(cd "$dir" 2>/dev/null && pwd)" = "$venv_bin" ] && continue
        if [ -x "$dir/dot" ] && [ ! -d "$dir/dot" ]; then
            printf '%s\n' "$dir/dot"
            return 0
        fi
    done
    return 1
}

# ---------------------------------------------------------------- 1. Graphviz
if dot_path=$(system_dot); then
    : # Graphviz is there; nothing to do.
elif can_apt; then
    say "Graphviz's 'dot' is missing: installing the Debian/Ubuntu package 'graphviz'"
    if ! apt_install graphviz; then
        warn "could not install graphviz with apt-get; pictures will use graphviz-pure instead"
    fi
else
    say "Graphviz's 'dot' is missing and apt-get cannot be used here;" \
        "pictures will use graphviz-pure (installed with the Python packages)"
fi

# ------------------------------------------------------- 2. virtual environment
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null \
    || die "$PYTHON is missing or older than Python 3.10; install Python >= 3.10 (or run: make PYTHON=python3.X ...)"

if [ ! -x "$VENV/bin/python" ]; then
    say "creating the virtual environment $VENV"
    if ! venv_err=$("$PYTHON" -m venv "$VENV" 2>&1); then
        rm -rf "$VENV"
        pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
        if can_apt; then
            say "'$PYTHON -m venv' failed (Debian/Ubuntu ship venv separately): installing python$pyver-venv"
            apt_install "python$pyver-venv" || apt_install python3-venv \
                || die "could not install python3-venv; install it and run this again"
            "$PYTHON" -m venv "$VENV" || { rm -rf "$VENV"; die "could not create $VENV"; }
        else
            printf '%s\n' "$venv_err" >&2
            die "'$PYTHON -m venv' failed; on Debian/Ubuntu install python$pyver-venv and run this again"
        fi
    fi
fi

# ------------------------------------------------------ 3. Python requirements
[ -f "$REQUIREMENTS" ] || die "$REQUIREMENTS is missing"
wanted=$("$VENV/bin/python" -c '
import hashlib, sys
h = hashlib.sha256(sys.version.encode())
if sys.argv[1] != "requirements.txt":
    h.update(sys.argv[1].encode())
for name in (sys.argv[1], "pyproject.toml"):
    with open(name, "rb") as f:
        h.update(f.read())
print(h.hexdigest())' "$REQUIREMENTS")
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ]; then
    say "Python packages are up to date in $VENV"
else
    say "installing $REQUIREMENTS into $VENV (a few minutes the first time)"
    rm -f "$STAMP"
    "$VENV/bin/python" -m pip install --disable-pip-version-check --progress-bar off -r "$REQUIREMENTS"
    printf '%s\n' "$wanted" > "$STAMP"
fi

# --------------------------------------------------------- 4. the dot fallback
link="$VENV/bin/dot"
if system_dot >/dev/null; then
    # A real Graphviz exists (maybe installed since the last run): never
    # shadow it with the fallback.
    if [ -L "$link" ]; then rm -f "$link"; fi
elif [ -x "$VENV/bin/graphviz-pure" ]; then
    if [ ! -e "$link" ]; then
        ln -s graphviz-pure "$link"
        say "no system Graphviz: $link now runs graphviz-pure"
    fi
else
    warn "neither Graphviz's 'dot' nor graphviz-pure is available: graph pictures cannot be drawn"
fi

say "ready: $ROOT/$VENV"
