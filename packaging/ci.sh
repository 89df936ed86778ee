#!/usr/bin/env bash
# The package check, run as root by .ci/run: build the .deb and the .rpm from a
# copy of the tree (the build fails when a bundled part has no licence text),
# check their sizes, install the .deb with apt as a user would, check its
# licence folder, validate its desktop entry and AppStream metainfo, have the
# installed app show a page (with its script), a PDF, a video, two images and
# source code as an unprivileged user with the web sandbox on, time its start
# against the virtualenv's, remove it again, then install the .rpm into an rpm
# root and run the same previews from there (packaging/rpm_check.py).
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
  binutils desktop-file-utils appstream xz-utils rpm \
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

# The build's virtualenv holds the app and the packaging tools only: the
# test tools (and what they pull in: pandas, matplotlib, tornado) would
# otherwise be frozen wherever a dependency imports them optionally. The
# build fails if one is (packaging/licensing.py). The test tools come after.
step "virtualenv"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q -e "$work/src[packaging]"

step "build the .deb and the .rpm"
(cd "$work/src" && "$work/venv/bin/python" packaging/build.py --formats deb,rpm)
deb=$(ls "$work"/src/dist/deliverables_*_amd64.deb)
rpm=$(ls "$work"/src/dist/deliverables-*.x86_64.rpm)
ls -l "$deb" "$rpm"

# Sizes in decimal bytes. The .deb meets its 150 MB target. The installed
# tree does not meet its 400 MB one: what is left is used by the app
# (docs/adr/0008-native-packages.md has the breakdown, measured with
# packaging/unread_files.py, and what would cut it), so its limit only
# stops it from growing unnoticed.
deb_limit=150000000
installed_limit=480000000
deb_size=$(stat -c %s "$deb")
echo "size: .deb $deb_size bytes (limit $deb_limit)"
test "$deb_size" -le "$deb_limit"

step "install it"
dpkg -s deliverables >/dev/null 2>&1 && apt-get purge -y -q deliverables >/dev/null
apt-get install -y -q "$deb" >/dev/null
installed_size=$(du -s --apparent-size -B1 /opt/deliverables | cut -f1)
echo "size: installed $installed_size bytes (limit $installed_limit)," \
  "Installed-Size $(dpkg-query -W -f='${Installed-Size}' deliverables) KiB"
du -s --apparent-size -B1M /opt/deliverables/_internal/* | sort -n | tail -8
test "$installed_size" -le "$installed_limit"
test -x /usr/bin/deliverables

step "licences"
"$work/venv/bin/python" "$work/src/packaging/licensing.py" \
  --verify /opt/deliverables/licenses
test -s /usr/share/doc/deliverables/copyright
test -s /usr/share/doc/deliverables/licenses/NOTICE

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
"$work/venv/bin/pip" install -q -e "$work/src[packaging,dev]"
(cd "$work/src" && DELIVERABLES_FROZEN=/usr/bin/deliverables \
  QT_QPA_PLATFORM=offscreen "$work/venv/bin/python" -m pytest -q \
  tests/benchmarks/test_packaging_startup_benchmark.py)

step "remove it"
apt-get purge -y -q deliverables >/dev/null
test ! -e /usr/bin/deliverables
test ! -e /opt/deliverables

step "install the .rpm into an rpm root and run the same previews"
"$work/venv/bin/python" "$work/src/packaging/rpm_check.py" "$rpm"
step "done"
