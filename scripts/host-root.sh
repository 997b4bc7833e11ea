#!/usr/bin/env bash
# The real-host suite's container: a minimal Debian root (mmdebstrap, Debian's own packages),
# cached under .cache/host-root/, booted with real systemd as PID 1 of its own PID, mount, UTS,
# IPC, network and cgroup namespaces. Nothing here ever starts systemd over this machine's own
# root: systemd is only ever exec'd through `chroot <overlay of the cached root>` inside a new
# mount namespace, after checking that the overlay is mounted where we expect it.
#
#   scripts/host-root.sh build            build the cached root if it is missing or stale
#   scripts/host-root.sh test [files…]    build, boot, run test/real-host/*.host.ts inside, tear down
#   scripts/host-root.sh shell            build, boot, open a shell inside, tear down on exit
#   scripts/host-root.sh run -- cmd…      build, boot, run one command inside, tear down
#   scripts/host-root.sh capture          build, boot, write systemd's real answers to test/host/support/captured/
#
# Each boot gets a fresh overlay (the cached root stays pristine) and its own cgroup; the
# container is torn down on every exit path (trap): PID 1 of the namespace is killed, which
# takes every process of the namespace and, with them, the mount namespace and its mounts.
set -euo pipefail

PROJECT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE="$PROJECT/.cache/host-root"
SUITE="$PROJECT/test/real-host"
SUITE_NAME=bookworm
PACKAGES=systemd,systemd-sysv,dbus,polkitd,procps
# The recipe: change any part and the cached root is rebuilt.
RECIPE="mmdebstrap --variant=minbase --include=$PACKAGES $SUITE_NAME v1"
ROOTFS="$CACHE/rootfs"
BOOT_TIMEOUT=${PRAXIS_HOST_BOOT_TIMEOUT:-90}

log() { printf 'host-root: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (mounts, namespaces, chroot)"

ensure_tools() {
  local missing=()
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  command -v unshare >/dev/null || missing+=(util-linux)
  command -v nsenter >/dev/null || missing+=(util-linux)
  command -v ip >/dev/null || missing+=(iproute2)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build_root() {
  if [ -f "$ROOTFS/.praxis-recipe" ] && [ "$(cat "$ROOTFS/.praxis-recipe")" = "$RECIPE" ]; then
    return 0
  fi
  ensure_tools
  mkdir -p "$CACHE"
  local tmp="$CACHE/rootfs.building.$$"
  rm -rf "$tmp"
  log "building the Debian root ($RECIPE)"
  local started=$SECONDS
  mmdebstrap --quiet --variant=minbase --include="$PACKAGES" "$SUITE_NAME" "$tmp" >"$CACHE/build.log" 2>&1 ||
    { tail -20 "$CACHE/build.log" >&2; rm -rf "$tmp"; die "mmdebstrap failed (log: $CACHE/build.log)"; }
  echo "$RECIPE" >"$tmp/.praxis-recipe"
  rm -rf "$ROOTFS"
  mv "$tmp" "$ROOTFS"
  log "root built in $((SECONDS - started)) s"
}

# praxis.service runs the built command (bin/praxis.js, dist/bin/): build it when src/ changed.
ensure_built() {
  local main="$PROJECT/dist/bin/main.js"
  if [ ! -f "$main" ] || [ -n "$(find "$PROJECT/src" -newer "$main" -print -quit)" ]; then
    log "building dist/ (src/ is newer than $main)"
    node "$PROJECT/scripts/build.mjs" >/dev/null || die "npm run build failed"
  fi
}

# ---------------------------------------------------------------------------------------------
# Inside the new namespaces (this script re-executed as PID 1 of the new PID namespace): lay out
# the container's mounts, then become systemd.

stage_init() {
  local run=$1
  local merged="$run/merged"
  mount --make-rprivate /
  mount -t overlay overlay -o "lowerdir=$ROOTFS,upperdir=$run/upper,workdir=$run/work" "$merged"
  # The one check that matters most: systemd is about to start with this as its root.
  [ -f "$merged/.praxis-recipe" ] || die "refusing to boot: $merged is not the overlay of the cached root"
  [ "$(stat -c %i "$merged")" != "$(stat -c %i /)" ] || die "refusing to boot: $merged is the host root"

  # The suite's units and their scripts.
  cp -a "$SUITE/root/." "$merged/"
  # A machine id, so journald keeps a persistent journal under /var/log/journal/<id>.
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$merged/etc/machine-id"
  echo >>"$merged/etc/machine-id"
  mkdir -p "$merged/var/log/journal"

  mount -t proc -o nosuid,nodev,noexec proc "$merged/proc"
  mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$merged/sys"
  mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 "$merged/sys/fs/cgroup"
  mount -t tmpfs -o mode=755,nosuid,size=4m dev "$merged/dev"
  local node
  for node in null zero full random urandom tty; do
    touch "$merged/dev/$node"
    mount --bind "/dev/$node" "$merged/dev/$node"
  done
  mkdir -p "$merged/dev/pts" "$merged/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts "$merged/dev/pts"
  ln -s pts/ptmx "$merged/dev/ptmx"
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$merged/dev/shm"
  # The host's Node.js and the project, read-only: the tests run inside the namespaces.
  touch "$merged/usr/local/bin/node"
  mount --bind "$(readlink -f "$(command -v node)")" "$merged/usr/local/bin/node"
  mkdir -p "$merged/praxis"
  mount --bind "$PROJECT" "$merged/praxis"
  mount -o remount,bind,ro "$merged/praxis"
  hostname praxis-host
  # Its own network namespace with only a loopback: a daemon inside listens on its default port
  # without meeting anything of this machine's (other daemons, other test runs).
  ip link set lo up
  exec /usr/bin/env -i container=praxis-host-test TERM=dumb \
    /usr/sbin/chroot "$merged" /lib/systemd/systemd --log-target=console --log-level=info --show-status=no \
    >"$run/console.log" 2>&1 </dev/null
}

# ---------------------------------------------------------------------------------------------
# On the host: boot, wait, run, tear down.

RUN=''
CGROUP=''
UNSHARE_PID=''
INIT_PID=''

teardown() {
  local status=$?
  set +e
  if [ -n "$INIT_PID" ] && kill -0 "$INIT_PID" 2>/dev/null; then kill -KILL "$INIT_PID"; fi
  if [ -n "$UNSHARE_PID" ]; then
    kill -KILL "$UNSHARE_PID" 2>/dev/null
    wait "$UNSHARE_PID" 2>/dev/null
  fi
  if [ -n "$CGROUP" ] && [ -d "$CGROUP" ]; then
    [ -f "$CGROUP/cgroup.kill" ] && echo 1 >"$CGROUP/cgroup.kill"
    for _ in $(seq 1 50); do
      # Deepest first; a cgroup can only go once it is empty and has no children.
      find "$CGROUP" -depth -type d -exec rmdir {} + 2>/dev/null
      [ -d "$CGROUP" ] || break
      sleep 0.1
    done
    [ -d "$CGROUP" ] && log "could not remove the cgroup $CGROUP"
  fi
  if [ -n "$RUN" ] && [ -d "$RUN" ]; then
    if [ "${PRAXIS_HOST_KEEP_RUN:-}" = 1 ]; then
      log "kept $RUN (console: $RUN/console.log)"
    elif grep -qF " $RUN/" /proc/self/mountinfo; then
      log "something is still mounted under $RUN; leaving it alone"
    else
      rm -rf "$RUN"
    fi
  fi
  exit "$status"
}

# Runs a command inside the container: every namespace of its PID 1, its root, and a clean
# environment.
inside() {
  nsenter --target "$INIT_PID" --mount --uts --ipc --net --pid --cgroup --root --wd -- \
    /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C TERM=dumb \
    PRAXIS_REAL_HOST=1 "$@"
}

boot() {
  build_root
  mkdir -p "$CACHE/runs"
  RUN=$(mktemp -d "$CACHE/runs/run.XXXXXX")
  mkdir -p "$RUN/upper" "$RUN/work" "$RUN/merged"
  trap teardown EXIT
  trap 'exit 130' INT TERM

  # Its own cgroup, which becomes the root of the container's cgroup namespace: systemd sees a
  # cgroup2 hierarchy of its own and delegates below it.
  local hierarchy=/sys/fs/cgroup
  [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || hierarchy=/sys/fs/cgroup/unified
  [ "$(stat -fc %T "$hierarchy")" = cgroup2fs ] || die "no cgroup2 hierarchy found at /sys/fs/cgroup or /sys/fs/cgroup/unified"
  CGROUP="$hierarchy/praxis-host-test.${RUN##*.}"
  mkdir "$CGROUP"

  local started=$SECONDS
  (
    echo "$BASHPID" >"$CGROUP/cgroup.procs"
    exec unshare --pid --mount --uts --ipc --net --cgroup --fork --kill-child -- "$0" __init "$RUN"
  ) &
  UNSHARE_PID=$!
  for _ in $(seq 1 100); do
    # unshare's only child (found by its parent PID; this kernel has no /proc/<pid>/task/*/children).
    INIT_PID=$(pgrep -P "$UNSHARE_PID" | head -n1) || true
    [ -n "$INIT_PID" ] && break
    sleep 0.05
  done
  [ -n "$INIT_PID" ] || die "the container's PID 1 did not appear"

  # Wait for systemd to take over PID 1 and finish booting.
  local state=''
  while [ $((SECONDS - started)) -lt "$BOOT_TIMEOUT" ]; do
    kill -0 "$UNSHARE_PID" 2>/dev/null || { cat "$RUN/console.log" >&2 2>/dev/null; die "the container exited while booting"; }
    if [ "$(cat "/proc/$INIT_PID/comm" 2>/dev/null)" = systemd ]; then
      state=$(inside /usr/bin/systemctl is-system-running 2>/dev/null) || true
      case "$state" in running | degraded) break ;; esac
    fi
    sleep 0.5
  done
  case "$state" in
    running | degraded) log "systemd booted ($state) in $((SECONDS - started)) s, PID 1 is host PID $INIT_PID" ;;
    *)
      tail -40 "$RUN/console.log" >&2 || true
      die "systemd did not finish booting within $BOOT_TIMEOUT s (state: ${state:-unknown})"
      ;;
  esac
}

main() {
  local command=${1:-test}
  shift || true
  case "$command" in
    __init) stage_init "$@" ;;
    build) build_root ;;
    test)
      ensure_tools
      ensure_built
      boot
      local files=("$@")
      if [ ${#files[@]} -eq 0 ]; then
        # In this order: faults last, because it rotates and vacuums the journal the others read.
        local name
        for name in service-status logs-query captured-fixtures host-readings service-restart praxis-service faults; do files+=("test/real-host/$name.host.ts"); done
        local extra
        for extra in "$PROJECT"/test/real-host/*.host.ts; do
          case " ${files[*]} " in *" test/real-host/${extra##*/} "*) ;; *) files+=("test/real-host/${extra##*/}") ;; esac
        done
      fi
      # One node process per file, in the order above (node's runner sorts the files it is given).
      local started=$SECONDS failed=() file
      for file in "${files[@]}"; do
        inside /usr/bin/env -C /praxis /usr/local/bin/node --import tsx --test --test-reporter=spec "$file" || failed+=("$file")
      done
      log "tests ran in $((SECONDS - started)) s"
      [ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]}"
      ;;
    capture)
      # Real answers to Praxis's command shapes, kept as the fast tests' fixtures.
      boot
      local captured="$PROJECT/test/host/support/captured"
      mkdir -p "$captured"
      inside /usr/bin/env -C /praxis /usr/local/bin/node --import tsx test/real-host/support/capture.ts >"$RUN/captured.json"
      /usr/bin/env -C "$PROJECT" node -e '
        const fs = require("node:fs");
        const all = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
        for (const [name, value] of Object.entries(all)) fs.writeFileSync(`${process.argv[2]}/${name}.json`, JSON.stringify(value, null, 2) + "\n");
        console.error(`host-root: captured ${Object.keys(all).length} answers in ${process.argv[2]}`);
      ' "$RUN/captured.json" "$captured"
      ;;
    shell)
      boot
      inside /bin/bash -l
      ;;
    run)
      [ "${1:-}" = -- ] && shift
      boot
      inside "$@"
      ;;
    *) die "unknown command $command (build, test, shell, run)" ;;
  esac
}

main "$@"
