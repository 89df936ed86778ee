#!/usr/bin/env bash
# The package check, run as root by .ci/run: build the .deb from a copy of the
# tree, install it with apt as a user would, validate its desktop entry and
# AppStream metainfo, have the installed app show an HTML page (with its
# script) and a PDF as an unprivileged user with the web sandbox on, time its
# start against the virtualenv's, then remove the package again.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

if [ "$(id -u)" != 0 ]; then
  echo "packaging/ci.sh: run as root (it installs the package)" >&2
  exit 2
fi

export DEBIAN_FRONTEND=noninteractive
# objdump (binutils) for PyInstaller and the dependency check; the
# validators; the libraries Qt's xcb platform links to, so the build can
# name the package of each.
apt-get install -y -q --no-install-recommends \
  binutils desktop-file-utils appstream \
  libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 \
  libxcb-shape0 libxcb-randr0 libxcb-xkb1 libwayland-cursor0 \
  libwayland-egl1 >/dev/null

work="$(mktemp -d /tmp/deliverables-package.XXXXXX)"
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
tar --exclude=./.venv --exclude=./.git --exclude=./build --exclude=./dist \
  -cf - . | tar -xf - -C "$work/src"

step() { echo "== packaging: $1 ($((SECONDS - started)) s)"; }

step "virtualenv"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q -e "$work/src[packaging,dev]"

step "build the .deb"
(cd "$work/src" && "$work/venv/bin/python" packaging/build.py --formats deb)
deb=$(ls "$work"/src/dist/deliverables_*_amd64.deb)
ls -l "$deb"

step "install it"
dpkg -s deliverables >/dev/null 2>&1 && apt-get purge -y -q deliverables >/dev/null
apt-get install -y -q "$deb" >/dev/null
echo "installed: $(du -sh /opt/deliverables | cut -f1)," \
  "Installed-Size $(dpkg-query -W -f='${Installed-Size}' deliverables) KiB"
test -x /usr/bin/deliverables

step "validate the desktop entry and the metainfo"
desktop-file-validate /usr/share/applications/deliverables.desktop
appstreamcli validate --no-net \
  /usr/share/metainfo/io.github.deliverables.deliverables.metainfo.xml

step "previews as an unprivileged user"
"$work/venv/bin/python" "$work/src/packaging/smoke_test.py" \
  --user 65534 --command /usr/bin/deliverables

# As root: the demo conversation starts no web engine, and the build's
# interpreter may live where other users cannot read it.
step "start-up, installed against the virtualenv"
(cd "$work/src" && DELIVERABLES_FROZEN=/usr/bin/deliverables \
  QT_QPA_PLATFORM=offscreen "$work/venv/bin/python" -m pytest -q \
  tests/benchmarks/test_packaging_startup_benchmark.py)

step "remove it"
apt-get purge -y -q deliverables >/dev/null
test ! -e /usr/bin/deliverables
test ! -e /opt/deliverables
step "done"
