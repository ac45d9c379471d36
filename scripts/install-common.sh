# Sourced by scripts/install-abi.sh and scripts/install-capi.sh: the parts of installing a
# header and its pkg-config file that both do. Each function exits the script on error.

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
