#!/usr/bin/env bash
# Debian packages the platform and its tests need: a CJK-capable font for answer images,
# Chromium for the browser tests, PostgreSQL for the second database, Tesseract for the OCR bots. Installs only what is missing.
set -euo pipefail
missing=()
# The files hit_builder/fonts.py uses by default (tests on the files, not `fc-list | grep -q`,
# which dies of SIGPIPE under pipefail).
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || missing+=(fonts-noto-cjk)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
command -v chromium >/dev/null || missing+=(chromium)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
# Tesseract and its English and Simplified Chinese data: the OCR bots of the adversarial crowd
# (da_platform/simulation/ocr.py) and the OCR benchmark.
command -v tesseract >/dev/null || missing+=(tesseract-ocr)
ls /usr/share/tesseract-ocr/*/tessdata/eng.traineddata >/dev/null 2>&1 || missing+=(tesseract-ocr-eng)
ls /usr/share/tesseract-ocr/*/tessdata/chi_sim.traineddata >/dev/null 2>&1 || missing+=(tesseract-ocr-chi-sim)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
