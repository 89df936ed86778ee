#!/bin/sh
# After install or upgrade: give the web engine's sandbox its user namespace
# where AppArmor restricts them. Only AppArmor 4 knows that rule (and the
# restriction); older AppArmor would refuse to parse the profile, so it is
# installed only where it is understood, and never stops the install.
set -e

PROFILE=/etc/apparmor.d/deliverables
SHIPPED=/usr/share/deliverables/apparmor/deliverables

if [ -e /etc/apparmor.d/abi/4.0 ] && command -v apparmor_parser >/dev/null 2>&1; then
  install -m 0644 "$SHIPPED" "$PROFILE"
  if [ -d /sys/kernel/security/apparmor ]; then
    apparmor_parser --replace --write-cache "$PROFILE" \
      || echo "deliverables: could not load $PROFILE; page previews may not start" >&2
  fi
fi

exit 0
