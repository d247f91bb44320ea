#!/usr/bin/env bash
# The two commands of the README, each doing all set-up on a fresh machine:
#   ./run demo [--keep]   the end-to-end showcase on the embedded defaults
#   ./run tests           every check CI runs (lint, sample config, release
#                         notes, unit tests, contract tests on every supported
#                         Tacker and Blazar release, functional tests on real
#                         services: all on the newest releases, the Tacker and
#                         Blazar ones again on the oldest; one share of the
#                         slow fault cases, another each run)
# Set-up: a virtualenv in .venv with pinned dependencies (installed with
# uv), Debian packages when missing. The embedded cloud has its own venv
# (tools/minicloud).
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
VENV=$ROOT/.venv
export PBR_VERSION=${PBR_VERSION:-0.1.0}
export PYTHONWARNINGS=${PYTHONWARNINGS:-ignore::DeprecationWarning}

log() { printf '\n==> %s\n' "$*"; }

apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
            || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing Debian packages: ${missing[*]}"
    local sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# uv (pinned in tools/uv-requirements.txt, installed on first use into
# .uv-venv) creates and fills every venv: this one, the cloud's and the
# addons' (tools/minicloud/uv.py)
uv() { tools/minicloud/minicloud uv "$@"; }

setup_venv() {
    # galera-4, rsync, haproxy: the HA topology of the functional tests
    # (minicloud installs them too, see tools/minicloud/settings.py)
    apt_install python3-venv git galera-4 rsync haproxy
    [ -x "$VENV/bin/python" ] || {
        log "creating $VENV"; uv venv --quiet --seed --python python3 "$VENV"; }
    # reinstall only when a requirements file changed
    local stamp=$VENV/.placement_ext-reqs
    local want
    want=$(cat requirements.txt test-requirements.txt upper-constraints.txt setup.cfg | sha256sum)
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        log "installing Python dependencies into $VENV (uv)"
        uv pip install --quiet --python "$VENV/bin/python" -c upper-constraints.txt \
            -r requirements.txt -r test-requirements.txt -e .
        echo "$want" > "$stamp"
    fi
}

# The embedded cloud as every test run brings it up (./run tests, ./run
# slow, tox -e functional-slow): one place, so they cannot diverge (the
# slow cases once ran without ReservationFilter and skipped).
# nova-scheduler loads our reservation filter (issue 5); nova-compute
# refreshes its provider cache every 20 s (placement_ext/tests/
# functional/nova-test.conf says why)
test_cloud_env() {
    export PLACEMENT_EXT_MINICLOUD_NOVA_CONF=${PLACEMENT_EXT_MINICLOUD_NOVA_CONF:-$ROOT/etc/nova/placement-ext-scheduler.conf:$ROOT/placement_ext/tests/functional/nova-test.conf}
    export PLACEMENT_EXT_MINICLOUD_PYTHONPATH=${PLACEMENT_EXT_MINICLOUD_PYTHONPATH:-$ROOT}
}

run_tests() {
    local py=$VENV/bin
    test_cloud_env
    # the cloud's venv installs while the unit tests run, the addons'
    # (Blazar, Tacker, each release) while the cloud comes up and the
    # functional tests that need no addon run
    export PLACEMENT_EXT_PREPARED=$ROOT/.minicloud-prepared
    local prepare_log=$ROOT/.minicloud-prepare.log
    log "installing the embedded cloud's venvs in the background ($prepare_log)"
    rm -rf "$PLACEMENT_EXT_PREPARED"; mkdir -p "$PLACEMENT_EXT_PREPARED"
    {
        local stage rc
        for stage in cloud addons; do
            rc=0; tools/minicloud/minicloud prepare --only "$stage" || rc=$?
            echo "$rc" > "$PLACEMENT_EXT_PREPARED/$stage"
        done
    } >"$prepare_log" 2>&1 &
    local prepare=$!
    export PLACEMENT_EXT_PREPARE_PID=$prepare
    # a failure ends the run: do not leave pip running
    trap "pkill -P $prepare 2>/dev/null; kill $prepare 2>/dev/null || true" EXIT
    log "ruff"
    "$py/ruff" check placement_ext tools benchmarks demo
    "$py/lint-imports" --no-logo  # the layers of setup.cfg [importlinter]
    log "sample configuration is current"
    "$py/python" tools/check_sample_config.py
    log "release notes"
    "$py/reno" lint >/dev/null
    log "documentation (a warning is an error)"
    rm -rf doc/build
    "$py/sphinx-build" -W --keep-going -q -b html doc/source doc/build/html
    log "unit tests"
    "$py/stestr" run
    log "waiting for the embedded cloud's venv"
    wait_prepared cloud
    log "functional tests (real MariaDB, PostgreSQL, RabbitMQ, Placement, embedded cloud)"
    # the cloud is brought up once and taken down afterwards, unless it
    # was already running (then it is left as it was)
    tools/minicloud/minicloud run --up -- "$ROOT/run" functional
    wait "$prepare"
    trap - EXIT
}

# Wait until the background set-up of run_tests finished STAGE (cloud,
# addons); nothing to wait for outside it (tox, by hand)
wait_prepared() {
    local stage=$1 mark
    [ -n "${PLACEMENT_EXT_PREPARED:-}" ] || return 0
    mark=$PLACEMENT_EXT_PREPARED/$stage
    local waited=0
    until [ -s "$mark" ]; do
        if ! kill -0 "${PLACEMENT_EXT_PREPARE_PID:-0}" 2>/dev/null \
                && [ ! -s "$mark" ]; then
            echo "preparing the embedded cloud's $stage stopped" >&2
            return 1
        fi
        if [ "$waited" -ge 3600 ]; then
            echo "preparing the embedded cloud's $stage: no end after 1 hour" >&2
            return 1
        fi
        sleep 2; waited=$((waited + 2))
    done
    if [ "$(cat "$mark")" != 0 ]; then
        tail -30 "$ROOT/.minicloud-prepare.log"
        echo "preparing the embedded cloud's $stage failed" >&2
        return 1
    fi
}

# our Tacker driver and Blazar plugins against every supported release,
# each in its own venv (tools/minicloud/addons.py), with the standard
# library's runner (the venvs have no test tools of ours)
contract_tests() {
    local addon release venv
    for addon in tacker blazar; do
        while read -r release venv; do
            log "contract tests: $addon $release"
            "$venv/bin/python" -m unittest -q \
                "placement_ext.tests.contract.test_$addon"
        done < <(tools/minicloud/minicloud addon venvs "$addon")
    done
}

# on a running cloud: the whole functional suite (the tests that need no
# addon first, while the addons' venvs install; then the contract tests
# and the Blazar and Tacker tests on their newest releases), Tacker's own
# zone-retry test in the tacker addon's az-retry environment (it renames
# the zones: the other tests skip it), then the Tacker and Blazar tests
# on the oldest releases (OLDEST_TESTS, a subset), the zones given back.
# A representative subset, run on the oldest releases instead of the
# newest (the whole Tacker and Blazar suites again cost about 15
# minutes): these prove that the conductor starts and reselects
# (instantiate, scale out, heal; on Tacker 16 the k8s, LCM retry and
# Tacker's own az-retry tests do it too) and that the Blazar plugins work
# with that release's manager (a host deleted and enrolled again, then a
# lease at once: the case that found a bug of ours on Blazar 15).
# tox -e functional-tacker16 / -blazar18 run the newest's whole suites.
# The slow cases (about 25 minutes together): the fault cases that bring
# up the HA services, kill a Galera node, a tacker-conductor or a
# blazar-manager, Heat's own default of 5 retries of a failed server
# (about 3 minutes of Heat re-creating it), and upstream Blazar's host
# plugin deleting another project's server (upstream's bug, not ours).
# Listed once, in shares, in placement_ext/tests/functional/slow_cases.txt
# (tools/slow_cases.py): ./run tests runs one share per run, in turn;
# ./run slow (tox -e functional-slow) runs them all
SLOW_TESTS=$(python3 tools/slow_cases.py regex)
# run on the oldest releases only (the newest run the rest of the suites)
OLDEST_TESTS='placement_ext\.tests\.functional\.(tacker\.test_reselection\.TestOurReselectionInTacker\.test_instantiate_scale_out_and_heal|blazar\.test_plugin\.TestBlazarPlugin\.test_host_delete)'
# the tests that need an addon (Blazar, Tacker): they run once its venvs
# are installed
ADDON_TESTS='^placement_ext\.tests\.functional\.(blazar|tacker)\.'
# Blazar's own tempest suite: on a cloud of Blazar's devstack job (one
# host in no named zone), tox -e blazar-tempest15..18
TEMPEST_TESTS='^placement_ext\.tests\.functional\.blazar_tempest\.'
functional_tests() {
    local stestr=$VENV/bin/stestr
    # the HA fault suite's Galera part runs here (minicloud ha, brought
    # up by its first test); SLOW_TESTS run in tox -e functional-slow
    "$stestr" --test-path=./placement_ext/tests/functional run --concurrency 1 \
        --exclude-regex "$SLOW_TESTS|$ADDON_TESTS|$TEMPEST_TESTS"
    log "waiting for the addons' venvs"
    wait_prepared addons
    contract_tests
    log "functional tests of the Blazar and Tacker addons"
    "$stestr" --test-path=./placement_ext/tests/functional run --concurrency 1 \
        --exclude-regex "$SLOW_TESTS|$OLDEST_TESTS" "$ADDON_TESTS"
    demo_tests
    log "Tacker's own zone-retry test against our conductor (upstream's job environment)"
    PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY=1 \
        "$stestr" --test-path=./placement_ext/tests/functional run \
        --concurrency 1 test_upstream_az_retry
    local tacker blazar
    tacker=$(tools/minicloud/minicloud addon venvs tacker | head -1 | cut -d' ' -f1)
    blazar=$(tools/minicloud/minicloud addon venvs blazar | head -1 | cut -d' ' -f1)
    log "functional tests on the oldest releases: Tacker $tacker, Blazar $blazar"
    # Tacker's oldest release, the zones given back after the az-retry pass
    PLACEMENT_EXT_MINICLOUD_TACKER_RELEASE=$tacker tools/minicloud/minicloud addon up tacker
    PLACEMENT_EXT_MINICLOUD_TACKER_RELEASE=$tacker \
    PLACEMENT_EXT_MINICLOUD_BLAZAR_RELEASE=$blazar \
        "$stestr" --test-path=./placement_ext/tests/functional run \
        --concurrency 1 "$OLDEST_TESTS"
}

# the whole showcase (./run demo) on the running cloud, with the addons
# of the newest releases up and the zones as the demo knows them (before
# the az-retry pass renames them); it reuses the cloud and leaves it up.
# Fails when a step fails, or a picture is missing or does not name what
# it shows (its title and what it draws)
DEMO_PICTURES='placement.svg:where the VNF runs:VDU1-0
k8s.svg:Kubernetes workers and their pods:worker-0 VM:pod cache-0
blazar.svg:reserved servers:reserved-'
demo_tests() {
    log "the demo, every step (./run demo on this cloud)"
    "$VENV/bin/python" -m demo
    local picture shows names name
    while IFS=: read -r picture shows; do
        IFS=: read -ra names <<< "$shows"
        for name in "${names[@]}"; do
            grep -qF -- "$name" ".demo/$picture" || {
                echo "demo picture .demo/$picture: no \"$name\" in it" >&2
                return 1; }
        done
        echo "  .demo/$picture shows: ${names[*]}"
    done <<< "$DEMO_PICTURES"
}

# Fail when a slow case of the last stestr run was skipped for anything
# but a platform reason ("platform:" in the reason): a fault case that
# does not run proves nothing
no_skipped_slow_cases() {
    "$VENV/bin/stestr" last --subunit | "$VENV/bin/python" tools/slow_cases.py skips
}

# the slow cases alone, on a cloud brought up for them (as ./run tests
# brings it up)
slow_tests() {
    test_cloud_env
    tools/minicloud/minicloud prepare
    tools/minicloud/minicloud run --up -- "$VENV/bin/stestr" \
        --test-path=./placement_ext/tests/functional run --concurrency 1 \
        "$SLOW_TESTS"
    no_skipped_slow_cases
}

# inside "tests", on its cloud: this run's share of the slow cases (the
# commit count picks it; PLACEMENT_EXT_SLOW_SHARE=K names one)
slow_share() {
    local share
    log "slow cases: this run's share"
    share=$(python3 tools/slow_cases.py share)
    "$VENV/bin/stestr" --test-path=./placement_ext/tests/functional run \
        --concurrency 1 "$share"
    no_skipped_slow_cases
}

