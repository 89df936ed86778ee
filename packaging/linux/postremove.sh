#!/bin/sh
# After removal: take out the AppArmor profile the install put in place.
# An upgrade runs this too (rpm: with "1", deb: with "upgrade"); the new
# version's install has already put its own profile there, so it stays.
set -e

PROFILE=/etc/apparmor.d/deliverables

case "$1" in
  upgrade | 1 | 2) exit 0 ;;
esac

if [ -e "$PROFILE" ]; then
  if command -v apparmor_parser >/dev/null 2>&1 && [ -d /sys/kernel/security/apparmor ]; then
    apparmor_parser --remove "$PROFILE" >/dev/null 2>&1 || true
  fi
  rm -f "$PROFILE"
fi

exit 0
