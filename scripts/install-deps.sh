#!/usr/bin/env bash
# Installs the Debian packages infoflow needs, when run as root and any is missing.
# Not root and something missing: says which, and how to install them, then fails.
#
#   scripts/install-deps.sh           what `make run`, `make test` and the rest need
#   scripts/install-deps.sh slurm     besides, what `make test-slurm` needs (a one-node cluster)
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libginac-dev libcln-dev libz3-dev libeigen3-dev
  libboost-test-dev libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev tao-pegtl-dev
  texlive-latex-base texlive-latex-recommended   # compiles the generated tables in the tests
  texlive-pictures poppler-utils                 # the report's pgfplots figures and their PNG previews
  help2man                                       # the man page, generated at build time (optional)
  python3-sympy                                  # the peer of the check benchmark
  pybind11-dev python3-dev python3-numpy python3-pandas   # the Python module and its tests
  python3-nbclient python3-nbformat python3-ipykernel python3-matplotlib  # the notebook's test
  coq libcoq-coquelicot cvc5                     # certificates: re-proved by Coq, cross-checked by cvc5
)
case "${1:-}" in
  "") ;;
  slurm) packages+=(slurm-wlm munge) ;;   # slurmctld, slurmd, sbatch and the rest; munged
  *) echo "infoflow: install-deps.sh: unknown package set '$1' (known: slurm)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "infoflow: missing Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "infoflow: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
