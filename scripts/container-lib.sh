# Shared by scripts/container-check and scripts/compose-check (sourced, not run).
# podman here runs as root with runc and cgroupfs; these exact flags are what works on this
# project's machines (the default crun/systemd and ulimits are refused in their sandbox).

PODMAN_GLOBAL=(--runtime runc --cgroup-manager=cgroupfs)
RUN_FLAGS=(--network host --ulimit nofile=20000:20000 --ulimit nproc=4096:4096)
CACHE=.container
BASE_DEFAULT=localhost/abstract-rag-base:bookworm
BASE="${BASE:-$BASE_DEFAULT}"
IMAGE="${IMAGE:-localhost/abstract-rag:check}"
PYTHON="${PYTHON:-python3}"
QUESTION="What does SupReMix use as hard negatives?"
mkdir -p "$CACHE"

podman_() { podman "${PODMAN_GLOBAL[@]}" "$@"; }
step() { echo "==> $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

free_port() {
  "$PYTHON" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
}

install_tools() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  if [ "$BASE" = "$BASE_DEFAULT" ]; then command -v debootstrap >/dev/null || missing+=(debootstrap); fi
  [ ${#missing[@]} -eq 0 ] && return
  [ "$(id -u)" = 0 ] || fail "needs root to install ${missing[*]} (and to run podman as used here)"
  step "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >"$CACHE/apt.log" 2>&1 \
    || { tail -20 "$CACHE/apt.log" >&2; fail "apt-get install ${missing[*]}"; }
}

# The base: Debian bookworm (Python 3.11, the version requires-python and the wheels are for)
# made with debootstrap, kept as a tarball so that a wiped podman store re-imports in seconds.
make_base() {
  [ "$BASE" = "$BASE_DEFAULT" ] || return 0
  podman_ image exists "$BASE" && return
  local tarball="$CACHE/base-bookworm.tar"
  if [ ! -s "$tarball" ]; then
    step "debootstrap a minimal Debian bookworm with python3 (about a minute)"
    rm -rf "$CACHE/rootfs"
    debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bookworm \
      "$CACHE/rootfs" http://deb.debian.org/debian >"$CACHE/debootstrap.log" 2>&1 \
      || { tail -20 "$CACHE/debootstrap.log" >&2; fail "debootstrap (log: $CACHE/debootstrap.log)"; }
    rm -rf "$CACHE/rootfs/var/cache/apt/archives/"*.deb "$CACHE/rootfs/var/lib/apt/lists/"*
    tar -C "$CACHE/rootfs" -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
    rm -rf "$CACHE/rootfs"
  fi
  step "import $tarball as $BASE"
  podman_ import "$tarball" "$BASE" >/dev/null || fail "podman import $tarball"
}

# The wheelhouse: every build and runtime requirement (and those of the EXTRAS asked), built by
# the host's pip for the image's Python (same minor version, same platform); rebuilt only when
# a requirement is not in it yet. llama-cpp-python (local-llm) is compiled here the way the
# Dockerfile would (portable, no OpenMP: the image has no libgomp), never taken from pip's cache.
make_wheelhouse() {
  local extras=${1:-} image_py host_py have="$CACHE/requirements.txt" want="$CACHE/requirements.want"
  image_py=$(podman_ run --rm "${RUN_FLAGS[@]}" "$BASE" python3 -c \
    "import sys; print('%d.%d' % sys.version_info[:2])") || fail "cannot run python3 in $BASE"
  host_py=$("$PYTHON" -c "import sys; print('%d.%d' % sys.version_info[:2])")
  [ "$image_py" = "$host_py" ] || fail "the image has Python $image_py but $PYTHON is $host_py: \
the wheelhouse must match it; run with PYTHON=python$image_py"
  EXTRAS="$extras" "$PYTHON" -c "import os, tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); \
extras = [e for e in os.environ['EXTRAS'].split(',') if e]; \
print('\n'.join(d['build-system']['requires'] + d['project']['dependencies'] \
+ [r for e in extras for r in d['project']['optional-dependencies'][e]]))" | sort >"$want"
  touch "$have"
  if ls wheels/*.whl >/dev/null 2>&1 && [ -z "$(comm -23 "$want" "$have")" ]; then
    return
  fi
  [ -s "$have" ] || rm -f wheels/*.whl
  if grep -q '^llama-cpp-python' "$want" && ! ls wheels/llama_cpp_python-*.whl >/dev/null 2>&1; then
    step "compile llama-cpp-python into wheels/ (5-12 minutes on 2 cores)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_OPENMP=OFF" "$PYTHON" -m pip wheel --no-cache-dir --no-deps \
      -w wheels "$(grep '^llama-cpp-python' "$want")" >"$CACHE/wheel.log" 2>&1 \
      || { tail -20 "$CACHE/wheel.log" >&2; fail "pip wheel llama-cpp-python (log: $CACHE/wheel.log)"; }
  fi
  step "pip wheel the requirements into wheels/ for Python $image_py${extras:+ (extras: $extras)}"
  sort -u "$have" "$want" >"$have.new"
  "$PYTHON" -m pip wheel --quiet -w wheels --find-links wheels -r "$have.new" >"$CACHE/wheel.log" 2>&1 \
    || { tail -20 "$CACHE/wheel.log" >&2; fail "pip wheel (log: $CACHE/wheel.log)"; }
  mv "$have.new" "$have"
}

# prepare_image [IMAGE [EXTRAS]]: tools, base, wheelhouse, then podman build.
prepare_image() {
  local image=${1:-$IMAGE} extras=${2:-} t
  install_tools
  make_base
  make_wheelhouse "$extras"
  step "podman build --build-arg BASE=$BASE${extras:+ --build-arg EXTRAS=$extras} -t $image (log: $CACHE/build.log)"
  t=$SECONDS
  podman_ build --network host --build-arg BASE="$BASE" --build-arg EXTRAS="$extras" -t "$image" . \
    >"$CACHE/build.log" 2>&1 || { tail -30 "$CACHE/build.log" >&2; fail "podman build (log: $CACHE/build.log)"; }
  echo "    built in $((SECONDS - t)) s; $(podman_ image inspect -f '{{.Size}}' "$image" \
    | awk '{printf "%.0f MB", $1 / 1e6}')"
}

# Wait until GET $url/readyz answers 200, failing early if the container stops.
wait_ready() {
  local name=$1 url=$2 deadline=$((SECONDS + ${READY_TIMEOUT:-600})) t=$SECONDS code down_since=
  step "wait for $url/readyz (the first start indexes the bundled corpus)"
  while :; do
    code=$(curl -s -o "$CACHE/readyz.json" -w '%{http_code}' "$url/readyz" || true)
    [ "$code" = 200 ] && break
    # Not running for 10 s in a row: it stopped (a restart policy restarts within that time).
    if [ "$(podman_ inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" = true ]; then
      down_since=
    elif [ -z "${down_since:-}" ]; then
      down_since=$SECONDS
    elif [ $((SECONDS - down_since)) -ge 10 ]; then
      podman_ logs "$name" 2>&1 | tail -30 >&2
      fail "container $name stopped before it was ready"
    fi
    if [ $SECONDS -ge $deadline ]; then
      podman_ logs "$name" 2>&1 | tail -30 >&2
      fail "$url/readyz not ready after ${READY_TIMEOUT:-600} s (last: $code $(cat "$CACHE/readyz.json"))"
    fi
    sleep 2
  done
  echo "    ready in $((SECONDS - t)) s: $(cat "$CACHE/readyz.json")"
}

# POST one question to /api/ask; it must be answered (not abstained), with a citation whose key
# the text uses, from the expected generator (offline, or an LLM's name).
check_answer() {
  local url=$1 key=$2 generator=$3 code
  step "ask \"$QUESTION\""
  code=$(curl -s -o "$CACHE/answer.json" -w '%{http_code}' -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' --max-time 300 \
    -d "{\"question\": \"$QUESTION\"}" "$url/api/ask" || true)
  [ "$code" = 200 ] || fail "/api/ask answered HTTP $code: $(head -c 500 "$CACHE/answer.json")"
  "$PYTHON" - "$CACHE/answer.json" "$generator" <<'EOF' || fail "the answer is not cited (see $CACHE/answer.json)"
import json, sys
answer = json.load(open(sys.argv[1]))
problems = []
if answer["abstained"]:
    problems.append("it abstained")
cited = [c for c in answer["citations"] if f"[{c['key']}]" in answer["text"]]
if not cited:
    problems.append("no citation key of the text is among its citations")
if not answer["generator"].startswith(sys.argv[2]):
    problems.append(f"generator {answer['generator']!r}, expected {sys.argv[2]!r}")
if problems:
    sys.exit("    " + "; ".join(problems))
print(f"    {answer['generator']}: {answer['text'][:160]}...")
print("    cited: " + ", ".join(f"[{c['key']}] {c['label']}" for c in cited))
EOF
}

check_refused_without_key() {
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d '{"question": "anything"}' "$1/api/ask" || true)
  [ "$code" = 401 ] || fail "/api/ask without a key answered HTTP $code, expected 401"
  echo "    without a key: HTTP 401"
}

# The container's main process (and a process started in it) must not run as root.
check_non_root() {
  local name=$1 pid1
  uid=$(podman_ exec "$name" id -u) || fail "podman exec $name id -u"
  pid1=$(podman_ exec "$name" awk '/^Uid:/ {print $2}' /proc/1/status) || fail "read /proc/1/status"
  [ "$uid" != 0 ] && [ "$pid1" != 0 ] || fail "$name runs as root (id -u: $uid, pid 1 uid: $pid1)"
  echo "    non-root: id -u = $uid, pid 1 runs as uid $pid1 ($(podman_ exec "$name" cat /proc/1/cmdline | tr '\0' ' '))"
}

remove_containers() {
  local name
  for name in "$@"; do
    podman_ rm -f -t 5 "$name" >/dev/null 2>&1 || true
  done
}
