# Sourced by setup.sh, test.sh and .ci/run: the Debian packages listed in
# .ci/packages, and the functions that find and install the missing ones.

packages_list=$(dirname "${BASH_SOURCE[0]}")/packages

# packages_for SCOPE... prints the packages the scopes (setup, test) need.
packages_for() {
	awk -v scopes=" $* " '!/^#/ && NF >= 2 && index(scopes, " " $2 " ") { print $1 }' "$packages_list"
}

# missing_packages PACKAGE... prints those dpkg does not report installed.
missing_packages() {
	local p status
	for p in "$@"; do
		if ! status=$(dpkg -s "$p" 2>/dev/null) || [[ $status != *"Status: install ok installed"* ]]; then
			echo "$p"
		fi
	done
}

# as_root runs a command as root: directly when root already, else through
# sudo. (An empty "$sudo" prefix would make bash run an environment
# assignment such as DEBIAN_FRONTEND=noninteractive as a command.)
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		echo "$(basename "$0"): $* needs root: run as root or install sudo" >&2
		return 1
	fi
}

# apt_update brings apt's package lists up to date, once per script.
apt_update() {
	[ -z "${apt_updated:-}" ] || return 0
	as_root apt-get update -q
	apt_updated=1
}

# install_packages PACKAGE... installs the packages with apt-get.
#
# emacs-bin-common recommends mailutils, which recommends a mail transport
# agent, exim4, whose configuration fails on a machine whose exim cannot
# find the mail user (seen on a fresh machine: dpkg then fails the whole
# install). Nothing here sends mail, so mailutils stays out, unless it is
# installed already: "mailutils-" would remove it.
install_packages() {
	(($#)) || return 0
	echo "$(basename "$0"): installing $*"
	apt_update
	local keep_out=()
	[ -z "$(missing_packages mailutils)" ] || keep_out=(mailutils-)
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" "${keep_out[@]}"
}
