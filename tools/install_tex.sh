#!/usr/bin/env bash
# TeX Live from Debian's packages, what `make pdf` needs (xelatex, latexmk, the fonts of
# Sphinx's LaTeX for xelatex). Run as root (or with sudo) on a Debian/Ubuntu machine.
set -euo pipefail
if command -v xelatex >/dev/null 2>&1 && command -v latexmk >/dev/null 2>&1; then
  echo "xelatex and latexmk are already installed"; exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends texlive-latex-recommended texlive-latex-extra \
  texlive-fonts-recommended texlive-xetex latexmk fonts-freefont-otf lmodern tex-gyre
