#!/usr/bin/env bash
# The speech engines and the voices ringhook offers (core/speech/languages): flite (English, slt),
# espeak-ng with its data (every offered language), Festival with its HTS slt voice (English,
# text2wave), and sox, which converts their audio for the telephone. Idempotent.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/ensure-debs.sh" flite espeak-ng espeak-ng-data festival festvox-us-slt-hts sox
