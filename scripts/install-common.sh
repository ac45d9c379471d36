# Sourced by scripts/install-abi.sh, scripts/install-capi.sh and scripts/install.sh: the parts
# of installing that they share. Each function exits the script on error. DESTDIR (for
# packagers, as in GNU make) stages the files under DESTDIR/PREFIX while the files keep
# naming PREFIX.

# install_prefix TOOL PREFIX: prints PREFIX made absolute; refuses a prefix pkg-config files
# cannot carry (pkg-config has no quoting every consumer honours, and sed below uses '|').
install_prefix() {
  local tool="$1" prefix="$2"
  case "$prefix" in
    /*) ;;
    *) prefix="$(pwd)/$prefix" ;;
  esac
  if [[ "$prefix" =~ [[:space:]\|\&\\\"\'\$] ]]; then
    echo "$tool: prefix '$prefix' contains white space or one of | & \\ \" ' \$; pkg-config files cannot carry it" >&2
    exit 2
  fi
  printf '%s\n' "$prefix"
}

# install_root TOOL PREFIX: prints where PREFIX's files are written: DESTDIR/PREFIX, or PREFIX
# without DESTDIR.
install_root() {
  local tool="$1" prefix="$2" destdir="${DESTDIR:-}"
  if [ -n "$destdir" ]; then
    case "$destdir" in
      /*) ;;
      *) destdir="$(pwd)/$destdir" ;;
    esac
    printf '%s\n' "${destdir%/}$prefix"
  else
    printf '%s\n' "$prefix"
  fi
}

# header_version TOOL HEADER MACRO: prints MAJOR.MINOR from `#define MACRO_MAJOR Nu` and
# `#define MACRO_MINOR Nu` in HEADER, so the package version cannot drift from the header.
header_version() {
  local tool="$1" header="$2" macro="$3" major minor
  major="$(sed -n "s/^#define ${macro}_MAJOR \([0-9][0-9]*\)u\$/\1/p" "$header")"
  minor="$(sed -n "s/^#define ${macro}_MINOR \([0-9][0-9]*\)u\$/\1/p" "$header")"
  if [ -z "$major" ] || [ -z "$minor" ]; then
    echo "$tool: cannot read ${macro}_MAJOR/${macro}_MINOR from $header" >&2
    exit 1
  fi
  printf '%s.%s\n' "$major" "$minor"
}

# install_pc TEMPLATE PC PREFIX VERSION: writes PC from TEMPLATE (@PREFIX@, @VERSION@), atomically.
install_pc() {
  sed -e "s|@PREFIX@|$3|g" -e "s|@VERSION@|$4|g" "$1" > "$2.tmp"
  mv "$2.tmp" "$2"
  chmod 0644 "$2"
}
